// Package perfect is one "perfect" annotator whose answer is the aggregate
// of the crowd: the annotator model of the baselines sLDA (mv) and sLDA
// (mean), and of LDA + LogReg (mv) and LDA + LinReg (mean) (MODEL.md §6).
// It registers itself as "perfect":
//
//	annotators "perfect" {
//	  aggregate = "majority"  # or "wawa", "mean"; default: chosen by the target
//	  precision = 0           # "mean" only: P > 0, or 0 for 1e8 / (variance of the mean answers)
//	}
//
// The crowd's answers about document d are reduced to one observed answer,
// and the true target is clamped to it. There is nothing to learn: Update
// does nothing, and the ELBO has no global term.
//
// # Majority (categorical target, MODEL.md §2)
//
// w_d is the majority vote as a distribution (MajorityWeights): 1/m on
// each of the m classes with the most answers, 0 elsewhere. Ties are split
// evenly: each tied class gets the same evidence, and none of them is
// favoured by the annotator. The evidence message is
//
//	Log[l] += log w_dl    (−Inf outside the majority)
//
// so, with the response's prior message η_l·φ̄_d (MODEL.md §2's λ_dl with
// the annotators' sum replaced by this one term),
//
//	λ_dl ∝ w_dl · exp(η_l·φ̄_d):
//
// a document with a single majority class c gets λ_d = e_c exactly (the
// label is observed: Categorical.Finalize turns −Inf into a probability of
// exactly 0, Categorical.Entropy skips zero probabilities, and responses
// only add finite messages to Log, whose sum with −Inf stays −Inf); a
// tie restricts λ_d to the tied classes, among which the response decides
// (the exact coordinate maximiser of the bound, so ties cost the ELBO
// nothing). The annotator's ELBO term (MODEL.md §4, confusion-annotator
// line with E[log π_{l,y}] replaced by log w_dl) is
//
//	Σ_l λ_dl log w_dl    = 0 (single majority), −log m (m-way tie).
//
// The response adds H(λ_d) (0 for a clamped target), as it does with
// any annotator model. With the softmax response the joint bound is
// sLDA's bound on the majority-vote labels, and every step of batch EM is
// an exact coordinate maximiser (λ) or the response's and topics' usual
// ascent steps, so the ELBO is monotone (models/baselines_plugins_test.go).
//
// # Mean (Gaussian target, MODEL.md §3)
//
// A Gaussian target cannot be clamped exactly through its natural
// parameters (framework.Gaussian.Finalize needs Prec < ∞, and the
// response's entropy term ½log(2πe v_d) needs v_d > 0). The perfect
// annotator is therefore MODEL.md §3's bias/precision annotator with b = 0
// and a fixed, very large precision P, answering the mean answer ȳ_d:
//
//	Prec += P,  PrecMean += P·ȳ_d,
//	v_d = 1/(1/σ² + P),  m_d = v_d(η·φ̄_d/σ² + P ȳ_d),
//	m_d − ȳ_d = (η·φ̄_d − ȳ_d)/(σ²P + 1),
//
// with the ELBO term of MODEL.md §4's bias/precision line,
//
//	½log P − ½log 2π − (P/2)((ȳ_d − m_d)² + v_d).
//
// This is a proper model (ȳ_d = x_d + ε, ε ~ N(0, 1/P)), so batch EM is
// monotone for any P, and as P → ∞ the response's and this term add up to
// sLDA's −½log(2πσ²) − E[(ȳ_d − η·z̄_d)²]/(2σ²): the annotator's ½log P
// cancels the target's entropy. The default is P = 1e8/s², s² the
// sample variance over answered training documents of their mean answer,
// which makes it unit-free: |m_d − ȳ_d| = |η·φ̄_d − ȳ_d|·s²/(σ²·1e8)
// (about 1e-8·s for a residual of one s and σ² ≈ s²; 3.6e-6 for a
// residual of 8s and σ² = s²/12, the worst case in the tests). That is
// below what the M-steps resolve, while P·ȳ_d and the ELBO's ½log P lose
// no significant digits. Set precision to clamp harder or softer.
//
// Documents without answers get no message: their target comes from the
// response's prior message alone, and they add nothing to this term.
//
// # Wawa (weighted majority vote, categorical target)
//
// The aggregate of crowd-kit's Wawa ("worker agreement with aggregate"):
// annotator r's weight is its agreement with the majority vote over the
// training answers (WawaWeights; a tie of m classes counts 1/m),
//
//	w_r = Σ_{answers y of r about d} w_dy / n_r,
//
// computed once in Init, and the perfect answer of document d is the
// weighted vote argmax_l Σ_{answers l} w_r, ties split evenly and left to
// the response as for "majority" (the same evidence and ELBO term with the
// weighted votes in place of the counts). It is not a fitted model: the
// weights are fixed before the first E-step, so presets `majority-vote`
// and `wawa` (class prior, k = 1) are the votes themselves, with the class
// prior deciding the remaining ties. The weights are not saved: a model
// rebuilt from disk (no training corpus) weighs every answer 1, which only
// matters if its annotators' evidence is asked for again.
//
// # Compatibility
//
// Init refuses (framework.ErrIncompatible) "majority" with numeric answers
// and "mean" with categorical ones; Bind refuses "majority" on a Gaussian
// target, "mean" on a categorical one, a class count that differs from the
// answers', and any other target type. An unset aggregate is chosen by
// whichever of Init (the answers) or Bind (the target) sees the kind
// first, and the other must agree.
//
// # Equations and functions
//
//	MODEL.md                                                    function
//	§6 "one perfect annotator whose answer is the majority vote / mean"
//	§2 λ_dl ∝ exp(η_l·φ̄_d + log w_dl)                            Model.Evidence (categorical)
//	§3 v_d, m_d [fix] with R_d = {perfect}, b = 0, p = P          Model.Evidence (Gaussian)
//	§4 Σ_l λ_dl log w_dl; ½log P − ½log 2π − (P/2)((ȳ − m)² + v)  Model.DocELBO, Model.Accumulate, Model.ELBO
//
// Report (framework.Reporter) is one row: annotator "perfect", the
// aggregate, the answered training documents, their answers, the number
// of tied majorities ("majority") or P ("mean").
package perfect
