// Package classprior is a categorical response without topic features,
// p(c_d) = π_{c_d}, registered as "class-prior". With the confusion
// annotators it is Dawid–Skene's truth inference (MODEL.md §6, the
// "Dawid–Skene" row: no documents, a class prior and confusion-matrix
// annotators); the documents' topics are fitted alongside but never see the
// target.
//
//	response "class-prior" {
//	  alpha    = 1              # symmetric Dirichlet prior Dir(α) on π; > 0 (≥ 1 for "point")
//	  estimate = "variational"  # q(π) = Dir(ζ) (Bayesian Dawid–Skene), or "point" (MAP π̂)
//	}
//
// # Equations and functions
//
// Notation as in MODEL.md §2, with the softmax's η_l·φ̄_d replaced by the
// class prior's log-probability:
//
//	λ_dl ∝ exp( E[log π_l] + Σ_{r∈R_d} E[log π^r_{l,y_dr}] )            local.TargetTerm (prior message), the noise model's Evidence
//	E[log π_l] = ψ(ζ_l) − ψ(Σ_t ζ_t)     (variational)                 Response.refresh
//	           = log π̂_l                  (point)
//	ζ_l = α + Σ_d λ_dl                    (batch, variational)          Response.Update
//	π̂_l ∝ Σ_d λ_dl + α − 1               (batch, point: MAP; ML for α = 1)
//	§5 ζ ← (1−ρ)ζ + ρ(α + S·Σ_{d∈B} λ_d); running averages for π̂      Response.Update
//	ELBO: S·Σ_d [Σ_l λ_dl E[log π_l] + H(λ_d)]                         Response.ELBO, Response.DocELBO
//	      + E[log p(π|α)] − E[log q(π|ζ)]  (variational; the Dirichlet
//	        terms as in the confusion annotators' rows)
//	      + log Dir(π̂|α)                    (point)
//	prediction: E[π] = ζ/Σζ, or π̂                                       Response.Predict
//
// PhiTerm adds nothing and Begin/WordChanged keep no cache: the response
// does not depend on φ, so the topic layer's sweeps are those of plain LDA
// and the joint bound is LDA's plus Dawid–Skene's. The response is
// framework.DocumentFree: `maslda train` runs it on answers alone, over
// one document without words per task (no word term in the bound). The response owns the
// entropy H(λ_d) of q(c_d), as the softmax response does (annotator models
// add only their evidence terms), so it is counted exactly once.
//
// Both updates are exact maximisers of the bound given λ (tested by finite
// differences in ζ and along the simplex for π̂, and against SciPy on a
// fixture, testdata/fixture.py), so batch EM with any annotator model whose
// updates are ascent steps is monotone (models/baselines_plugins_test.go
// runs it with the confusion annotators).
//
// # Point estimate
//
// With estimate = "point" and α = 1, a class that no document gives any
// mass gets π̂_l = 0: its prior message is −Inf, so λ_dl = 0 exactly and
// the class stays empty (the usual absorbing state of maximum-likelihood
// EM). α > 1 keeps every π̂_l > 0. If every Σ_d λ_dl + α − 1 is 0 (α = 1
// and no documents) π̂ is kept. Under SVI π̂ is re-solved from running
// averages of the statistics, blended with ρ_t and divided by the running
// weight, so that the first step does not depend on the start (as the
// gaussian response's statistics).
//
// # Initialisation, saved parameters
//
// Init starts at the prior: ζ = α, or the uniform π̂; the first prior
// message is then uniform and the first E-step is decided by the
// annotators (for the confusion model, by its initial ξ). Response
// implements framework.Persister: response.params is JSON with the
// estimate, C and ζ or π̂.
package classprior
