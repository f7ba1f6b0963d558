#!/usr/bin/env python3
"""Independent numpy reference for the LDA topic layer (MODEL.md §1 and §4).

Generates a small planted corpus and initial topics with a fixed seed, runs
batch variational EM (fresh local start every E-step, a fixed number of φ/γ
sweeps, no convergence test) and writes golden.json next to this file. The
Go test models/crosscheck_test.go replays the same corpus, initial ζ and
schedule through topics.Layer + models.Model and compares.

Written from MODEL.md, vectorised over dense D×V×K arrays; it deliberately
shares no structure with the Go code (sparse rows, word-major ζ).

    python3 models/testdata/crosscheck/lda_numpy.py      # needs numpy, scipy
"""

import json
import os

import numpy as np
from scipy.special import digamma, gammaln

SEED = 20170101
D, V, K = 30, 40, 3
ALPHA, TAU = 0.3, 0.2
LOCAL_ITERS = 20   # φ/γ sweeps per document per E-step
ITERATIONS = 8     # batch EM iterations
EMPTY_DOC, SINGLE_DOC = 7, 19


def make_corpus(rng):
    """Planted sparse topics: each topic puts 90% of its mass on its own
    block of words, the rest spread over the whole vocabulary."""
    beta = np.zeros((K, V))
    edges = np.linspace(0, V, K + 1).astype(int)
    for k in range(K):
        lo, hi = edges[k], edges[k + 1]
        beta[k, lo:hi] = 0.9 * rng.dirichlet(np.ones(hi - lo))
        beta[k] += 0.1 * rng.dirichlet(np.full(V, 0.5))
    counts = np.zeros((D, V))
    for d in range(D):
        if d == EMPTY_DOC:
            continue
        n = 1 if d == SINGLE_DOC else int(rng.integers(5, 26))
        theta = rng.dirichlet(np.full(K, ALPHA))
        z = rng.choice(K, size=n, p=theta)
        for k in z:
            counts[d, rng.choice(V, p=beta[k])] += 1
    return counts


def e_log_dirichlet(a):
    """E[log x] under Dir(a), along the last axis."""
    return digamma(a) - digamma(a.sum(axis=-1, keepdims=True))


def softmax(x):
    x = x - x.max(axis=-1, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def e_step(counts, zeta):
    """Fresh local step for every document at once: γ_d = α + N_d/K, then
    LOCAL_ITERS rounds of (φ from E[log θ], γ from φ)."""
    elog_beta = e_log_dirichlet(zeta)                     # K×V
    n_d = counts.sum(axis=1)                              # D
    gamma = np.repeat((ALPHA + n_d / K)[:, None], K, axis=1)
    for _ in range(LOCAL_ITERS):
        elog_theta = e_log_dirichlet(gamma)              # D×K
        phi = softmax(elog_theta[:, None, :] + elog_beta.T[None, :, :])  # D×V×K
        gamma = ALPHA + np.einsum("dv,dvk->dk", counts, phi)
    return gamma, phi


def elbo(counts, gamma, phi, zeta):
    """MODEL.md §4, topic layer, with q(θ)=Dir(γ), q(z)=Cat(φ), q(β)=Dir(ζ)."""
    elog_theta = e_log_dirichlet(gamma)                   # D×K
    elog_beta = e_log_dirichlet(zeta)                     # K×V
    nphi = counts[:, :, None] * phi                       # D×V×K
    # E[log p(θ|α)]
    p_theta = D * (gammaln(K * ALPHA) - K * gammaln(ALPHA)) + (ALPHA - 1) * elog_theta.sum()
    # E[log p(z|θ)]
    p_z = np.einsum("dvk,dk->", nphi, elog_theta)
    # E[log p(w|z,β)]
    p_w = np.einsum("dvk,kv->", nphi, elog_beta)
    # E[log p(β|τ)]
    p_beta = K * (gammaln(V * TAU) - V * gammaln(TAU)) + (TAU - 1) * elog_beta.sum()
    # E[log q(θ)]
    q_theta = (gammaln(gamma.sum(axis=1)).sum() - gammaln(gamma).sum()
               + ((gamma - 1) * elog_theta).sum())
    # E[log q(z)]  (φ > 0 everywhere; words with n_dv = 0 carry weight 0)
    q_z = (nphi * np.log(phi)).sum()
    # E[log q(β)]
    q_beta = (gammaln(zeta.sum(axis=1)).sum() - gammaln(zeta).sum()
              + ((zeta - 1) * elog_beta).sum())
    return float(p_theta + p_z + p_w + p_beta - q_theta - q_z - q_beta)


def main():
    rng = np.random.default_rng(SEED)
    counts = make_corpus(rng)
    zeta0 = TAU + rng.gamma(100.0, 1.0 / 100.0, size=(K, V))

    zeta = zeta0.copy()
    elbos = []
    for _ in range(ITERATIONS):
        gamma, phi = e_step(counts, zeta)
        zeta = TAU + np.einsum("dv,dvk->kv", counts, phi)   # batch M-step
        elbos.append(elbo(counts, gamma, phi, zeta))        # after the update

    docs = []
    for d in range(D):
        words = np.flatnonzero(counts[d])                   # ascending
        docs.append({"words": [int(w) for w in words],
                     "counts": [int(counts[d, w]) for w in words]})
    out = {
        "seed": SEED,
        "V": V,
        "K": K,
        "alpha": ALPHA,
        "tau": TAU,
        "local_iters": LOCAL_ITERS,
        "iterations": ITERATIONS,
        "docs": docs,
        "zeta0": zeta0.tolist(),
        "elbo": elbos,
        "gamma": gamma.tolist(),
        "zeta": zeta.tolist(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)   # json writes floats with repr: full precision
        f.write("\n")
    print("wrote", path)
    for i, e in enumerate(elbos, 1):
        print(f"iter {i}: ELBO {e!r}")


if __name__ == "__main__":
    main()
