#!/bin/bash
# The three classification family samples of docs/results-classification.md
# ("The families and RTE, the shipped default beside the option"; 132 fits
# per configuration): the first family's draws 6, 10, 21, 35, 37, 0–4, the
# second's (MASLDA_FAMILY_BASE=1001) 29, 23, 45, 39, 33, 5, 43, 0–4, 6, 7
# and the third's (2001) 0–19, seeds 1–3, one fit at a time.
#
# usage: bash docs/scripts/family_samples.sh DIR CONFIGS
#   DIR: a snapshot of the tree with its test binary
#        (git ls-files -z | xargs -0 cp --parents -t DIR; cd DIR && go test -c -o fam.test ./models)
#   CONFIGS: a file of configurations separated by lines "---" (%K%: the planted K's model K)
# writes DIR/run1.txt, run2.txt, run3.txt; compare two with docs/scripts/family_compare.py.
set -euo pipefail
dir=$1
cfg=$(cat "$2")
cd "$dir/models"
export MASLDA_PAR=1 MASLDA_FAMILY=50 MASLDA_SEEDS=1,2,3 MASLDA_SKIP=oracle MASLDA_FAMILY_CONFIG="$cfg"
MASLDA_FAMILY_DRAWS=6,10,21,35,37,0,1,2,3,4 ../fam.test -test.run '^TestRandomFamily$' -test.v -test.timeout 0 > ../run1.txt 2>&1
MASLDA_FAMILY_BASE=1001 MASLDA_FAMILY_DRAWS=29,23,45,39,33,5,43,0,1,2,3,4,6,7 ../fam.test -test.run '^TestRandomFamily$' -test.v -test.timeout 0 > ../run2.txt 2>&1
MASLDA_FAMILY_BASE=2001 MASLDA_FAMILY_DRAWS=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19 ../fam.test -test.run '^TestRandomFamily$' -test.v -test.timeout 0 > ../run3.txt 2>&1
