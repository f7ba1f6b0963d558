#!/usr/bin/env python3
"""Answers-only check of a lapse and of an item-level ambiguity in
Dawid-Skene (docs/results-classification.md, "A lapse in every answer").

usage: lapse_check.py DUMPDIR...   (dirs written by TestFamilyDump: answers.csv, truth.csv, spec.txt)

Per draw: majority vote, Dawid-Skene (flat Dirichlet(1) rows, 60 EM steps
from the majority vote), Dawid-Skene with a fixed lapse delta 0.01 and 0.1
(p(y|c,r) = (1-delta) pi_r[c,y] + delta/C), with a learned lapse (Beta(1, 4)),
with an item-level shared ambiguity (a lapse drawn from the item's own
phi_d ~ Dir(0.5), shared by its answers), and one-coin; then the summary.
"""
import csv, os, sys
import numpy as np
from scipy.special import digamma, logsumexp


def load(d):
    T, W, L, rows = {}, {}, {}, []
    for r in csv.DictReader(open(os.path.join(d, 'answers.csv'))):
        rows.append((T.setdefault(r['task'], len(T)), W.setdefault(r['worker'], len(W)), L.setdefault(r['label'], len(L))))
    truth = np.full(len(T), -1)
    for r in csv.DictReader(open(os.path.join(d, 'truth.csv'))):
        if r['task'] in T:
            truth[T[r['task']]] = L.setdefault(r['label'], len(L))
    return np.array(rows), len(T), len(W), len(L), truth


def mv(a, D, C):
    n = np.zeros((D, C))
    np.add.at(n, (a[:, 0], a[:, 2]), 1)
    return n / n.sum(1, keepdims=True)


def ds(a, D, R, C, iters=60, lapse=0.0, learn=False, beta=None):
    """Dawid-Skene by variational EM with q(pi) Dirichlet; lapse delta mixes
    a uniform (beta None) or item-shared (beta: phi_d ~ Dir(beta)) source."""
    q = mv(a, D, C)
    t, r, y = a[:, 0], a[:, 1], a[:, 2]
    resp = np.ones((len(a), C))
    eld, el1d = (np.log(lapse), np.log1p(-lapse)) if lapse > 0 else (-np.inf, 0.0)
    for _ in range(iters):
        w1 = q[t] * resp
        pi = np.ones((R, C, C))
        for c in range(C):
            np.add.at(pi[:, c, :], (r, y), w1[:, c])
        elpi = digamma(pi) - digamma(pi.sum(2, keepdims=True))
        k0 = 1 - w1.sum(1)
        if learn:
            A, B = 1 + k0.sum(), 4 + w1.sum()
            eld, el1d = digamma(A) - digamma(A + B), digamma(B) - digamma(A + B)
        if beta is None:
            elphi = np.full(len(a), -np.log(C))
        else:
            phi = np.full((D, C), beta)
            np.add.at(phi, (t, y), k0)
            elphi = (digamma(phi) - digamma(phi.sum(1, keepdims=True)))[t, y]
        l1 = el1d + elpi[r, :, y]
        l0 = (eld + elphi)[:, None]
        m1 = np.logaddexp(l1, l0)
        resp = np.exp(l1 - m1)
        m = np.tile(np.log(q.sum(0) + 1), (D, 1))
        for c in range(C):
            m[:, c] += np.bincount(t, m1[:, c], D)
        q = np.exp(m - logsumexp(m, 1, keepdims=True))
    return q


def onecoin(a, D, R, C, iters=100):
    q = mv(a, D, C)
    t, r, y = a[:, 0], a[:, 1], a[:, 2]
    for _ in range(iters):
        pk = q[t, y]
        A, B = 2 + np.bincount(r, pk, R), 1 + np.bincount(r, 1 - pk, R)
        ela = digamma(A) - digamma(A + B)
        elb = digamma(B) - digamma(A + B) - np.log(C - 1)
        m = np.tile(np.log(q.sum(0) + 1), (D, 1))
        m += np.bincount(t, elb[r], D)[:, None]
        np.add.at(m, (t, y), ela[r] - elb[r])
        q = np.exp(m - logsumexp(m, 1, keepdims=True))
    return q


def acc(q, truth):
    ok = truth >= 0
    return (q.argmax(1)[ok] == truth[ok]).mean()


names = ['MV', 'DS', 'DS+lapse.01', 'DS+lapse.1', 'DS+lapse(learned)', 'DS+item', 'one-coin']
X = []
for d in sys.argv[1:]:
    a, D, R, C, truth = load(d)
    res = [acc(mv(a, D, C), truth), acc(ds(a, D, R, C), truth), acc(ds(a, D, R, C, lapse=0.01), truth),
           acc(ds(a, D, R, C, lapse=0.1), truth), acc(ds(a, D, R, C, lapse=0.2, learn=True), truth),
           acc(ds(a, D, R, C, lapse=0.2, learn=True, beta=0.5), truth), acc(onecoin(a, D, R, C), truth)]
    X.append(res)
    print('%-18s' % os.path.basename(d.rstrip('/')), ' '.join('%.3f' % x for x in res), flush=True)
X = np.array(X)
print('columns:', ', '.join(names))
for j, n in enumerate(names):
    print('%-18s mean %.4f  below MV %2d  below DS %2d  (of %d, by more than 0.005)' % (
        n, X[:, j].mean(), (X[:, j] < X[:, 0] - 0.005).sum(), (X[:, j] < X[:, 1] - 0.005).sum(), len(X)))
