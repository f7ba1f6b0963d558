#!/usr/bin/env python3
"""Choices among seeds on the classification family, offline.

Usage: family_consensus.py POSTDIR RUN.txt... [--seeds 1,2,3]

POSTDIR holds the posteriors TestRandomFamily writes with
MASLDA_FAMILY_POST=DIR (DRAW.cCFG.sSEED.txt: a line a training document,
its true class then q(c_d)); the RUN.txt files are the same runs' -v output
(for majority vote and Dawid–Skene per draw). For every draw and
configuration 0 it prints each seed's truth accuracy and those of three
choices among the seeds, each a single answer per draw:
  medoid: the seed whose labels agree with the other seeds' most;
  vote:   every document's most frequent label over the seeds;
  mean:   the argmax of the seeds' mean posterior.
Then the counts below majority vote and Dawid–Skene − 0.005.

With --windows N (and the posteriors of seeds 1 … N+2) it prints instead,
for every draw and s = 1 … N, the truth of the medoid of seeds s, s+1, s+2:
what TestRandomFamily prints at seed s under `consensus = 3` (the run's
fit is that medoid bit for bit, TestConsensusFit), and the counts."""
import sys, re, os, glob, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_runs import read_rows, mv_ds
args = sys.argv[1:]
seeds = None
if '--seeds' in args:
    i = args.index('--seeds'); seeds = [int(x) for x in args[i+1].split(',')]; del args[i:i+2]
windows = 0
if '--windows' in args:
    i = args.index('--windows'); windows = int(args[i+1]); del args[i:i+2]
postdir, runs = args[0], args[1:]
ref = {k: (*mv_ds(f), [float(x) for x in f[13].split()]) for k, f in read_rows(runs).items()}
def load(p):
    T, Q = [], []
    for line in open(p):
        v = line.split(); T.append(int(v[0])); Q.append([float(x) for x in v[1:]])
    return T, Q
def acc(T, L): return sum(t == l for t, l in zip(T, L)) / len(T)
def am(q): return max(range(len(q)), key=lambda c: q[c])
if windows:
    n = bm = bd = 0; tot_t = 0.0; below = []
    for name in ref:
        mv, ds, _ = ref[name]
        data = {s: load(os.path.join(postdir, f'{name}.c0.s{s}.txt')) for s in range(1, windows + 3)}
        T = data[1][0]
        lab = {s: [am(q) for q in data[s][1]] for s in data}
        for s in range(1, windows + 1):
            tri = [s, s + 1, s + 2]
            med = min(tri, key=lambda i: (sum(1 - acc(lab[i], lab[j]) for j in tri), i))
            x = acc(T, lab[med])
            n += 1; tot_t += x; bm += x < mv - 0.005; bd += x < ds - 0.005
            if x < mv - 0.005 or x < ds - 0.005:
                below.append(f'{name} s{s} {x:.3f} (MV {mv:.3f}, DS {ds:.3f})')
    print(f'{n} fits (the medoid of seeds s..s+2, s = 1..{windows}): mean {tot_t/n:.4f}, below MV {bm}, below DS {bd}')
    for b in below:
        print('  ' + b)
    sys.exit(0)
rows = []
tot = collections.defaultdict(lambda: [0, 0, 0, 0.0])
for name in sorted(ref, key=lambda n: (n.split('.')[0] if n.startswith('b') else '', int(re.sub(r'.*(draw|crowded)', '', n)))):
    mv, ds, _ = ref[name]
    files = sorted(glob.glob(os.path.join(postdir, f'{name}.c0.s*.txt')))
    fs = {int(re.search(r'\.s(\d+)\.txt$', f).group(1)): f for f in files}
    ss = [s for s in (seeds or sorted(fs)) if s in fs]
    if len(ss) < 2: continue
    data = {s: load(fs[s]) for s in ss}
    T = data[ss[0]][0]
    labels = {s: [am(q) for q in data[s][1]] for s in ss}
    per = [acc(T, labels[s]) for s in ss]
    agree = {s: sum(acc(labels[s], labels[o]) for o in ss if o != s) for s in ss}
    med = max(ss, key=lambda s: (agree[s], -s))
    vote = []
    for d in range(len(T)):
        c = collections.Counter(labels[s][d] for s in ss)
        top = max(c.values())  # ties: the first seed's label among the most frequent
        vote.append(next(labels[s][d] for s in ss if c[labels[s][d]] == top))
    C = len(data[ss[0]][1][0])
    mean = [am([sum(data[s][1][d][c] for s in ss) for c in range(C)]) for d in range(len(T))]
    ch = {'medoid': acc(T, labels[med]), 'vote': acc(T, vote), 'mean': acc(T, mean)}
    flag = lambda x: ('<MV' if x < mv - 0.005 else '') + ('<DS' if x < ds - 0.005 else '')
    print(f'{name:14s} MV {mv:.3f} DS {ds:.3f} | seeds ' + ' '.join(f'{x:.3f}{flag(x)}' for x in per) +
          ' | ' + ' '.join(f'{k} {v:.3f}{flag(v)}' for k, v in ch.items()) + f' (medoid s{med})')
    for x in per:
        t = tot['per seed']; t[0] += 1; t[1] += x < mv - 0.005; t[2] += x < ds - 0.005; t[3] += x
    for k, v in ch.items():
        t = tot[k]; t[0] += 1; t[1] += v < mv - 0.005; t[2] += v < ds - 0.005; t[3] += v
for k, (n, bm, bd, s) in tot.items():
    print(f'{k:9s}: {n} answers, mean {s/n:.4f}, below MV {bm} ({bm/n:.3f}), below DS {bd} ({bd/n:.3f})')
