# Issue 25, item 5: answers-only EM for bias-precision annotators with and
# without a per-annotator "ignores the item" indicator (a spammer answers
# y ~ N(mu_r, 1/kappa_r) whatever the truth; otherwise y = x + b_r + noise),
# on the value family's draws and on the six affect emotions; truth R²
# against the planted truth / the expert gold. A cross-check of
# docs/results-regression.md, never a runtime dependency:
#   MASLDA_VALUE_FAMILY_DUMP=/tmp/vdump MASLDA_VALUE_FAMILY_DRAWS=$(seq -s, 0 49) go test ./models -run '^TestValueFamilyDump$'
#   bash docs/scripts/snow2008.sh ../shared/data /tmp/snow
#   /usr/bin/python3 docs/scripts/value_spam_check.py /tmp/vdump /tmp/snow/affect
import csv, sys, numpy as np
from scipy.special import expit

def load(answers, truth, col):
    rows = list(csv.DictReader(open(answers)))
    tr = {r['task']: float(r[col]) for r in csv.DictReader(open(truth))}
    tasks = sorted(tr, key=lambda t: (len(t), t)); workers = sorted({r['worker'] for r in rows})
    ti = {t: i for i, t in enumerate(tasks)}; wi = {w: i for i, w in enumerate(workers)}
    d = np.array([ti[r['task']] for r in rows]); w = np.array([wi[r['worker']] for r in rows])
    y = np.array([float(r[col]) for r in rows]); g = np.array([tr[t] for t in tasks])
    return d, w, y, g, len(tasks), len(workers)

def fit(d, w, y, D, R, spam=False, pi=0.01, nu0=1.0, iters=300):
    """EM: x_d ~ N(mu, s2) (learned), bias anchored at the mean over
    informative answers, precision p_r with a Gamma prior of nu0 answers at
    the answers' variance; with spam, q(r is a spammer) = rho_r from the two
    explanations' likelihoods and the prior odds pi/(1-pi)."""
    n = np.bincount(w, minlength=R).astype(float); s0 = y.var()
    mu, s2 = y.mean(), y.var(); b = np.zeros(R); p = np.ones(R) / s0; rho = np.zeros(R)
    for _ in range(iters):
        wt = (1 - rho[w]) * p[w]
        v = 1 / (1 / s2 + np.bincount(d, weights=wt, minlength=D))
        m = v * (mu / s2 + np.bincount(d, weights=wt * (y - b[w]), minlength=D))
        mu = m.mean(); s2 = ((m - mu) ** 2 + v).mean()
        Ex, Ex2 = m[d], m[d] ** 2 + v[d]
        b = np.bincount(w, weights=y - Ex, minlength=R) / np.maximum(n, 1)
        bw = (1 - rho) * n
        if bw.sum() > 0:
            b -= (bw * b).sum() / bw.sum()
        res = np.bincount(w, weights=(y - b[w]) ** 2 - 2 * (y - b[w]) * Ex + Ex2, minlength=R)
        p = (n + nu0) / (res + nu0 * s0)
        if spam:
            ms = np.bincount(w, weights=y, minlength=R) / np.maximum(n, 1)
            rs = np.bincount(w, weights=(y - ms[w]) ** 2, minlength=R)
            ks = (n + nu0) / (rs + nu0 * s0)
            rho = expit(np.log(pi / (1 - pi)) + (0.5 * n * np.log(ks) - 0.5 * ks * rs) - (0.5 * n * np.log(p) - 0.5 * p * res))
            if (1 - rho).sum() < 1e-9:  # every annotator a spammer: none is
                rho[:] = 0
    return m, rho

def r2(g, x, has):
    g, x = g[has], x[has]
    return 1 - ((g - x) ** 2).sum() / ((g - g.mean()) ** 2).sum()

def row(name, d, w, y, g, D, R):
    has = np.bincount(d, minlength=D) > 0
    mean = np.bincount(d, weights=y, minlength=D) / np.maximum(np.bincount(d, minlength=D), 1)
    out = [r2(g, mean, has), r2(g, fit(d, w, y, D, R)[0], has)]
    m, rho = fit(d, w, y, D, R, spam=True)
    out += [r2(g, m, has), int((rho > 0.5).sum())]
    print(f"| {name} | {R} | {out[0]:.3f} | {out[1]:.3f} | {out[2]:.3f} | {out[3]} |", flush=True)
    return out[:3]

print("| set | R | mean answer | bias-precision | with spammers | spammers |")
print("|---|---|---|---|---|---|")
fam = []
for i in range(50):
    D0 = f"{sys.argv[1]}/draw{i}"
    fam.append(row(f"draw{i}", *load(f"{D0}/answers.csv", f"{D0}/truth.csv", "value")))
fam = np.array(fam)
print(f"| family mean | | {fam[:,0].mean():.3f} | {fam[:,1].mean():.3f} | {fam[:,2].mean():.3f} | |")
print(f"| family draws below the mean answer − 0.005 | | | {(fam[:,1] < fam[:,0]-0.005).sum()} | {(fam[:,2] < fam[:,0]-0.005).sum()} | |")
print(f"| family draws below bias-precision − 0.005 | | | | {(fam[:,2] < fam[:,1]-0.005).sum()} | |")
for E in "anger disgust fear joy sadness surprise".split():
    row(E, *load(f"{sys.argv[2]}/{E}.answers.csv", f"{sys.argv[2]}/{E}.truth.csv", "label"))
