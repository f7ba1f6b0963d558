# Issue 25, item 5: how much of the bias–precision model's loss to the mean
# answer on ../shared/data/snow2008_affect (fear, joy, surprise) comes from the
# truth's learned prior N(mu, s2) (whose s2 collapses) and how much from the
# per-annotator weights. Answers-only EM (point estimates of b_r, p_r with the
# precision prior of one pseudo-answer of variance var(y), as `bias-precision`;
# q(x_d) Gaussian), truth R² against the gold:
#   learned: x_d ~ N(mu, s2), mu and s2 by EM (the model the repository ships,
#            answers only: reproduces results-regression.md's "per-annotator" row)
#   floor:   learned, with s2 held at or above the moment estimate of Var(x), the
#            mean over headlines of the products of two different annotators'
#            centred answers (Cov(y_rd, y_sd) = Var(x) under y = x + b + noise)
#   flat:    no prior on x_d (s2 -> infinity): x_d the annotators' weighted mean
#   flat, biases only / precisions only: one of the two per-annotator parts
# A cross-check, never a runtime dependency (needs python3-numpy):
#   /usr/bin/python3 docs/scripts/affect_truthprior_check.py [../shared/data/snow2008_affect]
import os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import affect_data

DIR = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/snow2008_affect"


def load(e):
    return affect_data.load(DIR, e)


r2 = affect_data.r2


def fit(d, w, y, D, R, prior, bias=True, prec=True, nu0=1.0, iters=1000, floor=0.0):
    n = np.bincount(w, minlength=R).astype(float)
    s0 = y.var()
    b, p, mu, s2 = np.zeros(R), np.ones(R) / s0, y.mean(), y.var()
    for _ in range(iters):
        P = np.bincount(d, weights=p[w], minlength=D)
        S = np.bincount(d, weights=p[w] * (y - b[w]), minlength=D)
        if prior == "flat":
            v, m = 1 / P, S / P
        else:
            v = 1 / (P + 1 / s2)
            m = v * (S + mu / s2)
            mu = m.mean()
            s2 = max(floor, ((m - mu) ** 2 + v).mean())
        if bias:
            b = np.bincount(w, weights=y - m[d], minlength=R) / n
            b -= (n * b).sum() / n.sum()
        if prec:
            res = np.bincount(w, weights=(y - b[w] - m[d]) ** 2 + v[d], minlength=R)
            p = (n + nu0) / (res + nu0 * s0)
    return m, s2


print("| emotion | mean answer | learned prior (s2) | moment estimate of Var(x) | floor at it | flat prior | flat, biases only | flat, precisions only |")
print("|---|---|---|---|---|---|---|---|")
for e in "anger disgust fear joy sadness surprise".split():
    d, w, y, g, D, R = load(e)
    mean = np.bincount(d, weights=y, minlength=D) / np.bincount(d, minlength=D)
    ml, s2 = fit(d, w, y, D, R, "learned")
    yc, nd = y - y.mean(), np.bincount(d, minlength=D)
    sd, qd = np.bincount(d, weights=yc, minlength=D), np.bincount(d, weights=yc**2, minlength=D)
    mom = ((sd**2 - qd) / (nd * (nd - 1))).mean()
    mm, _ = fit(d, w, y, D, R, "learned", floor=mom)
    mf, _ = fit(d, w, y, D, R, "flat")
    mb, _ = fit(d, w, y, D, R, "flat", prec=False)
    mp, _ = fit(d, w, y, D, R, "flat", bias=False)
    print(f"| {e} | {r2(g, mean):.3f} | {r2(g, ml):.3f} ({s2:.0f}) | {mom:.0f} | {r2(g, mm):.3f} | {r2(g, mf):.3f} | {r2(g, mb):.3f} | {r2(g, mp):.3f} |")
