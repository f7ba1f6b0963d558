# Reference M-step for TestLinRegMStepMatchesReference (likelihoods/gaussian, linreg_test.go),
# computed independently of the Go code with scikit-learn 1.2.1 / NumPy
# 1.24.2 (Debian's python3-sklearn, python3-numpy):
#   /usr/bin/python3 likelihoods/gaussian/testdata/linreg_reference.py
#
# The M-step maximises the bound minus mu ||eta||^2 / (2 sigma^2), i.e.
# minimises sum_d (m_d - eta . phibar_d - b)^2 + mu ||eta||^2 (the v_d do
# not depend on eta): scikit-learn's Ridge(alpha = mu) on X = phibar,
# y = m, with fit_intercept = False, or True for the unpenalised intercept.
# sigma^2 (estimate_sigma2) = (sum_d [(m_d - eta . phibar_d - b)^2 + v_d]
# + mu ||eta||^2) / D.
import numpy as np
from sklearn.linear_model import Ridge

rng = np.random.default_rng(11)
D, K = 10, 3
mu = 0.3
bar = np.round(rng.dirichlet(np.ones(K) * 0.8, size=D), 4)
bar[:, -1] = 1 - bar[:, :-1].sum(1)
m = np.round(bar @ np.array([1.0, 4.0, -2.0]) + 0.5 * rng.standard_normal(D), 4)
v = np.round(0.05 + 0.2 * rng.random(D), 4)

def fmt(a):
    return "{" + ", ".join(repr(float(x)) for x in a) + "}"

print("bar:")
for r in bar:
    print("\t" + fmt(r) + ",")
print("m:", fmt(m))
print("v:", fmt(v))
for intercept in (False, True):
    rr = Ridge(alpha=mu, fit_intercept=intercept, solver="cholesky").fit(bar, m)
    eta, b = rr.coef_, (rr.intercept_ if intercept else 0.0)
    res = m - bar @ eta - b
    s2 = ((res ** 2).sum() + v.sum() + mu * (eta ** 2).sum()) / D
    # NumPy check: the normal equations.
    if intercept:
        A = np.block([[bar.T @ bar + mu * np.eye(K), bar.sum(0)[:, None]], [bar.sum(0)[None, :], np.array([[D]])]])
        x = np.linalg.solve(A, np.concatenate([bar.T @ m, [m.sum()]]))
    else:
        x = np.linalg.solve(bar.T @ bar + mu * np.eye(K), bar.T @ m)
    print("intercept=%s eta=%s b=%r sigma2=%r  |sklearn - normal equations|=%.2g" % (
        intercept, fmt(eta), float(b), float(s2), np.abs(np.concatenate([eta, [b]])[:len(x)] - x).max()))
