// Package valueprior is a numeric response without topic features,
// y_d ~ N(μ, σ²), registered as "value-prior": the Gaussian analogue of
// the class prior (likelihoods/classprior). With numeric annotators it is
// truth inference on numeric answers alone, as the truth-inference
// suites' numeric methods (Zheng et al. 2017): with `annotators
// "perfect" { aggregate = "mean" }` each task's value is its mean answer;
// with `annotators "bias-precision" {}` it is the precision-weighted mean
// of the answers corrected by each annotator's bias (MA-sLDAr's annotator
// model without the documents). The documents' topics are fitted
// alongside but never see the target.
//
//	response "value-prior" {
//	  prior = "learned"   # y_d ~ N(μ, σ²), μ and σ² estimated; or "flat": no prior message
//	}
//
// # Equations and functions
//
// Notation as in MODEL.md §3, with the Gaussian response's η·φ̄_d + b
// replaced by the prior's mean μ:
//
//	q(y_d) = N(m_d, v_d): Prec += 1/σ², PrecMean += μ/σ²              local.TargetTerm (prior message), the noise model's Evidence
//	μ  = Σ_d m_d / D                                                  Response.Update (batch)
//	σ² = Σ_d (m_d² + v_d) / D − μ²     (≥ the mean v_d > 0)
//	§5 running averages of (D, Σ m_d, Σ (m_d² + v_d)), blended by ρ·S  Response.Update (SVI)
//	ELBO: S·Σ_d [−½log(2πσ²) − ((m_d − μ)² + v_d)/(2σ²) + ½log(2πe·v_d)]  Response.ELBO, Response.DocELBO
//	prediction: N(μ, σ²)                                              Response.Predict
//
// μ and σ² are point estimates (maximum likelihood): Update is the exact
// maximiser of the bound given q(y), so batch EM with annotators whose
// updates are ascent steps is monotone. The response owns the entropy of
// q(y_d), as the gaussian response does.
//
// With prior = "flat" the response adds no message and its part of the
// bound is the entropy of q(y_d) alone (an improper flat prior's constant
// dropped): with a perfect annotator each value is then exactly the mean or
// median answer, not shrunk towards μ by a relative 1e-8; μ and σ² are
// still estimated from q(y), for Predict. A document that no message
// reaches (v_d = ∞) adds nothing.
//
// PhiTerm adds nothing: the response is framework.DocumentFree, so
// `maslda train` and `maslda aggregate` run it on answers alone, over one
// document without words per task.
//
// # Initialisation, saved parameters
//
// Init starts from the training answers (Setup.Corpus): μ and σ² the mean
// and variance of the documents' mean answers (σ² = 1 without answers or
// spread), so that the first prior message is already on the answers'
// scale. Response implements framework.Persister (response.params: JSON
// with μ and σ²) and framework.Checkpointer (the running SVI statistics).
package valueprior
