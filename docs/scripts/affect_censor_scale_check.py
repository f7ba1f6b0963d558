# Issue 25, item 5: two answer models for ../shared/data/snow2008_affect that
# attack the two causes of the bias–precision model's collapse on fear, joy
# and surprise (docs/results-regression.md), answers only, truth R² and
# Pearson r against the gold:
#   censored (Tobit): 57–74% of the answers are exactly 0 (the scale's
#       floor) and a few exactly 100, so an answer is y = clip(x_d + b_r + ε,
#       0, 100) with ε ~ N(0, 1/p_r); mean-field VB with a latent uncensored
#       answer y* per censored answer, q(y*) a truncated normal; kb: the
#       biases' shrinkage towards 0 in answers (0: none; 1e9: no biases)
#   anchored scale: y = a_r x_d + b_r + ε with the answer-weighted means of
#       a_r and b_r held at 1 and 0 (x reparameterised after every M-step, as
#       the bias anchor does for b), so that a near-constant answerer gets
#       a_r ≈ 0 instead of a high precision; ka: a ridge k_a (a_r − 1)²
# A cross-check, never a runtime dependency (needs python3-numpy):
#   /usr/bin/python3 docs/scripts/affect_censor_scale_check.py [../shared/data/snow2008_affect]
import math, os, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import affect_data

DIR = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/snow2008_affect"
EMOTIONS = "anger disgust fear joy sadness surprise".split()


def load(e):
    return affect_data.load(DIR, e)


r2 = affect_data.r2


_erf = np.vectorize(math.erf)


def Phi(z):
    return 0.5 * (1 + _erf(z / math.sqrt(2)))


def phi(z):
    return np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def below(mu, sd, L):
    """First two moments of N(mu, sd²) truncated to (−∞, L]."""
    a = (L - mu) / sd
    lam = phi(a) / np.maximum(Phi(a), 1e-300)
    m1 = mu - sd * lam
    return m1, sd**2 * (1 - a * lam - lam**2) + m1**2


def tobit(d, w, y, D, R, kb=0.0, prec=True, L=0.0, U=100.0, iters=500, nu0=1.0):
    n = np.bincount(w, minlength=R).astype(float)
    s0 = y.var()
    b, p, mu, s2 = np.zeros(R), np.ones(R) / s0, y.mean(), y.var()
    lo, hi = y <= L, y >= U
    ys, ys2 = y.copy(), y**2
    m = np.bincount(d, weights=y, minlength=D) / np.bincount(d, minlength=D)
    for _ in range(iters):
        mean, sd = m[d] + b[w], 1 / np.sqrt(p[w])
        ys[lo], ys2[lo] = below(mean[lo], sd[lo], L)
        m1, m2 = below(-mean[hi], sd[hi], -U)
        ys[hi], ys2[hi] = -m1, m2
        P = np.bincount(d, weights=p[w], minlength=D)
        S = np.bincount(d, weights=p[w] * (ys - b[w]), minlength=D)
        v = 1 / (P + 1 / s2)
        m = v * (S + mu / s2)
        mu, s2 = m.mean(), ((m - m.mean()) ** 2 + v).mean()
        b = np.bincount(w, weights=ys - m[d], minlength=R) / (n + kb)
        b -= (n * b).sum() / n.sum()
        if prec:
            res = np.bincount(w, weights=ys2 - 2 * ys * (m[d] + b[w]) + (m[d] + b[w]) ** 2 + v[d], minlength=R)
            p = (n + nu0) / (res + nu0 * s0)
    return m, s2


def scale(d, w, y, D, R, ka=0.0, prec=True, iters=2000, nu0=1.0):
    n = np.bincount(w, minlength=R).astype(float)
    s0 = y.var()
    a, b, p, mu, s2 = np.ones(R), np.zeros(R), np.ones(R) / s0, y.mean(), y.var()
    for _ in range(iters):
        P = np.bincount(d, weights=p[w] * a[w] ** 2, minlength=D)
        S = np.bincount(d, weights=p[w] * a[w] * (y - b[w]), minlength=D)
        v = 1 / (P + 1 / s2)
        m = v * (S + mu / s2)
        mu, s2 = m.mean(), ((m - m.mean()) ** 2 + v).mean()
        Sxx = np.bincount(w, weights=m[d] ** 2 + v[d], minlength=R)
        Sx = np.bincount(w, weights=m[d], minlength=R)
        Sxy = np.bincount(w, weights=m[d] * y, minlength=R)
        Sy = np.bincount(w, weights=y, minlength=R)
        a = ((Sxy + ka) * n - Sx * Sy) / ((Sxx + ka) * n - Sx**2)
        b = (Sy - a * Sx) / n
        c = (n * a).sum() / n.sum()  # the scale anchor
        a, m, mu, s2, v = a / c, m * c, mu * c, s2 * c * c, v * c * c
        sh = (n * b).sum() / n.sum()  # the bias anchor
        b, m, mu = b - sh, m + sh, mu + sh
        if prec:
            res = np.bincount(w, weights=(y - a[w] * m[d] - b[w]) ** 2 + a[w] ** 2 * v[d], minlength=R)
            p = (n + nu0) / (res + nu0 * s0)
    return m, s2


print("| emotion | answers at 0 / 100 | mean answer: R² (r) | Tobit, kb 0: R² of clip(x) (r) | Tobit, kb 20 | Tobit, no biases | anchored scale: R² (r), s² | anchored scale, ka 1000 | anchored scale, one precision |")
print("|---|---|---|---|---|---|---|---|---|")
for e in EMOTIONS:
    d, w, y, g, D, R = load(e)
    mean = np.bincount(d, weights=y, minlength=D) / np.bincount(d, minlength=D)
    cell = lambda x: f"{r2(g, x):.3f} ({np.corrcoef(g, x)[0, 1]:.2f})"
    out = [e, f"{(y <= 0).mean():.2f} / {(y >= 100).mean():.2f}", cell(mean)]
    for kw in [dict(), dict(kb=20), dict(kb=1e9)]:
        m, _ = tobit(d, w, y, D, R, **kw)
        out.append(f"{r2(g, np.clip(m, 0, 100)):.3f} ({np.corrcoef(g, m)[0, 1]:.2f})")
    m, s2 = scale(d, w, y, D, R)
    out.append(cell(m) + f", {s2:.0f}")
    m, _ = scale(d, w, y, D, R, ka=1000)
    out.append(cell(m))
    m, _ = scale(d, w, y, D, R, prec=False)
    out.append(cell(m))
    print("| " + " | ".join(out) + " |")
