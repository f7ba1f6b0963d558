#!/usr/bin/env python3
"""The medoid among seeds, anchored to the crowd-only answers (issue 25).

Usage: family_anchor.py POSTDIR RUN.txt... [--seeds 1,2,3] [--lambdas 0.5,1,2]

POSTDIR holds what TestRandomFamily writes with MASLDA_FAMILY_POST=DIR: each
fit's posterior (DRAW.c0.sSEED.txt), Dawid–Skene's (DRAW.ds.txt) and the
vote shares (DRAW.mv.txt), a line a training document, its true class
first. The RUN.txt files give majority vote's and Dawid–Skene's truth per
draw. Per draw, among the fits of the seeds given, it chooses:
  medoid:      the fit whose labels differ least from the other fits'
               (what consensus = N ships);
  anchored λ:  the fit minimising Σ_j dist(f, f_j) + λ·(dist(f, MV) +
               dist(f, DS)), dist the share of documents labelled
               differently (against majority vote: 1 − the mean vote
               share of the fit's labels, ties split);
and prints the truth of each choice, the counts below majority vote and
Dawid–Skene − 0.005, and the draws where an anchored choice differs from
the medoid. Every rule uses only the answers and the fits, never the truth."""
import sys, os, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_runs import read_rows, mv_ds
import collections
args = sys.argv[1:]
seeds, lams = [1, 2, 3], [0.5, 1.0, 2.0]
if '--seeds' in args:
    i = args.index('--seeds'); seeds = [int(x) for x in args[i+1].split(',')]; del args[i:i+2]
if '--lambdas' in args:
    i = args.index('--lambdas'); lams = [float(x) for x in args[i+1].split(',')]; del args[i:i+2]
postdir, runs = args[0], args[1:]
ref = {k: mv_ds(f) for k, f in read_rows(runs).items()}
def load(p):
    T, Q = [], []
    for line in open(p):
        v = line.split(); T.append(int(v[0])); Q.append([float(x) for x in v[1:]])
    return T, Q
def am(q): return max(range(len(q)), key=lambda c: q[c])
def diff(a, b): return sum(x != y for x, y in zip(a, b)) / len(a)
rules = ['medoid'] + [f'anchored {l:g}' for l in lams]
tot = {r: [0, 0, 0, 0.0] for r in rules}
changed = []
for name in sorted(ref, key=lambda n: (n.split('.')[0] if n.startswith('b') else '', int(re.sub(r'.*(draw|crowded)', '', n)))):
    mv, ds = ref[name]
    paths = {s: os.path.join(postdir, f'{name}.c0.s{s}.txt') for s in seeds}
    extra = [os.path.join(postdir, f'{name}.{k}.txt') for k in ('ds', 'mv')]
    if not all(os.path.exists(p) for p in list(paths.values()) + extra): continue
    T = load(paths[seeds[0]])[0]
    lab = {s: [am(q) for q in load(p)[1]] for s, p in paths.items()}
    dsl = [am(q) for q in load(extra[0])[1]]
    share = load(extra[1])[1]
    def dmv(l):  # expected disagreement with majority vote, ties split
        out = 0.0
        for d, c in enumerate(l):
            top = max(share[d]); n = sum(1 for v in share[d] if v == top)
            out += 0 if share[d][c] == top and n == 1 else (1 - 1 / n if share[d][c] == top else 1)
        return out / len(l)
    acc = {s: sum(t == c for t, c in zip(T, lab[s])) / len(T) for s in seeds}
    inner = {s: sum(diff(lab[s], lab[o]) for o in seeds if o != s) for s in seeds}
    anchor = {s: dmv(lab[s]) + diff(lab[s], dsl) for s in seeds}
    pick = {'medoid': min(seeds, key=lambda s: (inner[s], s))}
    for l in lams:
        pick[f'anchored {l:g}'] = min(seeds, key=lambda s: (inner[s] + l * anchor[s], s))
    for r in rules:
        x = acc[pick[r]]; t = tot[r]
        t[0] += 1; t[1] += x < mv - 0.005; t[2] += x < ds - 0.005; t[3] += x
    if any(pick[r] != pick['medoid'] for r in rules):
        changed.append(f'{name}: MV {mv:.3f} DS {ds:.3f} seeds ' + ' '.join(f's{s} {acc[s]:.3f}' for s in seeds) +
                       ' | ' + ', '.join(f'{r} s{pick[r]}' for r in rules))
for r in rules:
    n, bm, bd, s = tot[r]
    print(f'{r:14s}: {n} draws, mean {s/n:.4f}, below MV {bm}, below DS {bd}')
print('draws where a choice differs from the medoid:')
for c in changed:
    print('  ' + c)
