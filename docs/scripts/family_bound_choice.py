#!/usr/bin/env python3
"""Choosing among seeds by the bound or by its supervised part (issue 25, item 2).

Usage: family_bound_choice.py POSTDIR RUN.txt... [--seeds 1,2,3]

POSTDIR holds what TestRandomFamily writes with MASLDA_FAMILY_POST=DIR:
each fit's posterior (DRAW.c0.sSEED.txt) and DRAW.c0.sSEED.txt.bound, the
bound at the fit and its supervised part w·(response + annotators)
(models.Model.ConvergencePart). Per draw, among the seeds' fits:
  medoid:  the fit whose labels differ least from the others' (consensus = N);
  bound:   the fit with the highest bound;
  part:    the fit with the highest supervised part;
and prints each choice's mean truth, the counts below majority vote and
Dawid–Skene − 0.005, the draws where the choices differ, and how often the
bound and the part rank the best-truth fit first (ties in truth excluded)."""
import sys, os, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_runs import read_rows, mv_ds
args = sys.argv[1:]
seeds = [1, 2, 3]
if '--seeds' in args:
    i = args.index('--seeds'); seeds = [int(x) for x in args[i+1].split(',')]; del args[i:i+2]
postdir, runs = args[0], args[1:]
ref = {k: mv_ds(f) for k, f in read_rows(runs).items()}
def labels(p):
    T, L = [], []
    for line in open(p):
        v = line.split(); T.append(int(v[0])); q = [float(x) for x in v[1:]]
        L.append(max(range(len(q)), key=lambda c: q[c]))
    return T, L
rules = ['medoid', 'bound', 'part']
tot = {r: [0, 0, 0, 0.0] for r in rules}
rank = {'bound': [0, 0], 'part': [0, 0]}
diffs = []
for name in sorted(ref):
    mv, ds = ref[name]
    ps = {s: os.path.join(postdir, f'{name}.c0.s{s}.txt') for s in seeds}
    if not all(os.path.exists(p) and os.path.exists(p + '.bound') for p in ps.values()): continue
    T = labels(ps[seeds[0]])[0]
    lab = {s: labels(p)[1] for s, p in ps.items()}
    bd = {s: [float(x) for x in open(p + '.bound').read().split()] for s, p in ps.items()}
    acc = {s: sum(t == c for t, c in zip(T, lab[s])) / len(T) for s in seeds}
    dist = lambda a, b: sum(x != y for x, y in zip(lab[a], lab[b]))
    pick = {'medoid': min(seeds, key=lambda s: (sum(dist(s, o) for o in seeds), s)),
            'bound': max(seeds, key=lambda s: (bd[s][0], -s)),
            'part': max(seeds, key=lambda s: (bd[s][1], -s))}
    for r in rules:
        x = acc[pick[r]]; t = tot[r]
        t[0] += 1; t[1] += x < mv - 0.005; t[2] += x < ds - 0.005; t[3] += x
    best = max(acc.values())
    if sorted(acc.values())[-2] < best - 0.005:  # one clearly best fit
        for r in ('bound', 'part'):
            rank[r][0] += 1; rank[r][1] += acc[pick[r]] == best
    if len({acc[pick[r]] for r in rules}) > 1:
        diffs.append(f'{name}: MV {mv:.3f} DS {ds:.3f} | ' + ' '.join(f's{s} {acc[s]:.3f} (bound {bd[s][0]:.1f}, part {bd[s][1]:.1f})' for s in seeds) +
                     ' | ' + ', '.join(f'{r} s{pick[r]}' for r in rules))
for r in rules:
    n, bm, bdd, s = tot[r]
    print(f'{r:7s}: {n} draws, mean {s/n:.4f}, below MV {bm}, below DS {bdd}')
for r in ('bound', 'part'):
    print(f'{r} picks the best fit on {rank[r][1]} of {rank[r][0]} draws with one fit best by more than 0.005')
print('draws where the choices differ in truth:')
for d in diffs: print('  ' + d)
