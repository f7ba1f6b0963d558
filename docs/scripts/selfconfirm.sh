#!/bin/bash
# Issue 25, item 3: does the text carry what the training posteriors credit it
# with? Trains the shipped MA-sLDAc on a draw of the randomised family written
# to /tmp/fam/drawN (MASLDA_FAMILY_DUMP=/tmp/fam MASLDA_FAMILY_DRAWS=21 go test
# ./models -run '^TestFamilyDump$'), then predicts the same
# training documents from their words alone (the unsupervised local step, as
# for new documents) and prints, against the planted truth, the accuracy and
# mean largest probability of that text-only prediction and of the inferred
# truth, beside always answering the largest class.
#   bash docs/scripts/selfconfirm.sh draw21     (needs /tmp/maslda and /usr/bin/python3)
set -eu
d=$1; cd /tmp/fam
k=$(grep -o "model [0-9]*" $d/spec.txt | head -1 | cut -d' ' -f2)
printf "model = \"ma-sldac\"\nseed = 1\nworkers = 1\ntopics { k = $k }\n" > sc_$d.hcl
/tmp/maslda train --config sc_$d.hcl --docs $d/docs.ldac --answers $d/answers.csv --truth $d/truth.csv --out sc_$d > /dev/null 2>&1
/tmp/maslda predict --model sc_$d --docs $d/docs.ldac --out sc_$d.pred.csv >/dev/null 2>&1
/usr/bin/python3 - $d <<'PY'
import csv, sys, collections
d=sys.argv[1]
tr={r['task']:r['label'] for r in csv.DictReader(open(f'/tmp/fam/{d}/truth.csv'))}
big=max(collections.Counter(tr.values()).values())/len(tr)
out=[d, "largest class %.3f"%big]
for name,f in [("text only",f'/tmp/fam/sc_{d}.pred.csv'),("inferred truth",f'/tmp/fam/sc_{d}/posterior.csv')]:
    rows=list(csv.DictReader(open(f)))
    acc=sum(r['label']==tr[r['task']] for r in rows)/len(rows)
    pk=[k for k in rows[0] if k.startswith('p:')]
    conf=sum(max(float(r[k]) for k in pk) for r in rows)/len(rows)
    out.append("%s %.3f (mean max p %.3f)"%(name,acc,conf))
print("; ".join(out))
PY
