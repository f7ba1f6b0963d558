package biasprecision

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// Name is the name the noise model is registered under.
const Name = "bias-precision"

func init() {
	framework.RegisterNoise(Name, func(p framework.Params) (framework.NoiseModel, error) {
		c := Defaults()
		if err := p.Decode(&c); err != nil {
			return nil, err
		}
		return New(c)
	})
}

// Params are the settings of the `annotators "bias-precision" { ... }`
// block: a conjugate Normal–Gamma prior on each annotator's (b_r, p_r),
//
//	p_r ~ Gamma(shape 1 + ν₀/2, rate ν₀s₀²/2),   b_r | p_r ~ N(0, 1/(κ₀ p_r)),
//
// whose MAP estimates (Model.Update) are those of ν₀ extra answers with
// squared residual s₀² and κ₀ extra answers with residual 0 (a bias of 0).
type Params struct {
	// PriorAnswers is ν₀ ≥ 0 (default 1): the weight, in answers, of the
	// prior guess s₀² of every annotator's noise variance. It keeps the
	// precision of an annotator with a single answer finite (at most about
	// (1 + ν₀)/(ν₀s₀²)); 0 is the paper's maximum-likelihood update, under
	// which that precision grows without bound across iterations. 1 rather
	// than 2: on the planted data of models/maslda_r_test.go a weight of 2
	// pulled the precision of the most precise annotators (p = 10, a few
	// hundred answers) down by 8–20%, a weight of 1 by at most 12%.
	PriorAnswers float64 `hcl:"prior_answers,optional"`
	// PriorVar is s₀² (the prior's mode of 1/p_r): > 0, or 0 (default) for
	// the pooled variance of the training answers around their document's
	// mean answer (see Model.Init), which makes the default prior
	// independent of the answers' units.
	PriorVar float64 `hcl:"prior_var,optional"`
	// BiasPrior is κ₀, the weight, in answers, of a zero bias: a number ≥ 0
	// (HCL's numbers convert: bias_prior = 3), or "auto" (default). 0 is a
	// flat prior on b_r (the paper's update). The common offset of all
	// biases is not identified by the data (package documentation); κ₀ > 0
	// pins it, weakly, where Σ_r κ₀ p_r b_r² is smallest. "auto" decides in
	// Init from the training answers (Model.Kappa): AutoBiasPrior when the
	// annotators who answered average fewer than AutoFewAnswers answers
	// each, 0 otherwise; with prior = "learned" "auto" is 0 (the start of
	// a κ₀ the crowd then fits). "" means "0".
	BiasPrior string `hcl:"bias_prior,optional"`
	// BiasAnchor pins the common offset of the biases, which the data do
	// not identify (package documentation): "mean" (default): the biases
	// are constrained to an answer-weighted mean of zero, Σ_r n_r b_r = 0
	// (the crowd is unbiased on average, the assumption of the mean-answer
	// baseline); or "none": the offset stays where EM's first steps put it.
	// See Model.Update. "" means "none".
	BiasAnchor string `hcl:"bias_anchor,optional"`
	// Bias is "each" (default: one bias b_r per annotator) or "none" (every
	// b_r = 0: the crowd unbiased, answer by answer; BiasPrior and
	// BiasAnchor are then moot).
	Bias string `hcl:"bias,optional"`
	// Precision is "each" (default: one precision p_r per annotator) or
	// "shared" (one precision p for every annotator, under one Gamma
	// prior: with Bias "none" and a flat response, the truth is the mean
	// answer).
	Precision string `hcl:"precision,optional"`
	// Prior is "fixed" (MAP estimates of b_r and p_r under the prior of
	// ν₀, s₀² and κ₀) or "learned": every annotator gets a
	// Normal–Gamma posterior q(b_r, p_r) under one shared prior whose
	// hyperparameters (κ₀, the Gamma's shape and rate) are fitted to the
	// whole crowd by type-II maximum likelihood at every update (learned.go),
	// starting from prior_answers, prior_var and bias_prior. The crowd then
	// says how alike its annotators are: annotators with few answers borrow
	// the crowd's typical noise and bias. The prior's zero bias mean pins
	// the biases' common offset, in place of bias_anchor (ignored). Needs
	// precision = "each". Or "auto" (default): decided in Init from the training
	// answers (Model.PriorInUse; saved with the parameters, so that a
	// model loaded without answers keeps it): "fixed" with bias_prior's κ₀
	// where the annotators who answered average fewer than AutoFewAnswers
	// answers each, "learned" with learn = "bias" (κ₀ fitted, under
	// bias_anchor) otherwise; always "fixed" when bias_prior is a number
	// (the κ₀ asked for), with bias = "none" or with precision = "shared".
	Prior string `hcl:"prior,optional"`
	// Learn is what prior = "learned" fits to the crowd: "all" (default:
	// κ₀, a₀ and β₀) or "bias" (κ₀ alone, by type-II maximum likelihood:
	// how far the crowd's biases spread beyond what their few answers
	// explain; the precisions' Gamma prior stays the fixed prior's, ν₀
	// answers of variance s₀², ν₀ at least 1). With "bias" and BiasAnchor
	// "mean" the anchor is kept and κ₀ is the bound's maximiser under it
	// (anchoredStep); with "none" the zero-mean prior pins the offset and κ₀
	// is type-II maximum likelihood (learnHyper). Or "precision": a₀ and
	// β₀ alone (how alike the annotators' precisions are), κ₀ held at
	// bias_prior's (under "auto", AutoKappa's); with bias_anchor "mean" by
	// the variational EM step of the Gamma (gammaStep), with "none" by
	// learnHyper. "" means "all".
	Learn string `hcl:"learn,optional"`
	// Constant is "ignore" (default) or "keep": what to do with an
	// annotator who gave one and the same answer to every document, at
	// least twice, where the crowd's answers make that unlikely by chance
	// (framework.Answers.ConstantAnnotators at framework.ConstantChance).
	// "ignore": its answers do not depend on the document, y_dr ~ N(b_r,
	// 1/p_r) with b_r its answer and p_r its precision at residual 0
	// ((n_r + ν₀)/(ν₀s₀²)), so they send no evidence to the truth and take
	// no part in the bias anchor. Read as measurements of the truth
	// ("keep", the model before), such an annotator has no spread about a
	// truth that follows it: its precision grows, the truth flattens
	// towards it and the other annotators look noisy
	// (docs/results-regression.md, "Annotators who give one answer to
	// everything"). The choice is made in Init from the training answers
	// and saved with the parameters. "" means "keep".
	Constant string `hcl:"constant,optional"`
}

// Constant settings (Params.Constant).
const (
	ConstantIgnore = "ignore"
	ConstantKeep   = "keep"
)

// Bias and Precision settings.
const (
	Each   = "each"
	None   = "none"
	Shared = "shared"
)

// Bias anchors (Params.BiasAnchor).
const (
	AnchorNone = "none"
	AnchorMean = "mean"
)

// BiasPriorAuto is the Params.BiasPrior setting that Init resolves from
// the training answers.
const BiasPriorAuto = "auto"

// AutoFewAnswers is the mean number of training answers per annotator (N/R,
// R the annotators with an answer) below which bias_prior = "auto" puts
// AutoBiasPrior answers' weight on a zero bias. With a few answers each, a
// free b_r = Σ(y − m)/n_r absorbs most of what each answer says about its
// document's truth (one answer: all of it), and a crowd of many such
// annotators says little more than its mean answer; with more answers
// each, the biases are estimated and a prior towards 0 only biases them
// (docs/results-regression.md, "The bias prior where annotators have few
// answers", has the measurements behind 5 and 3).
const AutoFewAnswers = 5

// AutoBiasPrior is κ₀ under bias_prior = "auto" when the annotators
// average fewer than AutoFewAnswers answers.
const AutoBiasPrior = 3

// Defaults returns the documented defaults.
func Defaults() Params {
	return Params{PriorAnswers: 1, BiasPrior: BiasPriorAuto, BiasAnchor: AnchorMean, Bias: Each, Precision: Each, Prior: PriorAuto, Constant: ConstantIgnore}
}

// biasPrior parses Params.BiasPrior: κ₀ and whether it is "auto".
func (p Params) biasPrior() (kappa float64, auto bool, err error) {
	switch s := strings.TrimSpace(p.BiasPrior); s {
	case BiasPriorAuto:
		return 0, true, nil
	case "":
		return 0, false, nil
	default:
		k, err := strconv.ParseFloat(s, 64)
		if err != nil || !(k >= 0) || math.IsInf(k, 0) {
			return 0, false, fmt.Errorf("%w: annotators bias-precision: bias_prior = %q, want a finite number ≥ 0 or %q", framework.ErrBadInput, p.BiasPrior, BiasPriorAuto)
		}
		return k, false, nil
	}
}

// AutoKappa is bias_prior = "auto"'s κ₀ for a crowd whose annotators gave
// answers (per annotator; zeros are the annotators without one):
// AutoBiasPrior when those who answered average fewer than AutoFewAnswers,
// 0 otherwise (and 0 without answers).
func AutoKappa(answers []int) float64 {
	n, seen := 0, 0
	for _, a := range answers {
		if a > 0 {
			n += a
			seen++
		}
	}
	if seen > 0 && float64(n) < AutoFewAnswers*float64(seen) {
		return AutoBiasPrior
	}
	return 0
}

func (p Params) noBias() bool  { return p.Bias == None }
func (p Params) shared() bool  { return p.Precision == Shared }
func (p Params) learned() bool { return p.Prior == PriorLearned }
func (p Params) auto() bool    { return p.Prior == PriorAuto }

// learnBiasOnly reports whether a learned prior fits κ₀ alone: learn =
// "bias", or prior = "auto" (which learns κ₀ alone when it learns).
func (p Params) learnBiasOnly() bool { return p.Learn == LearnBias || p.auto() }

// Validate checks the settings.
func (p Params) Validate() error {
	bad := func(x float64) bool { return !(x >= 0) || math.IsInf(x, 0) }
	if _, _, err := p.biasPrior(); err != nil {
		return err
	}
	switch {
	case bad(p.PriorAnswers):
		return fmt.Errorf("%w: annotators bias-precision: prior_answers = %v, want a finite number ≥ 0", framework.ErrBadInput, p.PriorAnswers)
	case bad(p.PriorVar):
		return fmt.Errorf("%w: annotators bias-precision: prior_var = %v, want a finite number > 0, or 0 for the pooled spread of the answers", framework.ErrBadInput, p.PriorVar)
	case p.BiasAnchor != "" && p.BiasAnchor != AnchorNone && p.BiasAnchor != AnchorMean:
		return fmt.Errorf("%w: annotators bias-precision: bias_anchor = %q; valid: %s, %s", framework.ErrBadInput, p.BiasAnchor, AnchorMean, AnchorNone)
	case p.Bias != "" && p.Bias != Each && p.Bias != None:
		return fmt.Errorf("%w: annotators bias-precision: bias = %q; valid: %s (one bias per annotator), %s (every bias 0)", framework.ErrBadInput, p.Bias, Each, None)
	case p.Precision != "" && p.Precision != Each && p.Precision != Shared:
		return fmt.Errorf("%w: annotators bias-precision: precision = %q; valid: %s (one precision per annotator), %s (one for all)", framework.ErrBadInput, p.Precision, Each, Shared)
	case p.Prior != "" && p.Prior != PriorFixed && p.Prior != PriorLearned && p.Prior != PriorAuto:
		return fmt.Errorf("%w: annotators bias-precision: prior = %q; valid: %s, %s, %s", framework.ErrBadInput, p.Prior, PriorFixed, PriorLearned, PriorAuto)
	case p.Constant != "" && p.Constant != ConstantIgnore && p.Constant != ConstantKeep:
		return fmt.Errorf("%w: annotators bias-precision: constant = %q; valid: %s (an annotator with one answer for everything says nothing about the truth), %s (read its answers as measurements)", framework.ErrBadInput, p.Constant, ConstantIgnore, ConstantKeep)
	case p.Learn != "" && p.Learn != LearnAll && p.Learn != LearnBias && p.Learn != LearnPrecision:
		return fmt.Errorf("%w: annotators bias-precision: learn = %q; valid: %s (κ₀, a₀, β₀), %s (κ₀ alone), %s (a₀, β₀ alone)", framework.ErrBadInput, p.Learn, LearnAll, LearnBias, LearnPrecision)
	case p.Learn != "" && !p.learned():
		return fmt.Errorf("%w: annotators bias-precision: learn = %q needs prior = %q", framework.ErrBadInput, p.Learn, PriorLearned)
	case p.learned() && p.shared():
		return fmt.Errorf("%w: annotators bias-precision: prior = %q needs precision = %q (one shared precision has no crowd to learn a prior from)", framework.ErrBadInput, PriorLearned, Each)
	}
	return nil
}

// Model is the bias/precision annotator model of MA-sLDAr (MODEL.md §3):
// y_dr | x_d ~ N(x_d + b_r, 1/p_r). It implements framework.NoiseModel,
// framework.DocScorer, framework.Persister and framework.Reporter. Its
// parameters are read-only during the E-step.
type Model struct {
	Config  Params
	Workers []string  // annotator names (Setup.Workers)
	Bias    []float64 // b_r
	Prec    []float64 // p_r
	Answers []int     // training answers per annotator (for reports)
	S0      float64   // s₀², the prior variance in use (Config.PriorVar or the pooled spread)
	// Kappa is κ₀ in use: Config.BiasPrior, with "auto" resolved by Init
	// from the training answers (AutoKappa) or by LoadParams from a saved
	// model.
	Kappa float64
	// Ignores[r] marks an annotator who gives one answer to every document
	// (Params.Constant "ignore"): y_dr ~ N(b_r, 1/p_r) whatever the truth,
	// Bias[r] its answer. Nil when none does.
	Ignores []bool

	run  *Stats  // running (blended) statistics of SVI; nil before the first update
	runW float64 // Σ of the blending weights in run

	learn *learned // prior = "learned" (or "auto" resolved to it): hyperparameters and posteriors (else nil)
}

// New returns a model with the given settings (call Init before use).
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: p}, nil
}

// Accepts accepts only a *framework.Gaussian target.
func (m *Model) Accepts(t framework.Target) error {
	if _, ok := t.(*framework.Gaussian); !ok {
		return fmt.Errorf("%w: annotators %q need a numeric (Gaussian) target, such as the \"gaussian\" response's; got %T", framework.ErrIncompatible, Name, t)
	}
	return nil
}

// Init sizes the parameters for Setup.Workers and starts them from the
// training answers (Setup.Corpus; without one, as when a saved model is
// rebuilt, b_r = 0 and p_r = 1/s₀² until LoadParams):
//
//   - the deviations e_dr = y_dr − ȳ_d of the answers from their
//     document's mean answer, over documents with n_d ≥ 2 answers, each
//     squared deviation weighted by n_d/(n_d − 1) (which makes it unbiased
//     when the n_d annotators of d are equally noisy).
//   - s₀² (when Config.PriorVar is 0): the pooled weighted mean of
//     (e_dr − ē_r)², ē_r the mean deviation of annotator r (its bias
//     relative to the others, removed so that s₀² is a noise variance, not
//     bias²); without documents with two answers, the variance of all
//     answers; 1 if that is not positive.
//   - b_r = 0.
//   - p_r = (c_r + ν₀)/(Σ_r + ν₀s₀²), with c_r and Σ_r the number and sum of
//     annotator r's weighted e_dr²: its spread around the per-document mean
//     answer, shrunk towards 1/s₀² by the prior. This spread includes r's
//     relative bias, which is right for b_r = 0: strongly biased annotators
//     start with a low precision, and the first M-steps separate bias and
//     noise.
//
// With Params.Constant "ignore", an annotator who gave one answer to every
// document (framework.Answers.ConstantAnnotators) is marked in Ignores
// first and left out of all of the above (document means, s₀², the shared
// precision); it gets b_r = its answer and p_r = (n_r + ν)/(ν s₀²), ν = ν₀
// (1 if ν₀ = 0): the MAP precision of n_r answers at residual 0.
//
// Categorical answers are refused (framework.ErrIncompatible), non-finite
// values are framework.ErrBadInput.
func (m *Model) Init(s *framework.Setup) error {
	m.learn = nil
	kappa, auto, err := m.Config.biasPrior()
	if err != nil {
		return err
	}
	if err := m.init(s); err != nil {
		return err
	}
	m.Kappa = kappa
	learn := m.Config.learned()
	if m.Config.auto() {
		learn = auto && AutoKappa(m.Answers) == 0 && !m.Config.noBias() && !m.Config.shared()
	}
	if auto && (!learn || m.Config.Learn == LearnPrecision) {
		m.Kappa = AutoKappa(m.Answers)
	}
	if learn {
		// The posteriors start at Gamma(a₀, a₀/p_r): E[p_r] the starting
		// precision, κ_r = κ₀.
		m.learn = newLearned(m.Config, m.Kappa, m.S0, len(m.Prec))
		for r, p := range m.Prec {
			if m.ignores(r) {
				continue // the posterior stays at the prior: no evidence
			}
			m.learn.rate[r] = m.learn.shape[r] / p
			m.learn.elogp[r] = elogGamma(m.learn.shape[r], m.learn.rate[r])
		}
	}
	return nil
}

func (m *Model) init(s *framework.Setup) error {
	R := len(s.Annotators)
	m.Workers = append([]string(nil), s.Annotators...)
	m.Bias = make([]float64, R)
	m.Prec = make([]float64, R)
	m.Answers = make([]int, R)
	m.Ignores = nil
	m.run, m.runW = nil, 0
	m.S0 = m.Config.PriorVar
	var a *framework.Answers
	if s.Corpus != nil {
		a = s.Corpus.Answers
	}
	if a == nil {
		if m.S0 == 0 {
			m.S0 = 1
		}
		for r := range m.Prec {
			m.Prec[r] = 1 / m.S0
		}
		return nil
	}
	if !a.Numeric() {
		return fmt.Errorf("%w: annotators %q need numeric answers; the corpus has categorical ones (%d classes)", framework.ErrIncompatible, Name, len(a.Classes))
	}
	if m.Config.Constant == ConstantIgnore {
		flags := a.ConstantAnnotators(R, framework.ConstantChance)
		for _, f := range flags {
			if f {
				m.Ignores = flags
				break
			}
		}
	}
	cnt := make([]float64, R) // answers on documents with n_d ≥ 2
	dev := make([]float64, R) // Σ w e², w = n_d/(n_d − 1)
	sw := make([]float64, R)  // Σ w
	se := make([]float64, R)  // Σ w e
	allN, allS, allSS := 0.0, 0.0, 0.0
	for d, as := range a.ByDoc {
		mean, n := 0.0, 0.0
		for _, x := range as {
			if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
				return fmt.Errorf("%w: document %s: answer %v of annotator %s is not a finite number", framework.ErrBadInput, docName(s.Corpus, d), x.Value, workerName(s.Annotators, x.Annotator))
			}
			if x.Annotator < 0 || int(x.Annotator) >= R {
				return fmt.Errorf("%w: document %s: annotator index %d outside [0, %d)", framework.ErrBadInput, docName(s.Corpus, d), x.Annotator, R)
			}
			m.Answers[x.Annotator]++
			if m.ignores(int(x.Annotator)) {
				m.Bias[x.Annotator] = x.Value
				continue
			}
			mean += x.Value
			n++
			allN++
			allS += x.Value
			allSS += x.Value * x.Value
		}
		if n < 2 {
			continue
		}
		mean /= n
		corr := n / (n - 1)
		for _, x := range as {
			if m.ignores(int(x.Annotator)) {
				continue
			}
			e := x.Value - mean
			cnt[x.Annotator]++
			dev[x.Annotator] += corr * e * e
			sw[x.Annotator] += corr
			se[x.Annotator] += corr * e
		}
	}
	if m.S0 == 0 {
		pooledN, pooled := 0.0, 0.0
		for r := range cnt {
			if sw[r] > 0 {
				// Σ w (e − ē)² = Σ w e² − (Σ w e)²/Σ w, ē = Σ w e / Σ w.
				pooled += math.Max(0, dev[r]-se[r]*se[r]/sw[r])
				pooledN += cnt[r]
			}
		}
		switch {
		case pooledN > 0 && pooled > 0:
			m.S0 = pooled / pooledN
		case allN > 1:
			mu := allS / allN
			m.S0 = (allSS - allN*mu*mu) / (allN - 1)
		}
		if !(m.S0 > 0) || math.IsInf(m.S0, 0) {
			m.S0 = 1
		}
	}
	nu := m.Config.PriorAnswers
	defer m.constantPrec()
	if m.Config.shared() {
		num, den := nu, nu*m.S0
		for r := range cnt {
			num += cnt[r]
			den += dev[r]
		}
		p := 1 / m.S0
		if num > 0 && den > 0 {
			p = num / den
		}
		for r := range m.Prec {
			m.Prec[r] = p
		}
		return nil
	}
	for r := range m.Prec {
		num, den := cnt[r]+nu, dev[r]+nu*m.S0
		if num > 0 && den > 0 {
			m.Prec[r] = num / den
		} else {
			m.Prec[r] = 1 / m.S0
		}
	}
	return nil
}

// BiasPriorInUse is κ₀, the weight of a zero bias in answers: Kappa
// (Config.BiasPrior with "auto" resolved), or the learned κ₀ under a
// learned prior.
func (m *Model) BiasPriorInUse() float64 {
	if m.learn != nil {
		return m.learn.k0
	}
	return m.Kappa
}

// PriorInUse is the annotators' prior in use: "fixed" or "learned"
// (Config.Prior with "auto" resolved by Init or LoadParams).
func (m *Model) PriorInUse() string {
	if m.learn != nil {
		return PriorLearned
	}
	return PriorFixed
}

// IgnoredAnnotators are the names of the annotators marked in Ignores, in
// order (nil when none): those who give one answer to every document.
func (m *Model) IgnoredAnnotators() []string {
	var out []string
	for r, on := range m.Ignores {
		if on {
			out = append(out, m.Workers[r])
		}
	}
	return out
}

// ignores reports whether annotator r gives one answer to every document
// (Ignores).
func (m *Model) ignores(r int) bool { return m.Ignores != nil && m.Ignores[r] }

// constantPrec sets the precision of every annotator in Ignores to the MAP
// estimate of its answers at residual 0, (n_r + ν)/(ν s₀²) with ν = ν₀ (1
// if ν₀ = 0, whose estimate is unbounded).
func (m *Model) constantPrec() {
	nu := m.Config.PriorAnswers
	if !(nu > 0) {
		nu = 1
	}
	for r := range m.Ignores {
		if m.Ignores[r] {
			m.Prec[r] = (float64(m.Answers[r]) + nu) / (nu * m.S0)
		}
	}
}

func docName(c *framework.Corpus, d int) string {
	if c != nil && d < len(c.Docs) && c.Docs[d].ID != "" {
		return strconv.Quote(c.Docs[d].ID)
	}
	return strconv.Itoa(d)
}

func workerName(w []string, r int32) string {
	if r >= 0 && int(r) < len(w) {
		return strconv.Quote(w[r])
	}
	return strconv.Itoa(int(r))
}

// Evidence adds the annotators' message onto d.Target (MODEL.md §3):
// Prec += Σ_{r∈R_d} p_r, PrecMean += Σ_{r∈R_d} p_r (y_dr − b_r).
func (m *Model) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	for _, a := range d.Answers {
		if m.ignores(int(a.Annotator)) {
			continue
		}
		p := m.Prec[a.Annotator]
		t.Prec += p
		t.PrecMean += p * (a.Value - m.Bias[a.Annotator])
	}
}

// DocELBO is document d's annotator part of the ELBO (MODEL.md §4):
// Σ_{r∈R_d} ½log p_r − ½log 2π − (p_r/2)((y_dr − m_d − b_r)² + v_d).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Gaussian)
	e := 0.0
	if l := m.learn; l != nil {
		// ½E[log p] − ½log 2π − ½(E[p]((y − m − μ)² + v) + 1/κ_r).
		bias := !m.Config.noBias()
		for _, a := range d.Answers {
			r := a.Annotator
			if m.ignores(int(r)) {
				continue
			}
			res := a.Value - t.Mean - m.Bias[r]
			e += 0.5*(l.elogp[r]-math.Log(2*math.Pi)) - 0.5*m.Prec[r]*(res*res+t.Var)
			if bias {
				e -= 0.5 / l.kap[r]
			}
		}
		return e
	}
	for _, a := range d.Answers {
		if m.ignores(int(a.Annotator)) {
			continue
		}
		p := m.Prec[a.Annotator]
		res := a.Value - t.Mean - m.Bias[a.Annotator]
		e += 0.5*math.Log(p/(2*math.Pi)) - 0.5*p*(res*res+t.Var)
	}
	return e
}

var _ framework.AnswerPredictor = (*Model)(nil)

// LogPredictive is the log density of answer y by annotator r about a
// document with q(t) = N(m, v) (framework.AnswerPredictor): y ~ N(m + b_r,
// v + 1/p_r). An annotator outside the model, or a target that is not a
// finalised Gaussian, gives NaN.
func (m *Model) LogPredictive(t framework.Target, a framework.Answer) float64 {
	g, ok := t.(*framework.Gaussian)
	if !ok || a.Annotator < 0 || int(a.Annotator) >= len(m.Prec) || !(g.Var >= 0) {
		return math.NaN()
	}
	if m.ignores(int(a.Annotator)) {
		// y ~ N(b_r, 1/p_r) whatever the document.
		res := a.Value - m.Bias[a.Annotator]
		p := m.Prec[a.Annotator]
		return 0.5*math.Log(p/(2*math.Pi)) - 0.5*p*res*res
	}
	res := a.Value - g.Mean - m.Bias[a.Annotator]
	if l := m.learn; l != nil {
		// Integrated over q(b_r, p_r) the answer about a known x is
		// Student-t with 2a_r degrees of freedom, location x + μ_r and
		// scale² β_r(1 + 1/κ_r)/a_r; q(x)'s variance is added to the
		// scale² (an approximation of the convolution).
		r := a.Annotator
		nu := 2 * l.shape[r]
		sc2 := l.rate[r] / l.shape[r]
		if !m.Config.noBias() {
			sc2 *= 1 + 1/l.kap[r]
		}
		sc2 += g.Var
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg0, _ := math.Lgamma(nu / 2)
		return lg1 - lg0 - 0.5*math.Log(nu*math.Pi*sc2) - (nu+1)/2*math.Log1p(res*res/(nu*sc2))
	}
	s2 := g.Var + 1/m.Prec[a.Annotator]
	return -0.5*math.Log(2*math.Pi*s2) - res*res/(2*s2)
}

// Stats are the per-annotator sufficient statistics: N[r] = |D_r| (answers),
// SY[r] = Σ_{d∈D_r} (y_dr − m_d), SQ[r] = Σ_{d∈D_r} ((y_dr − m_d)² + v_d).
type Stats struct {
	N, SY, SQ []float64
}

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats { return newStats(len(m.Prec)) }

func newStats(r int) *Stats {
	return &Stats{N: make([]float64, r), SY: make([]float64, r), SQ: make([]float64, r)}
}

// Merge adds o (a *Stats over as many annotators) into s.
func (s *Stats) Merge(o framework.Stats) { s.axpy(1, o.(*Stats)) }

func (s *Stats) axpy(a float64, t *Stats) {
	for r := range s.N {
		s.N[r] += a * t.N[r]
		s.SY[r] += a * t.SY[r]
		s.SQ[r] += a * t.SQ[r]
	}
}

func (s *Stats) scale(a float64) {
	for r := range s.N {
		s.N[r] *= a
		s.SY[r] *= a
		s.SQ[r] *= a
	}
}

// Reset empties s.
func (s *Stats) Reset() { s.scale(0) }

// Accumulate adds document d's answers, with its q(x_d) = N(m_d, v_d), to st.
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Gaussian)
	for _, a := range d.Answers {
		if m.ignores(int(a.Annotator)) {
			continue
		}
		e := a.Value - t.Mean
		s.N[a.Annotator]++
		s.SY[a.Annotator] += e
		s.SQ[a.Annotator] += e*e + t.Var
	}
}

// Update is the M-step (MODEL.md §3, §5). The statistics are blended into
// running statistics R ← (1−ρ)R + ρ·S·stats with a running weight
// W ← (1−ρ)W + ρ, and every annotator's parameters are set to the MAP
// estimate from R/W (n, Σ(y − m), Σ((y − m)² + v)): batch (ρ = S = 1) uses
// exactly this E-step's statistics. ρ = 0 changes nothing.
//
//	b_r = Σ(y − m) / (n + κ₀)
//	p_r = (n + ν₀ + [κ₀ > 0]) / ( Σ(v + (y − m − b_r)²) + ν₀s₀² + κ₀b_r² )
//
// With ν₀ = κ₀ = 0 these are MODEL.md §3's b_r and p_r. b_r does not depend
// on p_r, so the pair is the joint maximiser of the annotator's part of the
// bound plus the prior's log density. An annotator with no answers and no
// prior keeps its parameters (they do not affect the bound).
//
// With bias_anchor = "mean" the biases maximise the same objective under
// the constraint Σ_r n_r b_r = 0 at the current precisions (Lagrange):
//
//	b_r = (Σ(y − m) − μ n_r/p_r) / (n + κ₀),   μ = Σ_r n_r Σ(y − m)/(n_r + κ₀) / Σ_r n_r²/(p_r(n_r + κ₀)),
//
// then p_r as above from the new b_r: two exact coordinate steps, so the
// bound cannot decrease, and the offset the data leave free is fixed.
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := st.(*Stats)
	rho := step.Rho
	if rho == 0 {
		return nil
	}
	if !(rho > 0 && rho <= 1) || !(step.Scale > 0) || math.IsInf(step.Scale, 0) {
		return fmt.Errorf("annotators %s: step ρ = %v, scale = %v, want ρ in (0, 1] and a finite scale > 0", Name, rho, step.Scale)
	}
	if m.run == nil {
		m.run = newStats(len(m.Prec))
	}
	m.run.scale(1 - rho)
	m.run.axpy(rho*step.Scale, s)
	m.runW = (1-rho)*m.runW + rho
	inv := 1 / m.runW
	if m.learn != nil {
		R := len(m.Prec)
		n, sy, sq := make([]float64, R), make([]float64, R), make([]float64, R)
		for r := range R {
			n[r], sy[r], sq[r] = m.run.N[r]*inv, m.run.SY[r]*inv, m.run.SQ[r]*inv
		}
		if m.anchoredLearn() {
			m.anchoredStep(n, sy, sq)
			return nil
		}
		m.learn.learnHyper(n, sy, sq, !m.Config.noBias(), m.S0)
		m.posterior(n, sy, sq)
		return nil
	}
	nu, kappa := m.Config.PriorAnswers, m.Kappa
	noBias := m.Config.noBias()
	if noBias {
		kappa = 0
	}
	extra := 0.0
	if kappa > 0 {
		extra = 1
	}
	mu := 0.0
	if m.Config.BiasAnchor == AnchorMean && !noBias {
		num, den := 0.0, 0.0
		for r, p := range m.Prec {
			if n := m.run.N[r] * inv; n > 0 {
				num += n * m.run.SY[r] * inv / (n + kappa)
				den += n * n / (p * (n + kappa))
			}
		}
		if den > 0 {
			mu = num / den
		}
	}
	// Biases at the current precisions, then the precisions at those
	// biases (each a maximisation of the bound plus the prior).
	sumNum, sumDen := nu, nu*m.S0 // shared precision: Σ_r over annotators, the Gamma prior once
	for r := range m.Prec {
		if m.ignores(r) {
			continue // b_r and p_r fixed by Init
		}
		n, sy, sq := m.run.N[r]*inv, m.run.SY[r]*inv, m.run.SQ[r]*inv
		b := m.Bias[r]
		switch {
		case noBias:
			b = 0
		case n+kappa > 0:
			b = (sy - mu*n/m.Prec[r]) / (n + kappa)
		}
		q := sq - 2*b*sy + n*b*b // Σ((y − m − b)² + v)
		if q < 0 {               // rounding: q ≥ Σv > 0 in exact arithmetic
			q = 0
		}
		m.Bias[r] = b
		if m.Config.shared() {
			sumNum += n + extra
			sumDen += q + kappa*b*b
			continue
		}
		num, den := n+nu+extra, q+nu*m.S0+kappa*b*b
		if num > 0 && den > 0 {
			m.Prec[r] = num / den
		}
	}
	if m.Config.shared() && sumNum > 0 && sumDen > 0 {
		p := sumNum / sumDen
		for r := range m.Prec {
			if !m.ignores(r) {
				m.Prec[r] = p
			}
		}
	}
	return nil
}

// LogPrior is the global term of ELBO: Σ_r log p(b_r, p_r) under the
// fixed Normal–Gamma prior of Params (0 for the flat prior ν₀ = κ₀ = 0);
// under a learned prior, E[log p(b, p)] − E[log q(b, p)] (learnedKL).
func (m *Model) LogPrior() float64 {
	if m.learn != nil {
		return m.learnedKL()
	}
	nu, kappa := m.Config.PriorAnswers, m.Kappa
	if m.Config.noBias() {
		kappa = 0
	}
	e := 0.0
	if nu > 0 {
		a0, b0 := 1+nu/2, nu*m.S0/2
		lg, _ := math.Lgamma(a0)
		c := a0*math.Log(b0) - lg
		for r, p := range m.Prec {
			if m.ignores(r) {
				continue // b_r and p_r are not estimated: no prior term
			}
			e += c + (a0-1)*math.Log(p) - b0*p
			if m.Config.shared() {
				break // one precision, one prior
			}
		}
	}
	if kappa > 0 {
		for r, p := range m.Prec {
			if m.ignores(r) {
				continue
			}
			b := m.Bias[r]
			e += 0.5*math.Log(kappa*p/(2*math.Pi)) - 0.5*kappa*p*b*b
		}
	}
	return e
}

// ELBO is the annotators' part of the bound (MODEL.md §4) at the current
// b, p, the per-document parts from s scaled by st.Scale, plus the prior:
//
//	S·Σ_r [ n_r(½log p_r − ½log 2π) − (p_r/2)(SQ_r − 2b_r SY_r + n_r b_r²) ] + LogPrior.
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local := 0.0
	if l := m.learn; l != nil {
		bias := !m.Config.noBias()
		for r, p := range m.Prec {
			n := s.N[r]
			if n == 0 {
				continue
			}
			b := m.Bias[r]
			local += n*0.5*(l.elogp[r]-math.Log(2*math.Pi)) - 0.5*p*(s.SQ[r]-2*b*s.SY[r]+n*b*b)
			if bias {
				local -= 0.5 * n / l.kap[r]
			}
		}
		return step.Scale*local + m.LogPrior()
	}
	for r, p := range m.Prec {
		n := s.N[r]
		if n == 0 {
			continue
		}
		b := m.Bias[r]
		local += n*0.5*math.Log(p/(2*math.Pi)) - 0.5*p*(s.SQ[r]-2*b*s.SY[r]+n*b*b)
	}
	return step.Scale*local + m.LogPrior()
}

// Annotator is one row of the report.
type Annotator struct {
	Annotator string  `json:"annotator"`
	Answers   int     `json:"answers"`
	Bias      float64 `json:"bias"`
	Precision float64 `json:"precision"`
	SD        float64 `json:"sd"` // 1/√precision
	// IgnoresItems: the annotator gave one answer to every document
	// (Model.Ignores); Bias is that answer.
	IgnoresItems bool `json:"ignores_items,omitempty"`
}

// Report describes every annotator (framework.Reporter): its name, number
// of training answers, bias, precision and noise standard deviation; the
// JSON document is a list of Annotator objects.
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "answers", "bias", "precision", "sd", "ignores_items"}
	list := make([]Annotator, len(m.Prec))
	rows = make([][]string, len(m.Prec))
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for r, p := range m.Prec {
		a := Annotator{Annotator: m.Workers[r], Answers: m.Answers[r], Bias: m.Bias[r], Precision: p, SD: 1 / math.Sqrt(p), IgnoresItems: m.ignores(r)}
		list[r] = a
		rows[r] = []string{a.Annotator, strconv.Itoa(a.Answers), g(a.Bias), g(a.Precision), g(a.SD), strconv.FormatBool(a.IgnoresItems)}
	}
	return header, rows, list
}

// saved is the JSON of annotators.params.
type saved struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Annotators []string  `json:"annotators"`
	Answers    []int     `json:"answers"`
	Bias       []float64 `json:"bias"`
	Precision  []float64 `json:"precision"`
	PriorVar   float64   `json:"prior_var"`
	// BiasPrior is Model.Kappa, κ₀ in use (absent in files written before
	// bias_prior = "auto"; LoadParams then keeps the κ₀ Init chose).
	BiasPrior *float64 `json:"bias_prior,omitempty"`
	// IgnoresItems is Model.Ignores (absent when no annotator is marked).
	IgnoresItems []bool `json:"ignores_items,omitempty"`
	// Learned is the state of prior = "learned".
	Learned *learnedFile `json:"learned,omitempty"`
}

// learnedFile is the saved form of the learned prior and posteriors.
type learnedFile struct {
	Kappa0 float64   `json:"kappa0"` // κ₀
	Shape0 float64   `json:"shape0"` // a₀
	Rate0  float64   `json:"rate0"`  // β₀
	Kappa  []float64 `json:"kappa"`  // κ_r
	Shape  []float64 `json:"shape"`  // a_r
	Rate   []float64 `json:"rate"`   // β_r
}

const (
	paramsFormat  = "maslda-bias-precision"
	paramsVersion = 1
)

// SaveParams writes the annotators' names, answer counts, biases,
// precisions and s₀² as JSON (framework.Persister).
func (m *Model) SaveParams(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	sv := saved{Format: paramsFormat, Version: paramsVersion, Annotators: m.Workers, Answers: m.Answers, Bias: m.Bias, Precision: m.Prec, PriorVar: m.S0, BiasPrior: &m.Kappa, IgnoresItems: m.Ignores}
	if l := m.learn; l != nil {
		sv.Learned = &learnedFile{Kappa0: l.k0, Shape0: l.a0, Rate0: l.b0, Kappa: l.kap, Shape: l.shape, Rate: l.rate}
	}
	return e.Encode(sv)
}

// LoadParams restores what SaveParams wrote; call it after Init, whose
// annotator names it must match.
func (m *Model) LoadParams(rd io.Reader) error {
	var p saved
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: bias-precision parameters: %v", framework.ErrBadInput, err)
	}
	R := len(m.Workers)
	switch {
	case p.Format != paramsFormat || p.Version != paramsVersion:
		return fmt.Errorf("%w: bias-precision parameters: format %q version %d, want %q version %d", framework.ErrBadInput, p.Format, p.Version, paramsFormat, paramsVersion)
	case len(p.Annotators) != R || len(p.Answers) != R || len(p.Bias) != R || len(p.Precision) != R:
		return fmt.Errorf("%w: bias-precision parameters: %d annotators (%d answer counts, %d biases, %d precisions), the model has %d", framework.ErrBadInput, len(p.Annotators), len(p.Answers), len(p.Bias), len(p.Precision), R)
	case !(p.PriorVar > 0) || math.IsInf(p.PriorVar, 0):
		return fmt.Errorf("%w: bias-precision parameters: prior_var = %v, want a finite number > 0", framework.ErrBadInput, p.PriorVar)
	case p.IgnoresItems != nil && len(p.IgnoresItems) != R:
		return fmt.Errorf("%w: bias-precision parameters: ignores_items for %d annotators, the model has %d", framework.ErrBadInput, len(p.IgnoresItems), R)
	case p.BiasPrior != nil && (!(*p.BiasPrior >= 0) || math.IsInf(*p.BiasPrior, 0)):
		return fmt.Errorf("%w: bias-precision parameters: bias_prior = %v, want a finite number ≥ 0", framework.ErrBadInput, *p.BiasPrior)
	}
	for r := range R {
		switch {
		case p.Annotators[r] != m.Workers[r]:
			return fmt.Errorf("%w: bias-precision parameters: annotator %d is %q, the model's is %q", framework.ErrBadInput, r, p.Annotators[r], m.Workers[r])
		case math.IsNaN(p.Bias[r]) || math.IsInf(p.Bias[r], 0):
			return fmt.Errorf("%w: bias-precision parameters: bias of %q is %v", framework.ErrBadInput, p.Annotators[r], p.Bias[r])
		case !(p.Precision[r] > 0) || math.IsInf(p.Precision[r], 0):
			return fmt.Errorf("%w: bias-precision parameters: precision of %q is %v, want a finite number > 0", framework.ErrBadInput, p.Annotators[r], p.Precision[r])
		case p.Answers[r] < 0:
			return fmt.Errorf("%w: bias-precision parameters: %d answers for %q", framework.ErrBadInput, p.Answers[r], p.Annotators[r])
		}
	}
	var l *learned
	switch {
	case m.Config.auto():
		// prior = "auto": the file decides, as Init did when it was trained.
		if p.Learned != nil && (m.Config.noBias() || m.Config.shared()) {
			return fmt.Errorf("%w: bias-precision parameters: the file has a learned prior, which prior = %q never chooses with bias = %q, precision = %q", framework.ErrBadInput, PriorAuto, m.Config.Bias, m.Config.Precision)
		}
	case m.Config.learned() && p.Learned == nil:
		return fmt.Errorf("%w: bias-precision parameters: the configuration learns the prior (prior = %q) but the file has no learned prior", framework.ErrBadInput, PriorLearned)
	case !m.Config.learned() && p.Learned != nil:
		return fmt.Errorf("%w: bias-precision parameters: the file has a learned prior but the configuration's prior is %q", framework.ErrBadInput, m.Config.Prior)
	}
	if p.Learned != nil {
		f := p.Learned
		pos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
		if !pos(f.Kappa0) || !pos(f.Shape0) || !pos(f.Rate0) {
			return fmt.Errorf("%w: bias-precision parameters: learned prior κ₀ = %v, a₀ = %v, β₀ = %v, want finite numbers > 0", framework.ErrBadInput, f.Kappa0, f.Shape0, f.Rate0)
		}
		if len(f.Kappa) != R || len(f.Shape) != R || len(f.Rate) != R {
			return fmt.Errorf("%w: bias-precision parameters: learned posteriors for %d, %d, %d annotators, the model has %d", framework.ErrBadInput, len(f.Kappa), len(f.Shape), len(f.Rate), R)
		}
		for r := range R {
			if !pos(f.Kappa[r]) || !pos(f.Shape[r]) || !pos(f.Rate[r]) {
				return fmt.Errorf("%w: bias-precision parameters: the learned posterior of %q is κ = %v, a = %v, β = %v, want finite numbers > 0", framework.ErrBadInput, p.Annotators[r], f.Kappa[r], f.Shape[r], f.Rate[r])
			}
		}
		l = &learned{k0: f.Kappa0, a0: f.Shape0, b0: f.Rate0, biasOnly: m.Config.learnBiasOnly(), gammaOnly: m.Config.Learn == LearnPrecision, kap: f.Kappa, shape: f.Shape, rate: f.Rate, elogp: make([]float64, R)}
		for r := range R {
			l.elogp[r] = elogGamma(f.Shape[r], f.Rate[r])
		}
	}
	m.learn = l
	m.Ignores = p.IgnoresItems
	copy(m.Bias, p.Bias)
	copy(m.Prec, p.Precision)
	copy(m.Answers, p.Answers)
	m.S0 = p.PriorVar
	if _, auto, _ := m.Config.biasPrior(); auto && p.BiasPrior != nil {
		m.Kappa = *p.BiasPrior // with bias_prior = "auto" the file decides
	}
	m.run, m.runW = nil, 0
	return nil
}

// Interface checks.
var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
)

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "bias-precision.n", Len: len(s.N)}, {Name: "bias-precision.sy", Len: len(s.SY)}, {Name: "bias-precision.sq", Len: len(s.SQ)}}
}

// Sums visits N, SY and SQ.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.N, s.SY, s.SQ)
}

// SetSums sets N, SY and SQ.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	framework.SetSliceSums(0, get, s.N, s.SY, s.SQ)
}
