#!/usr/bin/env python3
"""Compare two runs of TestRandomFamily (classification), fit by fit.

Usage: family_compare.py BEFORE.txt AFTER.txt [LABEL_BEFORE LABEL_AFTER]

Each file is the -v output of TestRandomFamily over the same draws, seeds and
configurations. Per configuration it prints each run's mean truth and its fits
more than 0.005 below majority vote and Dawid–Skene (counted from the tables'
three decimals, and as the test's summary lines count them at full precision:
quote the latter), then every fit that moved by more than 0.005."""
import sys, re
def parse(path):
    cfgs = []; cur = None
    for line in open(path):
        if line.startswith('### configuration'):
            cur = {'_exact': [0, 0]}; cfgs.append(cur); continue
        m = re.match(r'below (majority vote|Dawid–Skene) − 0\.005: (\d+) of', line)
        if cur is not None and m:
            cur['_exact'][m.group(1) != 'majority vote'] += int(m.group(2)); continue
        if cur is None or not line.startswith(('| draw', '| b', '| crowded')): continue
        f = [x.strip() for x in line.strip().strip('|').split('|')]
        if f[0] == 'draw': continue
        name = f[0]; mv = float(f[8]); ds = float(f[9])
        truth = [float(x) for x in f[13].split()]
        cur[name] = (mv, ds, truth)
    return cfgs
A = parse(sys.argv[1]); B = parse(sys.argv[2])
la, lb = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else ('A', 'B')
for ci in range(min(len(A), len(B))):
    a, b = A[ci], B[ci]
    print(f'## configuration {ci}')
    tot = {la: [0, 0, 0, 0], lb: [0, 0, 0, 0]}
    moved = []
    for d in a:
        if d.startswith('_') or d not in b: continue
        mv, ds, ta = a[d]; tb = b[d][2]
        for lab, ts in ((la, ta), (lb, tb)):
            for t in ts:
                tot[lab][0] += t; tot[lab][1] += 1
                tot[lab][2] += t < mv - 0.005; tot[lab][3] += t < ds - 0.005
        for s, (x, y) in enumerate(zip(ta, tb)):
            if abs(x - y) > 0.005:
                moved.append(f'  {d} s{s+1}: MV {mv:.3f} DS {ds:.3f}  {la} {x:.3f}  {lb} {y:.3f}  ({y-x:+.3f})')
    for lab, cfg in ((la, a), (lb, b)):
        s, n, bm, bd = tot[lab]
        em, ed = cfg['_exact']
        print(f'  {lab}: {n} fits, mean {s/n:.4f}, below MV {bm}, below DS {bd} '
              f'(from the tables\' three decimals; the test\'s own exact count: {em}, {ed})')
    print('\n'.join(moved))
