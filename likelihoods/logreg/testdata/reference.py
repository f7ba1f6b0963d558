# Reference M-step for TestMStepMatchesSklearn (likelihoods/logreg),
# computed independently of the Go code with scikit-learn 1.2.1 / NumPy
# 1.24.2 (Debian's python3-sklearn, python3-numpy):
#   /usr/bin/python3 likelihoods/logreg/testdata/reference.py
#
# The M-step maximises
#   sum_d sum_l lam_dl log softmax(eta phibar_d)_l - (mu/2) ||eta||^2
# over all C x K entries of eta (no intercept). scikit-learn's multinomial
# LogisticRegression (lbfgs, fit_intercept=False) minimises
#   C_sk * sum_i w_i (-log p_{y_i}(x_i)) + (1/2) ||W||^2
# which is the same problem with C_sk = 1/mu when every document d is
# repeated once per class l with label l and sample weight lam_dl.
# The script prints the fixture (as Go literals) and the reference eta.
import numpy as np
from sklearn.linear_model import LogisticRegression

rng = np.random.default_rng(7)
D, K, C = 12, 3, 3
mu = 0.5
bar = rng.dirichlet(np.ones(K) * 0.7, size=D)
lam = rng.dirichlet(np.ones(C) * 0.5, size=D)
bar = np.round(bar, 4)
bar[:, -1] = 1 - bar[:, :-1].sum(1)       # rows sum to 1 exactly as printed
lam = np.round(lam, 4)
lam[:, -1] = 1 - lam[:, :-1].sum(1)

X = np.repeat(bar, C, axis=0)
y = np.tile(np.arange(C), D)
w = lam.reshape(-1)
keep = w > 0
clf = LogisticRegression(C=1 / mu, fit_intercept=False, multi_class="multinomial",
                         solver="lbfgs", tol=1e-12, max_iter=10000)
clf.fit(X[keep], y[keep], sample_weight=w[keep])
eta = clf.coef_

sk = clf.coef_.copy()

def objective(eta):
    z = bar @ eta.T
    z = z - z.max(1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(1, keepdims=True))
    return (lam * logp).sum() - 0.5 * mu * (eta ** 2).sum()

def gradient(eta):
    z = bar @ eta.T
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return (lam - p).T @ bar - mu * eta, p

# scikit-learn's lbfgs stops at a gradient of about 3e-5; polish with
# Newton's method (NumPy only; the objective is strictly concave for mu > 0)
# so that the reference is the maximiser to rounding.
for _ in range(20):
    g, p = gradient(eta)
    H = -mu * np.eye(C * K)
    for d in range(D):
        S = np.diag(p[d]) - np.outer(p[d], p[d])
        H -= np.kron(S, np.outer(bar[d], bar[d]))
    eta = eta - np.linalg.solve(H, g.reshape(-1)).reshape(C, K)

def fmt(a):
    return "{" + ", ".join(repr(float(x)) for x in a) + "}"

print("bar:")
for r in bar:
    print("\t" + fmt(r) + ",")
print("lam:")
for r in lam:
    print("\t" + fmt(r) + ",")
print("eta (class-major):", fmt(eta.reshape(-1)))
print("objective at eta: %.17g" % objective(eta))
print("max |gradient| at eta: %.3g" % np.abs(gradient(eta)[0]).max())
print("max |eta - scikit-learn's eta|: %.3g" % np.abs(eta - sk).max())
