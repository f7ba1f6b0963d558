#!/usr/bin/env bash
# Issue 25, item 6: every real set in ../shared/data at the shipped defaults,
# with majority vote / the mean answer, Dawid–Skene and the other answers-only
# aggregators beside MA-sLDA, scored on the truth of the training documents.
#
#   bash docs/scripts/realdata.sh [DATA] [OUT]          # DATA: ../shared/data, OUT: /tmp/realdata
#   SETS="rte affect" bash docs/scripts/realdata.sh     # a subset (default: every set below)
#
# Sets: rte, affect (docs/scripts/snow2008.sh prepares them), reuters-amt (answers
# only: no text), moviereviews (real AMT workers), we8there (simulated annotators,
# the authors' release), r8 and 20ng (real text, the paper's five simulated
# annotators, one answer per document, as experiments/r8.hcl and 20ng.hcl).
# Each MA-sLDA run is the preset (`model = "ma-sldac"` / `"ma-sldar"`) with K
# only, seed 1, one worker: the whole shipped default (restarts, three seeds'
# consensus for a class truth). Writes OUT/results.tsv and prints a markdown
# table; OUT/runs holds every model. Cost on 2 cores: rte, affect, reuters-amt
# a few minutes; moviereviews, we8there, r8 10–20 minutes each; 20ng about an
# hour. Never a test: it needs the shared data and takes long.
set -euo pipefail

DATA=${1:-../shared/data}
OUT=${2:-/tmp/realdata}
SETS=${SETS:-"rte affect reuters-amt moviereviews we8there r8 20ng"}
[[ -d $DATA ]] || { echo "realdata.sh: no folder $DATA (the shared data)" >&2; exit 1; }
mkdir -p "$OUT/cfg" "$OUT/runs"
DATA=$(cd "$DATA" && pwd)
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
START=$SECONDS
M=$OUT/maslda
(cd "$ROOT" && go build -o "$M" ./cmd/maslda)
LOG=(--log-level warn --progress never)
RESULTS=$OUT/results.tsv
touch "$RESULTS"

# cfg NAME TEXT: a configuration file OUT/cfg/NAME.hcl
cfg() { printf '%b' "$2" > "$OUT/cfg/$1.hcl"; echo "$OUT/cfg/$1.hcl"; }

# run SET METHOD KIND TRUTHCSV CONFIG ARGS...: train, score its posterior.csv on
# TRUTHCSV with maslda eval (KIND: categorical → accuracy, gaussian → R²) and
# append "set<TAB>method<TAB>metric<TAB>value<TAB>n<TAB>seconds" to results.tsv.
run() {
  local set=$1 method=$2 kind=$3 truth=$4 config=$5; shift 5
  local name out t0 json
  name=$(echo "$set-$method" | tr -c 'a-zA-Z0-9\n-' '_')
  out=$OUT/runs/$name
  t0=$SECONDS
  "$M" train --config "$config" --workers 1 "$@" "${LOG[@]}" --out "$out"
  json=$("$M" eval --pred "$out/posterior.csv" --truth "$truth" --kind "$kind" --json)
  python3 - "$set" "$method" "$kind" "$json" "$((SECONDS - t0))" >> "$RESULTS" <<'PY'
import json, sys
s, m, kind, j, secs = sys.argv[1:]
r = json.loads(j)
key = "accuracy" if kind == "categorical" else "r2"
print(f"{s}\t{m}\t{key}\t{r[key]:.4f}\t{r['n']}\t{secs}")
PY
  tail -n 1 "$RESULTS" >&2
}

# The answers-only aggregators of each kind of target, then the crowd model.
class_aggs="majority-vote dawid-skene dawid-skene(bayes) one-coin mace glad communities"
value_aggs="mean median bias-precision"
for a in $class_aggs $value_aggs; do cfg "agg-$a" "model = \"$a\"\nseed = 1\n" > /dev/null; done
masldac() { cfg "masldac-k$1" "model = \"ma-sldac\"\nseed = 1\ntopics { k = $1 }\n"; }
masldar() { cfg "masldar-k$1" "model = \"ma-sldar\"\nseed = 1\ntopics { k = $1 }\n"; }

for set in $SETS; do
  echo "== $set ($((SECONDS - START)) s)" >&2
  case $set in
  rte | affect)
    if [[ ! -r $OUT/snow/rte/truth.csv ]]; then
      bash "$ROOT/docs/scripts/snow2008.sh" "$DATA" "$OUT/snow" > /dev/null
    fi
    S=$OUT/snow
    if [[ $set == rte ]]; then
      R=$S/rte
      for a in $class_aggs; do
        run RTE "$a" categorical "$R/truth.csv" "$OUT/cfg/agg-$a.hcl" --answers "$R/answers.csv" --ids "$R/corpus/ids.txt"
      done
      run RTE "MA-sLDAc (K 10)" categorical "$R/truth.csv" "$(masldac 10)" --docs "$R/corpus/docs.ldac" \
        --ids "$R/corpus/ids.txt" --vocab "$R/corpus/vocab.txt" --answers "$R/answers.csv" --truth "$R/truth.csv"
    else
      A=$S/affect
      for e in anger disgust fear joy sadness surprise; do
        for a in $value_aggs; do
          run "affect $e" "$a" gaussian "$A/$e.truth.csv" "$OUT/cfg/agg-$a.hcl" --answers "$A/$e.answers.csv" --ids "$A/corpus/ids.txt"
        done
        run "affect $e" "MA-sLDAr (K 5)" gaussian "$A/$e.truth.csv" "$(masldar 5)" --docs "$A/corpus/docs.ldac" \
          --ids "$A/corpus/ids.txt" --vocab "$A/corpus/vocab.txt" --answers "$A/$e.answers.csv" --truth "$A/$e.truth.csv"
      done
    fi
    ;;
  reuters-amt)
    D=$DATA/evgeneus_reuters_mturk_labels_only
    mkdir -p "$OUT/reuters-amt"
    awk -F, 'NR == 1 { print "task,worker,label"; next } { print $1 "," $2 "," $3 }' "$D/crowd_answers.csv" > "$OUT/reuters-amt/answers.csv"
    awk -F, 'NR == 1 { print "task,label"; next } { print $1 "," $2 }' "$D/train_DS.csv" > "$OUT/reuters-amt/truth.csv"
    for a in $class_aggs; do
      run "Reuters AMT (answers only)" "$a" categorical "$OUT/reuters-amt/truth.csv" "$OUT/cfg/agg-$a.hcl" \
        --answers "$OUT/reuters-amt/answers.csv"
    done
    ;;
  moviereviews | we8there)
    if [[ $set == moviereviews ]]; then
      D=$DATA/rodrigues_moviereviews_amt; docs=$D/data_train_amt.txt; truthcol=$D/labels_train_amt.txt
      label="movie reviews (AMT)"; extra=(--vocab-size 26735)
    else
      D=$DATA/rodrigues_we8there_sim; docs=$D/data_train.txt; truthcol=$D/labels_train.txt
      label="we8there (simulated annotators)"; extra=()
    fi
    mkdir -p "$OUT/$set"
    awk 'BEGIN { print "task,label" } { print NR - 1 "," $1 }' "$truthcol" > "$OUT/$set/truth.csv"
    for a in $value_aggs; do
      run "$label" "$a" gaussian "$OUT/$set/truth.csv" "$OUT/cfg/agg-$a.hcl" --answers-wide "$D/answers.txt" --missing 999999999
    done
    run "$label" "MA-sLDAr (K 20)" gaussian "$OUT/$set/truth.csv" "$(masldar 20)" --docs "$docs" "${extra[@]}" \
      --answers-wide "$D/answers.txt" --missing 999999999 --truth "$OUT/$set/truth.csv"
    ;;
  r8 | 20ng)
    W=$OUT/$set
    mkdir -p "$W"
    if [[ ! -r $W/answers.csv ]]; then
      if [[ $set == r8 ]]; then
        "$M" prepare --input "$DATA/reuters_r8_cachopo/r8-train-all-terms.txt" --format lines --line-fields label,text \
          --min-df 5 --max-df 0.5 "${LOG[@]}" --out "$W/corpus"
        C=$W/corpus
      else
        "$M" prepare --input "$DATA/20newsgroups_bydate/20news-bydate.tar.gz" --format dir --encoding latin1 --label-dir \
          --label-map "$ROOT/experiments/20ng.map" --strip-headers --strip-footers --strip-quotes --min-df 5 --max-df 0.5 \
          --split 0.75 --seed 1 "${LOG[@]}" --out "$W/corpus"
        C=$W/corpus/train
      fi
      "$M" simulate --truth "$C/labels.csv" --accuracies 0.737,0.468,0.284,0.278,0.260 --per-doc 1 --seed 1 \
        --log-level warn --out "$W/answers.csv"
    fi
    C=$W/corpus; [[ $set == 20ng ]] && C=$W/corpus/train
    label="R8 (simulated annotators)"; [[ $set == 20ng ]] && label="20 Newsgroups (simulated annotators)"
    for a in majority-vote dawid-skene communities; do
      run "$label" "$a" categorical "$C/labels.csv" "$OUT/cfg/agg-$a.hcl" --answers "$W/answers.csv" --ids "$C/ids.txt"
    done
    run "$label" "MA-sLDAc (K 20)" categorical "$C/labels.csv" "$(masldac 20)" --corpus "$C" --answers "$W/answers.csv"
    ;;
  *)
    echo "realdata.sh: unknown set $set (rte affect reuters-amt moviereviews we8there r8 20ng)" >&2
    exit 1
    ;;
  esac
done

echo "| data set | method | truth metric | value | n | seconds |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '{ m = ($3 == "accuracy") ? "accuracy" : "R²"; printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, m, $4, $5, $6 }' "$RESULTS"
echo "total $((SECONDS - START)) s; outputs in $OUT" >&2
