// Package logreg is regularised multinomial logistic regression on the
// point features φ̄_d, registered as "logreg": the classifier of the
// two-stage baselines LDA + LogReg (mv) and LDA + Raykar (MODEL.md §6).
//
//	response "logreg" {
//	  l2        = 0.01  # μ ≥ 0, the penalty (μ/2)‖η‖² on all C×K coefficients
//	  max_iters = 100   # L-BFGS iterations per batch M-step
//	  svi_iters = 5     # L-BFGS iterations per SVI mini-batch
//	}
//
// The true class of document d is c_d | φ̄_d ~ Softmax(η φ̄_d), η a C×K
// matrix, with φ̄_d = (1/N_d) Σ_v n_dv φ_dv (MODEL.md §1) taken as fixed
// features, not as the expectation of a latent z̄_d: the softmax of §2
// without its product bound, because nothing here is averaged over z.
//
// # Only with frozen topics
//
// PhiTerm adds nothing: the topics are not fitted to the target. The
// response's part of the bound depends on φ̄_d, so a joint schedule that
// moves φ would not be coordinate ascent on it and its ELBO need not be
// monotone. The response is meant for the two-stage schedule (topics
// first, by plain LDA; then φ frozen and EM over the target, the response
// and the annotators), and says so through FixedFeatures() == true, the
// method of the optional interface framework.FixedFeatures.
//
// # Equations and functions
//
//	prior message Log[l] += η_l·φ̄_d − log Σ_t exp(η_t·φ̄_d)      local.TargetTerm
//	   (the exact log-likelihood of each class: MODEL.md §2's λ_dl with
//	   η_l·φ̄_d normalised; the noise model adds its evidence)
//	M-step: L(η) = S Σ_d Σ_l λ_dl log softmax(η φ̄_d)_l − (μ/2)‖η‖²  Response.objective, Response.data
//	   ∂L/∂η_lk = S Σ_d (λ_dl − softmax(η φ̄_d)_l) φ̄_dk − μ η_lk     (tested by finite differences)
//	   maximised by L-BFGS (optim.Minimize), warm-started         Response.Update
//	§5 SVI: svi_iters iterations on the mini-batch objective,
//	   η ← (1−ρ)η + ρ η_B (as the softmax response)                Response.Update
//	ELBO: S Σ_d [Σ_l λ_dl log softmax(η φ̄_d)_l + H(λ_d)] − (μ/2)‖η‖²  Response.ELBO, Response.DocELBO
//	prediction: softmax(η φ̄_d)                                    Response.Predict
//
// The response owns the entropy H(λ_d) of q(c_d), as the softmax does;
// annotator models add only their evidence terms. L is concave (strictly
// for μ > 0), and optim.Minimize never returns a point worse than its
// start, so a batch M-step cannot lower the bound; with the target's
// update an exact coordinate maximiser, batch EM on frozen features is
// monotone.
//
// # Parametrisation
//
// All C rows of η are free, with the L2 penalty on all of them (as the
// softmax response, and scikit-learn's multinomial LogisticRegression):
// the softmax is invariant to adding a common vector to every row, and the
// penalty picks the solution whose rows sum to zero. Since Σ_k φ̄_dk = 1
// for a non-empty document, a class bias is already within η (adding b_l
// to every η_lk adds b_l to class l's logit), so there is no separate
// intercept. μ = 0 leaves η undetermined along the common shift and lets
// it diverge on separable classes; the default 0.01 is small next to the
// data term of any corpus (the sum over documents), and with μ = 1/C_sk
// the M-step is scikit-learn's LogisticRegression(C = C_sk,
// fit_intercept = False) with sample weights λ_dl (testdata/reference.py,
// TestMStepMatchesReference: agreement to 7e-9).
//
// # Statistics, memory
//
// The M-step needs φ̄_d and λ_d of every document of the batch: Stats holds
// them (8·(K + C) bytes per document, appended in accumulation order; Merge
// appends), with Σ_d H(λ_d). Each objective evaluation costs O(D·C·K).
// An empty document has φ̄_d = 0: its prior message is −log C for every
// class and it is predicted uniformly.
//
// Response implements framework.Persister: response.params is JSON with C,
// K and η (class-major).
package logreg
