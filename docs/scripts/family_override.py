#!/usr/bin/env python3
"""How often a fit overrides a clear majority, against how it does beside
majority vote (issue 25: a label-free warning that the crowd alone may be
better).

Usage: family_override.py POSTDIR DUMPDIR RUN.txt... [--min-answers 5] [--share 0.6]

POSTDIR: posteriors written by TestRandomFamily with MASLDA_FAMILY_POST
(DRAW.c0.sSEED.txt); DUMPDIR: the same draws written by TestFamilyDump
(DUMPDIR/DRAW/answers.csv); RUN.txt: the runs' -v output (majority vote and
Dawid-Skene per draw). For every fit it prints the truth accuracy, majority
vote's, and three label-free numbers:
  clear:    items with at least --min-answers answers whose most frequent
            class (unique) has at least --share of them;
  override: the share of the clear items whose inferred class is not
            their majority class;
  disagree: the share of the items with a unique majority class whose
            inferred class is another.
Then, for thresholds of override, the fits flagged among those below
majority vote - 0.005 and among the others."""
import sys, os, collections, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_runs import read_rows, mv_ds
args = sys.argv[1:]
def opt(name, default):
    if name in args:
        i = args.index(name); v = args[i + 1]; del args[i:i + 2]; return type(default)(v)
    return default
min_ans = opt('--min-answers', 5)
share = opt('--share', 0.6)
postdir, dumpdir, runs = args[0], args[1], args[2:]
ref = {k: mv_ds(f) for k, f in read_rows(runs).items()}

def majority(draw):
    votes = collections.defaultdict(collections.Counter)
    with open(os.path.join(dumpdir, draw, 'answers.csv')) as f:
        next(f)
        for line in f:
            t, _, l = line.strip().split(',')
            votes[int(t)][int(l[1:])] += 1
    out = {}
    for t, c in votes.items():
        (top, n1), *rest = c.most_common(2) + [(None, 0)]
        n2 = rest[0][1]
        out[t] = (top if n1 > n2 else None, n1 / sum(c.values()), sum(c.values()))
    return out

rows = []
for name in sorted(ref):
    mv, ds = ref[name]
    maj = majority(name)
    for fn in sorted(os.listdir(postdir)):
        m = re.fullmatch(re.escape(name) + r'\.c0\.s(\d+)\.txt', fn)
        if not m:
            continue
        T, L = [], []
        for line in open(os.path.join(postdir, fn)):
            v = line.split(); T.append(int(v[0])); q = [float(x) for x in v[1:]]
            L.append(max(range(len(q)), key=lambda c: q[c]))
        acc = sum(t == l for t, l in zip(T, L)) / len(T)
        clear = [d for d, (top, s, n) in maj.items() if top is not None and n >= min_ans and s >= share]
        uniq = [d for d, (top, s, n) in maj.items() if top is not None]
        ov = sum(L[d] != maj[d][0] for d in clear) / len(clear) if clear else float('nan')
        dis = sum(L[d] != maj[d][0] for d in uniq) / len(uniq) if uniq else float('nan')
        rows.append((name, int(m.group(1)), acc, mv, ds, len(clear) / len(T), ov, dis))

print('fit\ttruth\tMV\tDS\tclear\toverride\tdisagree\tbelow MV')
for r in sorted(rows, key=lambda r: -(r[6] if r[6] == r[6] else -1)):
    print(f'{r[0]} s{r[1]}\t{r[2]:.3f}\t{r[3]:.3f}\t{r[4]:.3f}\t{r[5]:.2f}\t{r[6]:.3f}\t{r[7]:.3f}\t{"BELOW" if r[2] < r[3] - 0.005 else ""}')
below = [r for r in rows if r[2] < r[3] - 0.005]
other = [r for r in rows if not r[2] < r[3] - 0.005]
print(f'\n{len(rows)} fits, {len(below)} below majority vote - 0.005')
for th in (0.01, 0.02, 0.03, 0.05, 0.1, 0.2):
    fb = sum(r[6] > th for r in below if r[6] == r[6])
    fo = [r for r in other if r[6] == r[6] and r[6] > th]
    gain = sum(r[2] - r[3] for r in fo) / len(fo) if fo else float('nan')
    print(f'override > {th}: flags {fb} of {len(below)} below MV, and {len(fo)} of {len(other)} others (their mean truth - MV {gain:+.3f})')
