package frameworktest

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
)

// FlatResponse is a response with no parameters, for testing annotator
// models alone (Dawid–Skene when the target is categorical): its prior
// message is flat (categorical: log p(c) = −log C for every class;
// Gaussian: N(Mean, Var), by default N(0, 100)), it never reads the
// documents and it has no supervision term. Its part of a document's bound
// is E_q[log p(target)] + H[q(target)] (the response adds the target's
// entropy, as every response must).
type FlatResponse struct {
	Kind string  // KindCategorical or KindGaussian
	C    int     // classes (categorical; set by Init from Setup.Classes when 0)
	Mean float64 // Gaussian prior mean
	Var  float64 // Gaussian prior variance (100 when 0)
}

var (
	_ framework.Likelihood   = (*FlatResponse)(nil)
	_ framework.DocScorer    = (*FlatResponse)(nil)
	_ framework.DocumentFree = (*FlatResponse)(nil)
	_ framework.Persister    = (*FlatResponse)(nil)
)

// sumStats are statistics that are a sum of per-document values.
type sumStats struct{ sum float64 }

func (s *sumStats) Merge(o framework.Stats) { s.sum += o.(*sumStats).sum }
func (s *sumStats) Reset()                  { s.sum = 0 }

// Init takes the number of classes from s.Classes (categorical).
func (f *FlatResponse) Init(s *framework.Setup) error {
	if err := checkKind(f.Kind); err != nil {
		return fmt.Errorf("%w: %v", framework.ErrBadInput, err)
	}
	if f.Kind == KindCategorical && f.C == 0 {
		f.C = len(s.Classes)
	}
	if f.Kind == KindCategorical && f.C < 2 {
		return fmt.Errorf("%w: flat response: %d classes", framework.ErrBadInput, f.C)
	}
	if f.Var == 0 {
		f.Var = 100
	}
	return nil
}

// IgnoresDocuments is true.
func (f *FlatResponse) IgnoresDocuments() bool { return true }

// NewTarget returns a target of the kind.
func (f *FlatResponse) NewTarget() framework.Target { return newTarget(f.Kind, f.C) }

// NewLocal returns the local step's part (prior message only).
func (f *FlatResponse) NewLocal() framework.LikelihoodLocal { return flatLocal{f} }

// Predict sets d.Target to the prior.
func (f *FlatResponse) Predict(d *framework.DocState) {
	d.Target.Reset()
	flatLocal{f}.TargetTerm(d)
	d.Target.Finalize()
}

// NewStats returns the sum of the documents' DocELBO.
func (f *FlatResponse) NewStats() framework.Stats { return &sumStats{} }

// Accumulate adds DocELBO(d).
func (f *FlatResponse) Accumulate(s framework.Stats, d *framework.DocState) {
	s.(*sumStats).sum += f.DocELBO(d)
}

// Update does nothing: there are no parameters.
func (f *FlatResponse) Update(ctx context.Context, _ framework.Stats, _ framework.Step) error {
	return ctx.Err()
}

// ELBO is S·Σ_d DocELBO.
func (f *FlatResponse) ELBO(s framework.Stats, st framework.Step) float64 {
	return st.Scale * s.(*sumStats).sum
}

// DocELBO is E_q[log p(target)] + H[q(target)].
func (f *FlatResponse) DocELBO(d *framework.DocState) float64 {
	switch t := d.Target.(type) {
	case *framework.Categorical:
		return -math.Log(float64(len(t.P))) + t.Entropy()
	case *framework.Gaussian:
		r := t.Mean - f.Mean
		return -0.5*math.Log(2*math.Pi*f.Var) - (r*r+t.Var)/(2*f.Var) + 0.5*math.Log(2*math.Pi*math.E*t.Var)
	}
	return math.NaN()
}

// SaveParams writes nothing: there are no parameters.
func (f *FlatResponse) SaveParams(io.Writer) error { return nil }

// LoadParams reads nothing.
func (f *FlatResponse) LoadParams(io.Reader) error { return nil }

type flatLocal struct{ f *FlatResponse }

func (flatLocal) Begin(*framework.DocState)                       {}
func (flatLocal) PhiTerm([]float64, *framework.DocState, int)     {}
func (flatLocal) WordChanged(*framework.DocState, int, []float64) {}
func (l flatLocal) TargetTerm(d *framework.DocState) {
	if t, ok := d.Target.(*framework.Gaussian); ok {
		t.Prec += 1 / l.f.Var
		t.PrecMean += l.f.Mean / l.f.Var
	}
}

// Clamped is a noise model with no parameters that observes the truth
// through every answer, for testing responses alone (supervised LDA when
// each document has one answer): a categorical answer y adds Pot to
// Log[y] (p(y | c) = exp(Pot·[y = c]) / (e^Pot + C − 1); Pot 50 when 0),
// a numeric answer y adds N(y, 1/Prec) (Prec 100 when 0). Its part of a
// document's bound is E_q[log p(answers | target)], so the target update
// is the exact maximiser of the bound it reports.
type Clamped struct {
	Pot  float64
	Prec float64
}

var (
	_ framework.NoiseModel    = (*Clamped)(nil)
	_ framework.DocScorer     = (*Clamped)(nil)
	_ framework.Parameterless = (*Clamped)(nil)
)

// Parameterless: a clamped model has nothing to save beyond its
// configuration (framework.Parameterless).
func (*Clamped) Parameterless() {}

// Init sets the defaults.
func (c *Clamped) Init(*framework.Setup) error {
	if c.Pot == 0 {
		c.Pot = 50
	}
	if c.Prec == 0 {
		c.Prec = 100
	}
	return nil
}

// Accepts accepts the framework's two targets.
func (c *Clamped) Accepts(t framework.Target) error {
	switch t.(type) {
	case *framework.Categorical, *framework.Gaussian:
		return nil
	}
	return fmt.Errorf("%w: clamped annotators: target %T", framework.ErrIncompatible, t)
}

// Evidence adds every answer's message.
func (c *Clamped) Evidence(d *framework.DocState) {
	switch t := d.Target.(type) {
	case *framework.Categorical:
		for _, a := range d.Answers {
			t.Log[a.Class] += c.Pot
		}
	case *framework.Gaussian:
		for _, a := range d.Answers {
			t.Prec += c.Prec
			t.PrecMean += c.Prec * a.Value
		}
	}
}

// DocELBO is E_q[log p(answers | target)].
func (c *Clamped) DocELBO(d *framework.DocState) float64 {
	e := 0.0
	switch t := d.Target.(type) {
	case *framework.Categorical:
		logZ := c.Pot + math.Log1p(float64(len(t.P)-1)*math.Exp(-c.Pot))
		for _, a := range d.Answers {
			e += c.Pot*t.P[a.Class] - logZ
		}
	case *framework.Gaussian:
		for _, a := range d.Answers {
			r := a.Value - t.Mean
			e += 0.5*math.Log(c.Prec/(2*math.Pi)) - 0.5*c.Prec*(r*r+t.Var)
		}
	}
	return e
}

// NewStats returns the sum of the documents' DocELBO.
func (c *Clamped) NewStats() framework.Stats { return &sumStats{} }

// Accumulate adds DocELBO(d).
func (c *Clamped) Accumulate(s framework.Stats, d *framework.DocState) {
	s.(*sumStats).sum += c.DocELBO(d)
}

// Update does nothing: there are no parameters.
func (c *Clamped) Update(ctx context.Context, _ framework.Stats, _ framework.Step) error {
	return ctx.Err()
}

// ELBO is S·Σ_d DocELBO.
func (c *Clamped) ELBO(s framework.Stats, st framework.Step) float64 {
	return st.Scale * s.(*sumStats).sum
}
