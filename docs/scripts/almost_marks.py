#!/usr/bin/env python3
"""Per-annotator diagnosis of constant = "almost"'s marks on a family dump.

Usage: almost_marks.py DUMPDIR [MARKED]

DUMPDIR is one draw of `MASLDA_FAMILY_DUMP=DIR ... -run '^TestFamilyDump$'`
(answers.csv, truth.csv, spec.txt); MARKED is the comma-separated list of
annotators a run marked (`maslda train` logs it: ignored=[...]). For every
marked annotator and every annotator whose most frequent class is more
than 60% of its answers it prints: its answers n, its modal class v and
share k/n, the truth's share of v on its documents, the share of v in the
majority of its documents' other answers (leave-one-out, ties skipped),
the log Bayes factor of "independent of that majority" (Dirichlet(1)
rows against one Dirichlet(1) distribution; positive: independent) and
its planted matrix. A mark is right when k/n is far above the truth's
share of v (docs/results-classification.md, fourteenth session: the
near-constant answerers of draw10, draw35, b2001.draw15), wrong when the
truth's share is near or above k/n (draw9's a1 and a6 before the
classifier's shares, b2001.draw1's a7).

Cross-checking only: needs python3-numpy and python3-scipy, never a
runtime dependency.
"""
import collections
import csv
import re
import sys

import numpy as np
from scipy.special import gammaln


def main():
    d = sys.argv[1]
    marked = set(sys.argv[2].split(',')) if len(sys.argv) > 2 and sys.argv[2] else set()
    ans = collections.defaultdict(list)
    for r in list(csv.reader(open(d + '/answers.csv')))[1:]:
        ans[r[0]].append((r[1], int(r[2].lstrip('c'))))
    truth = {r[0]: int(r[1].lstrip('c')) for r in list(csv.reader(open(d + '/truth.csv')))[1:]}
    C = 1 + max(max(max(y for _, y in a) for a in ans.values()), max(truth.values()))
    spec = {}
    for line in open(d + '/spec.txt'):
        m = re.match(r'(a\d+) community (\d+), (\d+) answers, planted (.*)', line)
        if m:
            spec[m.group(1)] = m.group(4)

    def dirnorm(a):
        return gammaln(np.sum(a)) - np.sum(gammaln(a))

    def polya(n, a):
        return dirnorm(a) - dirnorm(np.asarray(a) + np.asarray(n))

    def log_bf(t):
        ones = np.ones(C)
        return polya(t.sum(0), ones) - sum(polya(t[c], ones) for c in range(C))

    others = collections.defaultdict(lambda: np.zeros((C, C)))
    vs_truth = collections.defaultdict(lambda: np.zeros((C, C)))
    for doc, a in ans.items():
        for i, (r, y) in enumerate(a):
            cnt = [0] * C
            for j, (_, y2) in enumerate(a):
                if j != i:
                    cnt[y2] += 1
            if len(a) > 1 and cnt.count(max(cnt)) == 1:
                others[r][cnt.index(max(cnt)), y] += 1
            if doc in truth:
                vs_truth[r][truth[doc], y] += 1
    shares = np.bincount(list(truth.values()), minlength=C) / len(truth)
    print('truth shares', np.round(shares, 3))
    for r in sorted(vs_truth, key=lambda x: int(x.lstrip('a'))):
        n = vs_truth[r].sum()
        col = vs_truth[r].sum(0)
        v = int(col.argmax())
        kn = col[v] / n
        t = others[r]
        no = t.sum()
        mv = t.sum(1)[v] / no if no else float('nan')
        if r in marked or kn > 0.6:
            flag = 'MARK' if r in marked else ''
            print(f'{r:5s} {flag:4s} n {int(n):4d} v {v} k/n {kn:.2f} truth share of v {vs_truth[r].sum(1)[v] / n:.2f} '
                  f'others-majority share of v {mv:.2f} (n {int(no)}, log BF {log_bf(t):6.1f})  planted {spec.get(r, "")[:60]}')


if __name__ == '__main__':
    main()
