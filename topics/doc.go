// Package topics is the LDA layer shared by every model (MODEL.md §1, §4, §5).
//
// It holds the topics' variational parameters ζ (q(β_k) = Dir(ζ_k)), the
// cached E[log β_kv] = ψ(ζ_kv) − ψ(Σ_u ζ_ku) refreshed once per global
// update, and the per-document φ/γ loop:
//
//	φ_dvk ∝ exp( E[log θ_dk] + E[log β_kv] + ρ_dvk )   (Layer.Sweep)
//	γ_dk  = α + Σ_v n_dv φ_dvk                           (Layer.Sweep)
//	E[log θ_dk] = ψ(γ_dk) − ψ(Σ_j γ_dj)                 (Layer.Start, Layer.Sweep)
//
// where ρ_dvk is the supervision term a response likelihood adds through
// framework.LikelihoodLocal.PhiTerm (zero for plain LDA and at prediction).
// A response whose part in a repeated word's φ_dv is quadratic
// (framework.PhiQuadratic: per token ρ·φ_dv − c(u·φ_dv)²) gets the exact
// maximiser φ_dv = softmax(a − 2w·c·t·u), t = u·φ_dv, by a safeguarded
// Newton iteration on t (Layer.sweepQuad, solveQuadratic); when ρ_dv is
// base_d + s_dv·u (framework.PhiQuadraticAffine) the exponent's only
// word-dependent part besides E[log β_kv] is λ·u_k, λ = w(s_dv − 2c·t),
// and each Newton evaluation is one pass of K (Layer.sweepAffine).
// The global update (Layer.Update) is the blended form of MODEL.md §5,
//
//	ζ_kv ← (1 − ρ_t) ζ_kv + ρ_t ( τ + S Σ_d n_dv φ_dvk ),
//
// which is the batch update ζ_kv = τ + Σ_d n_dv φ_dvk when ρ_t = S = 1.
// After the update of a mini-batch smaller than the corpus (Step.Full false) the
// exponentials exp(E[log β_kv]) the sweeps multiply by are filled per word
// when a sweep first reads them (Layer.ensureExp), not for all K·V. The
// ELBO terms of the topic layer (MODEL.md §4) are split into per-document
// terms that do not involve β (Layer.DocELBO, accumulated in Stats) and terms
// computed from the statistics and ζ after the update (Layer.ELBO), so the
// reported bound is exact for the state after every update.
//
// DocELBO's entropy term Σ_v n_dv Σ_k φ_dvk log φ_dvk is taken from the
// normalisers the last sweep kept (framework.PhiLogs): for a word set by a
// softmax of x, Σ_k φ_k log φ_k = Σ_k φ_k (x_k − max x) − log Σ_k
// exp(x_k − max x), one logarithm per word instead of K.
//
// A local step from scratch (Layer.FreshSweeps: Layer.Infer without a warm
// start, the unsupervised half of a supervised fresh start) extrapolates
// the sweep map γ ↦ F(γ) every two sweeps by SQUAREM (Varadhan and Roland
// 2008, scheme S3): r = γ1 − γ0, v = γ2 − 2γ1 + γ0, s = −‖r‖/‖v‖,
// γ' = γ0 − 2s·r + s²·v with γ' ≥ α, and ends, as a plain step, with a
// sweep whose change is below local_tol (Config.FreshAccel; a warm step
// sweeps plainly).
//
// Documents are sparse (unique words with counts): every sum over tokens is
// a sum over unique words weighted by n_dv. No per-word φ is kept across
// documents: φ lives in the per-document framework.DocState.
package topics
