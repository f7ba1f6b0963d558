// Package linreg is ridge linear regression on the point features φ̄_d,
// registered as "linreg": the regressor of the two-stage baseline LDA +
// LinReg (mean) (MODEL.md §6). It is the gaussian response in its
// fixed-features form (gaussian.NewFixed: the same M-step, bound,
// statistics and persistence code), with its own name and defaults. Its
// options are the gaussian response's:
//
//	response "linreg" {
//	  sigma2          = 1      # σ², > 0: fixed, or the start of the estimate
//	  estimate_sigma2 = false  # re-estimate σ² at every M-step
//	  l2              = 0.01   # ridge μ ≥ 0 on η
//	  intercept       = false  # a free, unpenalised offset b
//	}
//
// The true target of document d is x_d | φ̄_d ~ N(η·φ̄_d + b, σ²) (b ≡ 0
// without an intercept), with φ̄_d (MODEL.md §1) taken as fixed features:
// MODEL.md §3 with E[z̄_d z̄_dᵀ] replaced by φ̄_d φ̄_dᵀ, since nothing is
// averaged over a latent z̄.
//
// # Only with frozen topics
//
// PhiTerm adds nothing: the topics are not fitted to the target. The
// response's part of the bound depends on φ̄_d, so a joint schedule that
// moves φ would not be coordinate ascent on it. The response is meant for
// the two-stage schedule (topics first by plain LDA, then φ frozen and EM
// over the target, the response and the annotators), and says so through
// FixedFeatures() == true, the method of the optional interface
// framework.FixedFeatures.
//
// # Equations and functions
//
//	prior message: Prec += 1/σ², PrecMean += (η·φ̄_d + b)/σ²          Local.TargetTerm
//	   (MODEL.md §3's v_d, m_d [fix]: the noise model adds its evidence)
//	η = (Σ_d φ̄_d φ̄_dᵀ + μI)⁻¹ Σ_d φ̄_d m_d   (with b: the (K+1)-dim.    Response.Update → Response.solve
//	    normal equations, b unpenalised)
//	σ² = (Σ_d [(m_d − η·φ̄_d − b)² + v_d] + μ‖η‖²)/D  (estimate_sigma2)   Response.Update
//	ELBO: S·Σ_d [−½log(2πσ²) − ((m_d − η·φ̄_d − b)² + v_d)/(2σ²)         Response.ELBO (from Stats),
//	       + ½log(2πe v_d)] − μ‖η‖²/(2σ²)                               Response.DocELBO
//	§5 SVI: blended statistics re-solved (as the gaussian response)    Response.Update
//	prediction: N(η·φ̄_d + b, σ²)                                        Response.Predict
//
// The M-step is scikit-learn's Ridge(alpha = μ) of m_d on φ̄_d
// (fit_intercept as intercept; testdata/reference.py,
// TestMStepMatchesReference: agreement to 1e-12), and it is the exact
// maximiser of the bound in η, b and σ² (TestMStepIsStationary), so batch
// EM on frozen features is monotone.
//
// # Ridge, intercept, singular systems
//
// As in the gaussian response: Σ_k φ̄_dk = 1 for a non-empty document, so
// η already contains an intercept, and intercept = true with μ = 0 makes the
// normal equations singular; a reciprocal condition number below RCond
// switches to the SVD's minimum-norm solution (also for a topic no document
// uses). The default ridge 0.01 is negligible next to Σ_d φ̄_d φ̄_dᵀ for any
// corpus of more than a few documents and keeps the system well posed.
//
// # Statistics
//
// Σ_d φ̄_d φ̄_dᵀ, Σ_d φ̄_d m_d, Σ_d φ̄_d, Σ_d m_d, Σ_d (m_d² + v_d), D and
// Σ_d ½log(2πe v_d); they merge by addition. Accumulate costs O(K²) per
// document, Update O(K³).
//
// Response implements framework.Persister: response.params is JSON with η,
// b and σ² (format "maslda-linreg").
package linreg
