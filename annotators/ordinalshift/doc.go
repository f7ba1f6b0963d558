// Package ordinalshift is an annotator model for ordinal answers,
// registered as "ordinal-shift": every annotator reads the items on a
// common latent scale and shifts, stretches and blurs it, so that one
// rates everything high, another uses only the extremes, another answers
// almost at random. It pairs with the "ordinal" response
// (likelihoods/ordinal) but works with any response over a categorical
// target whose classes are ordered levels, lowest first.
//
//	annotators "ordinal-shift" {
//	  prior_count = 1   # ν > 0: pseudo-answers per true level from the reference annotator
//	  precision   = 2   # a_0 > 0: the reference annotator's precision, where every annotator starts
//	  max_iters   = 50  # Newton iterations per annotator and M-step
//	}
//
// # Model
//
// Levels c = 0, …, C−1 sit at m_c = c − (C−1)/2 on the latent scale, with
// boundaries κ_l = l + ½ − (C−1)/2 between levels l and l+1 (κ_{−1} = −∞,
// κ_{C−1} = +∞). Annotator r, shown an item of true level c, perceives
//
//	x = s_r·m_c + t_r + ε/a_r,   ε standard logistic,
//
// and answers the level l with κ_{l−1} < x ≤ κ_l:
//
//	p(y = l | c) = F(a_r(κ_l − s_r m_c − t_r)) − F(a_r(κ_{l−1} − s_r m_c − t_r)).
//
// The shift t_r is in levels (t_r = 1: one level high on average), the
// stretch s_r > 1 pushes answers to the extremes and s_r < 1 to the
// middle, the precision a_r is consistency (a_r → ∞: deterministic).
// Annotator (Shift, Stretch, Precision) holds them; Sample simulates
// answers from them (planted data).
//
// # Evidence and bound
//
// With λ_d = q(c_d) the annotators' part of document d's bound is
// Σ_{r∈R_d} Σ_c λ_dc log p_r(y_dr | c) (Model.DocELBO), and the evidence
// adds log p_r(y_dr | c) to Log[c] (Model.Evidence): exactly its gradient
// in λ_d, so the target update stays the exact coordinate maximiser. The
// model never adds the target's entropy.
//
// # M-step
//
// In the natural parameters (α, β, γ) = (a_r, a_r s_r, a_r t_r),
// p(y ≤ l | c) = F(α κ_l − β m_c − γ) is a logistic CDF of a function
// linear in them, and log(F(x) − F(y)) is concave in (x, y) on x > y
// (it is log ∫_y^x f, f log-concave: Prékopa), so
//
//	L_r(α, β, γ) = Σ_{c,l} (N_r[c][l] + ν p_0(l | c)) log p_r(l | c),
//	N_r[c][l] = Σ_{d: y_dr = l} λ_dc,
//
// is concave on the convex domain α > 0. The second term is the prior: ν
// pseudo-answers per true level from the reference annotator p_0 (shift 0,
// stretch 1, precision a_0), spread as it would answer; it is itself a
// concave function of the same form, maximised at the reference, keeps
// every estimate finite (an annotator whose answers are all right would
// otherwise get a_r → ∞) and makes the Hessian negative definite. Each
// annotator's M-step is Newton's method on its 3 parameters (closed-form
// gradient and Hessian: interval, logProb), the step halved until α stays
// positive and L_r does not fall (fit); it converges to the maximiser to
// rounding in a few iterations (TestFitRecoversSampledAnnotators checks
// the gradient there, and that answers simulated by Sample with the truth
// known give back the planted annotators). The statistics are R·C² floats.
//
// # SVI (MODEL.md §5)
//
// Update keeps running statistics R ← (1−ρ)R + ρ·S·N, W ← (1−ρ)W + ρ and
// solves every annotator from R/W (the stepwise EM of the bias-precision
// and one-coin models); ρ = 0 changes nothing; ρ = 1 maximises S·L_data +
// log prior. ELBO is S·Σ_r Σ_{c,l} N_r[c][l] log p_r(l | c) + Σ_r Σ_{c,l}
// ν p_0(l | c) log p_r(l | c), the log prior of the MAP estimates up to a
// constant.
//
// # Identifiability
//
// The truth is latent, so a shift or stretch common to every annotator
// cannot be told from a different truth: the model fits the crowd's
// consensus as unbiased, as Dawid–Skene does. Training starts every
// annotator at the reference, so the first E-step combines the answers as
// a soft median, and the estimates stay anchored there when most
// annotators are unbiased (the planted tests: two accurate, one a level
// high, one extreme, one noisy). With two levels κ_0 = 0, so the
// precision does not enter p(y | c) at all: (β, γ) are a two-class
// confusion matrix and α is the prior's.
//
// # Saved models and reports
//
// Model implements framework.Persister (JSON: the levels and every
// annotator's (α, β, γ); LoadParams refuses other levels, counts or a
// non-positive precision with framework.ErrBadInput) and
// framework.Reporter (annotators.csv: shift, stretch, precision and the
// mean probability of answering the true level).
//
// The conformance kit (frameworktest.TestNoiseModel) passes in full, with
// 5 levels and with 2, on planted ordinal-shift crowds (kit_test.go).
package ordinalshift
