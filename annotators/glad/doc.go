// Package glad is the GLAD annotator model ("Generative model of Labels,
// Abilities, and Difficulties"; Whitehill, Ruvolo, Wu, Bergsma and
// Movellan, "Whose vote should count more", NIPS 2009), registered as
// "glad": every annotator r has an ability a_r ∈ ℝ, every task d an
// inverse difficulty β_d = e^{b_d} > 0, and an answer is right with
// probability σ(a_r β_d); a wrong answer is any of the C − 1 other classes
// with equal probability (the paper's multi-class form):
//
//	a_r ~ N(μ_a, s_a²),   b_d ~ N(μ_b, s_b²)   (defaults μ = 1, s = 1),
//	p(y_dr = y | c_d = l) = σ(a_r e^{b_d})                if y = l,
//	                        (1 − σ(a_r e^{b_d}))/(C − 1)  otherwise.
//
// As in the paper both are point (MAP) estimates. In MODEL.md's notation,
// with λ_d = q(c_d) and p_dr = λ_{d,y_dr} the probability that answer y_dr
// is right, document d's part of the bound is
//
//	L_d(λ_d, b_d) = Σ_r [p_dr log σ(a_r e^{b_d}) + (1 − p_dr)(log σ(−a_r e^{b_d}) − log(C − 1))]
//	                + log N(b_d; μ_b, s_b²)
//
// (a task without answers contributes nothing). The task's b_d is a local
// variable: the document bound is taken at its maximiser (DocELBO =
// max_b L_d, the profile), found by a safeguarded Newton iteration from
// μ_b, so that it is a function of λ_d alone.
//
//   - Local step (Evidence, called after the response's prior message):
//     b_d and λ_d are maximised jointly given that message m,
//     b* = argmax_b log Σ_l exp(m_l + M_l(b)) + log N(b; μ_b, s_b²) with
//     M_l(b) = Σ_r [log σ(a_r e^b) if l = y_dr, log σ(−a_r e^b) − log(C − 1)
//     otherwise]; the evidence added to log λ_d is M(b*), which is the
//     gradient of DocELBO at the resulting λ_d (b* is its maximiser there;
//     the conformance kit checks this at an incoming message).
//   - Statistics: every answered task's list of (r, p_dr): the M-step
//     re-maximises the b_d with the abilities, so no fixed-size sum
//     suffices; merging appends, in document order.
//   - Global step: the abilities maximise the profiled objective
//     Φ(a) = Σ_r log N(a_r; μ_a, s_a²) + S·Σ_d max_b L_d by Newton steps (the
//     Hessian through the implicit function b_d(a)), with rounds of block
//     coordinate ascent where a step fails (every b_d given a; every a_r
//     given the b_d, a concave 1-D problem), then a ← (1 − ρ)a + ρa*
//     (MODEL.md §5 with the abilities as the blended parameters; ρ = 1 in
//     batch EM, which is then monotone).
//
// With one topic and the class-prior response it is the GLAD aggregator on
// answers alone (the `glad` preset); with documents it replaces the
// confusion matrices of MA-sLDAc. It simulates annotators too
// (framework.Sampler: `maslda simulate` with an `annotators "glad" {
// abilities = [...] }` block; sampler.go).
package glad
