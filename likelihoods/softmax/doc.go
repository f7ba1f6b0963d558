// Package softmax is the softmax response of MA-sLDAc (MODEL.md §2): the
// true class of document d is c_d | z̄_d ~ Softmax(η z̄_d), η a C×K matrix.
// It registers itself as "softmax" (framework.RegisterLikelihood); a
// configuration selects it with
//
//	response "softmax" {
//	  l2        = 0.001 # μ ≥ 0, the L2 penalty (μ/2)‖η‖²; default 1/D (D training documents)
//	  text_l2   = 1     # μ_t ≥ 0 on the rows about their means (the text's say); l2 then weighs the means; default l2
//	  text_l2_folds = 5 # choose text_l2 by cross-validation once a run with the classifier start converged (tune.go); 0: off
//	  max_iters = 50    # L-BFGS iterations per batch M-step (default 50)
//	  svi_iters = 5     # L-BFGS iterations per SVI mini-batch (default 5)
//	  bound     = "product" # or "quadratic" (below)
//	  mstep     = "lbfgs"   # or "mm" with bound = "quadratic" (mm.go)
//	}
//
// With mstep = "mm" an update is one Böhning minorise-maximise step from
// fixed-size statistics (G = Σ_d (λ_d − p_d)φ̄_dᵀ, X = Σ_d φ̄_dφ̄_dᵀ,
// S = Σ_d Cov z̄_d, the bound's value at the statistics' η₀ and Σ_d H(λ_d):
// framework.Summable, so an engine can sum them exactly, issue 26): the
// maximiser of the minoriser, a K×K Cholesky solve per class; the
// reported ELBO is the minoriser at the new η (a lower bound, exact at η₀),
// and batch EM stays monotone (the update is a framework.Ascender).
//
// It needs class names (framework.Setup.Classes, from the answers file):
// Init refuses fewer than two. The true-class posterior q(c_d) = Cat(λ_d)
// is a *framework.Categorical; the response adds the prior message, noise
// models add evidence (framework.NoiseModel.Evidence).
//
// # Equations and the functions that implement them
//
//	MODEL.md                                                   function
//	§2 λ_dl ∝ exp(η_l·φ̄_d + evidence): prior message          local.TargetTerm (evidence: the noise model; normalisation: Categorical.Finalize)
//	§2 h_l = exp(η_l/N_d), log B_dl = Σ_v n_dv log(φ_dv·h_l)   local.Begin (caches log B_dl, φ_dv·h_l), setH (h scaled by exp(−max_k η_lk/N_d): no overflow)
//	§2 ρ_dvk = (1/N_d)Σ_l λ_dl η_lk − Σ_l B_dl h_lk/(φ_dv·h_l) / Σ_l B_dl
//	                                                           local.PhiTerm (B_dl/Σ_t B_dt = softmax of log B, cached)
//	§2 log B_dl += n_dv (log(φ_new·h_l) − log(φ_old·h_l))      local.WordChanged (with the safeguard below; the increments queued, local.flushLogB adds them in order when the safeguard reads log B)
//	§2 L(η) and ∂L/∂η_lk (with the [fix] λ_dl)                 evalDoc (one document), Softmax.data (a batch, parallel), Softmax.objective (S scaling, μ penalty)
//	§2 M-step by L-BFGS                                        Softmax.Update → optim.Minimize
//	the split penalty μ_t Σ_l‖η_l − η̄_l1‖² + μ Σ_l Kη̄_l²        Softmax.penalty (docs/design.md, "The text's say")
//	μ_t by cross-validation of Σ_d log Σ_c softmax(ηφ̄_d)_c e^{e_d(c)}  Softmax.Tune, chooseTextL2, cvLoss
//	§2 prediction ĉ = argmax_l η_l·φ̄_d, softmax(η φ̄_d)         Softmax.Predict
//	§4 Σ_l λ_dl η_l·φ̄_d − log Σ_l B_dl − Σ_l λ_dl log λ_dl     Softmax.ELBO (batch, after Update, at the new η), Softmax.DocELBO / local.DocELBO (one document, from d.Phi)
//	§5 SVI step for η                                          Softmax.Update with framework.Step{Rho, Scale} (below)
//
// # Local step
//
// Begin computes the caches from d.Phi; the first PhiTerm after Begin reads
// λ_d from d.Target. Resume (framework.LocalResumer), called by the model
// for the target update right after a sweep of the same document, keeps
// the caches WordChanged kept and only reads λ_d afresh. ρ_dvk is the derivative of the response's part of the
// ELBO, f = λ·ηφ̄_d − log Σ_l B_dl, with respect to φ_dvk divided by n_dv
// (tested: n_dv ρ_dvk = ∂f/∂φ_dvk). The φ update of topics.Layer.Sweep,
// φ_dv ∝ exp(E[log θ_d] + E[log β_v] + ρ_dv), maximises the ELBO with log
// Σ_l B_dl linearised at the old φ_dv; that term is a log-sum of powers
// (φ_dv·h_l)^{n_dv}, neither convex nor concave in φ_dv, so the
// linearisation is not a bound and the step can lower the ELBO. It does
// when |η_lk|/N_d is large (short documents, a weak L2 penalty): on the
// tests' planted problem with 5-token documents and μ = 0, 45 of 253,586
// steps when warm starts begin with an unsupervised sweep (worst −0.042
// nats); none with 80-token documents. WordChanged therefore checks the exact
// change, ΔF = n_dv KL(φ_old‖φ_new) − D_G (D_G the Bregman divergence of
// log Σ_l B_dl, O(C) from the caches; Pinsker's bound first, so most words
// need no logarithm), and backtracks along the segment from the old to the
// proposed φ_dv when ΔF < 0, writing the accepted point into d's φ row.
// Every φ step then raises the ELBO; the target update (λ) and the γ update
// are exact coordinate maximisers.
//
// A warm start resumes from the φ_d of the document's last E-step, which
// the model stores (framework.PhiUser: the product bound's M-step reads the
// same store), instead of an unsupervised sweep (which ignores the
// response and can lower the bound). With both, batch EM's ELBO is
// monotone (tested at every iteration to 1e-8 relative, including a
// 5-token-document problem without L2 penalty on which the unsupervised
// first sweep alone makes the trace fall).
//
// Empty documents (N_d = 0) are kept: φ̄_d = 0, B_dl = 1 (an empty
// product), so their prior message is 0, their response term is −log C +
// H(λ_d), they do not move η, and they are predicted uniformly.
//
// # M-step, and the shift of η
//
// L(η) = Σ_d [λ_d·ηφ̄_d − log Σ_l B_dl(η)] − (μ/2)‖η‖² is concave in η
// (log B_dl is a sum of log-sum-exps of η_l, so log Σ_l B_dl is convex) and,
// for μ > 0, strictly concave: the M-step has a unique maximiser, which
// L-BFGS (warm-started from the current η, max_iters iterations) approaches
// without ever lowering L (optim.Minimize returns a point no worse than its
// start). The softmax itself is invariant to adding a common vector to
// every row of η (MODEL.md §9: the authors' code pins the last row at 0);
// here all C rows are free and the L2 penalty picks one solution, which is
// also what keeps η finite on separable classes. μ = 0 reproduces the paper
// and may let η diverge.
//
// With μ = 1/D and nearly separable training classes that maximiser is far
// out along a nearly flat direction, which L-BFGS crawls toward. Under the
// product bound a batch M-step therefore stops after the first iteration
// that gains at most gain_tol (0.01) times what the M-step has gained so far
// (optim.LBFGSOptions.GainTol): a generalised EM M-step, which raises L
// without reaching its maximum (the update is then a framework.Ascender) and
// leaves the rest of the crawl to the next M-steps, each warm-started where
// the last ended; on unchanged statistics they reach the maximiser
// (TestGainTolMStep), so EM's fixed points are those of the exact M-step.
//
// # SVI (MODEL.md §5)
//
// For a mini-batch B with S = D/|B| and step ρ_t, Update runs svi_iters
// L-BFGS iterations on L_B(η) = S Σ_{d∈B}[λ_d·ηφ̄_d − log Σ_l B_dl] −
// (μ/2)‖η‖², warm-started from the current η, and blends η ← (1−ρ_t)η +
// ρ_t η_B. With the whole corpus as the batch (Step.Full) it runs max_iters
// iterations, so SVI with batch_size ≥ D and κ = 0 performs exactly the
// batch iterations (tested). On the planted problem of the tests (300
// documents, mini-batches of 50, κ 0.6, 15 epochs) SVI's held-out accuracy
// is within a point of batch EM's.
//
// # ELBO accounting
//
// Accumulate adds H(λ_d) to the statistics; Update evaluates the data term
// at the new η for the documents of the statistics; ELBO returns
// S·(data + Σ H(λ_d)) − (μ/2)‖η‖², the response's part of L(local_t,
// global_t). DocELBO (framework.DocScorer, used by topics local_init =
// "best") computes a document's part from d.Phi and d.Target; the
// product bound's per-goroutine local.DocELBO reads log Σ_l B_dl from the
// local caches instead when they are the document's at the current η and
// d.Phi is the φ they follow (a snapshot kept by Begin and WordChanged),
// equal up to the rounding of WordChanged's increments.
//
// # The quadratic bound
//
// bound = "quadratic" (quad.go) bounds E[log Σ_l exp(η_l·z̄_d)] by
// lse(ηφ̄_d) + ½ tr(B Cov z̄_d), B = ηᵀAη, A = ½(I − 11ᵀ/C) (Böhning's bound
// on ∇²lse, expanded at E[ηz̄]), with the mean-field covariance
// Cov z̄_d = (1/N_d²) Σ_v n_dv (diag φ_dv − φ_dv φ_dvᵀ) (docs/design.md,
// "The softmax's quadratic bound").
//
//	λ·ηφ̄ − lse(ηφ̄) and its η-gradient                    evalDocQ
//	−½ tr(ηᵀAη S), S = Σ_d Cov z̄_d, and its gradient      covTerm (S: Stats.Cov, addCov)
//	½ tr(B Cov z̄_d) of one document                        docCov
//	ρ_dvk (the φ-derivative over n_dv)                      qlocal.PhiTerm
//	x = ηφ̄_d word by word, safeguard                       qlocal.WordChanged, backtrackQ
//	warm start: λ_d restored (framework.TargetRestorer)     qlocal.RestoreTarget
//
// The M-step then needs λ_d and φ̄_d per document and the K×K matrix S, and
// costs O(C·K) per document per evaluation; no φ is stored.
//
// # Memory
//
// Under the product bound the M-step needs every training document's φ
// (B_dl depends on all of them). It reads them from the model's φ store
// (framework.PhiUser; the model writes it after each document's local
// step, and its warm starts and the two-stage schedule use the same
// store). Init allocates the response's own store of λ_d and φ̄_d from the
// training corpus, written by Accumulate (each document only by the
// goroutine running its local step) and read by Update:
//
//	4·K·Σ_d L_d  bytes for φ (float32, the model's store; L_d = unique words of document d)
//	+ 8·D·(C + K) bytes for λ_d and φ̄_d
//	+ 8·D         bytes of document pointers
//
// For example 10,000 documents of 100 unique words each with K = 50 and
// C = 4: 200 MB + 4.3 MB. The statistics themselves are index lists (8
// bytes per document of the batch). Documents not in the corpus given to
// Init are copied into the statistics instead.
//
// # Saved models
//
// Softmax implements framework.Persister: response.params holds "MASLDAs1",
// C and K as uint64 little-endian, then η (class-major) as float64
// little-endian; LoadParams checks the header, the dimensions against Init's,
// finiteness and trailing data.
package softmax
