package framework

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// Stats are mergeable sufficient statistics of a component, accumulated per
// document during the E-step. Merging the statistics of two shards must give
// the statistics of their union.
type Stats interface {
	// Merge adds other (of the same concrete type) into the receiver.
	Merge(other Stats)
	// Reset returns the statistics to those of an empty set of documents.
	Reset()
}

// Step says how a global update blends new statistics into old parameters
// (MODEL.md §5): new = (1 − Rho)·old + Rho·(prior + Scale·stats).
type Step struct {
	Rho   float64 // ρ_t; 1 for batch
	Scale float64 // S = D/|B|; 1 for batch
	Full  bool    // the statistics cover the whole corpus (batch)
	Iter  int     // the update's number, from 1
	// EpochEnd: the update ends a pass over the corpus (SVI: the epoch's
	// last mini-batch; batch: every update). A component may do work
	// that does not pay at every mini-batch once an epoch, at these
	// updates (the confusion annotators' communities).
	EpochEnd bool
}

// BatchStep is the step of batch variational EM.
func BatchStep(iter int) Step { return Step{Rho: 1, Scale: 1, Full: true, Iter: iter, EpochEnd: true} }

// Check returns an error wrapping ErrBadInput, naming the component what
// (for example `response class-prior`), unless 0 ≤ ρ ≤ 1 and S is finite
// and ≥ 0: the check every global Update makes of its step.
func (st Step) Check(what string) error {
	if !(st.Rho >= 0 && st.Rho <= 1) || !(st.Scale >= 0) || math.IsInf(st.Scale, 0) {
		return fmt.Errorf("%w: %s: step ρ = %v, S = %v; want ρ ∈ [0, 1] and a finite S ≥ 0", ErrBadInput, what, st.Rho, st.Scale)
	}
	return nil
}

// DocSums are the statistics of a component with nothing to learn: the
// number of documents with answers and the sum of their DocELBO, whose
// ELBO is then S·Sum (annotators "perfect" and "median").
type DocSums struct {
	Docs float64 // documents with answers
	Sum  float64 // Σ_d DocELBO(d)
}

// Merge adds o (a *DocSums) into s.
func (s *DocSums) Merge(o Stats) {
	t := o.(*DocSums)
	s.Docs += t.Docs
	s.Sum += t.Sum
}

// Reset empties s.
func (s *DocSums) Reset() { *s = DocSums{} }

// Setup is what a component needs to size and initialise its parameters.
type Setup struct {
	K          int        // number of topics
	V          int        // vocabulary size
	Classes    []string   // class names of a categorical target (nil otherwise)
	Annotators []string   // annotator names (nil without answers)
	Corpus     *Corpus    // the training corpus (nil when rebuilding a saved model; without Docs when the run holds no document, models.BuildGlobals)
	Docs       int        // the number of training documents (0 when rebuilding a saved model): read it, not len(Corpus.Docs)
	Rand       *rand.Rand // the run's random source; never the global one
	// Marks, when not nil, are what a Rewarmer's start found in an
	// earlier pass of this run (Rewarmer.Rewarm): per annotator a class
	// (≥ 0) for one the start marked, −1 for the others. Only a noise model
	// that is a Rewarmer is handed them, on the pass models.Run.Fit builds
	// again from the configuration; nil otherwise.
	Marks []int32
}

// NumDocs is the number of training documents: Docs, or when it is 0
// the length of Corpus.Docs (a Setup written before Docs existed).
func (s *Setup) NumDocs() int {
	if s.Docs > 0 || s.Corpus == nil {
		return s.Docs
	}
	return len(s.Corpus.Docs)
}

// CountAnswers checks every training answer against the setup's
// annotators and classes and returns each annotator's number of answers
// (all zero without a corpus): the start of a categorical annotator
// model's Init. name (the model's) goes into the error, which wraps
// ErrBadInput and names the document.
func (s *Setup) CountAnswers(name string) ([]int, error) {
	R, C := len(s.Annotators), len(s.Classes)
	n := make([]int, R)
	if s.Corpus == nil || s.Corpus.Answers == nil {
		return n, nil
	}
	for d, as := range s.Corpus.Answers.ByDoc {
		for _, a := range as {
			if a.Annotator < 0 || int(a.Annotator) >= R || a.Class < 0 || int(a.Class) >= C {
				return nil, fmt.Errorf("%w: annotators %s: document %d: answer of annotator %d, class %d outside %d annotators, %d classes", ErrBadInput, name, d, a.Annotator, a.Class, R, C)
			}
			n[a.Annotator]++
		}
	}
	return n, nil
}

// Persister is a required capability of a Likelihood or NoiseModel that
// has global parameters: they are saved with a trained model and restored
// after Init. A component without parameters says so with Parameterless
// instead; models.NewModel refuses a component that does neither (a saved
// model would otherwise predict with its initial parameters).
type Persister interface {
	SaveParams(w io.Writer) error
	LoadParams(r io.Reader) error
}

// Coefficients is an optional capability of a Likelihood: its
// coefficients on the topics, for reports (`maslda report`). Eta holds one
// column of K numbers per class (or a single column for a rating); scalars
// are named extra parameters (an intercept, a variance, cut points...).
type Coefficients interface {
	Coefficients() (eta [][]float64, scalars map[string]float64)
}

// Parameterless is implemented by a Likelihood or NoiseModel with no
// global parameters to save (everything it needs is rebuilt by Init from
// its configuration); it replaces Persister.
type Parameterless interface {
	Parameterless()
}

// Checkpointer is an optional capability of a Likelihood or NoiseModel
// that keeps state between the iterations of a fit beyond its Persister
// parameters, such as a per-document store: SaveState writes that state
// and LoadState restores it into a component initialised (Init) over the
// same training corpus and given its parameters (LoadParams), so that a
// fit resumed from a checkpoint continues bit-identically.
type Checkpointer interface {
	SaveState(w io.Writer) error
	LoadState(r io.Reader) error
}

// Global is a component with global parameters and sufficient statistics.
type Global interface {
	// NewStats returns empty statistics.
	NewStats() Stats
	// Accumulate adds document d's contribution (after its local step) to s.
	// d.Index < 0 marks statistics made only to evaluate the bound
	// (Evaluator): Accumulate must then keep nothing about d outside s (a
	// component that stores per-document state for its M-step, such as the
	// softmax's φ, copies it into s instead), so that the evaluation leaves
	// training unchanged.
	Accumulate(s Stats, d *DocState)
	// Update sets the global parameters from s (MODEL.md §5 blending by st).
	Update(ctx context.Context, s Stats, st Step) error
	// ELBO is the component's contribution to the evidence lower bound with
	// the current global parameters, the per-document parts taken from s
	// and scaled by st.Scale (MODEL.md §4).
	ELBO(s Stats, st Step) float64
}

// Ascender is implemented by a global component whose Update, with ρ = 1,
// promises only not to lower its part of the bound from the current
// parameters (generalised EM), not to reach its maximum for the
// statistics: components with latent structure of their own (memberships
// of annotators in communities, mixtures), whose maximiser has no closed
// form and whose bound has several local maxima, or an update that stops
// its solver short of the maximum and leaves the rest to the next
// iterations (the softmax's gain_tol). Ascends reports whether
// the instance (as configured and initialised) is such a component. The
// conformance kit checks Ascends (the bound after Update is not below
// before, from Init's parameters, from warm ones and from others') in
// place of Maximises for it; batch EM's monotonicity holds either way.
type Ascender interface {
	Ascends() bool
}

// Likelihood is a response p(target | z̄, η) (MODEL.md §2, §3).
type Likelihood interface {
	Global
	// Init sizes and initialises the parameters.
	Init(s *Setup) error
	// NewTarget returns a target of the kind this response models.
	NewTarget() Target
	// NewLocal returns per-goroutine scratch for the local step.
	NewLocal() LikelihoodLocal
	// Predict sets d.Target to the predictive distribution given d.PhiBar
	// (topics run with no supervision, MODEL.md §2 and §3 "Prediction").
	Predict(d *DocState)
}

// DocumentFree is an optional capability of a Likelihood whose target
// does not depend on the documents (the class prior, p(c_d) = π_{c_d}):
// its prior message, statistics and bound never read φ̄_d, so a model
// with it can be trained on answers alone, over documents without words
// (`maslda train` without --docs).
type DocumentFree interface {
	// IgnoresDocuments reports whether the response ignores the documents.
	IgnoresDocuments() bool
}

// LikelihoodLocal is a response's per-goroutine part of the local step.
type LikelihoodLocal interface {
	// Begin caches per-document terms (for example log B_dl) from d.Phi.
	Begin(d *DocState)
	// TargetTerm adds the prior message onto d.Target (e.g. η_l·φ̄_d).
	TargetTerm(d *DocState)
	// PhiTerm adds the supervision term ρ_dvk for word j of d into dst.
	PhiTerm(dst []float64, d *DocState, j int)
	// WordChanged updates the caches after φ of word j changed from old.
	WordChanged(d *DocState, j int, old []float64)
}

// LocalResumer is an optional capability of a LikelihoodLocal whose caches
// follow every φ change that WordChanged reports. Resume(d) is called
// instead of Begin(d) right after a sweep through the same LikelihoodLocal
// of the same document (the topic layer's SweepWeighted, which reports
// every word): the caches then hold what Begin would compute, up to the
// rounding of their incremental updates, and Resume only does the rest of
// Begin's work (the target is read afresh). When the caches are not d's
// (another document, other global parameters) Resume is Begin.
type LocalResumer interface {
	Resume(d *DocState)
}

// PhiQuadratic is an optional capability of a LikelihoodLocal whose part of
// the bound in the φ_dv of a repeated word (n_dv tokens sharing φ_dv) is,
// per token, ρ·φ_dv − c·(u·φ_dv)² with c ≥ 0 and ρ, c, u fixed by the
// other words (the Gaussian response: ηᵀE[z̄z̄ᵀ]η holds (n_dv² − n_dv)(η·φ_dv)²).
// PhiTermQuad adds ρ into dst and returns c and u (u is read, not kept).
// The topic layer then sets φ_dv to the exact maximiser,
// φ_dvk ∝ exp(E[log θ_dk] + E[log β_kv] + w·(ρ_k − 2c·t·u_k)) with
// t = u·φ_dv solved by a safeguarded Newton iteration (the left side is
// decreasing in t, so the root is unique), instead of the linearised
// PhiTerm, which can lower the bound when the term is large (a strong
// supervision weight w). PhiTerm must equal ρ − 2c(u·φ_dv)u at the
// current φ_dv.
type PhiQuadratic interface {
	PhiTermQuad(dst []float64, d *DocState, j int) (c float64, u []float64)
}

// PhiQuadraticAffine is an optional refinement of PhiQuadratic for a
// supervision term whose ρ_dv is base_d + s_dv·u, with base_d and u the
// same for every word of a sweep (the Gaussian and ordinal responses:
// u = η). The word's problem is then one-dimensional: φ_dvk ∝
// exp(E[log θ_dk] + w·base_dk) · exp(E[log β_kv]) · exp(λ·u_k) with
// λ = w(s_dv − 2c_dv·t), t = u·φ_dv, so the topic layer takes the first
// factor once a sweep and solves for λ with O(K) work a Newton step
// (topics.Layer's sweepAffine, docs/design.md). Called within a sweep,
// after Begin or Resume:
//
//   - QuadBase sets dst (length K) to base_d and returns u (read, not
//     kept; unchanged until the sweep ends), once at the sweep's start;
//   - QuadWord returns s_dv and c_dv of word j, given t = u·φ_dv at its
//     current φ_dv, with the other words' φ as they are now;
//   - QuadMoved replaces WordChanged: φ of word j changed, its t = u·φ_dv
//     from t0 to t1 and q = Σ_k φ_dvk u_k² from q0 to q1.
//
// PhiTermQuad must add base_d + s_dv·u and return the same c_dv and u.
type PhiQuadraticAffine interface {
	PhiQuadratic
	QuadBase(dst []float64, d *DocState) (u []float64)
	QuadWord(d *DocState, j int, t float64) (s, c float64)
	QuadMoved(d *DocState, j int, t0, q0, t1, q1 float64)
}

// PhiDocTerm is an optional capability of a LikelihoodLocal: an
// approximation of the supervision term that is the same for every word of
// a document. DocTerm sets dst (length K) to ρ̄_d with ρ_dvk ≈ ρ̄_dk + c_dv
// (c_dv constant in k, which the φ update's normalisation removes), equal
// up to rounding when every φ_dv equals φ̄_d; it reads only d.PhiBar,
// d.Target and the global parameters (no Begin, no per-word work: O(K·C)).
// A response implementing it also accepts TargetTerm without Begin.
//
// The model's fresh start (topics.fresh_start = "lda") then runs, after
// plain LDA's sweeps, sweeps of plain LDA's cost with exp(E[log θ_d] +
// w·ρ̄_d) as the document's factor (topics.Layer.SweepDoc), updating
// q(target) between them, to convergence; the exact supervised sweeps
// (PhiTerm) that follow start near their fixed point. The approximation
// only moves the start: the local step still ends at a fixed point of
// the exact sweeps.
type PhiDocTerm interface {
	DocTerm(dst []float64, d *DocState)
}

// PhiStore is the model's store of every training document's φ_d from its
// last local step of a training E-step (float32, Len_d×K row-major: 4·K·Σ_d
// L_d bytes). There is one per model: it serves a response's M-step
// (PhiUser), the model's warm starts and the two-stage schedule's frozen φ.
type PhiStore interface {
	// Phi returns training document i's stored φ, nil when none is
	// stored. It is written by the model after document i's local step in
	// an E-step, before the document is accumulated; it is read-only to
	// components and valid until document i's next E-step.
	Phi(i int) []float32
}

// PhiUser is an optional capability of a Likelihood whose M-step reads
// every training document's φ (the softmax under its product bound).
// NeedsPhi reports whether it does with its configured parameters; the
// model then keeps its PhiStore (one for every purpose) and calls UsePhi
// before the first E-step; UsePhi(nil) withdraws it (the model does so
// while the φ of its local steps differs from the stored rows: the
// two-stage schedule's second stage, whose rows are renormalised).
// Statistics accumulated without a store (a Likelihood used outside a
// model, UsePhi(nil), or documents with DocState.Index < 0) must carry
// their own copy of φ.
type PhiUser interface {
	NeedsPhi() bool
	UsePhi(s PhiStore)
}

// Parallel is an optional capability of a Likelihood or a NoiseModel
// whose global update (Update, ELBO) runs on several goroutines, as the
// softmax's M-step does: the model calls SetWorkers with its number of
// workers (≥ 1) before training and whenever it changes, so that a run
// configured with one worker uses one core throughout. The result must
// not depend on n.
type Parallel interface {
	SetWorkers(n int)
}

// TargetRestorer is an optional capability of a LikelihoodLocal whose
// response keeps every training document's q(target) from its last E-step
// but not its φ (the softmax with bound = "quadratic", whose M-step needs
// per-document statistics only), and whose part of the bound is concave in
// φ_d for fixed q(target). RestoreTarget sets d.Target to document
// d.Index's q(target) of its last E-step and reports whether it could. A
// warm start then maximises the bound over φ_d with γ_d and q(target)
// fixed (supervised φ sweeps to convergence, models.Model's local step),
// which cannot end below the last E-step's state: a monotone warm start
// without a per-word store.
type TargetRestorer interface {
	RestoreTarget(d *DocState) bool
}

// TargetRestorerFrom is an optional capability of a TargetRestorer whose
// stored q(target) can come from the caller instead: RestoreTargetFrom sets
// d.Target from t, the document's q(target) of its last E-step, exactly as
// RestoreTarget would from the response's store. The shard-level E-step
// (models.Model.ShardEStep) uses it with the state an engine keeps per
// document, so that the response's store is not needed there.
type TargetRestorerFrom interface {
	RestoreTargetFrom(d *DocState, t Target) bool
}

// DocScorer is a required capability of a Likelihood and a NoiseModel (a
// LikelihoodLocal may implement it too, and is then looked up first): its
// part of document d's ELBO at the current global parameters and local
// state. The local step uses it to choose between a warm and a fresh start
// (topics local_init = "best"); models.NewModel refuses a component
// without it, since that choice would silently see the topic layer's terms
// only.
type DocScorer interface {
	DocELBO(d *DocState) float64
}

// AnswerPredictor is an optional capability of a NoiseModel: the log
// predictive probability of answer a (a probability for a class, a density
// for a number) by its annotator about a document whose target has the
// distribution t, at the current global parameters: log Σ_c t_c·p(a | c, r)
// or log ∫ q(x) p(a | x, r) dx, with the annotator's parameters at their
// posterior mean (point estimates: the estimate). It scores answers held
// out of training (models.ScoreAnswers), a model-selection criterion that
// needs no gold labels.
type AnswerPredictor interface {
	LogPredictive(t Target, a Answer) float64
}

// Reporter is an optional capability of a NoiseModel: a description of
// every annotator for annotators.csv (a header and one row per annotator,
// in the order of Setup.Annotators) and annotators.json (any value that
// encoding/json can marshal).
type Reporter interface {
	Report() (header []string, rows [][]string, doc any)
}

// NoiseModel is an annotator model p(answer | target, annotator).
type NoiseModel interface {
	Global
	// Init sizes and initialises the parameters.
	Init(s *Setup) error
	// Accepts refuses, with ErrIncompatible, a target it cannot update.
	Accepts(t Target) error
	// Evidence adds the annotators' message onto d.Target.
	Evidence(d *DocState)
}

// Model is what a Schedule drives: a local step over a set of documents and
// the global update from their statistics.
type Model interface {
	// NumDocs is the number of training documents.
	NumDocs() int
	// EStep runs the local step on the given documents (indices in
	// increasing order) and returns their merged statistics.
	EStep(ctx context.Context, docs []int) (Stats, error)
	// Update applies the global step.
	Update(ctx context.Context, s Stats, st Step) error
	// ELBO is the evidence lower bound after Update (an estimate scaled by
	// st.Scale when s covers a mini-batch).
	ELBO(s Stats, st Step) float64
}

// ConvergenceScaler is an optional capability of a Model: the magnitude
// against which a batch schedule judges the relative change of the bound
// (|ΔL| ≤ tol·scale). A model whose bound holds a large part that cannot
// change between iterations returns the magnitude of the rest, so that the
// constant does not hide the change of the part that moves: with one
// topic (k = 1) φ ≡ 1, so the topic layer's part of the bound is fixed by
// the word counts after the first update (−2.9e8 on a real bag of words,
// which made a relative tolerance of 1e-5 stop Dawid–Skene after two
// iterations). ok false means the whole bound (|L|), as without the
// capability. The change judged is always that of the whole bound.
type ConvergenceScaler interface {
	ConvergenceScale(s Stats, st Step) (scale float64, ok bool)
}

// StatsRecycler is an optional capability of a Model: a schedule that
// is done with statistics its EStep returned (after their Update and
// ELBO) hands them back, and the model may fill them again in a later
// EStep instead of allocating new ones (the topic layer's are K×V
// numbers; a fresh allocation of them is zeroed on one goroutine every
// iteration). The caller must not use s afterwards.
type StatsRecycler interface {
	RecycleStats(s Stats)
}

// ConvergencePart is an optional capability of a Model: a part of its
// bound whose own relative change a batch schedule also judges, so that a
// part that is still moving is not hidden by a larger part that has
// settled. The batch schedule stops only when both |ΔL| ≤ tol·scale and
// |ΔP| ≤ tol·|P| hold. A crowd model returns its supervised part
// w·(response + annotators): with many topics the words' part of the bound
// is orders of magnitude larger, and a relative tolerance on the whole
// bound stopped EM while the class prior and the confusion matrices were
// still moving (issue 25: a planted crowd at truth 0.762 after 15
// iterations reaches 0.878 when run on). ok false: no such part.
type ConvergencePart interface {
	ConvergencePart(s Stats, st Step) (part float64, ok bool)
}

// Evaluator is an optional capability of a Model: the bound over the whole
// training corpus at the current global parameters, which an SVI schedule
// reports every eval_every epochs (Progress.FullELBO) because its own
// per-update ELBO is a noisy mini-batch estimate.
type Evaluator interface {
	// EvalELBO returns the bound L(local*, global) over every training
	// document at the current global parameters: each document's local
	// step is run as in an E-step (warm-started as an E-step would be, in
	// the model's current phase) but nothing is stored — no warm-start
	// state, no targets, no frozen φ, no statistics kept — so training
	// afterwards is exactly as if it had not been called. The value is what
	// EStep over every document followed by ELBO(stats, BatchStep) would
	// give, without the update in between.
	EvalELBO(ctx context.Context) (float64, error)
}

// Phase is the part of a model that a Phased model's local and global
// steps cover (the `two-stage` schedule: MODEL.md §6's "LDA, then a
// response on φ̄" baselines).
type Phase int

const (
	// PhaseJoint (the default) is the whole model: topics, response and
	// annotators learnt together.
	PhaseJoint Phase = iota
	// PhaseTopics is plain LDA: the local step, statistics, updates and
	// ELBO are the topic layer's alone (MODEL.md §1, §4 topic terms); the
	// response and the annotators neither see nor influence anything. Each
	// E-step records every visited training document's φ, to be frozen for
	// PhaseResponse.
	PhaseTopics
	// PhaseResponse fits the response and the annotators on fixed
	// features: the topics are frozen and so is every training document's
	// φ, as the last PhaseTopics E-step left it. The local step only
	// updates the target (LikelihoodLocal.Begin, TargetTerm,
	// NoiseModel.Evidence, Target.Finalize); the statistics, updates and
	// ELBO are the response's and the annotators' (with their target
	// terms), φ fixed.
	PhaseResponse
)

// String names the phase as in messages.
func (p Phase) String() string {
	switch p {
	case PhaseJoint:
		return "joint"
	case PhaseTopics:
		return "topics"
	case PhaseResponse:
		return "response"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// Phased is an optional capability of a Model that can be restricted to a
// phase. SetPhase is called between E-steps, never during one; it fails
// (ErrNotTrained) when the phase needs state the model does not have yet
// (PhaseResponse before a PhaseTopics E-step has covered every training
// document), and with ErrIncompatible when the model has nothing to fit
// in it (PhaseResponse without a response).
type Phased interface {
	Model
	SetPhase(p Phase) error
	// Phase is the current phase.
	Phase() Phase
}

// PhasedSchedule is an optional capability of a Schedule that drives a
// Phased model through phases (optim's "two-stage"). FirstPhase is the
// phase its first stage runs in: a model's restarts (models.Run.Fit) run
// their candidates in it. Responses implementing FixedFeatures are valid
// only under such a schedule.
type PhasedSchedule interface {
	Schedule
	FirstPhase() Phase
}

// Weighted is an optional capability of a Likelihood: its supervision
// weight w ≥ 1. The model then maximises L_topics + w·(the response's,
// the annotators' and the target's terms), so the φ update becomes
// φ_dvk ∝ exp(E[log θ_dk] + E[log β_kv] + w·ρ_dvk) and every other update
// is unchanged (docs/design.md, "The supervision weight"). A Likelihood
// without it has w = 1: the exact bound of MODEL.md §4.
type Weighted interface {
	SupervisionWeight() float64
}

// Piloted is an optional capability of a Likelihood whose fit begins with
// a pilot (the gaussian's exact pilot): models.Run.Fit first runs batch EM
// on the model as it is built, at most PilotIters() iterations and until
// PilotDone() reports true after one, then calls EndPilot, puts the topic layer back in its state before the pilot
// (the initial topics, fresh local steps) and runs the configured schedule
// on that, the likelihood and the annotators keeping what EndPilot and the
// pilot left. Progress of the pilot has Stage 1, of the schedule Stage 2;
// the bound is monotone within each under batch EM. PilotIters 0 means no
// pilot (also after EndPilot, and for a model restored after it).
type Piloted interface {
	PilotIters() int
	PilotDone() bool
	EndPilot() error
}

// CrowdHolder is an optional capability of a Piloted Likelihood whose
// pilot estimates the crowd's posterior for good (the gaussian's truth =
// "exact"). WillHoldCrowd reports that the pilot is to run until the exact
// bound converges (optim.DefaultBatch's test, at most PilotIters
// iterations) rather than until PilotDone. Once HoldsCrowd reports true
// (after EndPilot, and for a model restored after it) the model holds
// the crowd where the pilot left it: every training document's
// q(target) stays that of its last E-step (the local step restores it
// instead of combining the prior message with the annotators' evidence)
// and the annotators are not updated; the topics and the response go on
// fitting those targets. docs/design.md, "The truth of the exact bound".
//
// Reopen puts a holding response back before EndPilot: a warm start
// (models.Run.WarmStart) from a model saved after its pilot runs the pilot
// again from the loaded parameters, so that the crowd it holds is the
// new fit's (its documents' q(target) are not saved with a model).
type CrowdHolder interface {
	WillHoldCrowd() bool
	HoldsCrowd() bool
	Reopen()
}

// FixedFeatures is an optional capability of a Likelihood. A response
// whose FixedFeatures returns true treats φ̄_d as fixed, observed features
// (a regression on LDA's topic proportions: no supervision term, the
// topics never see the target); it is valid only under a PhasedSchedule,
// which fits the topics first and the response on frozen φ afterwards.
// Assembling it with any other schedule fails with ErrIncompatible.
type FixedFeatures interface {
	FixedFeatures() bool
}

// Progress is reported to an Observer after every global update.
type Progress struct {
	Iter     int           // global updates so far (across stages)
	Epoch    int           // passes over the corpus (batch: = Iter)
	Rho      float64       // the step size used
	ELBO     float64       // the (estimated) ELBO after the update; under a staged schedule, the current stage's objective
	FullELBO float64       // the bound over every training document at the update's globals (Evaluator), NaN when not evaluated at this update; batch EM: = ELBO (already a bound over every document, with the local parameters of the E-step before the update)
	Docs     int           // documents in the update's batch
	Elapsed  time.Duration // since Fit started, not counting Evaluator passes (SVI eval_every)
	Restart  int           // during a restart phase, the candidate's number (from 1); 0 otherwise
	Fit      int           // with consensus = N (models.Run.Fit): the fit's number, 2 to N, for the fits from the seeds after the configured one; 0 for the configured seed's fit and without consensus
	Stage    int           // the stage's number from 1 when training has stages (two-stage; a Starter's before/after); 0 otherwise. The bound is monotone within a stage under batch EM.
}

// Starter is an optional capability of a NoiseModel that re-initialises
// itself from the model's own classifier: after StartIters() full passes
// of the schedule over the corpus (see UpdateStarter for SVI with
// mini-batches), models.Run.Fit predicts every training
// document with the topics alone (no answers: the response's predictive
// distribution, as for new documents) and passes the targets, in document
// order, to Start; the schedule then goes on. StartIters 0 means never.
// Progress before the start has Stage 1, after it Stage 2. Not used under
// a PhasedSchedule.
type Starter interface {
	StartIters() int
	StartFrom(pred []Target) error
}

// Rewarmer is an optional capability of a Starter whose start can mark
// annotators that its warm-up should not have read (the confusion model's
// near-constant answerers, constant = "almost"). Rewarm, asked right after
// each start, returns the start's marks (per annotator a class, or −1), or
// nil when it marked none. When not nil, models.Run.Fit does not go on:
// it builds the run again from the configuration and the seed, hands the
// marks to the new noise model's Init (Setup.Marks) and fits from the
// beginning (one start, no restart candidates: models.Run.Restarts; pilot,
// warm-up, start), numbering the progress on.
// A noise model handed marks must treat them from Init on and return nil
// from Rewarm: there is no third pass.
type Rewarmer interface {
	Starter
	Rewarm() []int32
}

// Relabeler is an optional capability of a NoiseModel of a categorical
// target: the relabelling of the classes worth trying once training has
// ended (models.Run.Fit). Relabeling gets every training document's
// q(target) in document order (nil for a document without one) and
// returns perm, perm[c] the class that the model's class c becomes, or
// nil when nothing is worth trying (the identity). The likelihood of the
// answers cannot tell a fit from its class-permuted twin; only the priors
// can, and a run may end in the basin of the wrong one. Fit then runs the
// schedule on from the twin (the response and the annotator model must
// both be ClassPermuters) and keeps it when its bound is higher. Batch EM
// only.
type Relabeler interface {
	Relabeling(targets []Target) []int
}

// AgreementRelabeler is an optional capability of a Relabeler whose bound
// cannot tell a fit from its class-permuted twin at all: its prior follows
// the relabelling (one learned from the annotators, such as communities),
// so the twins' bounds are equal and comparing them would only pick by the
// noise of a fresh start. When ByAgreement reports true, Fit runs the
// schedule on from the twin Relabeling proposes and keeps it without
// comparing bounds: the answers' agreement (the labelling in which the
// annotators it reads are right most often) decides, as majority vote's
// assumption that the crowd is better than chance does.
type AgreementRelabeler interface {
	Relabeler
	ByAgreement() bool
}

// ClassPermuter is an optional capability of a response or NoiseModel of
// a categorical target: PermuteClasses relabels its parameters' true
// classes, class c becoming perm[c] (a permutation of 0…C−1), so that the
// model predicts and explains the same answers with the classes renamed.
type ClassPermuter interface {
	PermuteClasses(perm []int) error
}

// StartCounter is an optional capability of a Starter whose start needs
// of the predictions only counts summed over the documents, so that an
// engine's workers can add them up shard by shard and its driver start
// from the totals without holding every document's prediction (issue 26).
// StartCount adds one training document's counts (its prediction, made
// as for StartFrom, and its answers) into counts, of length StartCounts();
// every count it adds is a whole number, so the totals do not depend on
// the order of the documents nor of the additions. StartFromCounts, given
// the totals over every training document, must do exactly what
// StartFrom does with the predictions, bit for bit.
type StartCounter interface {
	Starter
	StartCounts() int
	StartCount(counts []float64, pred Target, answers []Answer) error
	StartFromCounts(counts []float64) error
}

// Tuner is an optional capability of a Likelihood that re-chooses a
// hyperparameter of its own from the training documents' φ̄ as the topics
// alone give them (phiBar, in document order: no answers, no response)
// and the annotators' message about each document's answers (evidence[d]:
// what NoiseModel.Evidence adds onto a zero target; nil for a document
// without answers). changed reports whether the value in use changed: the
// bound changes with it, so the model calls Tune only at a stage boundary
// (models.Run: after the schedule has converged, then once more from
// there when changed).
type Tuner interface {
	Tune(ctx context.Context, phiBar, evidence [][]float64) (changed bool, err error)
}

// UpdateStarter is an optional capability of a Starter whose start,
// under a schedule that updates the globals several times a pass over the
// corpus (SVI with mini-batches smaller than the corpus), comes at the end
// of the first pass by which StartUpdates() updates have been made, when
// that is before StartIters() passes: the topics can classify after
// fewer such passes. Under batch EM, and under SVI whose mini-batch is the
// whole corpus (which performs the batch iterations), a pass is one update
// and StartIters() counts. StartUpdates 0: StartIters() passes under every
// schedule. models.Run.Fit asks the schedule for its updates a pass
// (optim.SVI.UpdatesPerEpoch).
type UpdateStarter interface {
	StartUpdates() int
}

// Observer is called after every update; an error stops the run and is
// returned by Fit.
type Observer func(p Progress) error

// Result summarises a finished Fit.
type Result struct {
	Iters     int
	Epochs    int
	ELBO      float64 // last (estimated) ELBO
	Converged bool
	Elapsed   time.Duration // training time, not counting Evaluator passes (SVI eval_every)
}

// Schedule is an inference schedule (batch variational EM, SVI).
type Schedule interface {
	Fit(ctx context.Context, m Model, rng *rand.Rand, obs Observer) (*Result, error)
}

// ModelChecker is an optional capability of a Schedule that needs more of
// a model than Model (two-stage: Phased; SVI with eval_every: Evaluator):
// CheckModel refuses, with ErrIncompatible, a model without it.
// models.Build calls it once the model is assembled, so that the mismatch
// is reported before any training (not after a pilot or the restarts);
// the schedule's Fit checks through the same method.
type ModelChecker interface {
	CheckModel(m Model) error
}
