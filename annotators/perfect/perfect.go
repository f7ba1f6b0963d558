package perfect

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// Name is the name the noise model is registered under.
const Name = "perfect"

func init() {
	framework.RegisterNoise(Name, func(p framework.Params) (framework.NoiseModel, error) {
		c := Defaults()
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return New(c)
	})
}

// Aggregates of the crowd's answers (Params.Aggregate).
const (
	Majority = "majority" // categorical target: the most frequent answer, ties split evenly
	Mean     = "mean"     // Gaussian target: the mean answer
	Wawa     = "wawa"     // categorical target: the vote weighted by each annotator's agreement with the majority
)

// RelPrecision is the default precision of the perfect annotator on a
// Gaussian target, relative to the spread of the aggregates: P =
// RelPrecision / s², s² the variance of the training documents' mean
// answers (see Model.Init).
const RelPrecision = 1e8

// Params are the settings of the `annotators "perfect" { ... }` block.
type Params struct {
	// Aggregate is "majority" (categorical target) or "mean" (Gaussian
	// target). Default "" chooses by the target: "majority" for
	// categorical answers and targets, "mean" for numeric ones.
	Aggregate string `hcl:"aggregate,optional"`
	// Precision is P > 0, the precision of the perfect annotator's answer
	// (the mean answer) around the true target of a Gaussian target, or 0
	// (default) for RelPrecision / s², s² the variance of the training
	// documents' mean answers (1 when it is not positive). Ignored by
	// "majority".
	Precision float64 `hcl:"precision,optional"`
}

// Defaults returns the documented defaults: the aggregate chosen by the
// target, the automatic precision.
func Defaults() Params { return Params{} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch p.Aggregate {
	case "", Majority, Mean, Wawa:
	default:
		return fmt.Errorf("%w: annotators %s: aggregate = %q; valid: %q or %q (categorical target), %q (Gaussian target), or unset (chosen by the target)", framework.ErrBadInput, Name, p.Aggregate, Majority, Wawa, Mean)
	}
	if !(p.Precision >= 0) || math.IsInf(p.Precision, 0) {
		return fmt.Errorf("%w: annotators %s: precision = %v, want a finite number > 0, or 0 for %g / (variance of the mean answers)", framework.ErrBadInput, Name, p.Precision, RelPrecision)
	}
	return nil
}

// Model is one perfect annotator whose answer is the crowd's aggregate
// (MODEL.md §6, "sLDA (mv) / sLDA (mean)"). It implements
// framework.NoiseModel, framework.DocScorer and framework.Reporter. It has
// no parameters to learn; Evidence, DocELBO and Accumulate are safe for
// concurrent use.
type Model struct {
	Config Params

	agg     string // resolved aggregate ("" until Init or Bind can tell)
	classes int    // C for a categorical target (0 unknown)
	prec    float64
	docs    int // training documents with at least one answer
	answers int // training answers
	ties    int // training documents whose majority is tied ("majority")
	// weights are the annotators' weights of "wawa" (Init, from the
	// training answers); nil without a training corpus (a rebuilt saved
	// model), when every answer weighs 1.
	weights []float64
	workers []string // annotator names (Report)
}

// Interface checks.
var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
)

// saved is what a trained model keeps of the perfect annotators: the
// precision of the averaged answers (from the training answers unless
// configured) and the weights of "wawa".
type saved struct {
	Precision float64   `json:"precision"`
	Weights   []float64 `json:"weights,omitempty"`
}

// ClampedTruth is true: the truth is clamped to the crowd's aggregate,
// which no fit changes, so models.Build runs one fit of it by default
// (no consensus among seeds: docs/design.md, "Consensus among seeds").
func (m *Model) ClampedTruth() bool { return true }

// SaveParams writes the precision and the "wawa" weights as JSON
// (framework.Persister), so that a saved model answers as the trained one.
func (m *Model) SaveParams(w io.Writer) error {
	return json.NewEncoder(w).Encode(saved{Precision: m.prec, Weights: m.weights})
}

// LoadParams restores what SaveParams wrote (after Init); a precision that
// is not positive and finite, or a weight that is negative or not finite,
// is framework.ErrBadInput.
func (m *Model) LoadParams(r io.Reader) error {
	var s saved
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return fmt.Errorf("%w: annotators %s: parameters: %v", framework.ErrBadInput, Name, err)
	}
	if !(s.Precision > 0) || math.IsInf(s.Precision, 0) {
		return fmt.Errorf("%w: annotators %s: precision %v, want > 0 and finite", framework.ErrBadInput, Name, s.Precision)
	}
	for r, x := range s.Weights {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: annotators %s: weight %d is %v, want ≥ 0 and finite", framework.ErrBadInput, Name, r, x)
		}
	}
	m.prec, m.weights = s.Precision, s.Weights
	return nil
}

// New returns a model with the given settings (call Init before use).
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: p, agg: p.Aggregate}, nil
}

// Aggregate is the aggregate in use: Config.Aggregate, or the one chosen by
// Init or Bind ("" while neither could tell).
func (m *Model) Aggregate() string { return m.agg }

// Precision is P, the precision of the perfect answer on a Gaussian target
// (set by Init).
func (m *Model) Precision() float64 { return m.prec }

// resolve sets the aggregate a target kind needs, refusing a conflicting
// configured one with framework.ErrIncompatible.
func (m *Model) resolve(want, what string) error {
	if want == Majority && m.agg == Wawa {
		return nil // the weighted vote of a categorical target
	}
	if m.agg != "" && m.agg != want {
		return fmt.Errorf("%w: annotators %s: aggregate = %q does not fit %s (it needs aggregate = %q)", framework.ErrIncompatible, Name, m.agg, what, want)
	}
	m.agg = want
	return nil
}

// Init reads the training answers (Setup.Corpus) for the report and, for
// "mean", the automatic precision P = RelPrecision / s², s² the variance
// over answered documents of their mean answer (1 when not positive or
// without a corpus, as when a saved model is rebuilt). The aggregate must
// fit the answers: categorical answers (Setup.Classes) need "majority",
// numeric ones "mean" (framework.ErrIncompatible); answers outside the
// classes or non-finite are framework.ErrBadInput.
func (m *Model) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: annotators %s: no setup", framework.ErrBadInput, Name)
	}
	var a *framework.Answers
	if s.Corpus != nil {
		a = s.Corpus.Answers
	}
	switch {
	case len(s.Classes) > 0:
		if err := m.resolve(Majority, fmt.Sprintf("categorical answers (%d classes)", len(s.Classes))); err != nil {
			return err
		}
		m.classes = len(s.Classes)
	case a != nil && a.Numeric():
		if err := m.resolve(Mean, "numeric answers"); err != nil {
			return err
		}
	}
	if a != nil && !a.Numeric() && m.agg == Mean {
		return fmt.Errorf("%w: annotators %s: aggregate = %q needs numeric answers; the corpus's are categorical", framework.ErrIncompatible, Name, Mean)
	}
	if a != nil && a.Numeric() && (m.agg == Majority || m.agg == Wawa) {
		return fmt.Errorf("%w: annotators %s: aggregate = %q needs categorical answers; the corpus's are numbers", framework.ErrIncompatible, Name, m.agg)
	}
	m.docs, m.answers, m.ties = 0, 0, 0
	m.weights, m.workers = nil, s.Annotators
	var sum, sumSq float64
	if a != nil {
		C := m.classes
		for d, as := range a.ByDoc {
			if len(as) == 0 {
				continue
			}
			mean := 0.0
			for _, x := range as {
				if a.Numeric() {
					if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
						return fmt.Errorf("%w: annotators %s: document %d: answer %v is not a finite number", framework.ErrBadInput, Name, d, x.Value)
					}
					mean += x.Value
				} else if x.Class < 0 || int(x.Class) >= C {
					return fmt.Errorf("%w: annotators %s: document %d: class index %d outside [0, %d)", framework.ErrBadInput, Name, d, x.Class, C)
				}
			}
			m.docs++
			m.answers += len(as)
			if a.Numeric() {
				mean /= float64(len(as))
				sum += mean
				sumSq += mean * mean
			} else if _, ties := top(as, C); ties > 1 && m.agg != Wawa {
				m.ties++
			}
		}
		if m.agg == Wawa {
			m.weights = WawaWeights(a, len(s.Annotators), C)
			for _, as := range a.ByDoc {
				if _, ties := m.weightedTop(as, C); ties > 1 {
					m.ties++
				}
			}
		}
	}
	m.prec = m.Config.Precision
	if m.prec == 0 {
		s2 := 0.0
		if m.docs > 1 {
			mu := sum / float64(m.docs)
			s2 = (sumSq - float64(m.docs)*mu*mu) / float64(m.docs-1)
		}
		if !(s2 > 0) || math.IsInf(s2, 0) {
			s2 = 1
		}
		m.prec = RelPrecision / s2
	}
	return nil
}

// Accepts accepts a *framework.Categorical target with "majority" (or an
// unset aggregate) and as many classes as the answers, and a
// *framework.Gaussian target with "mean" (or unset); anything else is
// framework.ErrIncompatible.
func (m *Model) Accepts(t framework.Target) error {
	switch t := t.(type) {
	case *framework.Categorical:
		if err := m.resolve(Majority, "a categorical target (a classification response)"); err != nil {
			return err
		}
		if m.classes > 0 && len(t.Log) != m.classes {
			return fmt.Errorf("%w: annotators %s: the response's target has %d classes but the answers have %d", framework.ErrIncompatible, Name, len(t.Log), m.classes)
		}
		m.classes = len(t.Log)
	case *framework.Gaussian:
		if err := m.resolve(Mean, "a Gaussian target (a regression response)"); err != nil {
			return err
		}
		if m.prec == 0 {
			m.prec = RelPrecision
		}
	default:
		return fmt.Errorf("%w: annotators %s need a categorical or a Gaussian target; the response's target is %T", framework.ErrIncompatible, Name, t)
	}
	return nil
}

// votes is the number of answers of class l.
func votes(as []framework.Answer, l int) int {
	n := 0
	for _, a := range as {
		if int(a.Class) == l {
			n++
		}
	}
	return n
}

// top returns the largest number of votes for one of the C classes and
// how many classes have it (0, 0 when no answer is a class in [0, C)).
// O(C·|as|), no allocation.
func top(as []framework.Answer, C int) (best, ties int) {
	for l := 0; l < C; l++ {
		switch n := votes(as, l); {
		case n > best:
			best, ties = n, 1
		case n == best && n > 0:
			ties++
		}
	}
	return best, ties
}

// MajorityWeights sets dst (length C) to the majority vote of answers as a
// distribution: 1/m on each of the m classes with the most votes, 0
// elsewhere, and reports whether there was a vote (answers of a class in
// [0, C)). It is the aggregate w_d of "majority".
func MajorityWeights(dst []float64, answers []framework.Answer) bool {
	best, ties := top(answers, len(dst))
	for l := range dst {
		dst[l] = 0
		if ties > 0 && votes(answers, l) == best {
			dst[l] = 1 / float64(ties)
		}
	}
	return ties > 0
}

// WawaWeights are the annotators' weights of "wawa" (weighted majority
// vote, as crowd-kit's Wawa): annotator r's agreement with the majority
// vote, w_r = Σ_{answers y of r about d} w_dy / n_r with w_d the majority
// vote as a distribution (MajorityWeights: a tie counts 1/m for each of its
// m classes), 0 for an annotator without answers. R annotators, C classes.
func WawaWeights(a *framework.Answers, R, C int) []float64 {
	agree, n := make([]float64, R), make([]float64, R)
	mv := make([]float64, C)
	for _, as := range a.ByDoc {
		if !MajorityWeights(mv, as) {
			continue
		}
		for _, x := range as {
			if x.Annotator < 0 || int(x.Annotator) >= R || x.Class < 0 || int(x.Class) >= C {
				continue
			}
			agree[x.Annotator] += mv[x.Class]
			n[x.Annotator]++
		}
	}
	for r := range agree {
		if n[r] > 0 {
			agree[r] /= n[r]
		}
	}
	return agree
}

// Weights are the annotators' weights of "wawa" (nil otherwise, and
// without a training corpus).
func (m *Model) Weights() []float64 { return m.weights }

// weight is annotator r's weight in the vote: 1 for "majority" (and for
// "wawa" without weights), w_r for "wawa".
func (m *Model) weight(r int32) float64 {
	if m.weights == nil || r < 0 || int(r) >= len(m.weights) {
		return 1
	}
	return m.weights[r]
}

// score is the weighted vote for class l: Σ_{answers l} w_r.
func (m *Model) score(as []framework.Answer, l int) float64 {
	s := 0.0
	for _, a := range as {
		if int(a.Class) == l {
			s += m.weight(a.Annotator)
		}
	}
	return s
}

// weightedTop is top for "wawa": the largest weighted vote (> 0) and how
// many classes have it.
func (m *Model) weightedTop(as []framework.Answer, C int) (best float64, ties int) {
	for l := 0; l < C; l++ {
		switch s := m.score(as, l); {
		case s > best:
			best, ties = s, 1
		case s == best && s > 0:
			ties++
		}
	}
	return best, ties
}

// Evidence adds the perfect annotator's message onto d.Target. A document
// without answers gets none.
//
// Categorical ("majority"): Log[l] += log w_dl, w_d the majority vote as a
// distribution (MajorityWeights): 0 on a majority class with no tie,
// −log m on each of m tied classes, −Inf elsewhere, so that
// Categorical.Finalize gives λ_dl = 0 exactly outside the majority and
// λ_d = e_c exactly for a single majority class c (the target is clamped,
// whatever the response's prior message says); within a tie the response's
// prior message decides.
//
// Gaussian ("mean"): Prec += P, PrecMean += P·ȳ_d, ȳ_d the mean answer:
// MODEL.md §3's message of one annotator with b = 0, p = P.
func (m *Model) Evidence(d *framework.DocState) {
	if len(d.Answers) == 0 {
		return
	}
	switch t := d.Target.(type) {
	case *framework.Categorical:
		if m.agg == Wawa {
			best, ties := m.weightedTop(d.Answers, len(t.Log))
			if ties == 0 {
				return
			}
			lw := -math.Log(float64(ties))
			for l := range t.Log {
				if m.score(d.Answers, l) == best {
					t.Log[l] += lw
				} else {
					t.Log[l] = math.Inf(-1)
				}
			}
			return
		}
		best, ties := top(d.Answers, len(t.Log))
		if ties == 0 {
			return
		}
		lw := -math.Log(float64(ties))
		for l := range t.Log {
			if votes(d.Answers, l) == best {
				t.Log[l] += lw
			} else {
				t.Log[l] = math.Inf(-1)
			}
		}
	case *framework.Gaussian:
		y, _ := framework.DocMean(d.Answers)
		t.Prec += m.prec
		t.PrecMean += m.prec * y
	}
}

// DocELBO is document d's part of the perfect annotator's ELBO term
// (MODEL.md §4) given its q(target); 0 without answers.
//
// Categorical: Σ_l λ_dl log w_dl (terms with λ_dl = 0 are 0; −Inf if q puts
// mass outside the majority, which Evidence rules out), i.e. 0 for a
// document with a single majority class and −log m within an m-way tie.
//
// Gaussian: ½log P − ½log 2π − (P/2)((ȳ_d − m_d)² + v_d), MODEL.md §4's
// bias/precision term with b = 0, p = P.
func (m *Model) DocELBO(d *framework.DocState) float64 {
	if len(d.Answers) == 0 {
		return 0
	}
	switch t := d.Target.(type) {
	case *framework.Categorical:
		if m.agg == Wawa {
			best, ties := m.weightedTop(d.Answers, len(t.P))
			if ties == 0 {
				return 0
			}
			lw := -math.Log(float64(ties))
			e := 0.0
			for l, p := range t.P {
				if p == 0 {
					continue
				}
				if m.score(d.Answers, l) != best {
					return math.Inf(-1)
				}
				e += p * lw
			}
			return e
		}
		best, ties := top(d.Answers, len(t.P))
		if ties == 0 {
			return 0
		}
		lw := -math.Log(float64(ties))
		e := 0.0
		for l, p := range t.P {
			if p == 0 {
				continue
			}
			if votes(d.Answers, l) != best {
				return math.Inf(-1)
			}
			e += p * lw
		}
		return e
	case *framework.Gaussian:
		y, _ := framework.DocMean(d.Answers)
		res := y - t.Mean
		return 0.5*math.Log(m.prec/(2*math.Pi)) - 0.5*m.prec*(res*res+t.Var)
	}
	return 0
}

// Stats are the number of answered documents and the sum of their
// DocELBO (the ELBO has no global part).
type Stats = framework.DocSums

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats { return &Stats{} }

// Accumulate adds document d's DocELBO (after its local step) to st.
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	if len(d.Answers) == 0 {
		return
	}
	s := st.(*Stats)
	s.Docs++
	s.Sum += m.DocELBO(d)
}

// Update has nothing to learn; it checks the step and the context.
func (m *Model) Update(ctx context.Context, _ framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := step.Check("annotators " + Name); err != nil {
		return err
	}
	return nil
}

// ELBO is S·Σ_d DocELBO(d) over the documents of st.
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	return step.Scale * st.(*Stats).Sum
}

// Summary is annotators.json's content (Report's doc).
type Summary struct {
	Annotator string             `json:"annotator"`           // "perfect"
	Aggregate string             `json:"aggregate"`           // "majority" or "mean"
	Documents int                `json:"documents"`           // training documents with answers
	Answers   int                `json:"answers"`             // training answers
	Ties      int                `json:"ties,omitempty"`      // "majority", "wawa": documents whose (weighted) majority is tied
	Weights   map[string]float64 `json:"weights,omitempty"`   // "wawa": each annotator's weight
	Precision float64            `json:"precision,omitempty"` // "mean": P
}

// Report (framework.Reporter) is one row: the aggregate, how many training
// documents were answered and with how many answers, the number of tied
// majorities ("majority") or the precision P ("mean"). Header:
//
//	annotator,aggregate,documents,answers,ties,precision
//
// (ties empty for "mean", precision empty for "majority").
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	s := Summary{Annotator: Name, Aggregate: m.agg, Documents: m.docs, Answers: m.answers}
	ties, prec := "", ""
	switch m.agg {
	case Majority, Wawa:
		s.Ties = m.ties
		ties = strconv.Itoa(m.ties)
		if m.agg == Wawa && m.weights != nil {
			s.Weights = map[string]float64{}
			for r, w := range m.weights {
				name := strconv.Itoa(r)
				if r < len(m.workers) {
					name = m.workers[r]
				}
				s.Weights[name] = w
			}
		}
	case Mean:
		s.Precision = m.prec
		prec = strconv.FormatFloat(m.prec, 'g', 6, 64)
	}
	header = []string{"annotator", "aggregate", "documents", "answers", "ties", "precision"}
	rows = [][]string{{Name, m.agg, strconv.Itoa(m.docs), strconv.Itoa(m.answers), ties, prec}}
	return header, rows, s
}
