// Package confusion is the Dirichlet confusion-matrix annotator model of
// MA-sLDAc (MODEL.md §2), registered as "confusion":
//
//	annotators "confusion" {
//	  omega         = 1          # ω, Dirichlet concentration of every row π^r_c
//	  diagonal      = 0          # extra prior mass on the diagonal (few-answer annotators)
//	  init          = "classifier"  # or "majority", "uniform"
//	  start_iters   = 8          # passes before the classifier start (batch EM)
//	  start_updates = 40         # under SVI with mini-batches: at the first epoch's end after 40 updates, if earlier
//	  start_labels  = "others"   # or "classifier": whom the start judges each answer against
//	  init_strength = 1          # weight of the majority-vote counts in the initial ξ
//	  estimate      = "variational"  # or "point": MAP π̂ (Dawid–Skene, Raykar et al. 2010)
//	  prior         = "fixed"    # or "learned" (one shared Dirichlet), "communities", "auto"
//	  communities   = 3          # M, with prior = "communities" (or "auto")
//	  prior_rate    = 0          # b: hyperprior −b·Σα on the communities' priors
//	  prior_floor   = 0          # least entry of a community's prior (0: ω)
//	  constant      = "ignore"   # an annotator with one class for every document sends no evidence; or "keep",
//	                             # or "almost" (the ma-sldac preset's): also one whose answers are nearly one
//	                             # class whatever the class, found at the classifier start (nearconst.go)
//	}
//
// Annotator r answers y_dr ~ Cat(π^r_{c_d}) about document d of true class
// c_d, with π^r_c ~ Dir(ω + diagonal·e_c) (diagonal = 0 is MODEL.md's prior)
// and variational posterior q(π^r_c) = Dir(ξ^r_c). The model needs a
// categorical target (framework.Categorical, e.g. the softmax response);
// Bind refuses anything else with framework.ErrIncompatible.
//
// # Equations and the functions that implement them
//
//	MODEL.md                                                        function
//	§2 E[log π^r_{c,l}] = ψ(ξ^r_{c,l}) − ψ(Σ_t ξ^r_{c,t})               Model.refresh (after Init, Update, SetXi, LoadParams)
//	§2 λ_dl ∝ exp(… + Σ_{r∈R_d} E[log π^r_{l,y_dr}]), the evidence       Model.Evidence
//	§2 ξ^r_{c,l} = ω + Σ_{d∈D_r} λ_dc [y_dr = l], statistics            Model.Accumulate, Stats
//	§2/§5 ξ ← (1−ρ)ξ + ρ(ω + diagonal·I + S·counts)                    Model.Update
//	§4 Σ_{d,r} Σ_l λ_dl E[log π^r_{l,y_dr}] (per document)             Model.DocELBO (framework.DocScorer)
//	§4 S·Σ counts·E[log π] + Σ_{r,c} (E[log p(π^r_c)] − E[log q(π^r_c)]) Model.ELBO (the Dirichlet terms in Model.refresh)
//	§7 simulated annotators                                           Sample, FromAccuracies, ReadMatrices
//	log Σ_c λ_c E[π^r_{c,y}], a held-out answer's predictive           Model.LogPredictive (framework.AnswerPredictor)
//	prior = "learned": α̂_c = argmax Σ_r log DirMult(n_rc | α)          Model.learnPrior, meanAtPrecision (docs/design.md)
//	init_labels = "crowd": Bayesian Dawid–Skene of the answers alone    Model.crowdLabels
//	prior = "communities", membership = "mean-field" (default; below) Model.fitCommunities, Model.profileAlpha
//	prior = "communities", membership = "structured" (below)          Model.fitStructured, polyaRow, refreshStructured
//	communities under SVI with mini-batches, refit once an epoch       Model.updateMini
//
// The Dirichlet terms, per row, with prior α_c = ω + diagonal·e_c:
//
//	E[log p(π|α)] − E[log q(π|ξ)] = lnΓ(Σα) − Σ_l lnΓ(α_l) − lnΓ(Σξ) + Σ_l lnΓ(ξ_l) + Σ_l (α_l − ξ_l) E[log π_l]
//
// Model.Update is the exact maximiser of the bound in ξ given λ (tested by
// finite differences), so batch EM's trace cannot decrease.
//
// # Communities
//
// prior = "communities" (Venanzi et al., WWW 2014, in this variational
// family): annotator r belongs to community z_r ~ Cat(w), and its rows are
// drawn from that community's prior, π^r_c | z_r = m ~ Dir(α_mc). The
// posterior is mean-field, q(π^r_c) q(z_r) = Dir(ξ^r_c) Cat(q_r); with
// ᾱ^r_c = Σ_m q_rm α_mc and N(a) = lnΓ(Σ_l a_l) − Σ_l lnΓ(a_l) the
// annotators' part of the bound is
//
//	S·Σ n_rcl E[log π^r_cl] + Σ_{r,m} q_rm (log w_m − log q_rm)
//	  + Σ_{r,c} [Σ_m q_rm N(α_mc) − N(ξ^r_c) + Σ_l (ᾱ^r_cl − ξ^r_cl) E[log π^r_cl]],
//
// and one update (ρ = 1) is block coordinate ascent on it until ξ stops
// moving: q_rm ∝ w_m exp(Σ_c [N(α_mc) + Σ_l (α_mcl − 1) E[log π^r_cl]]),
// w_m = Σ_r q_rm / R, then each row α_mc with ξ profiled out (ξ = ᾱ + S·n):
// Minka's Pólya fixed point weighted by q, which with hard memberships is
// prior = "learned"'s update. With M = 1 the two reach the same ξ and α
// (TestCommunitiesOneIsLearned). Community m starts at Dir(ω + diagonal·
// (M−m)/M·e_c), so the first membership update sorts annotators by
// agreement. Every entry of α_mc is held at least at prior_floor (default
// ω: a learned prior adds pseudo-answers to the fixed prior and never says
// an answer cannot happen); profileAlpha's fixed point is clamped there,
// where the bound's derivative is ≤ 0 (TestCommunitiesPriorRate). A step
// over the whole corpus (batch, or SVI whose mini-batch is the corpus)
// refits at every update and blends α, w and q like ξ; under SVI with
// mini-batches the communities hold within an epoch (ξ takes the fixed
// prior's step with ᾱ) and are refitted at its last update from the
// counts ξ − ᾱ (Model.updateMini, framework.Step.EpochEnd).
// annotators.csv gains each annotator's most probable community and its
// probability.
//
// That is membership = "mean-field", the plug-in's default (the
// communities preset's). membership = "structured" (structured.go; the
// ma-sldac preset's) keeps the posterior of π given the
// community exact, q(z_r, π^r) = Cat(q_r) Π_c Dir(α_{z_r c} + n_rc), so the
// bound is Σ_{r,m} q_rm [log w_m − log q_rm + Σ_c (N(α_mc) − N(α_mc +
// n_rc))] (minus b·Σα, plus the diagonal hyperprior), a row without counts
// adds 0 for every community, and q_rm ∝ w_m exp(Σ_c [N(α_mc) − N(α_mc +
// n_rc)]): under the mean-field family an annotator's empty rows sit at its
// mixed prior and vote for the community it is in, so annotators with a few
// answers never leave the largest one. E[log π^r_cl] = Σ_m q_rm [ψ(α_mcl +
// n_rcl) − ψ(Σ_t α_mct + n_rct)]; ξ = ᾱ + n is stored as before. With
// prior_rare = s > 0 (an option), a class c whose expected answers
// Σ_{r,l} n_rcl are fewer than s·N/C keeps every community's α_mc at its
// start in that update (rareClasses, startRow): a near-empty class's row
// is not learned from the hard items of other classes that EM moves into it.
//
// prior = "auto" decides in Init, from the training answers: communities
// when R ≥ AutoMinAnnotators (8) and N < AutoAnswersPerEntry·R·C² (N
// answers from R annotators: fewer than 16 answers per entry of a
// confusion matrix on average, where an annotator's own answers estimate
// its matrix poorly), the fixed prior otherwise (a few annotators, or
// annotators with many answers each, whom pooling would pull together). Model.PriorInUse says which; a saved model's file
// decides when it is loaded (TestPriorAuto).
//
// # The classifier start (default)
//
// init = "classifier" starts like "majority"; after start_iters full passes
// of the schedule (under SVI with mini-batches smaller than the corpus, at
// the end of the first epoch by which start_updates updates were made, if
// that is earlier), Model.Start (framework.Starter, driven by
// models.Run.Fit) resets ξ to the prior plus the counts of the model's own
// classifier's hard labels (predicted from the topics alone) against each
// answer. Measured in docs/design.md ("The classifier start"): on the
// one-answer-per-document regime it gains 0.03 (batch) to 0.10 (SVI) of
// truth accuracy on planted data and takes 20 Newsgroups from 0.60 to 0.73.
// With start_labels = "others" (default) an answer to a document with
// other answers is judged against the most probable class given the
// classifier and those other answers (weighed by the ξ of the warm-up):
// leave-one-out, so that the labeller stays independent of the annotator
// judged; with one answer per document it is the classifier alone. With 20
// answers per document the classifier alone is a far worse labeller than
// the crowd, and the start used to throw the crowd's estimate away
// (docs/design.md, "Never worse than the crowd").
//
// # Point estimates
//
// estimate = "point" keeps the same ξ (prior + S·counts, blended by SVI)
// but uses the MAP estimate π̂^r_{c,l} = (ξ^r_{c,l} − 1)/Σ_t (ξ^r_{c,t} − 1)
// in place of the Dirichlet posterior: the evidence adds log π̂, the ELBO's
// prior term is log Dir(π̂ | α) (no entropy of q(π)). It needs ω ≥ 1; an
// entry with no mass gets 1e-9 of it so that log π̂ stays finite. With
// ω = 1, diagonal = 0 this is the maximum-likelihood EM of Dawid and Skene
// (with the class-prior response) and of Raykar et al. 2010 (with a
// logistic regression on fixed topic features).
//
// # Initialisation
//
// "majority" sets ξ to one batch M-step from λ = majority vote
// (ties split evenly), scaled by init_strength. With several answers per
// document the first E-step then weighs each annotator by its agreement
// with the majority. In the hard case of one answer per document the
// majority vote is the answer, every annotator starts near-perfect
// (accuracy ≈ (ω + s·n_rc)/(Cω + s·n_rc)), and the first E-step reproduces
// majority vote, as the published code's 0.97 diagonal does (MODEL.md §9);
// there init_strength s sets the initial believed accuracy (with a flat
// class prior it barely moves from there: one answer per document carries
// no information about its annotator). With a fixed
// informative prior message, batch EM ended at the same ξ from every
// initialisation tried (TestExploreHardCaseInit, MASLDA_EXPLORE=1); with a
// trained response the initial ξ shapes the response's first M-step.
// "uniform" starts at the prior; with diagonal = 0 and a response that
// starts flat it is a symmetric fixed point (every λ stays uniform), so use
// it with diagonal > 0.
//
// # Reports, saved parameters, simulation
//
// Model.Report (framework.Reporter) gives per annotator its number of
// answers, its estimated accuracy (Model.Accuracy: the diagonal of E[π]
// weighted by its posterior class frequencies) and E[π]; the CSV has one
// column per cell, pi:<true>:<answer>. SaveParams/LoadParams
// (framework.Persister) store ξ and the answer counts as JSON.
//
// Sample draws answers from confusion matrices; FromAccuracies builds
// matrices from accuracies (MODEL.md §7); ReadMatrices reads them from a
// JSON file; MajorityVote is the baseline.
//
// On MODEL.md §7's annotators with 3 answers per document, Dawid–Skene
// (this model with a flat class prior) needs thousands of documents: three
// of the five annotators are within 0.035 of chance and the full confusion
// matrices are weakly identified (TestDawidSkenePaperAnnotators).
package confusion
