#!/bin/bash
# The aggregators on the answers alone, draw by draw, on dumped family draws
# (docs/results-classification.md, "The aggregators on the crowded
# families"): majority vote, Dawid–Skene (variational and with priors),
# GLAD, one-coin and MACE, each run as `maslda train --answers` with the
# draw's truth, two draws at a time.
#
# usage: bash docs/scripts/family_aggregators.sh OUT.tsv DRAWDIR...
#   DRAWDIR: a draw written by TestFamilyDump, for example
#     MASLDA_FAMILY_KIND=crowded MASLDA_FAMILY_DUMP=/tmp/cf1 MASLDA_FAMILY_DRAWS=$(seq -s, 0 49) \
#       go test ./models -run '^TestFamilyDump$'
#   MASLDA: the maslda binary (default: go build ./cmd/maslda into a temporary directory)
# writes OUT.tsv (a line per draw: its name and the truth accuracy of each
# aggregator) and prints, per aggregator, the mean and the draws below
# majority vote and below Dawid–Skene by more than 0.005.
set -euo pipefail
out=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${MASLDA:-}
if [ -z "$bin" ]; then
	go build -o "$tmp/maslda" ./cmd/maslda
	bin=$tmp/maslda
fi
models=(majority-vote dawid-skene "dawid-skene(bayes)" glad one-coin mace)
one() { # one draw directory: prints its line
	local d=$1 line m a
	line=$(basename "$d")
	for m in "${models[@]}"; do
		printf 'model = "%s"\n' "$m" >"$tmp/$line.hcl"
		a=$("$bin" train --config "$tmp/$line.hcl" --answers "$d/answers.csv" --truth "$d/truth.csv" --out "$tmp/$line.out" 2>&1 |
			grep -o 'truth_accuracy=[0-9.]*' | cut -d= -f2) || true
		if [ -z "$a" ]; then
			echo "family_aggregators.sh: $d: maslda train with model = \"$m\" logged no truth accuracy (run it by hand to see why)" >&2
			return 1
		fi
		line="$line	$a"
	done
	echo "$line"
}
(
	IFS=$'\t'
	echo "draw	${models[*]}"
) >"$out"
export -f one
export bin tmp
models_s=$(printf '%s\n' "${models[@]}")
export models_s
printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'mapfile -t models <<<"$models_s"; one "$1"' _ {} | sort -V >>"$out"
python3 - "$out" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1]), delimiter="\t"))
hdr, data = rows[0], [[r[0]] + [float(x) for x in r[1:]] for r in rows[1:]]
print(f"{len(data)} draws")
for j, m in enumerate(hdr[1:], 1):
    mean = sum(r[j] for r in data) / len(data)
    below_mv = sum(r[j] < r[1] - 0.005 for r in data)
    below_ds = sum(r[j] < r[2] - 0.005 for r in data)
    print(f"  {m:20s} mean {mean:.4f}  below MV {below_mv:2d}  below DS {below_ds:2d}")
PY
