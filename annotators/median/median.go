package median

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// Name is the name the annotator model is registered under.
const Name = "median"

// RelPrecision is the default precision relative to the spread of the
// medians (as the perfect annotators' mean).
const RelPrecision = 1e8

func init() {
	framework.RegisterNoise(Name, func(p framework.Params) (framework.NoiseModel, error) {
		var c Params
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return New(c)
	})
}

// Params are the settings of the `annotators "median" { ... }` block.
type Params struct {
	// Precision is P > 0, or 0 (default) for RelPrecision / s².
	Precision float64 `hcl:"precision,optional"`
}

// Model is the median answer as one perfect annotator.
type Model struct {
	Config        Params
	prec          float64
	docs, answers int
}

var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
)

// New returns a model with the given settings (call Init before use).
func New(p Params) (*Model, error) {
	if !(p.Precision >= 0) || math.IsInf(p.Precision, 0) {
		return nil, fmt.Errorf("%w: annotators %s: precision = %v, want a finite number > 0, or 0 for %g / (variance of the medians)", framework.ErrBadInput, Name, p.Precision, RelPrecision)
	}
	return &Model{Config: p}, nil
}

// Median is the median of the answers' values (the mean of the middle two
// for an even number); NaN without answers.
func Median(as []framework.Answer) float64 {
	if len(as) == 0 {
		return math.NaN()
	}
	v := make([]float64, len(as))
	for i, a := range as {
		v[i] = a.Value
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Init needs numeric answers (no classes) and sets the automatic precision
// from the training tasks' medians.
func (m *Model) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: annotators %s: no setup", framework.ErrBadInput, Name)
	}
	if len(s.Classes) > 0 {
		return fmt.Errorf("%w: annotators %s takes the median of numbers; the answers are %d classes", framework.ErrIncompatible, Name, len(s.Classes))
	}
	m.docs, m.answers = 0, 0
	var sum, sumSq float64
	if s.Corpus != nil && s.Corpus.Answers != nil {
		a := s.Corpus.Answers
		if !a.Numeric() {
			return fmt.Errorf("%w: annotators %s needs numeric answers", framework.ErrIncompatible, Name)
		}
		for d, as := range a.ByDoc {
			if len(as) == 0 {
				continue
			}
			for _, x := range as {
				if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
					return fmt.Errorf("%w: annotators %s: document %d: answer %v is not a finite number", framework.ErrBadInput, Name, d, x.Value)
				}
			}
			med := Median(as)
			m.docs++
			m.answers += len(as)
			sum += med
			sumSq += med * med
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

// Accepts a *framework.Gaussian target only.
func (m *Model) Accepts(t framework.Target) error {
	if _, ok := t.(*framework.Gaussian); !ok {
		return fmt.Errorf("%w: annotators %s need a Gaussian target (a numeric response); the response's target is %T", framework.ErrIncompatible, Name, t)
	}
	if m.prec == 0 {
		m.prec = RelPrecision
	}
	return nil
}

// Evidence adds the median's message: Prec += P, PrecMean += P·ỹ_d.
func (m *Model) Evidence(d *framework.DocState) {
	if len(d.Answers) == 0 {
		return
	}
	t := d.Target.(*framework.Gaussian)
	t.Prec += m.prec
	t.PrecMean += m.prec * Median(d.Answers)
}

// DocELBO is ½log P − ½log 2π − (P/2)((ỹ_d − m_d)² + v_d); 0 without
// answers.
func (m *Model) DocELBO(d *framework.DocState) float64 {
	if len(d.Answers) == 0 {
		return 0
	}
	t := d.Target.(*framework.Gaussian)
	res := Median(d.Answers) - t.Mean
	return 0.5*math.Log(m.prec/(2*math.Pi)) - 0.5*m.prec*(res*res+t.Var)
}

// Stats are the number of answered documents and the sum of their
// DocELBO (the ELBO has no global part).
type Stats = framework.DocSums

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats { return &Stats{} }

// Accumulate adds document d's DocELBO.
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

type saved struct {
	Precision float64 `json:"precision"`
}

// SaveParams writes P (framework.Persister).
func (m *Model) SaveParams(w io.Writer) error { return json.NewEncoder(w).Encode(saved{m.prec}) }

// LoadParams restores what SaveParams wrote.
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
	m.prec = s.Precision
	return nil
}

// Summary is annotators.json's content.
type Summary struct {
	Annotator string  `json:"annotator"` // "median"
	Documents int     `json:"documents"`
	Answers   int     `json:"answers"`
	Precision float64 `json:"precision"`
}

// Report is one row: annotator,documents,answers,precision.
func (m *Model) Report() ([]string, [][]string, any) {
	row := []string{Name, strconv.Itoa(m.docs), strconv.Itoa(m.answers), strconv.FormatFloat(m.prec, 'g', 10, 64)}
	return []string{"annotator", "documents", "answers", "precision"}, [][]string{row},
		Summary{Annotator: Name, Documents: m.docs, Answers: m.answers, Precision: m.prec}
}
