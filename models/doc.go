// Package models assembles the plug-ins into trainable models and runs
// them.
//
//   - Config / ParseConfig / LoadConfig: the HCL (or JSON-syntax)
//     configuration, decoded strictly: unknown keys list the valid ones,
//     unknown plug-in names list the registered ones with the block's line.
//   - Build / Run.Fit: assembly through a framework.Registry (MODEL.md §1–§3
//     composed), optional restarts (keep the best ELBO), then the configured
//     schedule (MODEL.md §5); with consensus = N (the default 3 of a crowd
//     model with a class truth) N fits from consecutive seeds, the medoid
//     of their truths kept (consensus.go; docs/design.md, "Consensus among
//     seeds").
//   - Model: implements framework.Model. Its E-step runs the local step of
//     MODEL.md §1 (with a response's supervision term and the target
//     posterior of §2/§3 when configured) on a pool of goroutines over
//     fixed-size shards; when every component's statistics are fixed-size
//     sums (framework.Summable) each document's statistics are added
//     exactly (framework.ExactSums), otherwise shards are merged in shard
//     order, so results are bit-identical for any number of workers; its
//     ELBO is the sum of the components' terms of MODEL.md §4 after each
//     update.
//   - Model.ShardEStep (seam.go, issue 26): the shard-level E-step an
//     engine calls — documents and their per-document state (γ_d, φ_d) in,
//     exact sums of their statistics and the new state out, a pure
//     function of the globals and the shard; the sums of any split, merged
//     in any order and given to Model.Combine, are EStep's statistics bit
//     for bit (docs/design.md, "Beyond one machine: the seam").
//   - Model.EvalELBO (framework.Evaluator): the bound over every training
//     document at the current globals — an E-step over the corpus that
//     stores nothing, then ELBO with S = 1 — which SVI's eval_every reports
//     beside its mini-batch estimates; training is bit-identical with and
//     without it.
//   - Model.SetPhase (framework.Phased, phase.go): the phases of the
//     two-stage schedule (MODEL.md §6's "LDA, then a regression on φ̄"
//     baselines). PhaseTopics is plain LDA (§1 and the topic terms of §4)
//     and records every document's φ (float32, 4·K·Σ_d L_d bytes);
//     PhaseResponse freezes the topics and that φ and runs only the target
//     update (§2/§3 "true-target posterior") per document, with the
//     response's and annotators' statistics, updates and ELBO terms (§4).
//   - Model.Predict: the topic layer with ρ = 0 and fixed topics, then the
//     response's prediction (MODEL.md §2, §3 "Prediction").
//   - Presets (presets.go): `model = "NAME"` names a composition of blocks
//     (MA-sLDAc/r and the baselines of MODEL.md §6).
//   - Run.SaveAtomic / Load: versioned model directories published by
//     rename, rebuilt through the registry.
//   - Run.WarmStart: a run's initial globals (ζ, and the response's and
//     annotators' parameters) taken from a saved model, so that another
//     schedule continues from it (batch EM → SVI, or more iterations).
//
// docs/design.md maps every equation to its function and records the
// measurements behind the defaults (local_init, init, restarts).
package models
