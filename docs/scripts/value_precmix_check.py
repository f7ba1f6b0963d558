# Issue 25, item 5: answers-only variational EM for bias-precision annotators
# whose precisions share a learned prior that is a mixture of Gammas
# (a "good" and a "poor" population), beside the fixed prior of the shipped
# default below the gate (MAP, kappa0 = 3, nu0 = 1) and one learned Gamma;
# on the value family's dumps. A cross-check of docs/results-regression.md,
# never a runtime dependency:
#   MASLDA_FAMILY_BASE=B MASLDA_VALUE_FAMILY_DUMP=/tmp/vd/B MASLDA_VALUE_FAMILY_DRAWS=... \
#     go test ./models -run '^TestValueFamilyDump$'
#   /usr/bin/python3 docs/scripts/value_precmix_check.py /tmp/vd/*/*          # answers alone
#   TEXT=1 /usr/bin/python3 docs/scripts/value_precmix_check.py /tmp/vd/*/*   # with a stand-in for the words:
#       x_d ~ N(t_d, (1 − share)·var x), t_d the planted text share's predictor of the truth
import csv, sys, os, numpy as np
from scipy.special import digamma, gammaln, polygamma


def load(path):
    rows = list(csv.DictReader(open(os.path.join(path, 'answers.csv'))))
    tr = {r['task']: float(r['value']) for r in csv.DictReader(open(os.path.join(path, 'truth.csv')))}
    tasks = sorted(tr, key=lambda t: (len(t), t)); workers = sorted({r['worker'] for r in rows})
    ti = {t: i for i, t in enumerate(tasks)}; wi = {w: i for i, w in enumerate(workers)}
    d = np.array([ti[r['task']] for r in rows]); w = np.array([wi[r['worker']] for r in rows])
    y = np.array([float(r['value']) for r in rows]); g = np.array([tr[t] for t in tasks])
    return d, w, y, g, len(tasks), len(workers)


def pooled_var(d, y, D):
    c = np.bincount(d, minlength=D); mean = np.bincount(d, weights=y, minlength=D) / np.maximum(c, 1)
    ok = c[d] >= 2
    return ((y[ok] - mean[d[ok]]) ** 2).sum() / max((c[c >= 2] - 1).sum(), 1)


def gamma_mle(w, ep, elp, floor):
    """Weighted Gamma(shape a, rate b) maximising sum w (a log b - lgamma a + (a-1) E log p - b E p);
    b floored."""
    W = w.sum(); mp = (w * ep).sum() / W; mlp = (w * elp).sum() / W
    s = np.log(mp) - mlp  # > 0 by Jensen
    a = (3 - s + np.sqrt((s - 3) ** 2 + 24 * s)) / (12 * s) if s > 0 else 1e4
    for _ in range(100):
        a = max(a - (np.log(a) - digamma(a) - s) / (1 / a - polygamma(1, a)), 1e-6)
    b = a / mp
    if b < floor:  # boundary: b = floor, best a there
        b = floor; t = np.log(b) + mlp
        a = 1.0
        for _ in range(100):
            a = max(a - (t - digamma(a)) / (-polygamma(1, a)), 1e-6)
    return a, b


def fit(d, w, y, D, R, mode, K=2, kappa=3.0, nu=1.0, iters=400, text=None):
    """text: (t, s2), a fixed prior x_d ~ N(t_d, s2) standing in for the words
    (the planted text share's predictor), or None: N(mu, s2) learned."""
    n = np.bincount(w, minlength=R).astype(float)
    s0 = pooled_var(d, y, D)
    mu, s2 = y.mean(), y.var()
    mb = np.zeros(R)
    A = np.full(R, 1 + nu / 2 + n / 2); B = np.full(R, nu * s0 / 2 + n * s0 / 2)
    p = A / B
    floor = s0 / 2
    if mode == 'mix':
        a = np.full(K, 1 + nu / 2); b = nu * s0 / 2 * np.geomspace(0.25, 4, K); pi = np.full(K, 1 / K)
    else:
        a = np.array([1 + nu / 2]); b = np.array([nu * s0 / 2]); pi = np.ones(1)
    phi = np.tile(pi, (R, 1))
    for it in range(iters):
        ep = p if mode == 'map' else A / B
        if text is not None:
            mu, s2 = text
        v = 1 / (1 / s2 + np.bincount(d, weights=ep[w], minlength=D))
        m = v * (mu / s2 + np.bincount(d, weights=ep[w] * (y - mb[w]), minlength=D))
        if text is None:
            mu = m.mean(); s2 = ((m - mu) ** 2 + v).mean()
        Sy = np.bincount(w, weights=y - m[d], minlength=R)
        Syy = np.bincount(w, weights=(y - m[d]) ** 2 + v[d], minlength=R)
        if mode == 'map':  # the shipped fixed prior: bias under the mean anchor, then precision
            num = (n * Sy / (n + kappa)).sum(); den = (n * n / (p * (n + kappa))).sum()
            anc = num / den
            mb = (Sy - anc * n / p) / (n + kappa)
            q = np.maximum(Syy - 2 * mb * Sy + n * mb * mb, 0)
            p = (n + nu + 1) / (q + nu * s0 + kappa * mb * mb)
            continue
        lam = kappa + n
        mb = Sy / lam
        mb -= (n * mb).sum() / n.sum()  # the mean anchor, as a shift
        A0 = phi @ a; B0 = phi @ b
        A = A0 + n / 2
        B = B0 + 0.5 * np.maximum(Syy - 2 * mb * Sy + lam * mb * mb, 1e-300)
        ep, elp = A / B, digamma(A) - np.log(B)
        if mode == 'mix' and it == 20:  # start the populations apart: split at the median E[log p]
            hi = elp > np.median(elp)
            phi = np.stack([hi, ~hi], 1).astype(float) * 0.9 + 0.05
            for k in range(len(a)):
                a[k], b[k] = gamma_mle(phi[:, k], ep, elp, floor)
            pi = phi.mean(0)
        if mode == 'mix' and it > 20:  # E-step of the populations, then their Gammas
            lg = np.log(pi) + a * np.log(b) - gammaln(a) + np.outer(elp, a - 1) - np.outer(ep, b)
            lg -= lg.max(1, keepdims=True); phi = np.exp(lg); phi /= phi.sum(1, keepdims=True)
            pi = np.maximum(phi.mean(0), 1e-12)
        if mode == 'learn1' or (mode == 'mix' and it > 20):
            for k in range(len(a)):
                if phi[:, k].sum() > 1e-6:
                    a[k], b[k] = gamma_mle(phi[:, k], ep, elp, floor)
    return m, (a, b, pi, phi)


def r2(g, x, has):
    g, x = g[has], x[has]
    return 1 - ((g - x) ** 2).sum() / ((g - g.mean()) ** 2).sum()


def text_prior(path, g, seed=1):
    """The planted text share's predictor of the truth: t = share·x + noise,
    var t = share·var x, x − t independent of t with variance (1 − share)·var x."""
    spec = open(os.path.join(path, 'spec.txt')).read()
    share = float(spec.split('text share ')[1].split(',')[0])
    rng = np.random.default_rng(seed); c = g - g.mean(); var = c.var()
    t = g.mean() + share * c + np.sqrt(share * (1 - share) * var) * rng.standard_normal(len(g))
    return t, max((1 - share) * var, 1e-12 * var)


def main():
    text = os.environ.get('TEXT') == '1'

    print('| draw | R | N/R | mean answer | fixed (MAP, shipped) | fixed, variational | one learned Gamma | two Gammas | populations (share: mean precision) |')
    print('|---|---|---|---|---|---|---|---|---|')
    for path in sys.argv[1:]:
        d, w, y, g, D, R = load(path)
        has = np.bincount(d, minlength=D) > 0
        mean = np.bincount(d, weights=y, minlength=D) / np.maximum(np.bincount(d, minlength=D), 1)
        out = [r2(g, mean, has)]
        for mode in ('map', 'vfix', 'learn1', 'mix'):
            m, (a, b, pi, phi) = fit(d, w, y, D, R, mode, text=text_prior(path, g) if text else None)
            out.append(r2(g, m, has))
        pops = ', '.join(f'{pi[k]:.2f}: {a[k] / b[k]:.3g}' for k in range(len(a)))
        print(f"| {os.path.basename(path)} | {R} | {len(y) / R:.1f} | " + ' | '.join(f'{x:.3f}' for x in out) + f' | {pops} |', flush=True)


if __name__ == '__main__':
    main()
