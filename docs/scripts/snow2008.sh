#!/usr/bin/env bash
# Snow et al. 2008 crowd sets (RTE and affective text) with maslda: corpora, answers, truth, baselines.
#
# usage: bash docs/scripts/snow2008.sh [DATA [OUT]]      (from the repository root or anywhere)
#   DATA  the shared data folder holding snow2008_rte/ and snow2008_affect/ (default ../shared/data)
#   OUT   the output folder (default /tmp/snow); created; a rerun replaces what an earlier run wrote
# needs: go, python3. About 10 s on 2 cores once the Go build is cached (workers = 1 in every config).
#
# What it does
#   RTE (800 pairs, 10 binary answers each from 164 workers): one document per pair, text + " " + hypothesis,
#     id = rte1.tsv's id; answers task,worker,label with task = orig_id, label 0/1; truth = rte1.tsv's value
#     (TRUE -> 1, FALSE -> 0). Runs majority-vote and dawid-skene on the answers alone (--ids = prepare's
#     ids.txt) and MA-sLDAc (K 10, seed 1) on documents + answers; truth accuracy of posterior.csv.
#   Affect (100 headlines, ids 500-599, 10 ratings 0-100 each per emotion from 38 workers): one document per
#     rated headline, id = affect.tsv's id; per emotion the answers and the gold column of
#     EMOTION.standardized.tsv as truth. Mean answer per headline (no answers-only regression preset exists:
#     computed here, written as a gaussian posterior CSV task,label,var and scored by `maslda eval`) and
#     MA-sLDAr (K 5, seed 1); R² against the gold.
#   Corpus preprocessing: `maslda prepare` defaults (lower case, stop words, Snowball stemming, min length 2,
#     no pruning: min-df 1).
set -euo pipefail

DATA=${1:-../shared/data}
OUT=${2:-/tmp/snow}
RTE=$DATA/snow2008_rte
AFF=$DATA/snow2008_affect
EMOTIONS="anger disgust fear joy sadness surprise"

for f in "$RTE/rte1.tsv" "$RTE/rte.standardized.tsv" "$AFF/affect.tsv"; do
  [[ -r $f ]] || { echo "snow2008.sh: missing $f (is $DATA the shared data folder?)" >&2; exit 1; }
done
for e in $EMOTIONS; do
  [[ -r $AFF/$e.standardized.tsv ]] || { echo "snow2008.sh: missing $AFF/$e.standardized.tsv" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "snow2008.sh: python3 is needed" >&2; exit 1; }

mkdir -p "$OUT"
DATA=$(cd "$DATA" && pwd); RTE=$DATA/snow2008_rte; AFF=$DATA/snow2008_affect
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
START=$SECONDS

echo "== building $OUT/maslda" >&2
(cd "$ROOT" && go build -o "$OUT/maslda" ./cmd/maslda)
M=$OUT/maslda
LOG=(--log-level warn)
mkdir -p "$OUT/rte" "$OUT/affect" "$OUT/cfg" "$OUT/runs"
RESULTS=$OUT/results.tsv
: > "$RESULTS"

# ---------------------------------------------------------------- configs
printf 'model   = "majority-vote"\nseed    = 1\nworkers = 1\n' > "$OUT/cfg/mv.hcl"
printf 'model   = "dawid-skene"\nseed    = 1\nworkers = 1\n' > "$OUT/cfg/ds.hcl"
printf 'model   = "ma-sldac"\nseed    = 1\nworkers = 1\ntopics { k = 10 }\n' > "$OUT/cfg/masldac.hcl"
printf 'model   = "ma-sldar"\nseed    = 1\nworkers = 1\ntopics { k = 5 }\n' > "$OUT/cfg/masldar.hcl"

# ---------------------------------------------------------------- conversion (TSV -> JSONL, CSV)
python3 - "$RTE" "$AFF" "$OUT" $EMOTIONS <<'PY'
import csv, json, sys
rte, aff, out, emotions = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]

def read_tsv(path, want):
    # the releases are plain TSV without quoting: read with QUOTE_NONE so a stray " stays text
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows:
        sys.exit(f"{path}: no rows")
    missing = [c for c in want if c not in rows[0]]
    if missing:
        sys.exit(f"{path}: missing columns {missing}; has {list(rows[0])}")
    for i, r in enumerate(rows, 2):
        if any(r[c] is None for c in want) or None in r:
            sys.exit(f"{path}:{i}: wrong number of fields")
    return rows

def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)

# --- RTE
pairs = read_tsv(f"{rte}/rte1.tsv", ["id", "value", "text", "hypothesis"])
gold = {}
with open(f"{out}/rte/docs.jsonl", "w", encoding="utf-8") as f:
    for r in pairs:
        i = r["id"].strip()
        if i in gold:
            sys.exit(f"rte1.tsv: duplicate id {i}")
        v = r["value"].strip().upper()
        if v not in ("TRUE", "FALSE"):
            sys.exit(f"rte1.tsv: id {i}: value {r['value']!r} is not TRUE/FALSE")
        gold[i] = "1" if v == "TRUE" else "0"
        f.write(json.dumps({"id": i, "text": r["text"].strip() + " " + r["hypothesis"].strip(),
                            "label": gold[i]}) + "\n")
answers = read_tsv(f"{rte}/rte.standardized.tsv", ["!amt_worker_ids", "orig_id", "response", "gold"])
rows = []
for n, a in enumerate(answers, 2):
    t = a["orig_id"].strip()
    if t not in gold:
        sys.exit(f"rte.standardized.tsv:{n}: orig_id {t} is not an id of rte1.tsv")
    if a["gold"].strip() != gold[t]:
        sys.exit(f"rte.standardized.tsv:{n}: gold {a['gold']} but rte1.tsv says {gold[t]} for id {t}")
    rows.append((t, a["!amt_worker_ids"].strip(), a["response"].strip()))
write_csv(f"{out}/rte/answers.csv", ["task", "worker", "label"], rows)
write_csv(f"{out}/rte/truth.csv", ["task", "label"], sorted(gold.items(), key=lambda kv: int(kv[0])))

# --- Affect: the documents are the rated headlines (the ids of the answer files)
heads = {r["id"].strip(): r["headline"].strip() for r in read_tsv(f"{aff}/affect.tsv", ["id", "headline"])}
rated = None
for e in emotions:
    ans = read_tsv(f"{aff}/{e}.standardized.tsv", ["!amt_worker_ids", "orig_id", "response", "gold"])
    rows, truth, sums = [], {}, {}
    for n, a in enumerate(ans, 2):
        t = a["orig_id"].strip()
        if t not in heads:
            sys.exit(f"{e}.standardized.tsv:{n}: orig_id {t} is not an id of affect.tsv")
        y, g = float(a["response"]), float(a["gold"])
        if truth.setdefault(t, g) != g:
            sys.exit(f"{e}.standardized.tsv:{n}: id {t} has two gold values")
        rows.append((t, a["!amt_worker_ids"].strip(), repr(y).removesuffix(".0")))
        s = sums.setdefault(t, [0.0, 0])
        s[0] += y; s[1] += 1
    ids = sorted(truth, key=int)
    if rated is None:
        rated = ids
    elif ids != rated:
        sys.exit(f"{e}.standardized.tsv: rates other headlines than {emotions[0]}")
    write_csv(f"{out}/affect/{e}.answers.csv", ["task", "worker", "label"], rows)
    write_csv(f"{out}/affect/{e}.truth.csv", ["task", "label"], [(t, repr(truth[t]).removesuffix(".0")) for t in ids])
    # the mean answer as a gaussian posterior (variance 0) for `maslda eval`
    write_csv(f"{out}/affect/{e}.mean.csv", ["task", "label", "var"], [(t, repr(sums[t][0] / sums[t][1]), 0) for t in ids])
with open(f"{out}/affect/docs.jsonl", "w", encoding="utf-8") as f:
    for t in rated:
        f.write(json.dumps({"id": t, "text": heads[t]}) + "\n")
print(f"rte: {len(pairs)} pairs, {len(answers)} answers; affect: {len(rated)} headlines", file=sys.stderr)
PY

# ---------------------------------------------------------------- corpora
"$M" prepare --input "$OUT/rte/docs.jsonl" --format jsonl --label-column label --progress never "${LOG[@]}" --out "$OUT/rte/corpus"
"$M" prepare --input "$OUT/affect/docs.jsonl" --format jsonl --progress never "${LOG[@]}" --out "$OUT/affect/corpus"
# prepare's labels.csv is the RTE truth too: check that it agrees with ours
python3 - "$OUT/rte/corpus/labels.csv" "$OUT/rte/truth.csv" <<'PY'
import csv, sys
a, b = ({r["task"]: r["label"] for r in csv.DictReader(open(p))} for p in sys.argv[1:])
if a != b:
    sys.exit(f"{sys.argv[1]} and {sys.argv[2]} differ")
PY

# ---------------------------------------------------------------- runs
# score DATASET METHOD KEY PRED TRUTH [KIND]: maslda eval --json, append "dataset<TAB>method<TAB>metric<TAB>value"
score() {
  local dataset=$1 method=$2 key=$3 pred=$4 truth=$5 kind=${6:-}
  local json
  json=$("$M" eval --pred "$pred" --truth "$truth" ${kind:+--kind "$kind"} --json)
  python3 - "$dataset" "$method" "$key" "$json" >> "$RESULTS" <<'PY'
import json, sys
d, m, k, j = sys.argv[1:]
r = json.loads(j)
print(f"{d}\t{m}\t{k}\t{r[k]:.3f}\t{r['n']}")
PY
  tail -n 1 "$RESULTS" >&2
}

train() {  # train NAME ARGS...: time one run, log the seconds
  local name=$1; shift
  local t0=$SECONDS
  "$M" train "$@" --progress never "${LOG[@]}" --out "$OUT/runs/$name"
  echo "   $name: $((SECONDS - t0)) s" >&2
}

R=$OUT/rte
echo "== RTE" >&2
train rte-mv --config "$OUT/cfg/mv.hcl" --answers "$R/answers.csv" --ids "$R/corpus/ids.txt" --truth "$R/truth.csv"
score RTE "majority vote" accuracy "$OUT/runs/rte-mv/posterior.csv" "$R/truth.csv"
train rte-ds --config "$OUT/cfg/ds.hcl" --answers "$R/answers.csv" --ids "$R/corpus/ids.txt" --truth "$R/truth.csv"
score RTE "Dawid-Skene" accuracy "$OUT/runs/rte-ds/posterior.csv" "$R/truth.csv"
train rte-masldac --config "$OUT/cfg/masldac.hcl" --docs "$R/corpus/docs.ldac" --ids "$R/corpus/ids.txt" \
  --vocab "$R/corpus/vocab.txt" --answers "$R/answers.csv" --truth "$R/truth.csv"
score RTE "MA-sLDAc (K 10)" accuracy "$OUT/runs/rte-masldac/posterior.csv" "$R/truth.csv"

A=$OUT/affect
for e in $EMOTIONS; do
  echo "== affect: $e" >&2
  score "affect $e" "mean answer" r2 "$A/$e.mean.csv" "$A/$e.truth.csv" gaussian
  train "affect-$e-masldar" --config "$OUT/cfg/masldar.hcl" --docs "$A/corpus/docs.ldac" --ids "$A/corpus/ids.txt" \
    --vocab "$A/corpus/vocab.txt" --answers "$A/$e.answers.csv" --truth "$A/$e.truth.csv"
  score "affect $e" "MA-sLDAr (K 5)" r2 "$OUT/runs/affect-$e-masldar/posterior.csv" "$A/$e.truth.csv"
done

# ---------------------------------------------------------------- table
echo
echo "| data set | method | metric | value | n |"
echo "|---|---|---|---|---|"
awk -F'\t' '{ m = ($3 == "accuracy") ? "truth accuracy" : "truth R²"; printf "| %s | %s | %s | %s | %s |\n", $1, $2, m, $4, $5 }' "$RESULTS"
echo
echo "total $((SECONDS - START)) s; outputs in $OUT" >&2
