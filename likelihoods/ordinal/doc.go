// Package ordinal is the ordered-logit response for ordinal targets
// (ratings, 1–5 stars, 1–10 scores), registered as "ordinal": the
// MA-sLDAc machinery (q(c_d) = Cat(λ_d), a *framework.Categorical) with
// the C classes read as ordered levels, lowest first, and a response that
// uses their order.
//
//	response "ordinal" {
//	  l2          = 0.01  # μ ≥ 0, the penalty (μ/2)‖η‖²
//	  prior_count = 1     # a_0 ≥ 0, pseudo-documents of every level at score 0 (cut points' prior)
//	  max_iters   = 100   # L-BFGS iterations per batch M-step
//	  svi_iters   = 5     # L-BFGS iterations per SVI mini-batch
//	  levels      = ["1", "2", "3", "4", "5"]  # optional: refuse classes not exactly these, in this order
//	}
//
// # Model
//
// Document d has a latent score s_d = η·z̄_d (η a K-vector, z̄_d the mean
// topic assignment, MODEL.md §1) and its level is the interval of
// s_d + ε, ε standard logistic, between learnt cut points
// b_0 < b_1 < … < b_{C−2} (b_{−1} = −∞, b_{C−1} = +∞):
//
//	p(c_d = c | z̄_d) = F(b_c − s_d) − F(b_{c−1} − s_d),   F(x) = 1/(1 + e^−x),
//
// the proportional-odds model (McCullagh 1980): log-odds of c_d ≤ c are
// b_c − s_d, one score for all levels. Levels are the classes of
// framework.Setup.Classes in their order (the answer readers sort numeric
// labels numerically); Response.Levels returns them (Ordered). The
// response declares the kind of target "ordinal" (Response.Kind,
// framework.Kinded; registered by framework/targets): posterior and
// prediction files carry the median level beside the categorical
// columns, and `maslda eval` reports errors in levels.
//
// Logit rather than probit: log p, its derivatives in s and in the cut
// points are closed forms without erfc tails (level: log p = y + log(e^Δ
// − 1) − softplus(x) − softplus(y), x = b_c − s, y = b_{c−1} − s, Δ = x − y,
// exact for every gap; ∂/∂s log p = F(x) + F(y) − 1), and the curvature
// bound the φ bound needs is explicit (1/4 and 1/2 below; probit's is 1).
//
// # The bound
//
// E_q[log p(c_d | z̄_d)] has no closed form. Write ℓ_c(s) = log p(c | s).
// Its curvature is bounded: with f = F' the logistic density and r the
// density ∝ f(t − s) on [b_{c−1}, b_c],
//
//	ℓ_c″(s) = E_r[(log f)″] + Var_r[(log f)′] ≥ min (log f)″ = −1/2,
//
// since (log f)″(u) = −2F(u)(1 − F(u)) ≥ −1/2; for the end levels ℓ_c is
// log F(b_0 − s) or log(1 − F(b_{C−2} − s)), with ℓ_c″ = −F(1 − F) ≥ −1/4.
// So −ℓ_c″ ≤ M_c, M_c = 1/4 for c ∈ {0, C−1} and 1/2 otherwise
// (Curvature; TestCurvatureBound scans it). Taylor's theorem with that
// bound on the remainder gives, for any ŝ,
//
//	ℓ_c(s) ≥ ℓ_c(ŝ) + ℓ_c′(ŝ)(s − ŝ) − (M_c/2)(s − ŝ)².
//
// Take ŝ = E_q[s_d] = η·φ̄_d and the expectation under q(z): the linear
// term vanishes and
//
//	E_q[ℓ_c(s_d)] ≥ ℓ_c(η·φ̄_d) − (M_c/2) V_d,
//	V_d = Var_q(s_d) = (1/N_d²) Σ_v n_dv [(η∘η)·φ_dv − (η·φ_dv)²]
//
// (the tokens' z are independent under q; each contributes the variance
// of η_z under φ_dv). It is a true lower bound for every q, tight when
// q(z) is concentrated (V_d = 0) and never looser than (M_c/2)V_d ≤
// (max η − min η)²/(16 N_d) at interior levels; TestBoundBelowExpectation
// checks it against Monte Carlo. The response's part of document d's bound
// is then
//
//	R_d = Σ_c λ_dc [ℓ_c(η·φ̄_d) − (M_c/2) V_d] + H(λ_d),
//
// the ordinal analogue of the Gaussian response's term (MODEL.md §4) with
// 1/σ² replaced by M_c; the response adds the entropy of q(c_d), annotator
// models add their evidence.
//
// # Equations and functions
//
//	ℓ_c(s), ∂ℓ_c/∂s, ∂ℓ_c/∂b_c, ∂ℓ_c/∂b_{c−1}           level, logLevel, slope
//	M_c                                                 Curvature
//	ŝ_d = η·φ̄_d, V_d                                    Response.moments; local.Begin caches η·s_d = N_d ŝ_d and N_d² V_d, local.WordChanged keeps them
//	R_d                                                 Response.DocELBO, local.DocELBO (framework.DocScorer)
//	prior message Log[c] += ℓ_c(ŝ_d) − (M_c/2) V_d       local.TargetTerm (= ∂R_d/∂λ_dc: q(c_d) is the exact maximiser)
//	n_dv ρ_dvk = ∂R_d/∂φ_dvk:
//	  ρ_dvk = G η_k/N_d − M̄ (η_k² − 2 t η_k)/(2N_d²),    local.PhiTerm
//	  G = Σ_c λ_dc ℓ_c′(ŝ_d), M̄ = Σ_c λ_dc M_c, t = η·φ_dv
//	the φ step's minorant (below)                       local.PhiTermQuad (framework.PhiQuadratic)
//	its affine form ρ = base_d + s_dv η (below)          local.QuadBase, local.QuadWord, local.QuadMoved (framework.PhiQuadraticAffine)
//	M-step L(η, b), its gradient                        Response.objective, Response.data, Response.logPrior
//	solver variables η, b_0, log(b_c − b_{c−1})          pack, unpack, Response.solverObjective
//	M-step, SVI blend                                   Response.Update
//	S Σ_d R_d − (μ/2)‖η‖² + a_0 Σ_c ℓ_c(0)              Response.ELBO
//	prediction: Log[c] = ℓ_c(η·φ̄_d)                    Response.Predict
//	planted levels                                      Sample
//
// # The φ step
//
// As a function of one word's φ_dv (the others fixed), R_d is the concave
// ℓ_c(ŝ_d) — ŝ_d is linear in φ_dv — plus −(M̄/2)V_d, whose part
// +(M̄ n_dv/2N_d²)(η·φ_dv)² is convex. The linearised update (PhiTerm) is
// therefore not a bound by itself. Bounding ℓ_c below by its quadratic
// around the current φ_dv once more (curvature ≤ M_c (n_dv/N_d)² along
// η·Δφ) gives a minorant of R_d that touches it at the current φ_dv and is,
// per token, ρ·φ_dv − c (η·φ_dv)² with
//
//	ρ_k = (G/N_d + M̄ n_dv t/N_d²) η_k − M̄ η_k²/(2N_d²),   c = M̄ (n_dv − 1)/(2N_d²) ≥ 0:
//
// for a word seen once the convex part exactly cancels the concave part's
// curvature bound (c = 0: the linearised update is already a minorise-
// maximise step), and for repeated words the topic layer maximises the
// concave quadratic exactly (framework.PhiQuadratic, as the Gaussian
// response). ρ is base_d + s_dv η with base_d = −M̄ η∘η/(2N_d²) the same
// for every word and s_dv = G/N_d + M̄ n_dv t/N_d² (framework.PhiQuadraticAffine),
// so the topic layer solves each word for one scalar. Every φ step raises the bound (TestPhiQuadMinorant); the
// target update and the γ update are exact coordinate maximisers.
//
// # M-step
//
// With the statistics of a batch (S = D/|B| under SVI) the M-step
// maximises
//
//	L(η, b) = S Σ_d Σ_c λ_dc [ℓ_c(η·φ̄_d; b) − (M_c/2) V_d(η)] − (μ/2)‖η‖² + a_0 Σ_c ℓ_c(0; b).
//
// It is concave in (η, b) jointly: p(c | s; b) = ∫ 1[b_{c−1} < s + ε <
// b_c] f(ε) dε integrates a log-concave function of (s, b, ε) over ε, so
// it is log-concave in (s, b) (Prékopa), s is linear in η, and V_d(η) =
// ηᵀA_dη with A_d = (1/N_d²) Σ_v n_dv (diag φ_dv − φ_dv φ_dvᵀ) ⪰ 0. The
// prior term, a_0 pseudo-documents of every level at score 0, is of the
// same form: it keeps every cut point finite and every gap positive when a
// level has no mass (its maximiser at η = 0 is b_c = logit((c+1)/C), where
// Init starts). μ > 0 picks one solution along the common shift (η + a·1,
// b + a) that Σ_k z̄_dk = 1 leaves undetermined.
//
// The solver works in η, b_0 and the log-gaps δ_c = log(b_c − b_{c−1}),
// so the order of the cut points holds by construction; the map to (η, b)
// is a diffeomorphism onto the ordered cone, so every stationary point in
// these variables is the concave problem's maximiser. L-BFGS
// (optim.Minimize, max_iters iterations, warm-started) never returns a
// point worse than its start, so a batch M-step cannot lower the bound.
// The statistics are each document's φ̄_d and λ_d (8·(K + C) bytes per
// document, appended; Merge appends) and the K×K matrix Σ_d M̄_d A_d
// (M̄_d V_d = ηᵀ(M̄_d A_d)η), built in O(L_d K²) per document.
//
// # SVI (MODEL.md §5)
//
// For a mini-batch, svi_iters L-BFGS iterations on L with S = D/|B|,
// warm-started, then η ← (1−ρ)η + ρη_B and b ← (1−ρ)b + ρb_B (a blend of
// increasing vectors is increasing). With the whole corpus (Step.Full)
// max_iters iterations, so full-batch SVI with κ = 0 is batch EM.
//
// # Saved models
//
// Response implements framework.Persister: response.params is JSON with
// the level names, K, η and the cut points; LoadParams refuses other
// levels, sizes, non-finite or non-increasing values with
// framework.ErrBadInput.
//
// The conformance kit (frameworktest.TestLikelihood) passes in full, with
// 4 levels and with 2, on planted ordinal problems (kit_test.go).
package ordinal
