// Package mace is MACE, Multi-Annotator Competence Estimation (Hovy,
// Berg-Kirkpatrick, Vaswani and Hovy, "Learning Whom to Trust with MACE",
// NAACL-HLT 2013), as an annotator model of a categorical target. It
// registers itself as "mace":
//
//	annotators "mace" {
//	  alpha = 2     # Beta(alpha, beta) prior on each competence θ_r
//	  beta  = 2
//	  gamma = 1.01  # symmetric Dirichlet(gamma) prior on each spam distribution ξ_r
//	}
//
// # The model (the paper's §2, in MODEL.md's notation)
//
// Document (task) d has a true class c_d with q(c_d) = Cat(λ_d) (the
// response gives its prior: the class prior on answers alone, the softmax
// of MA-sLDAc with documents). Annotator r has a competence θ_r ∈ (0, 1)
// and a spam distribution ξ_r over the C classes. For each answer y_dr a
// spam indicator s_dr ~ Bernoulli(1 − θ_r) is drawn; if s_dr = 0 the
// answer is the truth, otherwise it is drawn from ξ_r:
//
//	θ_r ~ Beta(α, β),  ξ_r ~ Dirichlet(γ·1)
//	s_dr ~ Bernoulli(1 − θ_r),  y_dr | s_dr = 0 = c_d,  y_dr | s_dr = 1 ~ Cat(ξ_r)
//
// Marginally p(y_dr = y | c_d = l) = θ_r·[y = l] + (1 − θ_r)·ξ_ry: a
// confusion matrix with C·(C−1) fewer free parameters than Dawid–Skene's,
// whose off-diagonal rows share the annotator's spam distribution.
//
// # Inference: EM with point estimates (documented choice)
//
// The paper fits the model by EM (and variational Bayes with the same
// priors); here θ and ξ are MAP point estimates, like the `estimate =
// "point"` confusion matrices, and s_dr is marginalised out of the
// document bound, so that the local step sees the exact likelihood:
//
//	DocELBO_d = Σ_r Σ_l λ_dl log p(y_dr | l)
//	Evidence:   Log[l] += Σ_r log p(y_dr | l)       (= ∂DocELBO_d/∂λ_dl)
//
// The statistics are linear in λ, per annotator r and answered class y:
// A_ry = Σ_{answers y by r} λ_dy (the truth agrees) and B_ry =
// Σ_{answers y by r} Σ_{l≠y} λ_dl (it does not), so that the annotators'
// part of the bound is
//
//	Σ_ry [A_ry log(θ_r + (1−θ_r)ξ_ry) + B_ry log((1−θ_r)ξ_ry)] + log p(θ, ξ).
//
// Update maximises it (MODEL.md §5: from the blended statistics
// (1−ρ)·old + ρ·S·stats, as examples/onecoin) by EM over the spam
// indicators, warm-started from the current estimates: with w_ry =
// θ_r / (θ_r + (1−θ_r)ξ_ry) the probability that an agreeing answer was not
// spam,
//
//	θ_r = (Σ_y A_ry w_ry + α − 1) / (N_r + α + β − 2),  N_r = Σ_y (A_ry + B_ry)
//	ξ_ry ∝ A_ry (1 − w_ry) + B_ry + γ − 1,
//
// until no estimate moves by more than 1e-13 (at most 5000 rounds). In
// u_r = (1−θ_r)ξ_r the objective is concave when α ≥ 1 and β − 1 ≥
// C·(γ − 1) (the defaults, for C < 100), so these rounds reach the maximum.
// α, β, γ > 1 keep θ_r inside (0, 1) and ξ_r > 0: no answer is impossible.
//
// The estimates start at θ_r = 0.8 and ξ_r uniform (the paper starts at
// random; with the `init`-free start here the first E-step is a vote with
// the same weight for every annotator).
package mace
