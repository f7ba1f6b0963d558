#!/usr/bin/env bash
# The ratio table of the corpus-shape matrix (issue 27, docs/performance.md
# "Every corpus shape"): runs models' BenchmarkShapes (6 generated shapes ×
# plain LDA, MA-sLDAc with the product and the quadratic bound, MA-sLDAr;
# one worker, whole runs of 15 iterations from Build) ROUNDS times with one
# test binary, and prints per shape the ratios of CPU seconds within each
# round (the benchmarks of a shape run one after the other, so a round's
# ratios are interleaved measurements), the rounds separated by " / ":
#
#   bash docs/scripts/shapes.sh                 # 1 round, every shape (~3 min on one core)
#   bash docs/scripts/shapes.sh 2 'shape=long'  # 2 rounds of the shapes matching a regexp
#   bash docs/scripts/shapes.sh -f out.txt      # the table of a saved benchmark output
#
# Columns: the shape (distinct words a document, tokens a distinct word);
# plain LDA's CPU seconds per iteration; per iteration (the mean over every
# iteration after Build, the classifier start and MA-sLDAr's pilot
# included) MA-sLDAc / LDA, the quadratic bound / LDA, MA-sLDAr / LDA; the
# same over the schedule's iterations (the last 15, after the restarts and
# the pilot: supervised iterations against plain LDA's; "–" in outputs
# saved before that metric); over the last 5 iterations; Build and the first 3 iterations; the
# whole run (MA-sLDAr: its pilot's iterations and the schedule's 15); the
# truth accuracy of MA-sLDAc (both bounds) and MA-sLDAr's truth R².
# MASLDA_SHAPE_ITERS changes the 15. The raw output is kept in
# ${TMPDIR:-/tmp}/shapes.out.
set -eu
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/shapes.out
if [ "${1:-}" = "-f" ]; then
  out=$2
else
  rounds=${1:-1}
  filter=${2:-.}
  bin=$(mktemp -d)/models.test
  go test -c -o "$bin" ./models
  : >"$out"
  for r in $(seq 1 "$rounds"); do
    echo "round $r" >>"$out"
    (cd models && "$bin" -test.run '^$' -test.bench "^BenchmarkShapes\$/$filter" -test.benchtime 1x -test.timeout 0) >>"$out"
  done
  rm -rf "$(dirname "$bin")"
fi
awk '
function metric(name,   i) { for (i = 4; i < NF; i++) if ($(i+1) == name) return $i; return "" }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? "–" : sprintf("%.2f×", a / b) }
function add(key, s,   v) { v = (key in cell) ? cell[key] " / " s : s; cell[key] = v }
/^round/ { next }
/^BenchmarkShapes\/shape=/ {
  split($1, p, "/"); sh = substr(p[2], 7); mo = substr(p[3], 7); sub(/-[0-9]+$/, "", mo)
  if (!(sh in seen)) { seen[sh] = 1; order[++n] = sh }
  iter[sh, mo] = metric("iter-cpu-s"); late[sh, mo] = metric("late-cpu-s"); sched[sh, mo] = metric("sched-cpu-s")
  first[sh, mo] = metric("first3-cpu-s"); run[sh, mo] = metric("run-cpu-s"); truth[sh, mo] = metric("truth")
  if (mo == "lda") { uniq[sh] = metric("uniq/doc"); tok[sh] = metric("tok/uniq"); add(sh SUBSEP "lda", sprintf("%.3f", iter[sh, mo])) }
  if (mo == "ma-sldar") {   # the last model of a shape: the round of this shape is complete
    add(sh SUBSEP "it", ratio(iter[sh, "ma-sldac"], iter[sh, "lda"]) " " ratio(iter[sh, "ma-sldac-quad"], iter[sh, "lda"]) " " ratio(iter[sh, "ma-sldar"], iter[sh, "lda"]))
    add(sh SUBSEP "sched", ratio(sched[sh, "ma-sldac"], sched[sh, "lda"]) " " ratio(sched[sh, "ma-sldac-quad"], sched[sh, "lda"]) " " ratio(sched[sh, "ma-sldar"], sched[sh, "lda"]))
    add(sh SUBSEP "late", ratio(late[sh, "ma-sldac"], late[sh, "lda"]) " " ratio(late[sh, "ma-sldac-quad"], late[sh, "lda"]) " " ratio(late[sh, "ma-sldar"], late[sh, "lda"]))
    add(sh SUBSEP "first", ratio(first[sh, "ma-sldac"], first[sh, "lda"]) " " ratio(first[sh, "ma-sldac-quad"], first[sh, "lda"]) " " ratio(first[sh, "ma-sldar"], first[sh, "lda"]))
    add(sh SUBSEP "run", ratio(run[sh, "ma-sldac"], run[sh, "lda"]) " " ratio(run[sh, "ma-sldac-quad"], run[sh, "lda"]) " " ratio(run[sh, "ma-sldar"], run[sh, "lda"]))
    add(sh SUBSEP "truth", truth[sh, "ma-sldac"] " " truth[sh, "ma-sldac-quad"] " " truth[sh, "ma-sldar"])
  }
}
END {
  print "| shape (distinct words/doc, tokens/distinct) | LDA cpu-s/iter | per iteration: c, c-quad, r / LDA | schedule iterations (after restarts, pilot) | last 5 iterations | Build + 3 iterations | whole run | truth: c, c-quad accuracy, r R² |"
  print "|---|---|---|---|---|---|---|---|"
  for (i = 1; i <= n; i++) {
    sh = order[i]
    printf "| %s (%.0f, %.1f) | %s | %s | %s | %s | %s | %s | %s |\n", sh, uniq[sh], tok[sh], cell[sh, "lda"], cell[sh, "it"], cell[sh, "sched"], cell[sh, "late"], cell[sh, "first"], cell[sh, "run"], cell[sh, "truth"]
  }
}' "$out"
