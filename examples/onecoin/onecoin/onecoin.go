// Package onecoin is an annotator model written outside maslda against its
// public API: the "my-one-coin" model, in which annotator r gives the true
// class with probability a_r and each wrong class with probability
// (1 − a_r)/(C − 1). It registers itself as "my-one-coin" (annotators
// "my-one-coin" { alpha = 2, beta = 2 }); docs/extending.md builds it step
// by step. It is teaching material: maslda has a built-in one-coin model
// (annotators/onecoin, "one-coin", with a Beta posterior), whose name this
// one must not take.
//
// The accuracy is a point estimate under a Beta(α, β) prior, fitted from
// running statistics that SVI blends (MODEL.md §5): with λ_d the target
// posterior and y_dr annotator r's answer, c_r = Σ_d λ_{d,y_dr} (expected
// correct answers) and n_r (answers),
//
//	a_r = (c_r + α − 1) / (n_r + α + β − 2).
package onecoin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
)

// Name is the registered name.
const Name = "my-one-coin"

func init() { framework.RegisterNoise(Name, New) }

// Params is the `annotators "my-one-coin" { ... }` block, decoded by its hcl
// tags; the zero value means the defaults.
type Params struct {
	Alpha float64 `hcl:"alpha,optional"` // Beta prior on the accuracy (default 2)
	Beta  float64 `hcl:"beta,optional"`  // (default 2)
}

// New is the factory registered as "my-one-coin".
func New(p framework.Params) (framework.NoiseModel, error) {
	pr := Params{}
	if p != nil {
		if err := p.Decode(&pr); err != nil {
			if !errors.Is(err, framework.ErrBadInput) {
				err = fmt.Errorf("%w: %v", framework.ErrBadInput, err)
			}
			return nil, err
		}
	}
	if pr.Alpha == 0 {
		pr.Alpha = 2
	}
	if pr.Beta == 0 {
		pr.Beta = 2
	}
	if !(pr.Alpha >= 1) || !(pr.Beta >= 1) || math.IsInf(pr.Alpha+pr.Beta, 0) {
		return nil, fmt.Errorf("%w: %s: alpha = %v, beta = %v, want finite numbers ≥ 1", framework.ErrBadInput, Name, pr.Alpha, pr.Beta)
	}
	return &Model{params: pr}, nil
}

// Model is the one-coin annotator model.
type Model struct {
	Acc    []float64 // a_r
	C      int       // classes
	params Params
	run    *Stats  // running statistics (SVI); nil before the first update
	runW   float64 // the sum of their blending weights
}

var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
)

// Init sizes the accuracies from the annotators and classes, starting at
// the prior's mode blended toward 0.7.
func (m *Model) Init(s *framework.Setup) error {
	if len(s.Classes) < 2 {
		return fmt.Errorf("%w: %s needs categorical answers with at least 2 classes", framework.ErrIncompatible, Name)
	}
	m.C = len(s.Classes)
	m.Acc = make([]float64, len(s.Annotators))
	for r := range m.Acc {
		m.Acc[r] = 0.7
	}
	m.run, m.runW = nil, 0
	return nil
}

// Accepts accepts categorical targets only.
func (m *Model) Accepts(t framework.Target) error {
	if _, ok := t.(*framework.Categorical); !ok {
		return fmt.Errorf("%w: %s needs a categorical target, not %T", framework.ErrIncompatible, Name, t)
	}
	return nil
}

// logs returns log a_r and log((1 − a_r)/(C − 1)).
func (m *Model) logs(r int32) (right, wrong float64) {
	a := m.Acc[r]
	return math.Log(a), math.Log((1 - a) / float64(m.C-1))
}

// Evidence adds Σ_r log p(y_dr | c = l) to Log[l]: the gradient of DocELBO
// in λ_d.
func (m *Model) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	for _, a := range d.Answers {
		right, wrong := m.logs(a.Annotator)
		for l := range t.Log {
			if int32(l) == a.Class {
				t.Log[l] += right
			} else {
				t.Log[l] += wrong
			}
		}
	}
}

// DocELBO is E_q[log p(answers_d | c_d)] = Σ_r Σ_l λ_l log p(y_dr | l).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	e := 0.0
	for _, a := range d.Answers {
		right, wrong := m.logs(a.Annotator)
		for l, p := range t.P {
			if int32(l) == a.Class {
				e += p * right
			} else {
				e += p * wrong
			}
		}
	}
	return e
}

// Stats are, per annotator, the expected correct answers and the answers.
type Stats struct{ Correct, N []float64 }

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats {
	return &Stats{Correct: make([]float64, len(m.Acc)), N: make([]float64, len(m.Acc))}
}

// Merge adds o.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	for r := range s.N {
		s.Correct[r] += t.Correct[r]
		s.N[r] += t.N[r]
	}
}

// Reset empties s.
func (s *Stats) Reset() { clear(s.Correct); clear(s.N) }

// Accumulate adds document d's answers.
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	for _, a := range d.Answers {
		s.Correct[a.Annotator] += t.P[a.Class]
		s.N[a.Annotator]++
	}
}

// Update blends the running statistics, R ← (1−ρ)R + ρ·S·stats, W ←
// (1−ρ)W + ρ, and sets every accuracy to the MAP estimate from R/W.
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if step.Rho == 0 {
		return nil
	}
	s := st.(*Stats)
	if m.run == nil {
		m.run = m.NewStats().(*Stats)
	}
	rho := step.Rho
	m.runW = (1-rho)*m.runW + rho
	for r := range m.Acc {
		m.run.Correct[r] = (1-rho)*m.run.Correct[r] + rho*step.Scale*s.Correct[r]
		m.run.N[r] = (1-rho)*m.run.N[r] + rho*step.Scale*s.N[r]
		c, n := m.run.Correct[r]/m.runW, m.run.N[r]/m.runW
		m.Acc[r] = (c + m.params.Alpha - 1) / (n + m.params.Alpha + m.params.Beta - 2)
	}
	return nil
}

// ELBO is S·Σ_r [c_r log a_r + (n_r − c_r) log((1 − a_r)/(C − 1))] plus
// the log prior density of the accuracies (they are MAP estimates).
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local, prior := 0.0, 0.0
	al, be := m.params.Alpha, m.params.Beta
	lbeta := func(a, b float64) float64 {
		x, _ := math.Lgamma(a)
		y, _ := math.Lgamma(b)
		z, _ := math.Lgamma(a + b)
		return x + y - z
	}
	for r := range m.Acc {
		right, wrong := m.logs(int32(r))
		local += s.Correct[r]*right + (s.N[r]-s.Correct[r])*wrong
		a := m.Acc[r]
		prior += (al-1)*math.Log(a) + (be-1)*math.Log(1-a) - lbeta(al, be)
	}
	return step.Scale*local + prior
}

// SaveParams writes the accuracies as JSON.
func (m *Model) SaveParams(w io.Writer) error {
	return json.NewEncoder(w).Encode(map[string]any{"format": "my-one-coin", "accuracies": m.Acc})
}

// LoadParams restores what SaveParams wrote into a model initialised with
// as many annotators.
func (m *Model) LoadParams(r io.Reader) error {
	var p struct {
		Format     string    `json:"format"`
		Accuracies []float64 `json:"accuracies"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, Name, err)
	}
	if p.Format != "my-one-coin" || len(p.Accuracies) != len(m.Acc) {
		return fmt.Errorf("%w: %s parameters: format %q with %d accuracies, want %q with %d", framework.ErrBadInput, Name, p.Format, len(p.Accuracies), "my-one-coin", len(m.Acc))
	}
	for r, a := range p.Accuracies {
		if !(a > 0 && a < 1) {
			return fmt.Errorf("%w: %s parameters: accuracy %d is %v", framework.ErrBadInput, Name, r, a)
		}
	}
	copy(m.Acc, p.Accuracies)
	return nil
}

// Running returns the running statistics and their weight (what Update
// blends; for tests).
func (m *Model) Running() (correct, answers []float64, weight float64) {
	if m.run == nil {
		return nil, nil, 0
	}
	return m.run.Correct, m.run.N, m.runW
}
