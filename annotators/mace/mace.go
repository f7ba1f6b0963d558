package mace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// Name is the registered name.
const Name = "mace"

func init() { framework.RegisterNoise(Name, factory) }

func factory(p framework.Params) (framework.NoiseModel, error) {
	pr := Defaults()
	if p != nil {
		if err := p.Decode(&pr); err != nil {
			if !errors.Is(err, framework.ErrBadInput) {
				err = fmt.Errorf("%w: %v", framework.ErrBadInput, err)
			}
			return nil, err
		}
	}
	return New(pr)
}

// Params is the `annotators "mace" { ... }` block.
type Params struct {
	Alpha float64 `hcl:"alpha,optional"` // Beta(α, β) prior on the competence θ_r (default 2)
	Beta  float64 `hcl:"beta,optional"`  // (default 2)
	Gamma float64 `hcl:"gamma,optional"` // symmetric Dirichlet(γ) prior on the spam distribution ξ_r (default 1.01)
}

// Defaults are α = β = 2, γ = 1.01.
func Defaults() Params { return Params{Alpha: 2, Beta: 2, Gamma: 1.01} }

// Validate checks α, β, γ: finite and > 1 (so that the MAP estimates stay
// inside the simplex); errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	for _, x := range []struct {
		n string
		v float64
	}{{"alpha", p.Alpha}, {"beta", p.Beta}, {"gamma", p.Gamma}} {
		if !(x.v > 1) || math.IsInf(x.v, 0) {
			return fmt.Errorf("%w: annotators %s: %s = %v, want a finite number > 1", framework.ErrBadInput, Name, x.n, x.v)
		}
	}
	return nil
}

// New returns a model with the given priors (call Init before use).
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: p}, nil
}

// Model is MACE (doc.go). Evidence, DocELBO and Accumulate are safe for
// concurrent use; Update is not.
type Model struct {
	Config Params
	Theta  []float64 // θ_r, competence
	Xi     []float64 // ξ_ry, R×C row-major, spam distributions
	C      int

	workers  []string
	classes  []string
	right    []float64 // log(θ_r + (1−θ_r)ξ_ry), R×C
	wrong    []float64 // log((1−θ_r)ξ_ry), R×C
	run      *Stats    // running statistics (SVI); nil before the first update
	runW     float64   // the sum of their blending weights
	answers  []int     // answers per annotator in the training corpus (report)
	maxRound int       // rounds of the last Update's inner EM (tests)
}

var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
)

// Init sizes the parameters from the annotators and classes: θ_r = 0.8,
// ξ_r uniform.
func (m *Model) Init(s *framework.Setup) error {
	if s == nil || len(s.Classes) < 2 {
		return fmt.Errorf("%w: annotators %s need categorical answers with at least 2 classes", framework.ErrIncompatible, Name)
	}
	m.C = len(s.Classes)
	R := len(s.Annotators)
	m.workers, m.classes = s.Annotators, s.Classes
	m.Theta = make([]float64, R)
	m.Xi = make([]float64, R*m.C)
	for r := range m.Theta {
		m.Theta[r] = 0.8
	}
	for i := range m.Xi {
		m.Xi[i] = 1 / float64(m.C)
	}
	m.right = make([]float64, R*m.C)
	m.wrong = make([]float64, R*m.C)
	m.refresh()
	m.run, m.runW = nil, 0
	var err error
	m.answers, err = s.CountAnswers(Name)
	return err
}

// Accepts accepts a categorical target of C classes.
func (m *Model) Accepts(t framework.Target) error {
	c, ok := t.(*framework.Categorical)
	if !ok {
		return fmt.Errorf("%w: annotators %s need a categorical target, not %T", framework.ErrIncompatible, Name, t)
	}
	if len(c.Log) != m.C {
		return fmt.Errorf("%w: annotators %s: the response's target has %d classes but the answers have %d", framework.ErrIncompatible, Name, len(c.Log), m.C)
	}
	return nil
}

// refresh recomputes the log-likelihood tables from θ and ξ.
func (m *Model) refresh() {
	C := m.C
	for r, th := range m.Theta {
		for y := 0; y < C; y++ {
			u := (1 - th) * m.Xi[r*C+y]
			m.right[r*C+y] = math.Log(th + u)
			m.wrong[r*C+y] = math.Log(u)
		}
	}
}

// Evidence adds Σ_r log p(y_dr | c_d = l) to Log[l]: the gradient of
// DocELBO in λ_d.
func (m *Model) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	C := m.C
	for _, a := range d.Answers {
		i := int(a.Annotator)*C + int(a.Class)
		rt, wr := m.right[i], m.wrong[i]
		for l := range t.Log {
			if l == int(a.Class) {
				t.Log[l] += rt
			} else {
				t.Log[l] += wr
			}
		}
	}
}

// DocELBO is Σ_r Σ_l λ_dl log p(y_dr | l).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	C := m.C
	e := 0.0
	for _, a := range d.Answers {
		i := int(a.Annotator)*C + int(a.Class)
		for l, p := range t.P {
			if l == int(a.Class) {
				e += p * m.right[i]
			} else {
				e += p * m.wrong[i]
			}
		}
	}
	return e
}

// Stats are A_ry (answers y by r whose truth is y, in expectation) and
// B_ry (those whose truth is another class), R×C each.
type Stats struct{ A, B []float64 }

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats {
	return &Stats{A: make([]float64, len(m.Xi)), B: make([]float64, len(m.Xi))}
}

// Merge adds o.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	for i := range s.A {
		s.A[i] += t.A[i]
		s.B[i] += t.B[i]
	}
}

// Reset empties s.
func (s *Stats) Reset() { clear(s.A); clear(s.B) }

// Accumulate adds document d's answers.
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	C := m.C
	for _, a := range d.Answers {
		i := int(a.Annotator)*C + int(a.Class)
		other := 0.0
		for l, p := range t.P {
			if l != int(a.Class) {
				other += p
			}
		}
		s.A[i] += t.P[a.Class]
		s.B[i] += other
	}
}

// Inner EM of Update: stop when no estimate moves by more than innerTol,
// after at most innerRounds rounds.
const (
	innerTol    = 1e-13
	innerRounds = 5000
)

// Update blends the running statistics, R ← (1−ρ)R + ρ·S·stats, W ←
// (1−ρ)W + ρ, and sets θ and ξ to the MAP estimates from R/W by EM over
// the spam indicators (doc.go).
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := step.Check("annotators " + Name); err != nil {
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
	for i := range s.A {
		m.run.A[i] = (1-rho)*m.run.A[i] + rho*step.Scale*s.A[i]
		m.run.B[i] = (1-rho)*m.run.B[i] + rho*step.Scale*s.B[i]
	}
	C := m.C
	al, be, ga := m.Config.Alpha, m.Config.Beta, m.Config.Gamma
	A, B := make([]float64, C), make([]float64, C)
	spam := make([]float64, C)
	m.maxRound = 0
	for r := range m.Theta {
		n := 0.0
		for y := 0; y < C; y++ {
			A[y], B[y] = m.run.A[r*C+y]/m.runW, m.run.B[r*C+y]/m.runW
			n += A[y] + B[y]
		}
		th, xi := m.Theta[r], m.Xi[r*C:(r+1)*C]
		round := 0
		for round < innerRounds {
			round++
			comp, tot := 0.0, 0.0
			for y := 0; y < C; y++ {
				w := th / (th + (1-th)*xi[y])
				comp += A[y] * w
				spam[y] = A[y]*(1-w) + B[y] + ga - 1
				tot += spam[y]
			}
			nth := (comp + al - 1) / (n + al + be - 2)
			move := math.Abs(nth - th)
			th = nth
			for y := range xi {
				x := spam[y] / tot
				move = math.Max(move, math.Abs(x-xi[y]))
				xi[y] = x
			}
			if !(move > innerTol) {
				break
			}
		}
		m.Theta[r] = th
		m.maxRound = max(m.maxRound, round)
	}
	m.refresh()
	return nil
}

// ELBO is S·Σ_ry [A_ry log(θ_r + (1−θ_r)ξ_ry) + B_ry log((1−θ_r)ξ_ry)]
// plus the log prior densities of θ and ξ (MAP estimates).
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local := 0.0
	for i := range s.A {
		if s.A[i] != 0 {
			local += s.A[i] * m.right[i]
		}
		if s.B[i] != 0 {
			local += s.B[i] * m.wrong[i]
		}
	}
	return step.Scale*local + m.logPrior()
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// logPrior is Σ_r log Beta(θ_r; α, β) + log Dirichlet(ξ_r; γ).
func (m *Model) logPrior() float64 {
	al, be, ga := m.Config.Alpha, m.Config.Beta, m.Config.Gamma
	C := float64(m.C)
	lb := lgamma(al) + lgamma(be) - lgamma(al+be)
	ld := C*lgamma(ga) - lgamma(C*ga)
	e := 0.0
	for r, th := range m.Theta {
		e += (al-1)*math.Log(th) + (be-1)*math.Log(1-th) - lb
		for _, x := range m.Xi[r*m.C : (r+1)*m.C] {
			e += (ga - 1) * math.Log(x)
		}
		e -= ld
	}
	return e
}

// Running returns the running statistics and their weight (what Update
// blends; for tests).
func (m *Model) Running() (a, b []float64, weight float64) {
	if m.run == nil {
		return nil, nil, 0
	}
	return m.run.A, m.run.B, m.runW
}

// saved is the parameters' JSON.
type saved struct {
	Format string      `json:"format"`
	Theta  []float64   `json:"theta"`
	Xi     [][]float64 `json:"xi"`
}

// SaveParams writes θ and ξ as JSON.
func (m *Model) SaveParams(w io.Writer) error {
	p := saved{Format: Name, Theta: m.Theta, Xi: make([][]float64, len(m.Theta))}
	for r := range p.Xi {
		p.Xi[r] = m.Xi[r*m.C : (r+1)*m.C]
	}
	return json.NewEncoder(w).Encode(p)
}

// LoadParams restores what SaveParams wrote into a model initialised with
// as many annotators and classes.
func (m *Model) LoadParams(rd io.Reader) error {
	var p saved
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, Name, err)
	}
	if p.Format != Name || len(p.Theta) != len(m.Theta) || len(p.Xi) != len(m.Theta) {
		return fmt.Errorf("%w: %s parameters: format %q with %d competences, want %q with %d", framework.ErrBadInput, Name, p.Format, len(p.Theta), Name, len(m.Theta))
	}
	for r, th := range p.Theta {
		if !(th > 0 && th < 1) || len(p.Xi[r]) != m.C {
			return fmt.Errorf("%w: %s parameters: annotator %d: θ = %v with %d spam probabilities (want θ in (0, 1) and %d)", framework.ErrBadInput, Name, r, th, len(p.Xi[r]), m.C)
		}
		for _, x := range p.Xi[r] {
			if !(x > 0 && x <= 1) {
				return fmt.Errorf("%w: %s parameters: annotator %d: spam probability %v", framework.ErrBadInput, Name, r, x)
			}
		}
	}
	copy(m.Theta, p.Theta)
	for r := range p.Xi {
		copy(m.Xi[r*m.C:], p.Xi[r])
	}
	m.refresh()
	return nil
}

// Annotator is one row of annotators.json.
type Annotator struct {
	Annotator  string             `json:"annotator"`
	Answers    int                `json:"answers"`
	Competence float64            `json:"competence"` // θ_r
	Spam       map[string]float64 `json:"spam"`       // ξ_r by class
}

// Report (framework.Reporter): one row per annotator, header
//
//	annotator,answers,competence,spam:<class>…
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "answers", "competence"}
	for l := 0; l < m.C; l++ {
		header = append(header, "spam:"+m.className(l))
	}
	out := make([]Annotator, len(m.Theta))
	for r, th := range m.Theta {
		name := strconv.Itoa(r)
		if r < len(m.workers) {
			name = m.workers[r]
		}
		n := 0
		if r < len(m.answers) {
			n = m.answers[r]
		}
		row := []string{name, strconv.Itoa(n), strconv.FormatFloat(th, 'g', 6, 64)}
		a := Annotator{Annotator: name, Answers: n, Competence: th, Spam: map[string]float64{}}
		for l := 0; l < m.C; l++ {
			x := m.Xi[r*m.C+l]
			row = append(row, strconv.FormatFloat(x, 'g', 6, 64))
			a.Spam[m.className(l)] = x
		}
		rows = append(rows, row)
		out[r] = a
	}
	return header, rows, out
}

func (m *Model) className(l int) string {
	if l < len(m.classes) {
		return m.classes[l]
	}
	return strconv.Itoa(l)
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "mace.a", Len: len(s.A)}, {Name: "mace.b", Len: len(s.B)}}
}

// Sums visits A and B.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.A, s.B)
}

// SetSums sets A and B.
func (s *Stats) SetSums(get func(part int, dst []float64)) { framework.SetSliceSums(0, get, s.A, s.B) }
