#!/usr/bin/env bash
# The authors' C++ MA-sLDAc (fmpr/MA-sLDAc, "MA-sLDAc (smooth)") on the
# corpus shapes of BenchmarkShapes (issue 27, docs/performance.md "Every
# corpus shape"): 15 batch EM iterations (em max iter 14: its loop runs one
# more), K 20, α 0.1, τ 0.1, ω 1, its other defaults, one thread; prints
# each shape's CPU seconds (user + system, file reading included) and the
# truth accuracy it reports (its last [ALL] line: argmax λ). The C++ is built in a scratch folder, never in this
# repository:
#
#   git clone https://github.com/fmpr/MA-sLDAc /tmp/cpp && cd "/tmp/cpp/MA-sLDAc (smooth)"
#   apt-get install libgsl-dev && g++ -O2 *.cpp -o maslda -lgsl -lgslcblas -lm
#   MASLDA_SHAPE_DUMP=/tmp/shapes go test ./models -run TestDumpShapes
#   bash docs/scripts/shapes_cpp.sh "/tmp/cpp/MA-sLDAc (smooth)/maslda" /tmp/shapes [SHAPE...]
set -eu
cpp=$1
dir=$2
shift 2
shapes=${*:-tweets news long classes annotators vocab}
for s in $shapes; do
  d=$dir/$s
  printf 'var max iter 100\nvar convergence 1e-4\nem max iter 14\nem convergence 1e-12\nL2 penalty 0.1\nlabels file %s\npi estimate\npi file none\nlambda laplace smoother 0.0001\n' "$d/labels.txt" >"$d/settings15.txt"
  rm -rf "$d/cpp_out"
  /usr/bin/time -f '%U %S' -o "$d/cpp.time" "$cpp" est "$d/docs.ldac" "$d/answers.txt" "$d/settings15.txt" 0.1 0.1 1 20 random 1 "$d/cpp_out" >"$d/cpp.log" 2>&1
  acc=$(grep '^\[ALL\]' "$d/cpp.log" | tail -1 | awk '{print $2}')
  printf '%s\t%s cpu-s\ttruth accuracy (argmax λ) %s\n' "$s" "$(awk '{print $1 + $2}' "$d/cpp.time")" "$acc"
done
