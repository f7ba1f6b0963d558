// Package optim holds the inference schedules and the numerical optimiser
// the M-steps use.
//
// Batch variational EM (Batch, MODEL.md §4): every iteration runs the local
// step on the whole corpus and applies framework.BatchStep (ρ = 1, S = 1);
// the ELBO after each update never decreases (a test). It stops when the
// relative ELBO change |ΔL| / |L| falls below tol, or after max_iters.
// A model that is a framework.StatsRecycler gets each iteration's
// statistics back once the update, the bound and the convergence test are
// done with them, to fill again in a later E-step.
//
// Stochastic variational inference (SVI, MODEL.md §5): each epoch visits a
// fresh random permutation of the documents cut into mini-batches (so each
// mini-batch is a uniform sample without replacement), runs the local step
// on the mini-batch and applies Step{Rho: ρ_t, Scale: D/|B|} with
//
//	ρ_t = (t + delay)^(−κ),
//
// t counting updates from 1. Convergence is judged per epoch: the mean of
// the epoch's ELBO estimates against the previous epoch's, relative change
// below tol. With batch_size ≥ D and κ = 0 (ρ_t = 1) SVI performs exactly the
// batch iterations (a test).
//
// SVI's ELBO after an update is the mini-batch's estimate scaled by D/|B|,
// too noisy on corpora of very unequal document lengths to show a trend.
// With eval_every = N > 0 SVI also reports the bound over the whole corpus
// at the current globals (framework.Evaluator, Progress.FullELBO) after the
// last update of every N-th epoch and of the last epoch: one extra E-step
// over the corpus per evaluation that stores nothing (training is
// bit-identical with and without it, a test), its time left out of
// Progress.Elapsed. Batch EM reports FullELBO = ELBO.
//
// Two stages (TwoStage, registered as "two-stage"; MODEL.md §6's "LDA,
// then a regression on φ̄" baselines): batch EM on a framework.Phased model
// in framework.PhaseTopics (plain LDA), then batch EM in
// framework.PhaseResponse (the response and annotators on the frozen φ of
// stage 1's last E-step). Each stage's objective never decreases;
// Progress.Stage tells them apart.
//
// Minimize wraps gonum's L-BFGS with context cancellation for the M-steps
// that have no closed form (the softmax η of MODEL.md §2).
package optim
