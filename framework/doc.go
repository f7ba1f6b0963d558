// Package framework holds the core types of maslda and the contracts its
// plug-ins implement.
//
// Every model of the family is one loop (docs/design.md, MODEL.md §1–§5): per
// document a local step (φ, γ and the posterior of the true target q(target))
// and per corpus or mini-batch a global step. The parts differ only in what
// each contributes:
//
//   - a response [Likelihood] p(target | z̄, η) adds a prior message onto
//     q(target) and a supervision term ρ_dv to the φ update (MODEL.md §2, §3);
//   - a [NoiseModel] p(answer | target, annotator) adds an evidence message
//     onto q(target) (MODEL.md §2, §3);
//   - a [Schedule] drives local and global steps (batch variational EM, SVI,
//     MODEL.md §5) through the [Model] interface.
//
// Global updates all have the form of MODEL.md §5,
//
//	new = (1 − ρ_t)·old + ρ_t·(prior + S·stats),
//
// expressed by a [Step]: batch is Step{Rho: 1, Scale: 1, Full: true}; SVI is
// Step{Rho: ρ_t, Scale: D/|B|}. Sufficient statistics ([Stats]) are mergeable
// so that the parallel E-step can merge per-shard statistics in a fixed order.
// Statistics that are fixed-size sums ([Summable]) are summed exactly
// instead ([Fixed], [ExactSums]: 128-bit fixed point with 64 fractional
// bits, order-independent, with a versioned binary encoding), so that any
// split of the documents across workers or an engine's bundles, merged in
// any order, gives the same bits (docs/design.md, "Beyond one machine:
// the seam").
//
// A component whose global update runs on several goroutines is a
// [Parallel]; [ForRange] hands out the parts of such a pass, each element
// computed as by one goroutine, so that the number of workers does not
// change a result.
//
// framework imports no plug-in and not optim; it depends on the standard
// library and gonum only.
package framework
