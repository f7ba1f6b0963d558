package confusion

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

func init() { framework.RegisterNoise("confusion", New) }

// The capabilities Model provides.
var (
	_ framework.NoiseModel    = (*Model)(nil)
	_ framework.DocScorer     = (*Model)(nil)
	_ framework.Persister     = (*Model)(nil)
	_ framework.Reporter      = (*Model)(nil)
	_ framework.Starter       = (*Model)(nil)
	_ framework.StartCounter  = (*Model)(nil)
	_ framework.UpdateStarter = (*Model)(nil)
	_ framework.Parallel      = (*Model)(nil)
)

// Estimates of the confusion matrices (Config.Estimate).
const (
	EstimateVariational = "variational" // q(π^r_c) = Dir(ξ^r_c), MODEL.md §2 (default)
	EstimatePoint       = "point"       // MAP point estimates π̂ (Raykar et al. 2010, Dawid–Skene EM)
)

// pointFloor is the smallest numerator of a MAP estimate (ξ − 1): an entry
// with no mass gets this much, so that log π̂ stays finite.
const pointFloor = 1e-9

// Initial confusion matrices (Config.Init).
const (
	InitMajority   = "majority"   // one M-step from the majority-vote labels
	InitClassifier = "classifier" // majority, then restart from the model's own classifier (Model.Start; default)
	InitUniform    = "uniform"    // the prior: ξ^r_{c,l} = ω + diagonal·[c = l] (default, with diagonal 2)
)

// The prior of the confusion rows (Config.Prior).
const (
	PriorFixed   = "fixed"   // Dir(ω + diagonal·e_c) (default)
	PriorLearned = "learned" // a Dirichlet α_c per true class shared by every annotator, estimated
	// PriorCommunities: M learned priors (communities); each annotator's
	// rows are drawn from the prior of the community it belongs to
	// (communities.go).
	PriorCommunities = "communities"
	// PriorAuto: "communities" when at least AutoMinAnnotators annotators
	// answered and they have on average fewer than AutoAnswersPerEntry
	// answers per entry of their confusion matrices (N <
	// AutoAnswersPerEntry·R·C², R the annotators with an answer), "fixed"
	// otherwise; decided in Init from the training answers
	// (Model.PriorInUse).
	PriorAuto = "auto"
)

// AutoMinAnnotators is the fewest annotators prior = "auto" learns
// communities from: a community's prior is fitted to its members' matrices,
// and with a handful of annotators (R8's and the paper's five simulated
// ones) there is too little to fit three of them to; pooling then pulls
// unlike annotators together.
const AutoMinAnnotators = 8

// AutoAnswersPerEntry is the answers per confusion entry (N / (R·C²)) below
// which prior = "auto" pools the annotators into communities. Below it an
// annotator's own answers estimate its C² entries poorly and borrowing from
// the annotators it resembles helps (constant answerers, spammers, many
// annotators with few answers each); above it pooling pulls a handful of
// very different annotators together (a near-chance annotator's rows for
// the small classes follow the good ones'), and each annotator's own
// answers are enough. docs/results-classification.md, "Communities where
// the annotators' own answers are few", has the measurements behind 16.
const AutoAnswersPerEntry = 16

// maxPriorPrecision caps Σ_l α_cl of a learned prior: with annotators whose
// expected log confusions all agree the maximiser runs off to infinity
// (complete pooling); 1,000 pseudo-answers per row is that for any crowd
// this model is meant for.
const maxPriorPrecision = 1e3

// The labels the initial ξ counts answers against (Config.InitLabels).
const (
	InitLabelsMajority = "majority" // the majority vote (default)
	InitLabelsCrowd    = "crowd"    // a Bayesian Dawid–Skene posterior of the answers alone
)

// Whom the classifier start judges each answer against (Config.StartLabels).
const (
	StartOthers     = "others"     // the classifier and the document's other answers (default)
	StartClassifier = "classifier" // the classifier alone
)

// Config holds the settings of the `annotators "confusion" { ... }` block.
// The zero value is not valid; start from Defaults.
type Config struct {
	// Omega is ω, the symmetric Dirichlet concentration of every row π^r_c
	// (MODEL.md §2). Default 1; must be > 0.
	Omega float64 `hcl:"omega,optional"`
	// Diagonal is extra prior mass on the diagonal: row c of every
	// annotator's prior is Dir(ω + diagonal·e_c). It is the stronger-diagonal
	// prior for annotators with few answers (they are assumed better than
	// chance until their answers say otherwise); the expected prior accuracy
	// is (ω + diagonal)/(Cω + diagonal). Default 2 (0 is MODEL.md's prior); ≥ 0.
	Diagonal float64 `hcl:"diagonal,optional"`
	// Init chooses the initial ξ: "classifier" (default), "majority" or
	// "uniform"; see Model.Init and Model.Start.
	Init string `hcl:"init,optional"`
	// StartIters is the number of batch EM iterations of the "classifier"
	// start's warm-up (default 8); ≥ 1. Ignored by the other starts.
	StartIters int `hcl:"start_iters,optional"`
	// StartUpdates brings the start forward under SVI with mini-batches
	// smaller than the corpus (framework.UpdateStarter): it comes at the
	// end of the first epoch by which start_updates updates were made
	// (default 40: 2 epochs of 20 mini-batches), if that is before
	// start_iters epochs. An epoch makes one update per mini-batch, and
	// after 8 of them the start came late (docs/performance.md, "SVI
	// against batch on a large corpus"). 0: start_iters epochs. ≥ 0.
	StartUpdates int `hcl:"start_updates,optional"`
	// InitStrength s scales the majority-vote counts of the initial ξ:
	// ξ^r_{c,l} = ω + diagonal·[c = l] + s·Σ_d mv_dc [y_dr = l]. Default 1
	// (exactly one batch M-step from λ = majority vote); smaller values give
	// a softer first E-step. ≥ 0; ignored by "uniform".
	InitStrength float64 `hcl:"init_strength,optional"`
	// StartLabels chooses whom each answer is judged against by the
	// "classifier" start (Model.Start): "others" (default) the classifier's
	// prediction combined with the other answers to the same document
	// (leave-one-out; with one answer per document the classifier alone),
	// or "classifier" the classifier alone.
	StartLabels string `hcl:"start_labels,optional"`
	// InitLabels chooses the labels the initial ξ of "majority" and
	// "classifier" counts each answer against: "majority" (default) the
	// majority vote, or "crowd" the posterior of a Bayesian Dawid–Skene
	// fit of the answers alone (crowdLabels), started from the majority
	// vote. With one answer per document both are the answer itself.
	InitLabels string `hcl:"init_labels,optional"`
	// Prior is "fixed" (default: every row's prior is Dir(ω + diagonal·e_c))
	// or "learned": the prior α_c of row c, shared by every annotator, is
	// estimated from all of them (empirical Bayes: after each update α_c
	// maximises Σ_r E_q[log Dir(π^r_c | α_c)], learnPrior), starting from
	// ω + diagonal·e_c. Annotators with few answers then borrow the crowd's
	// typical confusion instead of a fixed guess. Needs estimate =
	// "variational".
	//
	// "communities": Communities learned priors α_m (communities), each
	// annotator belonging to one of them with a learned probability
	// (Venanzi et al. 2014; the communities type): annotators with few
	// answers borrow the confusions of the annotators they resemble (good,
	// spamming, adversarial) rather than of the whole crowd.
	Prior string `hcl:"prior,optional"`
	// Communities is M, the number of communities of prior =
	// "communities" (default 3); ≥ 1. M = 1 is prior = "learned" by
	// another road (both maximise the same bound).
	Communities int `hcl:"communities,optional"`
	// PriorRate b ≥ 0 puts an exponential hyperprior on every entry of
	// the communities' priors, log p(α) = −b·Σ α + const (their α are then
	// MAP rather than maximum-likelihood estimates): a community of a few
	// annotators no longer gets a large precision from them alone (default
	// 0: none). Only with prior = "communities".
	PriorRate float64 `hcl:"prior_rate,optional"`
	// PriorFloor is the least value of every entry of a community's learned
	// prior (> 0; default 0: ω). At ω a learned prior only adds pseudo-
	// answers to the fixed prior's ω per entry and never asserts that an
	// answer cannot happen: with one answer per document a community
	// shared by every annotator otherwise makes each of them certain of
	// the class its answers define. Only with prior = "communities" or
	// "auto".
	PriorFloor float64 `hcl:"prior_floor,optional"`
	// PriorDiagonal δ ≥ 0 adds to the communities' hyperprior a preference
	// for diagonal means (CBCC's, Venanzi et al. 2014): every row c of
	// every community's prior gets δ·log(α_mcc/Σ_l α_mcl), the log of a
	// Dir(1 + δ·e_c) density of the row's mean. Without it (0, the
	// default) the bound is the same for a fit and its twin with the
	// classes renamed, and nothing in it prefers the labelling in which
	// the communities' annotators are better than chance; with it the
	// relabelled twin (Relabel) is tried under communities too. Only with
	// prior = "communities" or "auto".
	PriorDiagonal float64 `hcl:"prior_diagonal,optional"`
	// PriorDominant keeps every row c of every community's learned prior
	// largest on its own class (α_mcc ≥ α_mcl for every l; the ascent's
	// step raises α_mcc to the row's largest entry where it falls below,
	// and is kept only where it raises the bound, as every step): a
	// community asserts that its annotators answer a class's items with
	// that class more often than with any other. Without it a learned row
	// can make a class the home of items the crowd mostly answers with
	// another (the crowded family's draw21: rows "c0 0.52, c3 0.34" for
	// class c3), and the annotators with few answers, who borrow the row,
	// no longer object. Like PriorDiagonal it tells a fit from its
	// relabelled twin. Only with prior = "communities" or "auto".
	PriorDominant bool `hcl:"prior_dominant,optional"`
	// PriorRare, under membership = "structured", holds the prior rows of
	// the classes with few answers: in each update, a class c whose
	// expected answers Σ_r Σ_l n_rcl are fewer than PriorRare·N/C (N the
	// answers, so 0.25: a quarter of a class's share were the classes
	// even) keeps every community's row α_mc at its starting value (ω plus
	// the community's diagonal) instead of learning it. A row learned from
	// the few items EM puts in a near-empty class is learned from the
	// crowd's hard items of other classes, whose decoy answers agree, and
	// the class becomes their home (docs/results-classification.md, "A
	// third crowded family": 83 of 348 items of one class moved into a
	// class of 5). The update in which a class turns rare resets rows that
	// were learned, which can lower the bound once; while it stays rare
	// its rows are constants and the updates ascend. 0 (default): every
	// row learned. Only with prior = "communities" or "auto" and
	// membership = "structured".
	PriorRare float64 `hcl:"prior_rare,optional"`
	// Membership is the variational family of the communities (prior =
	// "communities" or "auto"): "mean-field" (default; "" means it:
	// q(z_r)·q(π^r)) or "structured" (q(z_r)·q(π^r | z_r), whose
	// membership update weighs each community by the marginal likelihood
	// of the annotator's own answers, Π_c Pólya(n_rc | α_mc);
	// structured.go, fitStructured). Under the mean-field
	// family the rows an annotator never answered on sit at its mixed prior
	// row and vote for the community it is in already, so annotators with a
	// few answers cannot leave the largest community
	// (docs/results-classification.md, "Structured memberships"). A saved
	// model's file decides on loading (files written before have no family
	// and are mean-field).
	Membership string `hcl:"membership,optional"`
	// Estimate is "variational" (default: the Dirichlet posterior of
	// MODEL.md §2) or "point": MAP point estimates π̂^r_{c,l} ∝ ξ^r_{c,l} − 1
	// of the same ξ (the EM of Dawid–Skene and of Raykar et al. 2010 when
	// ω = 1 and diagonal = 0; needs ω ≥ 1). See Model.refresh.
	Estimate string `hcl:"estimate,optional"`
	// Constant is "ignore" (default) or "keep": what to do with an
	// annotator who gave one class to every document, at least twice,
	// where the crowd's answers make that unlikely by chance
	// (framework.Answers.ConstantAnnotators at framework.ConstantChance).
	// "ignore": its answers do not depend on the document, so they send
	// no evidence, count in no statistics and no start, and its ξ stays at
	// the prior (Model.Constant); under the diagonal prior such an
	// annotator otherwise pushes every document towards its class, and a
	// crowd with many of them collapses onto it. The choice is made in
	// Init from the training answers and saved with the parameters. ""
	// means "keep".
	//
	// "almost": as "ignore", and at the classifier start (init =
	// "classifier", which it needs) also every annotator whose answers are
	// concentrated on one class beyond the crowd's shares and better
	// explained, by a Bayes factor, as drawn from one distribution whatever
	// the class than as depending on it, judged against the start's labels
	// (Model.markAlmostConstant): the near-constant answerers the exact
	// rule misses (0.9 of their answers one class). When the start marks
	// any, models.Run.Fit trains again from the beginning with them
	// ignored from Init on (framework.Rewarmer: the second warm-up; Rewarm,
	// Setup.Marks).
	Constant string `hcl:"constant,optional"`
	// Relabel is "agreement" (default) or "none": once training has ended,
	// the relabelling of the classes under which the documents' labels
	// agree with the most answers (Model.Relabeling; framework.Relabeler),
	// when it is not the fit's own, is run on from and kept if its bound is
	// higher. "" means "none".
	Relabel string `hcl:"relabel,optional"`
	// Lapse δ ∈ [0, 1) mixes a uniform lapse into every answer: with
	// probability δ an annotator's answer is drawn uniformly over the C
	// classes whatever the document, p(y | c, r) = (1 − δ)π^r_{c,y} + δ/C
	// (lapse.go). An answer its annotator's matrix finds nearly
	// impossible then costs at most log(δ/C), and the answers the lapse
	// explains count less in the matrices. Default 0: none (MODEL.md §2).
	Lapse float64 `hcl:"lapse,optional"`
}

// Relabel settings (Config.Relabel).
const (
	RelabelAgreement = "agreement"
	RelabelNone      = "none"
)

// Constant settings (Config.Constant).
const (
	ConstantIgnore = "ignore"
	ConstantKeep   = "keep"
	ConstantAlmost = "almost"
)

// Defaults returns the documented defaults.
func Defaults() Config {
	return Config{Omega: 1, Diagonal: 2, Init: InitClassifier, InitStrength: 1, Estimate: EstimateVariational, StartIters: 8, StartUpdates: 40, StartLabels: StartOthers, InitLabels: InitLabelsMajority, Prior: PriorFixed, Communities: 3, Constant: ConstantIgnore, Relabel: RelabelAgreement}
}

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (c Config) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !(c.Omega > 0) || !finite(c.Omega):
		return fmt.Errorf("%w: annotators.omega = %v, want a finite number > 0", framework.ErrBadInput, c.Omega)
	case !(c.Diagonal >= 0) || !finite(c.Diagonal):
		return fmt.Errorf("%w: annotators.diagonal = %v, want a finite number ≥ 0", framework.ErrBadInput, c.Diagonal)
	case !(c.InitStrength >= 0) || !finite(c.InitStrength):
		return fmt.Errorf("%w: annotators.init_strength = %v, want a finite number ≥ 0", framework.ErrBadInput, c.InitStrength)
	}
	switch c.Init {
	case InitMajority, InitUniform:
	case InitClassifier:
		if c.StartIters < 1 {
			return fmt.Errorf("%w: annotators.start_iters = %d, want ≥ 1 with init = %q", framework.ErrBadInput, c.StartIters, InitClassifier)
		}
		if c.StartUpdates < 0 {
			return fmt.Errorf("%w: annotators.start_updates = %d, want ≥ 0 (0: start_iters epochs under SVI too)", framework.ErrBadInput, c.StartUpdates)
		}
	default:
		return fmt.Errorf("%w: annotators.init = %q; valid: %s, %s, %s", framework.ErrBadInput, c.Init, InitClassifier, InitMajority, InitUniform)
	}
	switch c.StartLabels {
	case StartOthers, StartClassifier:
	default:
		return fmt.Errorf("%w: annotators.start_labels = %q; valid: %s, %s", framework.ErrBadInput, c.StartLabels, StartOthers, StartClassifier)
	}
	switch c.InitLabels {
	case InitLabelsMajority, InitLabelsCrowd:
	default:
		return fmt.Errorf("%w: annotators.init_labels = %q; valid: %s, %s", framework.ErrBadInput, c.InitLabels, InitLabelsMajority, InitLabelsCrowd)
	}
	if !(c.PriorRate >= 0) || !finite(c.PriorRate) {
		return fmt.Errorf("%w: annotators.prior_rate = %v, want a finite number ≥ 0", framework.ErrBadInput, c.PriorRate)
	}
	if c.PriorRate > 0 && c.Prior != PriorCommunities && c.Prior != PriorAuto {
		return fmt.Errorf("%w: annotators.prior_rate = %v needs prior = %q or %q", framework.ErrBadInput, c.PriorRate, PriorCommunities, PriorAuto)
	}
	if !(c.PriorFloor >= 0) || !finite(c.PriorFloor) {
		return fmt.Errorf("%w: annotators.prior_floor = %v, want a finite number > 0 (0: ω)", framework.ErrBadInput, c.PriorFloor)
	}
	if c.PriorDominant && c.Prior != PriorCommunities && c.Prior != PriorAuto {
		return fmt.Errorf("%w: annotators.prior_dominant needs prior = %q or %q", framework.ErrBadInput, PriorCommunities, PriorAuto)
	}
	if c.PriorFloor > 0 && c.Prior != PriorCommunities && c.Prior != PriorAuto {
		return fmt.Errorf("%w: annotators.prior_floor = %v needs prior = %q or %q", framework.ErrBadInput, c.PriorFloor, PriorCommunities, PriorAuto)
	}
	if !(c.PriorDiagonal >= 0) || !finite(c.PriorDiagonal) {
		return fmt.Errorf("%w: annotators.prior_diagonal = %v, want a finite number ≥ 0", framework.ErrBadInput, c.PriorDiagonal)
	}
	if c.PriorDiagonal > 0 && c.Prior != PriorCommunities && c.Prior != PriorAuto {
		return fmt.Errorf("%w: annotators.prior_diagonal = %v needs prior = %q or %q", framework.ErrBadInput, c.PriorDiagonal, PriorCommunities, PriorAuto)
	}
	if !(c.PriorRare >= 0 && c.PriorRare < 1) {
		return fmt.Errorf("%w: annotators.prior_rare = %v, want 0 ≤ prior_rare < 1 (0: off)", framework.ErrBadInput, c.PriorRare)
	}
	if c.PriorRare > 0 && (c.Membership != MembershipStructured || c.Prior != PriorCommunities && c.Prior != PriorAuto) {
		return fmt.Errorf("%w: annotators.prior_rare = %v needs prior = %q or %q and membership = %q", framework.ErrBadInput, c.PriorRare, PriorCommunities, PriorAuto, MembershipStructured)
	}
	switch c.Membership {
	case "":
	case MembershipStructured, MembershipMeanField:
		if c.Prior != PriorCommunities && c.Prior != PriorAuto {
			return fmt.Errorf("%w: annotators.membership = %q needs prior = %q or %q", framework.ErrBadInput, c.Membership, PriorCommunities, PriorAuto)
		}
	default:
		return fmt.Errorf("%w: annotators.membership = %q; valid: %s (q(z)·q(π)), %s (q(z)·q(π | z))", framework.ErrBadInput, c.Membership, MembershipMeanField, MembershipStructured)
	}
	switch c.Prior {
	case PriorFixed:
	case PriorLearned, PriorCommunities, PriorAuto:
		if c.Estimate == EstimatePoint {
			return fmt.Errorf("%w: annotators.prior = %q needs estimate = %q (a learned prior over point estimates runs off to a point mass)", framework.ErrBadInput, c.Prior, EstimateVariational)
		}
		if c.Prior != PriorLearned && c.Communities < 1 {
			return fmt.Errorf("%w: annotators.communities = %d, want ≥ 1", framework.ErrBadInput, c.Communities)
		}
	default:
		return fmt.Errorf("%w: annotators.prior = %q; valid: %s, %s, %s, %s", framework.ErrBadInput, c.Prior, PriorFixed, PriorLearned, PriorCommunities, PriorAuto)
	}
	switch c.Estimate {
	case EstimateVariational:
	case EstimatePoint:
		if c.Omega < 1 {
			return fmt.Errorf("%w: annotators.omega = %v with estimate = %q: a MAP estimate needs ω ≥ 1 (the Dirichlet density is unbounded at the simplex's edges below 1)", framework.ErrBadInput, c.Omega, EstimatePoint)
		}
	default:
		return fmt.Errorf("%w: annotators.estimate = %q; valid: %s, %s", framework.ErrBadInput, c.Estimate, EstimatePoint, EstimateVariational)
	}
	switch c.Constant {
	case "", ConstantIgnore, ConstantKeep:
	case ConstantAlmost:
		if c.Init != InitClassifier {
			return fmt.Errorf("%w: annotators.constant = %q needs init = %q (the test judges each annotator's answers against the classifier start's labels); init is %q", framework.ErrBadInput, c.Constant, InitClassifier, c.Init)
		}
	default:
		return fmt.Errorf("%w: annotators.constant = %q; valid: %s (an annotator with one class for everything says nothing about the truth), %s (as %s, and at the classifier start also an annotator whose answers are almost all one class and do not depend on the class), %s (its answers are read through its confusion matrix)", framework.ErrBadInput, c.Constant, ConstantIgnore, ConstantAlmost, ConstantIgnore, ConstantKeep)
	}
	if !(c.Lapse >= 0 && c.Lapse < 1) {
		return fmt.Errorf("%w: annotators.lapse = %v, want a number in [0, 1) (the probability of an answer drawn uniformly whatever the document)", framework.ErrBadInput, c.Lapse)
	}
	switch c.Relabel {
	case "", RelabelAgreement, RelabelNone:
	default:
		return fmt.Errorf("%w: annotators.relabel = %q; valid: %s (after training, try the labelling of the classes the answers agree with most and keep it if its bound is higher), %s", framework.ErrBadInput, c.Relabel, RelabelAgreement, RelabelNone)
	}
	return nil
}

// New is the registered factory: it decodes p (nil: defaults) over
// Defaults and validates the result.
func New(p framework.Params) (framework.NoiseModel, error) {
	cfg := Defaults()
	if p != nil {
		if err := p.Decode(&cfg); err != nil {
			return nil, err
		}
	}
	return NewModel(cfg)
}

// NewModel returns an uninitialised model (call Init).
func NewModel(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Model{cfg: cfg}, nil
}

// Model is the Dirichlet confusion-matrix annotator model of MODEL.md §2:
// q(π^r_c) = Dir(ξ^r_c) for every annotator r and true class c. It
// implements framework.NoiseModel, framework.DocScorer,
// framework.Persister and framework.Reporter. Its parameters are read-only
// during the E-step (Evidence, Accumulate and DocELBO may run concurrently).
type Model struct {
	cfg     Config
	threads int // the communities' update's goroutines (SetWorkers; 0: GOMAXPROCS)

	nr, nc  int
	workers []string
	classes []string
	answers []int                // answers per annotator in the training corpus (persisted)
	byDoc   [][]framework.Answer // the training answers (for Start; nil when rebuilt from a save)

	alpha []float64    // the prior: alpha[c*C+l] = α_{c,l} (ω + diagonal·[c = l] unless learned)
	xi    []float64    // ξ: xi[(r*C+c)*C+l] = ξ^r_{c,l}
	elogT []float64    // E[log π], answer-major: elogT[(r*C+l)*C+c] = E[log π^r_{c,l}]
	kl    float64      // Σ_{r,c} E[log p(π^r_c | prior)] − E[log q(π^r_c | ξ^r_c)] at the current ξ
	comm  *communities // prior = "communities": the communities and memberships (else nil)
	// family is the communities' variational family in use
	// (Config.Membership resolved; a loaded file's overrides it).
	family string
	// constant[r] is the one class of an annotator who gives it to every
	// document (Config.Constant "ignore"), or the most frequent class of a
	// near-constant one (Config.Constant "almost"), −1 for the others; nil
	// when none is ignored.
	constant []int32
	// constCounts[r*C+l] is the number of annotator r's training answers
	// of class l when the model ignores r (LogPredictive), 0 for the
	// others; nil with constant.
	constCounts []float64
	// handed: Init was handed the marks of an earlier start of the run
	// (framework.Setup.Marks): they are in constant, and the start marks
	// no more. marks: what the last start marked (Rewarm), nil when none.
	handed bool
	marks  []int32
}

// Rewarm returns the near-constant answerers the last start marked
// (framework.Rewarmer; constant = "almost"): per annotator its most
// frequent class, −1 for the others; nil when it marked none, and always
// after Init was handed marks (Setup.Marks). models.Run.Fit then builds
// the run again with the marks handed to Init, which treats them as exact
// constants from the beginning: the warm-up's topics and softmax no longer
// learn from them.
func (m *Model) Rewarm() []int32 {
	if m.handed || m.marks == nil {
		return nil
	}
	return append([]int32(nil), m.marks...)
}

// Constant is the class annotator r gives to every document when the model
// ignores it (Config.Constant "ignore": its answers send no evidence; with
// "almost", the class it gives most often), or −1.
func (m *Model) Constant(r int) int {
	if m.constant == nil {
		return -1
	}
	return int(m.constant[r])
}

// IgnoredAnnotators are the names of the annotators whose answers are
// ignored (Constant ≥ 0), in order; nil when none.
func (m *Model) IgnoredAnnotators() []string {
	var out []string
	for r := range m.constant {
		if m.constant[r] >= 0 {
			out = append(out, m.workers[r])
		}
	}
	return out
}

// ignores reports whether annotator r's answers are ignored (Constant).
func (m *Model) ignores(r int32) bool { return m.constant != nil && m.constant[r] >= 0 }

// answered drops from as the answers of the annotators the model ignores
// (as itself when there are none).
func (m *Model) answered(as []framework.Answer) []framework.Answer {
	if m.constant == nil {
		return as
	}
	keep := true
	for _, a := range as {
		if m.ignores(a.Annotator) {
			keep = false
			break
		}
	}
	if keep {
		return as
	}
	out := make([]framework.Answer, 0, len(as))
	for _, a := range as {
		if !m.ignores(a.Annotator) {
			out = append(out, a)
		}
	}
	return out
}

// Config returns the model's settings.
func (m *Model) Config() Config { return m.cfg }

// NumAnnotators is R.
func (m *Model) NumAnnotators() int { return m.nr }

// NumClasses is C.
func (m *Model) NumClasses() int { return m.nc }

// prior is the Dirichlet parameter α_{c,l} of entry (c, l) of every
// annotator's prior: ω + diagonal·[c = l], or the learned prior.
func (m *Model) prior(c, l int) float64 {
	if m.alpha != nil {
		return m.alpha[c*m.nc+l]
	}
	return m.startPrior(c, l)
}

// priorOf is the prior entry (c, l) of annotator r's rows: prior(c, l), or
// with communities ᾱ^r_{c,l} = Σ_m q(z_r = m) α_{m,c,l}.
func (m *Model) priorOf(r, c, l int) float64 {
	if m.comm != nil {
		return m.comm.pri[(r*m.nc+c)*m.nc+l]
	}
	return m.prior(c, l)
}

// startPrior is ω + diagonal·[c = l], the fixed prior and the learned
// prior's start.
func (m *Model) startPrior(c, l int) float64 {
	if c == l {
		return m.cfg.Omega + m.cfg.Diagonal
	}
	return m.cfg.Omega
}

// Prior returns the prior's C×C Dirichlet parameters α_{c,l} (row c: the
// prior of every annotator's row c), learned or fixed.
func (m *Model) Prior() [][]float64 {
	out := make([][]float64, m.nc)
	for c := range out {
		out[c] = make([]float64, m.nc)
		for l := range out[c] {
			out[c][l] = m.prior(c, l)
		}
	}
	return out
}

// Init sizes ξ to R×C×C (R = len(s.Workers), C = len(s.Classes)) and sets
// its initial value.
//
// "majority": ξ^r_{c,l} = ω + diagonal·[c = l] + s·Σ_d mv_dc
// [y_dr = l], where mv_d is document d's majority vote as a distribution
// (1/m on each of its m most frequent answers: ties are split evenly, which
// is deterministic and favours no class; documents without answers add
// nothing) and s = init_strength. With s = 1 this is exactly the batch
// M-step (Update) applied to λ = majority vote, so the first E-step sees
// each annotator's agreement with the majority: the analogue of the
// published code's 0.97 diagonal (MODEL.md §9), but estimated from the data
// rather than fixed. With one answer per document the majority vote is the
// answer itself, every annotator looks perfect, and the first E-step
// reproduces majority vote; only a response's prior message can move λ
// away from it afterwards.
//
// "uniform": ξ = the prior. With diagonal = 0 every E[log π^r_{c,l}] is
// the same, the first evidence message is flat, and a response that also
// starts flat (η = 0) leaves every λ uniform: a symmetric fixed point of
// batch EM. Use it with diagonal > 0.
//
// Without a corpus (a saved model being rebuilt) ξ starts at the prior and
// LoadParams sets it. Errors: no annotator names (framework.ErrBadInput); no
// class names or numeric answers (framework.ErrIncompatible); answers that
// disagree with the names (framework.ErrBadInput).
func (m *Model) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: confusion annotators: no setup", framework.ErrBadInput)
	}
	R, C := len(s.Annotators), len(s.Classes)
	if R == 0 {
		return fmt.Errorf("%w: confusion annotators need annotator names (does the corpus have answers?)", framework.ErrBadInput)
	}
	if C == 0 {
		return fmt.Errorf("%w: confusion annotators need class names: the answers must be categorical (numeric answers need a model such as bias-precision)", framework.ErrIncompatible)
	}
	var byDoc [][]framework.Answer
	if s.Corpus != nil && s.Corpus.Answers != nil {
		a := s.Corpus.Answers
		if a.Numeric() {
			return fmt.Errorf("%w: confusion annotators need categorical answers; the corpus's answers are numbers", framework.ErrIncompatible)
		}
		if len(a.Classes) != C || len(a.Annotators) != R {
			return fmt.Errorf("%w: the corpus's answers have %d classes and %d annotators, the setup %d and %d", framework.ErrBadInput, len(a.Classes), len(a.Annotators), C, R)
		}
		for d, as := range a.ByDoc {
			for _, x := range as {
				if x.Annotator < 0 || int(x.Annotator) >= R || x.Class < 0 || int(x.Class) >= C {
					return fmt.Errorf("%w: document %d: answer (annotator %d, class %d) outside %d annotators × %d classes", framework.ErrBadInput, d, x.Annotator, x.Class, R, C)
				}
			}
		}
		byDoc = a.ByDoc
	}
	if s.Marks != nil {
		if m.cfg.Constant != ConstantAlmost {
			return fmt.Errorf("%w: confusion annotators: marks of an earlier start handed to a model with constant = %q (only %q marks)", framework.ErrBadInput, m.cfg.Constant, ConstantAlmost)
		}
		if len(s.Marks) != R {
			return fmt.Errorf("%w: confusion annotators: marks of an earlier start for %d annotators, the setup has %d", framework.ErrBadInput, len(s.Marks), R)
		}
		for r, v := range s.Marks {
			if v < -1 || int(v) >= C {
				return fmt.Errorf("%w: confusion annotators: annotator %d's mark is class %d, want −1 or a class in [0, %d)", framework.ErrBadInput, r, v, C)
			}
		}
	}
	m.constant, m.constCounts, m.handed, m.marks = nil, nil, s.Marks != nil, nil
	var exact []bool
	if (m.cfg.Constant == ConstantIgnore || m.cfg.Constant == ConstantAlmost) && byDoc != nil {
		exact = s.Corpus.Answers.ConstantAnnotators(R, framework.ConstantChance)
		for r, f := range exact {
			if f {
				m.setConstant(R, r, 0) // its class, below
			}
		}
		// The near-constant answerers an earlier start of the run marked
		// (Rewarm): ignored from the beginning, as the exact ones.
		for r, v := range s.Marks {
			if v >= 0 && !exact[r] {
				m.setConstant(R, r, v)
			}
		}
	}
	allAnswers := byDoc
	if m.constant != nil {
		m.constCounts = make([]float64, R*C)
		kept := make([][]framework.Answer, len(byDoc))
		for d, as := range byDoc {
			for _, x := range as {
				if m.constant[x.Annotator] >= 0 {
					if exact[x.Annotator] {
						m.constant[x.Annotator] = x.Class
					}
					m.constCounts[int(x.Annotator)*C+int(x.Class)]++
				}
			}
			kept[d] = m.answered(as)
		}
		byDoc = kept
	}
	m.byDoc = byDoc
	m.nr, m.nc = R, C
	m.workers = append([]string(nil), s.Annotators...)
	m.classes = append([]string(nil), s.Classes...)
	m.answers = make([]int, R)
	m.alpha = make([]float64, C*C)
	for c := range C {
		for l := range C {
			m.alpha[c*C+l] = m.startPrior(c, l)
		}
	}
	m.comm = nil
	if m.cfg.Prior == PriorCommunities || m.cfg.Prior == PriorAuto && autoCommunities(allAnswers, C) {
		m.comm = newCommunities(m.cfg, R, C)
		m.family = m.cfg.family()
	}
	m.xi = make([]float64, R*C*C)
	m.elogT = make([]float64, R*C*C)
	for r := 0; r < R; r++ {
		for c := 0; c < C; c++ {
			for l := 0; l < C; l++ {
				m.xi[(r*C+c)*C+l] = m.priorOf(r, c, l)
			}
		}
	}
	var labels [][]float64
	if m.cfg.InitLabels == InitLabelsCrowd && (m.cfg.Init == InitMajority || m.cfg.Init == InitClassifier) {
		labels = m.crowdLabels(byDoc)
	}
	for _, as := range allAnswers {
		for _, x := range as {
			m.answers[x.Annotator]++
		}
	}
	mv := make([]float64, C)
	for d, as := range byDoc {
		if (m.cfg.Init != InitMajority && m.cfg.Init != InitClassifier) || m.cfg.InitStrength == 0 || !MajorityVote(mv, as) {
			continue
		}
		if labels != nil {
			copy(mv, labels[d])
		}
		for _, x := range as {
			base := int(x.Annotator)*C*C + int(x.Class)
			for c, p := range mv {
				m.xi[base+c*C] += m.cfg.InitStrength * p
			}
		}
	}
	m.refresh()
	return nil
}

// setConstant marks annotator r of R as ignored with class v, making
// m.constant (all −1) first when there is none.
func (m *Model) setConstant(R, r int, v int32) {
	if m.constant == nil {
		m.constant = make([]int32, R)
		for i := range m.constant {
			m.constant[i] = -1
		}
	}
	m.constant[r] = v
}

// family is Membership with "" resolved.
func (c Config) family() string {
	if c.Membership == "" {
		return MembershipMeanField
	}
	return c.Membership
}

// autoCommunities is prior = "auto"'s choice from the training answers:
// R ≥ AutoMinAnnotators and N < AutoAnswersPerEntry·R·C², with N the
// answers and R the annotators who gave at least one. Without answers (a saved model being rebuilt) false:
// LoadParams then takes the choice from the file.
func autoCommunities(byDoc [][]framework.Answer, C int) bool {
	n, seen := 0, map[int32]bool{}
	for _, as := range byDoc {
		for _, x := range as {
			n++
			seen[x.Annotator] = true
		}
	}
	return len(seen) >= AutoMinAnnotators && float64(n) < AutoAnswersPerEntry*float64(len(seen))*float64(C*C)
}

// PriorInUse is the prior the rows are drawn from: Config.Prior, with
// "auto" resolved by Init (or by LoadParams from a saved model).
func (m *Model) PriorInUse() string {
	if m.cfg.Prior != PriorAuto {
		return m.cfg.Prior
	}
	if m.comm != nil {
		return PriorCommunities
	}
	return PriorFixed
}

// crowdLabels is the class posterior of every document with answers under
// a Bayesian Dawid–Skene model of the answers alone: q(π^r_c) =
// Dir(prior + counts), q(p) = Dir(1 + Σ_d q_d) for the class prior, and
// q_dc ∝ exp(E[log p_c] + Σ_{r∈R_d} E[log π^r_{c,y_dr}]), coordinate
// ascent from the majority vote until no q_dc moves by more than 1e-6
// (at most 200 rounds). Documents without answers get nil. Without a
// document of two or more answers the answers say nothing about the
// annotators (every one agrees with itself): nil, the majority vote.
func (m *Model) crowdLabels(byDoc [][]framework.Answer) [][]float64 {
	R, C := m.nr, m.nc
	if !slices.ContainsFunc(byDoc, func(as []framework.Answer) bool { return len(as) > 1 }) {
		return nil
	}
	q := make([][]float64, len(byDoc))
	for d, as := range byDoc {
		q[d] = make([]float64, C)
		if !MajorityVote(q[d], as) {
			q[d] = nil
		}
	}
	xi, elog := make([]float64, R*C*C), make([]float64, R*C*C)
	alpha, elp := make([]float64, C), make([]float64, C)
	lp := make([]float64, C)
	for range 200 {
		for r := range R {
			for c := range C {
				for l := range C {
					xi[(r*C+c)*C+l] = m.prior(c, l)
				}
			}
		}
		for c := range alpha {
			alpha[c] = 1
		}
		for d, as := range byDoc {
			if q[d] == nil {
				continue
			}
			for c, p := range q[d] {
				alpha[c] += p
				for _, a := range as {
					xi[(int(a.Annotator)*C+c)*C+int(a.Class)] += p
				}
			}
		}
		for i := 0; i < len(xi); i += C {
			sum := 0.0
			for _, x := range xi[i : i+C] {
				sum += x
			}
			ps := mathext.Digamma(sum)
			for l, x := range xi[i : i+C] {
				elog[i+l] = mathext.Digamma(x) - ps
			}
		}
		sum := 0.0
		for _, a := range alpha {
			sum += a
		}
		for c, a := range alpha {
			elp[c] = mathext.Digamma(a) - mathext.Digamma(sum)
		}
		moved := 0.0
		for d, as := range byDoc {
			if q[d] == nil {
				continue
			}
			copy(lp, elp)
			for _, a := range as {
				for c := range C {
					lp[c] += elog[(int(a.Annotator)*C+c)*C+int(a.Class)]
				}
			}
			top := lp[0]
			for _, x := range lp {
				top = max(top, x)
			}
			z := 0.0
			for c, x := range lp {
				lp[c] = math.Exp(x - top)
				z += lp[c]
			}
			for c := range lp {
				p := lp[c] / z
				moved = max(moved, math.Abs(p-q[d][c]))
				q[d][c] = p
			}
		}
		if moved < 1e-6 {
			break
		}
	}
	return q
}

// StartIters is the number of warm-up iterations before Start
// (framework.Starter): start_iters with init = "classifier", 0 otherwise.
func (m *Model) StartIters() int {
	if m.cfg.Init == InitClassifier {
		return m.cfg.StartIters
	}
	return 0
}

// StartUpdates is the number of updates after which, under SVI with
// mini-batches, the start comes at the end of an epoch
// (framework.UpdateStarter): start_updates with init = "classifier", 0
// otherwise.
func (m *Model) StartUpdates() int {
	if m.cfg.Init == InitClassifier {
		return m.cfg.StartUpdates
	}
	return 0
}

// StartFrom is the "classifier" start (framework.Starter). After start_iters
// passes from the majority-vote start (which with one answer per document
// is supervised LDA on the answers), pred holds the model's own classifier's
// predictions for every training document, made from the topics alone;
// ξ is reset to the prior plus the counts of the classifier's most probable
// class against each answer:
//
//	ξ^r_{c,l} = ω + diagonal·[c = l] + Σ_{d∈D_r} [argmax pred_d = c][y_dr = l].
//
// This is one M-step with λ = the classifier's hard labels: annotators are
// judged against a labeller whose errors are independent of theirs, not
// against their own answers (which is what traps the majority start at
// "every annotator is perfect", docs/design.md). Hard labels rather than
// the predictive probabilities: a classifier fitted to noisy answers is
// flat, and its probabilities would make every annotator look like chance.
//
// With start_labels = "others" (default) the label an answer y_dr is
// counted against is, when d has other answers, the leave-one-out class
//
//	argmax_c [ log pred_dc + Σ_{r'∈R_d, r'≠r} E[log π^{r'}_{c,y_dr'}] ]
//
// at the current ξ: still independent of annotator r's own answer, and as
// good as the crowd where the crowd is large (with one answer per document
// it is the classifier's label). "classifier" always counts against
// argmax pred_d.
func (m *Model) StartFrom(pred []framework.Target) error {
	if m.byDoc == nil {
		return fmt.Errorf("%w: confusion annotators: no training answers to start from", framework.ErrBadInput)
	}
	if len(pred) != len(m.byDoc) {
		return fmt.Errorf("%w: confusion annotators: %d predictions for %d training documents", framework.ErrBadInput, len(pred), len(m.byDoc))
	}
	xi := m.startXi()
	labels := make([]bool, m.nc) // the classifier's labels
	C := m.nc
	base, score := make([]float64, C), make([]float64, C)
	var cls []float64 // per annotator, its documents' classifier labels
	if m.marking() {
		cls = make([]float64, m.nr*C)
	}
	for d, as := range m.byDoc {
		c, err := m.startDoc(as, pred[d], base, score, func(cell int) { xi[cell]++ })
		if err != nil {
			return fmt.Errorf("document %d: %w", d, err)
		}
		if c >= 0 {
			labels[c] = true
			tallyLabel(cls, as, c, C)
		}
	}
	return m.startWith(xi, labels, cls)
}

// marking: this start marks near-constant annotators (constant =
// "almost", and no marks were handed to Init).
func (m *Model) marking() bool { return m.cfg.Constant == ConstantAlmost && !m.handed }

// tallyLabel adds, for each answer of as, one to its annotator's count of
// documents the classifier labelled c (cls, annotators × C; nil: nothing).
func tallyLabel(cls []float64, as []framework.Answer, c, C int) {
	if cls == nil {
		return
	}
	for _, a := range as {
		cls[int(a.Annotator)*C+c]++
	}
}

// startXi is ξ's prior, from which the start counts.
func (m *Model) startXi() []float64 {
	C := m.nc
	xi := make([]float64, len(m.xi))
	for r := 0; r < m.nr; r++ {
		for c := 0; c < C; c++ {
			for l := 0; l < C; l++ {
				xi[(r*C+c)*C+l] = m.priorOf(r, c, l)
			}
		}
	}
	return xi
}

// startDoc counts one document's answers against its prediction pred
// (add: the cell of ξ one answer counts in) and returns the classifier's
// label, or −1 for a document without answers (not counted).
func (m *Model) startDoc(as []framework.Answer, pred framework.Target, base, score []float64, add func(cell int)) (int, error) {
	if len(as) == 0 {
		return -1, nil
	}
	C := m.nc
	t, ok := pred.(*framework.Categorical)
	if !ok || len(t.P) != C {
		return -1, fmt.Errorf("%w: confusion annotators: the prediction is %T, want a categorical target over %d classes", framework.ErrIncompatible, pred, C)
	}
	c := t.Argmax()
	if m.cfg.StartLabels != StartOthers || len(as) == 1 {
		for _, a := range as {
			add((int(a.Annotator)*C+c)*C + int(a.Class))
		}
		return c, nil
	}
	// base = log p_clf + every answer's message; each answer then
	// removes its own.
	for l, p := range t.P {
		base[l] = math.Log(max(p, 1e-300))
	}
	for _, a := range as {
		for l, e := range m.elogT[(int(a.Annotator)*C+int(a.Class))*C:][:C] {
			base[l] += m.lapsed(e)
		}
	}
	for _, a := range as {
		row := m.elogT[(int(a.Annotator)*C+int(a.Class))*C:][:C]
		best := 0
		for l := range score {
			score[l] = base[l] - m.lapsed(row[l])
			if score[l] > score[best] {
				best = l
			}
		}
		add((int(a.Annotator)*C+best)*C + int(a.Class))
	}
	return c, nil
}

// startWith ends the start: ξ = xi, unless the classifier gave every
// document one label. With constant = "almost" it first marks the
// near-constant annotators from the start's tallies xi − prior
// (markAlmostConstant): they are ignored from then on and their ξ is the
// prior's.
func (m *Model) startWith(xi []float64, labels []bool, cls []float64) error {
	n := 0
	for _, on := range labels {
		if on {
			n++
		}
	}
	if n == 1 && m.nc > 1 {
		// A classifier that predicts one class for every document (weak
		// text, very unequal classes) judges every annotator against a
		// constant: nothing to learn from. Keep the warm-up's ξ. (A
		// response that ignores the documents is refused before training,
		// models.Build.)
		return nil
	}
	if m.marking() {
		m.ignoreAlmostConstant(xi, cls)
	}
	m.xi = xi
	m.refresh()
	return nil
}

// ignoreAlmostConstant marks the annotators markAlmostConstant finds in
// the start's ξ (the prior plus the tallies) and the classifier's labels
// of each annotator's documents (cls), and sets their rows of xi back to
// the prior.
func (m *Model) ignoreAlmostConstant(xi, cls []float64) {
	C := m.nc
	prior := m.startXi()
	counts := make([]float64, len(xi))
	for i := range xi {
		counts[i] = xi[i] - prior[i]
	}
	marks := m.markAlmostConstant(counts, cls)
	m.marks = marks
	if marks == nil {
		return
	}
	if m.constant == nil {
		m.constant = make([]int32, m.nr)
		for r := range m.constant {
			m.constant[r] = -1
		}
		m.constCounts = make([]float64, m.nr*C)
	}
	for r, v := range marks {
		if v < 0 {
			continue
		}
		m.constant[r] = v
		for i := r * C * C; i < (r+1)*C*C; i++ {
			m.constCounts[r*C+i%C] += math.Round(counts[i])
			xi[i] = prior[i]
		}
	}
}

// StartCounts is the number of start counts (framework.StartCounter): a
// count per cell of ξ (annotators × C × C), then the documents given each
// label by the classifier (C), then, with constant = "almost", per
// annotator the classifier's labels of the documents it answered
// (annotators × C: the marking's; counted in the second pass too, which
// does not mark, so that the layout follows the configuration alone and
// an engine's workers, built without the marks, count what its driver
// reads).
func (m *Model) StartCounts() int {
	if m.cfg.Constant == ConstantAlmost {
		return len(m.xi) + m.nc + m.nr*m.nc
	}
	return len(m.xi) + m.nc
}

// StartCount adds one training document's start counts
// (framework.StartCounter): each of its answers in the cell StartFrom
// counts it in, and its classifier's label. Its answers are the
// document's training answers; a document without any counts nothing.
func (m *Model) StartCount(counts []float64, pred framework.Target, answers []framework.Answer) error {
	if len(counts) != m.StartCounts() {
		return fmt.Errorf("%w: confusion annotators: %d start counts, want %d", framework.ErrBadInput, len(counts), m.StartCounts())
	}
	for _, a := range answers {
		if int(a.Annotator) < 0 || int(a.Annotator) >= m.nr || int(a.Class) < 0 || int(a.Class) >= m.nc {
			return fmt.Errorf("%w: confusion annotators: answer of annotator %d, class %d, for %d annotators and %d classes", framework.ErrBadInput, a.Annotator, a.Class, m.nr, m.nc)
		}
	}
	C := m.nc
	base, score := make([]float64, C), make([]float64, C)
	as := m.answered(answers)
	c, err := m.startDoc(as, pred, base, score, func(cell int) { counts[cell]++ })
	if c >= 0 {
		counts[len(m.xi)+c]++
		if m.cfg.Constant == ConstantAlmost {
			tallyLabel(counts[len(m.xi)+C:], as, c, C)
		}
	}
	return err
}

// StartFromCounts is StartFrom from the totals of StartCount over every
// training document (framework.StartCounter): ξ = the prior plus each
// cell's count, added one at a time as StartFrom adds them, so the bits
// are StartFrom's.
func (m *Model) StartFromCounts(counts []float64) error {
	if len(counts) != m.StartCounts() {
		return fmt.Errorf("%w: confusion annotators: %d start counts, want %d", framework.ErrBadInput, len(counts), m.StartCounts())
	}
	for _, n := range counts {
		if n < 0 || n != math.Trunc(n) || n > 1<<53 {
			return fmt.Errorf("%w: confusion annotators: start count %v", framework.ErrBadInput, n)
		}
	}
	xi := m.startXi()
	for cell, n := range counts[:len(xi)] {
		for range int(n) {
			xi[cell]++
		}
	}
	labels := make([]bool, m.nc)
	for c, n := range counts[len(xi):][:m.nc] {
		labels[c] = n > 0
	}
	var cls []float64
	if m.marking() {
		cls = counts[len(xi)+m.nc:]
	}
	return m.startWith(xi, labels, cls)
}

// Accepts accepts only a *framework.Categorical with C classes; anything else
// is framework.ErrIncompatible.
func (m *Model) Accepts(t framework.Target) error {
	cat, ok := t.(*framework.Categorical)
	if !ok {
		return fmt.Errorf("%w: the confusion annotator model needs a categorical target (a classification response such as softmax); the response's target is %T", framework.ErrIncompatible, t)
	}
	if m.nc > 0 && len(cat.Log) != m.nc {
		return fmt.Errorf("%w: the response's target has %d classes but the annotators answer over %d", framework.ErrIncompatible, len(cat.Log), m.nc)
	}
	return nil
}

// Evidence adds the annotators' message onto q(c_d) (MODEL.md §2, true-class
// posterior): Log[l] += Σ_{r∈R_d} E[log π^r_{l,y_dr}]. A document without
// answers gets no message.
func (m *Model) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	C := m.nc
	for _, a := range d.Answers {
		if m.ignores(a.Annotator) {
			continue
		}
		row := m.elogT[(int(a.Annotator)*C+int(a.Class))*C:][:C]
		if m.cfg.Lapse > 0 {
			for l, e := range row {
				t.Log[l] += m.lapsed(e)
			}
			continue
		}
		for l, e := range row {
			t.Log[l] += e
		}
	}
}

// DocELBO is document d's part of the annotator term of the ELBO (MODEL.md
// §4) at the current ξ: Σ_{r∈R_d} Σ_l λ_dl E[log π^r_{l,y_dr}]. Its gradient
// in λ_d is the message Evidence adds.
func (m *Model) DocELBO(d *framework.DocState) float64 {
	lam := d.Target.(*framework.Categorical).P
	C := m.nc
	e := 0.0
	for _, a := range d.Answers {
		if m.ignores(a.Annotator) {
			continue
		}
		row := m.elogT[(int(a.Annotator)*C+int(a.Class))*C:][:C]
		if m.cfg.Lapse > 0 {
			for l, x := range row {
				e += lam[l] * m.lapsed(x)
			}
			continue
		}
		for l, x := range row {
			e += lam[l] * x
		}
	}
	return e
}

// Stats are the sufficient statistics of the annotators:
// Counts[(r*C+c)*C+l] = Σ_{d∈D_r} λ_dc [y_dr = l]. Annotators touched since
// the last Reset are tracked, so Merge and Reset cost O(touched × C²), not
// O(R × C²): with R = 1000, C = 8 and a shard of 32 documents with 3
// answers each, a shard's Reset + Accumulate + Merge takes 4.6 µs against
// 44 µs when the whole array is zeroed and merged (BenchmarkStats; one
// Update of that model, 64 000 digammas, takes 2 ms).
type Stats struct {
	R, C   int
	Counts []float64
	// Lapse (Config.Lapse > 0) is the rest of the answers' part of the
	// bound at the E-step's split: Σ λ_dc (w·log(1 − δ) + (1 − w)·log(δ/C)
	// + H(w)) (lapse.go), so that the bound is Counts·E[log π] + Lapse.
	Lapse   float64
	lapse   bool // Lapse is one of the sums (SumLayout)
	touched []int32
	mark    []bool
}

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats {
	return &Stats{R: m.nr, C: m.nc, Counts: make([]float64, m.nr*m.nc*m.nc), mark: make([]bool, m.nr), lapse: m.cfg.Lapse > 0}
}

// Count is Σ_{d∈D_r} λ_dc [y_dr = l].
func (s *Stats) Count(r, c, l int) float64 { return s.Counts[(r*s.C+c)*s.C+l] }

func (s *Stats) touch(r int32) {
	if !s.mark[r] {
		s.mark[r] = true
		s.touched = append(s.touched, r)
	}
}

// Merge adds o (a *Stats of the same shape) into s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	s.Lapse += t.Lapse
	n := s.C * s.C
	for _, r := range t.touched {
		s.touch(r)
		dst := s.Counts[int(r)*n:][:n]
		for i, x := range t.Counts[int(r)*n:][:n] {
			dst[i] += x
		}
	}
}

// Reset empties s.
func (s *Stats) Reset() {
	n := s.C * s.C
	for _, r := range s.touched {
		s.mark[r] = false
		clear(s.Counts[int(r)*n:][:n])
	}
	s.touched = s.touched[:0]
	s.Lapse = 0
}

var _ framework.AnswerPredictor = (*Model)(nil)

// LogPredictive is log Σ_c λ_c E[π^r_{c,y}] for answer y by annotator r
// about a document with q(c) = Cat(λ) (framework.AnswerPredictor), with
// E[π^r_{c,y}] = ξ^r_{c,y}/Σ_l ξ^r_{c,l} (estimate = "point": π̂^r_{c,y}).
// An annotator or class outside the model's, or a target that is not a
// categorical over its classes, gives NaN.
func (m *Model) LogPredictive(t framework.Target, a framework.Answer) float64 {
	cat, ok := t.(*framework.Categorical)
	C := m.nc
	if !ok || len(cat.P) != C || a.Annotator < 0 || int(a.Annotator) >= m.nr || a.Class < 0 || int(a.Class) >= C {
		return math.NaN()
	}
	if m.ignores(a.Annotator) {
		// The posterior mean of Dir(ω + its answers' counts), whatever the
		// document.
		cnt := m.constCounts[int(a.Annotator)*C:][:C]
		return math.Log((m.cfg.Omega + cnt[a.Class]) / (sumOf(cnt) + float64(C)*m.cfg.Omega))
	}
	p := 0.0
	for c, lam := range cat.P {
		if lam == 0 {
			continue
		}
		row := m.xi[(int(a.Annotator)*C+c)*C:][:C]
		if m.cfg.Estimate == EstimatePoint {
			p += lam * math.Exp(m.elogT[(int(a.Annotator)*C+int(a.Class))*C+c])
			continue
		}
		if m.structured() {
			mean := make([]float64, C)
			m.meanRow(int(a.Annotator), c, mean)
			p += lam * mean[a.Class]
			continue
		}
		sum := 0.0
		for _, x := range row {
			sum += x
		}
		p += lam * row[a.Class] / sum
	}
	if d := m.cfg.Lapse; d > 0 {
		// Σ_c λ_c ((1 − δ)E[π] + δ/C), Σ_c λ_c = 1.
		p = (1-d)*p + d/float64(C)
	}
	return math.Log(p)
}

// Accumulate adds document d's counts λ_dc [y_dr = l] to s.
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	lam := d.Target.(*framework.Categorical).P
	C := m.nc
	for _, a := range d.Answers {
		if m.ignores(a.Annotator) {
			continue
		}
		s.touch(a.Annotator)
		col := s.Counts[int(a.Annotator)*C*C+int(a.Class):]
		if m.cfg.Lapse > 0 {
			row := m.elogT[(int(a.Annotator)*C+int(a.Class))*C:][:C]
			for c, p := range lam {
				w, rest := m.lapseSplit(row[c])
				col[c*C] += p * w
				s.Lapse += p * rest
			}
			continue
		}
		for c, p := range lam {
			col[c*C] += p
		}
	}
}

// Update sets ξ^r_{c,l} ← (1−ρ)ξ^r_{c,l} + ρ(ω + diagonal·[c = l] +
// S·Counts^r_{c,l}) for every annotator (MODEL.md §2 "Annotators (batch)",
// §5) and refreshes E[log π]. A zero step leaves ξ untouched. With
// communities the statistics of the whole corpus (step.Full) refit them at
// every update (fitCommunities); a mini-batch's refit them only at the end
// of an epoch (updateMini).
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := step.Check("confusion annotators"); err != nil {
		return err
	}
	if step.Rho == 0 {
		return nil
	}
	s := st.(*Stats)
	rho, sc := step.Rho, step.Scale
	C := m.nc
	// The prior the intermediate ξ (ρ = 1) is built on: the learned α̂ or
	// the fixed one.
	if m.comm != nil && !step.Full {
		m.updateMini(s.Counts, step)
		return nil
	}
	if m.comm != nil {
		xi, st := m.fitComm(s.Counts, sc)
		for i := range m.xi {
			m.xi[i] = (1-rho)*m.xi[i] + rho*xi[i]
		}
		cm := m.comm
		for _, p := range [][2][]float64{{cm.alpha, st.alpha}, {cm.w, st.w}, {cm.q, st.q}} {
			for i := range p[0] {
				p[0][i] = (1-rho)*p[0][i] + rho*p[1][i]
			}
		}
		cm.mix(m.nr, C)
		m.refresh()
		return nil
	}
	prior := m.prior
	if m.cfg.Prior == PriorLearned {
		hat := m.learnPrior(s.Counts, sc)
		prior = func(c, l int) float64 { return hat[c*C+l] }
		for i := range m.alpha {
			m.alpha[i] = (1-rho)*m.alpha[i] + rho*hat[i]
		}
	}
	for r := 0; r < m.nr; r++ {
		for c := 0; c < C; c++ {
			i := (r*C + c) * C
			for l := 0; l < C; l++ {
				m.xi[i+l] = (1-rho)*m.xi[i+l] + rho*(prior(c, l)+sc*s.Counts[i+l])
			}
		}
	}
	m.refresh()
	return nil
}

// learnPrior sets the learned prior (Config.Prior = "learned") from the
// statistics, before ξ is updated from it. For each true class c the
// annotators' rows share the prior Dir(α_c); with q(π^r_c) = Dir(α_c + n_rc)
// (n_rc = S·Counts^r_c) the bound's part in π^r_c at its optimum is the
// log marginal likelihood of the counts, so the update of (α_c, ξ) that
// maximises the bound is α̂_c = the maximiser of
//
//	f(α_c) = Σ_r log DirMult(n_rc | α_c) = Σ_r [lnΓ(Σα) − lnΓ(Σα + N_rc) + Σ_l lnΓ(α_l + n_rcl) − lnΓ(α_l)]
//
// (type-II maximum likelihood, Minka 2000's fixed point for the Pólya
// distribution, α_l ← α_l·Σ_r [ψ(n_rcl + α_l) − ψ(α_l)] / Σ_r [ψ(N_rc + Σα) −
// ψ(Σα)], from the current α_c), then ξ = α̂ + S·Counts (ρ = 1). With
// annotators that all confuse alike f rises forever as Σα grows (complete
// pooling); Σ_l α_cl is held at most maxPriorPrecision, where the mean is
// then fitted at that precision (meanAtPrecision). It returns α̂ (C×C, row
// c at c·C); Update then moves α like ξ: α ← (1 − ρ)·α + ρ·α̂ (under SVI,
// ρ < 1, α̂ is the intermediate estimate from one mini-batch).
func (m *Model) learnPrior(counts []float64, sc float64) []float64 {
	C, R := m.nc, m.nr
	hat := make([]float64, C*C)
	next := make([]float64, C)
	num := make([]float64, C)
	n := make([]float64, C)
	for c := range C {
		cur := m.alpha[c*C:][:C]
		copy(next, cur)
		for range 2000 {
			s := sumOf(next)
			clear(num)
			den := 0.0
			for r := range R {
				row := counts[(r*C+c)*C:][:C]
				N := 0.0
				for l, x := range row {
					n[l] = sc * x
					N += n[l]
				}
				if N == 0 {
					continue
				}
				den += mathext.Digamma(N+s) - mathext.Digamma(s)
				for l, a := range next {
					num[l] += mathext.Digamma(n[l]+a) - mathext.Digamma(a)
				}
			}
			if den == 0 { // no answers for this class: keep the prior
				break
			}
			moved := 0.0
			for l, a := range next {
				b := max(a*num[l]/den, 1e-6)
				moved = max(moved, math.Abs(b-a)/a)
				next[l] = b
			}
			if sumOf(next) > maxPriorPrecision {
				m.meanAtPrecision(next, counts, c, sc)
				break
			}
			if moved < 1e-10 {
				break
			}
		}
		copy(hat[c*C:], next)
	}
	return hat
}

// meanAtPrecision sets alpha (row c's prior) to s·μ, s = maxPriorPrecision,
// with μ the maximiser of learnPrior's f at that precision: the fixed
// point μ_l ∝ μ_l·Σ_r [ψ(n_rcl + sμ_l) − ψ(sμ_l)], from alpha's own mean.
func (m *Model) meanAtPrecision(alpha, counts []float64, c int, sc float64) {
	C, R := m.nc, m.nr
	s := maxPriorPrecision
	mu := make([]float64, C)
	t := sumOf(alpha)
	for l, a := range alpha {
		mu[l] = a / t
	}
	num := make([]float64, C)
	for range 2000 {
		clear(num)
		for r := range R {
			row := counts[(r*C+c)*C:][:C]
			for l, x := range row {
				num[l] += mathext.Digamma(sc*x+s*mu[l]) - mathext.Digamma(s*mu[l])
			}
		}
		z := 0.0
		for l := range num {
			num[l] *= mu[l]
			z += num[l]
		}
		moved := 0.0
		for l := range mu {
			v := max(num[l]/z, 1e-9)
			moved = max(moved, math.Abs(v-mu[l])/mu[l])
			mu[l] = v
		}
		if moved < 1e-10 {
			break
		}
	}
	for l := range alpha {
		alpha[l] = s * mu[l]
	}
}

func sumOf(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// refresh recomputes the expected log confusion entries the evidence and
// the ELBO use, and the prior terms of the ELBO, from ξ.
//
// "variational": E[log π^r_{c,l}] = ψ(ξ^r_{c,l}) − ψ(Σ_t ξ^r_{c,t}) and the
// Dirichlet terms E[log p(π|α)] − E[log q(π|ξ)].
//
// "point": π̂^r_{c,l} = (ξ^r_{c,l} − 1)/Σ_t (ξ^r_{c,t} − 1), each numerator
// floored at pointFloor, "E[log π]" = log π̂ and the prior term log
// Dir(π̂ | α). After a batch update ξ − 1 = α − 1 + counts, so π̂ is the
// exact maximiser of Σ counts·log π + log Dir(π | α) on the simplex (when no
// numerator is floored): MAP-EM, whose objective is monotone like the
// variational bound.
func (m *Model) refresh() {
	if m.structured() {
		m.refreshStructured()
		return
	}
	C := m.nc
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	// lnΓ(Σ_l α_l) − Σ_l lnΓ(α_l) for a prior row (the same for every c).
	// lnΓ(Σ_l α_cl) − Σ_l lnΓ(α_cl) for each prior row c.
	norms := make([]float64, C)
	for c := range norms {
		sum := 0.0
		for l := range C {
			a := m.prior(c, l)
			sum += a
			norms[c] -= lg(a)
		}
		norms[c] += lg(sum)
	}
	point := m.cfg.Estimate == EstimatePoint
	kl := 0.0
	if cm := m.comm; cm != nil {
		// Σ_m q_rm (log w_m − log q_rm + Σ_c N(α_mc)); the rows' terms
		// below use ᾱ^r (priorOf) and no norm of their own.
		for k := range cm.m {
			nk := 0.0
			for c := range C {
				nk += dirNorm(cm.alpha[(k*C+c)*C:][:C])
			}
			for r := range m.nr {
				if p := cm.q[r*cm.m+k]; p > 0 {
					kl += p * (math.Log(cm.w[k]) - math.Log(p) + nk)
				}
			}
		}
		// The hyperprior's −b·Σ α and δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl).
		kl -= m.cfg.PriorRate * sumOf(cm.alpha)
		kl += m.diagHyper(cm)
		clear(norms)
	}
	for r := 0; r < m.nr; r++ {
		for c := 0; c < C; c++ {
			priorNorm := norms[c]
			row := m.xi[(r*C+c)*C:][:C]
			if point {
				sum := 0.0
				for _, x := range row {
					sum += max(x-1, pointFloor)
				}
				ls := math.Log(sum)
				k := priorNorm
				for l, x := range row {
					e := math.Log(max(x-1, pointFloor)) - ls
					m.elogT[(r*C+l)*C+c] = e
					k += (m.prior(c, l) - 1) * e
				}
				kl += k
				continue
			}
			sum := 0.0
			for _, x := range row {
				sum += x
			}
			ps := mathext.Digamma(sum)
			k := priorNorm - lg(sum)
			for l, x := range row {
				e := mathext.Digamma(x) - ps
				m.elogT[(r*C+l)*C+c] = e
				k += lg(x) + (m.priorOf(r, c, l)-x)*e
			}
			kl += k
		}
	}
	m.kl = kl
}

// ELBO is the annotators' part of the bound (MODEL.md §4) at the current ξ:
// S·Σ_{r,c,l} Counts^r_{c,l} E[log π^r_{c,l}] + Σ_{r,c} (E[log p(π^r_c |
// ω + diagonal·e_c)] − E[log q(π^r_c | ξ^r_c)]).
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	C := m.nc
	local := 0.0
	for _, r := range s.touched {
		for c := 0; c < C; c++ {
			for l := 0; l < C; l++ {
				local += s.Counts[(int(r)*C+c)*C+l] * m.elogT[(int(r)*C+l)*C+c]
			}
		}
	}
	return step.Scale*(local+s.Lapse) + m.kl
}

// GlobalELBO is Σ_{r,c} (E[log p(π^r_c)] − E[log q(π^r_c)]), the negative
// Kullback–Leibler divergence of q(π) from the prior, at the current ξ;
// with estimate = "point" it is the log prior density Σ_{r,c} log p(π̂^r_c).
func (m *Model) GlobalELBO() float64 { return m.kl }

// ElogPi is E[log π^r_{c,l}] at the current ξ (log π̂^r_{c,l} with
// estimate = "point").
func (m *Model) ElogPi(r, c, l int) float64 { return m.elogT[(r*m.nc+l)*m.nc+c] }

// Xi returns a copy of ξ^r as C rows (row c: true class c, column l: answer l).
func (m *Model) Xi(r int) [][]float64 {
	C := m.nc
	out := make([][]float64, C)
	for c := range out {
		out[c] = append([]float64(nil), m.xi[(r*C+c)*C:][:C]...)
	}
	return out
}

// Mean is the estimated confusion matrix of annotator r: the posterior mean
// E[π^r_{c,l}] = ξ^r_{c,l} / Σ_t ξ^r_{c,t}, or with estimate = "point" the
// MAP estimate π̂^r_{c,l}.
func (m *Model) Mean(r int) [][]float64 {
	out := m.Xi(r)
	if m.structured() {
		for c, row := range out {
			m.meanRow(r, c, row)
		}
		return out
	}
	if m.cfg.Estimate == EstimatePoint {
		for c, row := range out {
			for l := range row {
				row[l] = math.Exp(m.ElogPi(r, c, l))
			}
		}
		return out
	}
	for _, row := range out {
		s := 0.0
		for _, x := range row {
			s += x
		}
		for l := range row {
			row[l] /= s
		}
	}
	return out
}

// SetXi sets ξ (R matrices of C×C positive finite numbers) and refreshes
// E[log π]. Errors wrap framework.ErrBadInput.
func (m *Model) SetXi(xi [][][]float64) error {
	if err := m.checkXi(xi); err != nil {
		return err
	}
	C := m.nc
	for r, mat := range xi {
		for c, row := range mat {
			copy(m.xi[(r*C+c)*C:][:C], row)
		}
	}
	m.refresh()
	return nil
}

func (m *Model) checkXi(xi [][][]float64) error {
	if m.xi == nil {
		return fmt.Errorf("%w: confusion annotators: not initialised (call Init first)", framework.ErrBadInput)
	}
	if len(xi) != m.nr {
		return fmt.Errorf("%w: %d confusion matrices, the model has %d annotators", framework.ErrBadInput, len(xi), m.nr)
	}
	for r, mat := range xi {
		if len(mat) != m.nc {
			return fmt.Errorf("%w: annotator %d: %d rows, want %d (one per class)", framework.ErrBadInput, r, len(mat), m.nc)
		}
		for c, row := range mat {
			if len(row) != m.nc {
				return fmt.Errorf("%w: annotator %d, row %d: %d entries, want %d", framework.ErrBadInput, r, c, len(row), m.nc)
			}
			for l, x := range row {
				if !(x > 0) || math.IsInf(x, 0) {
					return fmt.Errorf("%w: annotator %d: ξ[%d][%d] = %v, want a positive finite number", framework.ErrBadInput, r, c, l, x)
				}
			}
		}
	}
	return nil
}

// Answers is the number of answers annotator r gave in the training corpus
// (restored by LoadParams).
func (m *Model) Answers(r int) int { return m.answers[r] }

// Accuracy is the estimated accuracy of annotator r: Σ_c w_c E[π^r_{c,c}]
// (π̂^r_{c,c} with estimate = "point"),
// where w_c is the annotator's posterior class frequency, read from ξ as
// max(0, Σ_l ξ^r_{c,l} − Σ_l prior_{c,l}) normalised (after a batch update
// that is Σ_{d∈D_r} λ_dc, the expected number of its documents of true class
// c; under SVI a running estimate of it). An annotator with no such mass
// (no answers) gets the plain mean of the diagonal.
func (m *Model) Accuracy(r int) float64 {
	C := m.nc
	acc, wsum, plain := 0.0, 0.0, 0.0
	for c := 0; c < C; c++ {
		pm := 0.0
		for l := range C {
			pm += m.priorOf(r, c, l)
		}
		row := m.xi[(r*C+c)*C:][:C]
		s := 0.0
		for _, x := range row {
			s += x
		}
		e := row[c] / s
		if m.cfg.Estimate == EstimatePoint {
			e = math.Exp(m.ElogPi(r, c, c))
		}
		w := s - pm
		if w <= 1e-9*pm { // no mass beyond the prior (up to rounding)
			w = 0
		}
		acc += w * e
		wsum += w
		plain += e
	}
	if wsum > 0 {
		return acc / wsum
	}
	return plain / float64(C)
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable):
// "confusion.counts" (R×C×C).
func (s *Stats) SumLayout() []framework.SumPart {
	parts := []framework.SumPart{{Name: "confusion.counts", Len: s.R * s.C * s.C}}
	if s.lapse {
		parts = append(parts, framework.SumPart{Name: "confusion.lapse", Len: 1})
	}
	return parts
}

// Sums visits the counts of the annotators touched since the last Reset
// (the others are zero).
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	n := s.C * s.C
	for _, r := range s.touched {
		visit(0, int(r)*n, s.Counts[int(r)*n:][:n])
	}
	if s.lapse {
		visit(1, 0, []float64{s.Lapse})
	}
}

// SetSums sets every count; the touched annotators are then those with a
// non-zero count, in increasing order.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	s.Reset()
	get(0, s.Counts)
	if s.lapse {
		x := []float64{0}
		get(1, x)
		s.Lapse = x[0]
	}
	n := s.C * s.C
	for r := range s.R {
		for _, x := range s.Counts[r*n:][:n] {
			if x != 0 {
				s.touch(int32(r))
				break
			}
		}
	}
}
