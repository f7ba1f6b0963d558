// Package frameworktest is the conformance kit of maslda's plug-in
// contracts, in the spirit of testing/fstest.TestFS: given a factory and a
// small setup, TestLikelihood, TestNoiseModel and TestSchedule run every
// check that a response, an annotator model or an inference schedule must
// pass (docs/extending.md lists the contract rules they enforce):
//
//   - local messages are gradients of the document bound: the supervision
//     term n_dv·ρ_dvk = ∂DocELBO/∂φ_dvk, the caches a LikelihoodLocal keeps
//     across WordChanged equal a fresh Begin, the target update (prior
//     message plus evidence) is a stationary point of the document bound,
//     and the evidence of a noise model is the gradient of its DocELBO in
//     the target's moments, at the target that results from a random
//     incoming message plus the evidence (so that a model with local
//     variables maximised jointly with the target, as GLAD's task
//     difficulty, is checked at its joint maximiser);
//   - the statistics: Σ_d DocELBO equals ELBO's per-document part, which
//     Step.Scale multiplies; Merge gives the statistics of the union; Reset
//     empties;
//   - the global step: Update maximises the component's part of the bound
//     (Maximises: the bound at the update, for its statistics, is not below
//     that at the parameters of updates from other documents, nor at
//     blends from those toward the update); a framework.Ascender, whose
//     update only ascends, is checked instead not to lower it from Init's,
//     warm and others' parameters, twice in a row (Ascends);
//     ρ = 0 changes nothing; a scale S acts as S copies of the statistics;
//     at 0 < ρ < 1 the natural parameters are the blend
//     (1 − ρ)·old + ρ·(prior + S·stats) (MODEL.md §5);
//   - save/load (framework.Persister) round-trips the parameters exactly;
//   - end to end, on planted data through models.Model: batch EM is
//     monotone, full-batch SVI with κ = 0 (ρ = S = 1) performs the batch
//     iterations, the result does not depend on the number of E-step
//     workers, and the planted truth is recovered with a margin over the
//     trivial baseline measured on the same data;
//   - a schedule's steps: ρ_t as documented, S = D/|B| for the mini-batch
//     actually used, Full only for the whole corpus, every document once
//     per epoch, one Progress per update.
//
// Shared fakes make each kind testable alone: FlatResponse (a response
// with no parameters, for annotator models), Clamped (a noise model that
// observes the truth, for responses), and planted problems with their
// truth (NewClassCrowd, NewValueCrowd, NewSupervised, built on
// framework/synth).
//
// A target type of a plug-in's own is taught to the kit by a TargetType
// (Likelihood.Target, NoiseModel.Target): the gradient checks then work in
// its natural parameters, and the end-to-end checks take the planted
// problems, the partner component and the score from the caller.
//
// The checks take a TB, which *testing.T satisfies (each check then runs
// as a subtest); Recorder records failures instead, so that a kit's user
// can assert that a deliberately broken component fails a check, as this
// package's own tests do.
package frameworktest
