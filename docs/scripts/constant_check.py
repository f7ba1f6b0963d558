# Issue 25: answers-only check of "constant = ignore" (docs/results-regression.md and
# docs/results-classification.md, "Annotators who give one ... to everything"): an
# annotator whose n >= 2 answers are all one value v, with sum_v f_v^n < 0.01 (f_v the
# share of all answers equal to v), is dropped; bias-precision EM (the numpy EM of
# value_spam_check.py) on the value family's draws and the six affect emotions, and a
# Bayesian Dawid-Skene (prior Dir(1 + 2 e_c), vbds_check.py's) on both classification
# families' draws, each with and without the marked annotators. A cross-check, never a
# runtime dependency:
#   MASLDA_VALUE_FAMILY_DUMP=/tmp/vdump MASLDA_VALUE_FAMILY_DRAWS=$(seq -s, 0 49) go test ./models -run '^TestValueFamilyDump$'
#   MASLDA_FAMILY_DUMP=/tmp/famall MASLDA_FAMILY_DRAWS=$(seq -s, 0 49) go test ./models -run '^TestFamilyDump$'
#   MASLDA_FAMILY_BASE=1001 MASLDA_FAMILY_DUMP=/tmp/famval MASLDA_FAMILY_DRAWS=$(seq -s, 0 49) go test ./models -run '^TestFamilyDump$'
#   bash docs/scripts/snow2008.sh ../shared/data /tmp/snow
#   /usr/bin/python3 docs/scripts/constant_check.py /tmp/vdump /tmp/snow/affect /tmp/famall /tmp/famval
import csv, sys, numpy as np
from scipy.special import digamma

def chance_flags(w, y, R, alpha=0.01):
    vals, inv = np.unique(y, return_inverse=True); f = np.bincount(inv) / len(y)
    m = np.zeros(R, bool)
    for r in range(R):
        a = y[w == r]; n = len(a)
        if n >= 2 and (a == a[0]).all() and (f ** n).sum() < alpha: m[r] = True
    return m

# --- regression
def load_values(answers, truth, col):
    rows = list(csv.DictReader(open(answers)))
    tr = {r['task']: float(r[col]) for r in csv.DictReader(open(truth))}
    tasks = sorted(tr, key=lambda t: (len(t), t)); workers = sorted({r['worker'] for r in rows})
    ti = {t: i for i, t in enumerate(tasks)}; wi = {w: i for i, w in enumerate(workers)}
    d = np.array([ti[r['task']] for r in rows]); w = np.array([wi[r['worker']] for r in rows])
    y = np.array([float(r[col]) for r in rows]); g = np.array([tr[t] for t in tasks])
    return d, w, y, g, len(tasks), len(workers)

def fit_bp(d, w, y, D, R, drop=None, nu0=1.0, iters=300):
    n = np.bincount(w, minlength=R).astype(float); s0 = y.var()
    keep = np.ones(R) if drop is None else (~drop).astype(float)
    mu, s2 = y.mean(), y.var(); b = np.zeros(R); p = np.ones(R) / s0
    for _ in range(iters):
        wt = keep[w] * p[w]
        v = 1 / (1 / s2 + np.bincount(d, weights=wt, minlength=D))
        m = v * (mu / s2 + np.bincount(d, weights=wt * (y - b[w]), minlength=D))
        mu = m.mean(); s2 = ((m - mu) ** 2 + v).mean()
        Ex, Ex2 = m[d], m[d] ** 2 + v[d]
        b = np.bincount(w, weights=y - Ex, minlength=R) / np.maximum(n, 1)
        bw = keep * n
        b -= (bw * b).sum() / bw.sum()
        res = np.bincount(w, weights=(y - b[w]) ** 2 - 2 * (y - b[w]) * Ex + Ex2, minlength=R)
        p = (n + nu0) / (res + nu0 * s0)
    return m

def r2(g, x, has):
    g, x = g[has], x[has]
    return 1 - ((g - x) ** 2).sum() / ((g - g.mean()) ** 2).sum()

def value_row(name, d, w, y, g, D, R):
    has = np.bincount(d, minlength=D) > 0
    mean = np.bincount(d, weights=y, minlength=D) / np.maximum(np.bincount(d, minlength=D), 1)
    m = chance_flags(w, y, R)
    out = [r2(g, mean, has), r2(g, fit_bp(d, w, y, D, R), has), r2(g, fit_bp(d, w, y, D, R, drop=m), has)]
    print(f"| {name} | {R} | {int(m.sum())} | " + " | ".join(f"{x:.3f}" for x in out) + " |", flush=True)
    return out

print("| set | R | marked | mean answer | bias-precision | marked dropped |")
print("|---|---|---|---|---|---|")
for E in "anger disgust fear joy sadness surprise".split():
    value_row(E, *load_values(f"{sys.argv[2]}/{E}.answers.csv", f"{sys.argv[2]}/{E}.truth.csv", "label"))
fam = np.array([value_row(f"draw{i}", *load_values(f"{sys.argv[1]}/draw{i}/answers.csv", f"{sys.argv[1]}/draw{i}/truth.csv", "value")) for i in range(50)])
print(f"value family: mean {fam.mean(0).round(3)}, below the mean answer − 0.005: {[(fam[:, j] < fam[:, 0] - 0.005).sum() for j in (1, 2)]}, dropped below bias-precision − 0.005: {(fam[:, 2] < fam[:, 1] - 0.005).sum()}")

# --- classification
def load_classes(DIR, name):
    A = list(csv.DictReader(open(f'{DIR}/{name}/answers.csv')))
    T = {r['task']: r['label'] for r in csv.DictReader(open(f'{DIR}/{name}/truth.csv'))}
    tasks = sorted({a['task'] for a in A}, key=int); ws = sorted({a['worker'] for a in A})
    labs = sorted({a['label'] for a in A} | set(T.values()), key=lambda s: int(s[1:]))
    ti = {t: i for i, t in enumerate(tasks)}; wi = {w: i for i, w in enumerate(ws)}; li = {l: i for i, l in enumerate(labs)}
    td = np.array([ti[a['task']] for a in A]); tw = np.array([wi[a['worker']] for a in A]); tl = np.array([li[a['label']] for a in A])
    return td, tw, tl, np.array([li[T[t]] for t in tasks]), len(tasks), len(ws), len(labs)

def fit_bds(td, tw, tl, D, R, C, drop=None, diag=2.0, it=300):
    keep = np.ones(R, bool) if drop is None else ~drop
    prior = np.ones((C, C)) + diag * np.eye(C)
    k = keep[tw]
    q = np.zeros((D, C)); np.add.at(q, (td[k], tl[k]), 1); q = (q == q.max(1, keepdims=True)).astype(float); q /= q.sum(1, keepdims=True)
    for _ in range(it):
        xi = np.tile(prior, (R, 1, 1)); np.add.at(xi, (tw[k], slice(None), tl[k]), q[td[k]])
        al = 1 + q.sum(0)
        el = digamma(xi) - digamma(xi.sum(2, keepdims=True)); ep = digamma(al) - digamma(al.sum())
        lp = np.tile(ep, (D, 1)); np.add.at(lp, td[k], el[tw[k], :, tl[k]])
        lp -= lp.max(1, keepdims=True); q = np.exp(lp); q /= q.sum(1, keepdims=True)
    return q

for DIR, base, fam_name in [(sys.argv[3], '', 'first'), (sys.argv[4], 'b1001.', 'second')]:
    rows = []
    for i in range(50):
        name = f'{base}draw{i}'
        td, tw, tl, truth, D, R, C = load_classes(DIR, name)
        m = chance_flags(tw, tl.astype(float), R)
        acc = lambda q: (q.argmax(1) == truth).mean()
        r = [acc(fit_bds(td, tw, tl, D, R, C)), acc(fit_bds(td, tw, tl, D, R, C, drop=m))]
        rows.append(r)
        if m.any():
            print(f"{name}: {int(m.sum())} of {R} annotators marked; Bayesian Dawid–Skene {r[0]:.3f} -> {r[1]:.3f}", flush=True)
    rows = np.array(rows)
    print(f"{fam_name} family: mean {rows.mean(0).round(4)}, draws moved by more than 0.01: {(abs(rows[:, 1] - rows[:, 0]) > 0.01).sum()}")
