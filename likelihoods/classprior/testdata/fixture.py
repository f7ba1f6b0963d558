# Reference numbers for TestFixture (likelihoods/classprior), computed
# independently of the Go code with SciPy:
#   /usr/bin/python3 likelihoods/classprior/testdata/fixture.py
# Fixture: C = 3 classes, alpha = 2, three documents with
#   lambda_1 = (1, 0, 0), lambda_2 = (0.5, 0.5, 0), lambda_3 = (0.5, 0.25, 0.25)
# so Counts = (2, 0.75, 0.25).
import numpy as np
from scipy.special import digamma, gammaln

alpha = 2.0
lam = np.array([[1, 0, 0], [0.5, 0.5, 0], [0.5, 0.25, 0.25]])
counts = lam.sum(0)
ent = sum(-(p[p > 0] * np.log(p[p > 0])).sum() for p in lam)
C = len(counts)

# Variational: zeta = alpha + counts.
zeta = alpha + counts
elog = digamma(zeta) - digamma(zeta.sum())
kl = (gammaln(C * alpha) - C * gammaln(alpha) - gammaln(zeta.sum()) + gammaln(zeta).sum()
      + ((alpha - zeta) * elog).sum())
elbo_v = (counts * elog).sum() + ent + kl
print("zeta", repr(zeta.tolist()))
print("elog", repr(elog.tolist()))
print("elbo_variational %.17g" % elbo_v)

# Point (MAP): pi ∝ counts + alpha - 1.
pi = (counts + alpha - 1) / (counts + alpha - 1).sum()
logprior = gammaln(C * alpha) - C * gammaln(alpha) + ((alpha - 1) * np.log(pi)).sum()
elbo_p = (counts * np.log(pi)).sum() + ent + logprior
print("pi", repr(pi.tolist()))
print("elbo_point %.17g" % elbo_p)
