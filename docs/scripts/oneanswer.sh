#!/bin/bash
# Issue 25: planted crowds with ONE answer per document (the paper's five
# annotators), every setting drawn at random, to measure how much the seed
# decides (docs/results-classification.md, "Restarts as plain LDA").
#   bash docs/scripts/oneanswer.sh DRAW SEED [EXTRA-CONFIG-LINES]
# e.g. bash docs/scripts/oneanswer.sh 14 2 'restarts = 1'
# Needs /tmp/maslda (go build -o /tmp/maslda ./cmd/maslda) and /usr/bin/python3.
# Prints: draw, seed, the settings, the last history.csv row's iteration, bound, truth accuracy.
set -eu
i=$1; s=$2; extra=${3:-}
W=/tmp/oneanswer; mkdir -p $W
read a L e V K <<< $(/usr/bin/python3 -c "
import random; r=random.Random($i)
print(round(10**r.uniform(-1.5,0),3), int(10**r.uniform(1.2,2.6)), round(r.uniform(2,10),1), int(10**r.uniform(2.5,3.5)), r.randint(4,12))")
[ -f $W/d$i/labels.csv ] || /tmp/maslda simulate corpus --out $W/d$i --docs 1500 --seed $((100+i)) --alpha $a --doc-length $L --eta-scale $e --vocab-size $V --topics $K >/dev/null 2>&1
tag=$(echo "$extra" | md5sum | cut -c1-6)
printf "model = \"ma-sldac\"\nseed = $s\nworkers = 1\ntopics { k = $K }\n$extra\n" > $W/d${i}_s${s}_$tag.hcl
/tmp/maslda train --config $W/d${i}_s${s}_$tag.hcl --docs $W/d$i/docs.ldac --ids $W/d$i/ids.txt --answers $W/d$i/answers.csv --truth $W/d$i/labels.csv --out $W/m${i}_${s}_$tag >/dev/null 2>&1
echo "d$i s$s α $a len $L η $e V $V K $K: $(tail -1 $W/m${i}_${s}_$tag/history.csv | cut -d, -f1,4,6)"
