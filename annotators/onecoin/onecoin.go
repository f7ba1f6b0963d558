package onecoin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Name is the registered name.
const Name = "one-coin"

func init() { framework.RegisterNoise(Name, New) }

// Params is the `annotators "one-coin" { ... }` block.
type Params struct {
	Alpha    float64 `hcl:"alpha,optional"`         // Beta prior on each accuracy (default 2)
	Beta     float64 `hcl:"beta,optional"`          // (default 1: a prior mean of 2/3, better than chance for C ≥ 2)
	Estimate string  `hcl:"estimate,optional"`      // "bayes" (default: q(a_r) = Beta) or "point" (MAP)
	Init     float64 `hcl:"init,optional"`          // the accuracy every annotator starts at (default 0.7)
	Strength float64 `hcl:"init_strength,optional"` // "bayes": pseudo-answers of the start (default 10)
}

// Defaults returns the documented defaults.
func Defaults() Params {
	return Params{Alpha: 2, Beta: 1, Estimate: "bayes", Init: 0.7, Strength: 10}
}

// New is the factory registered as "one-coin".
func New(p framework.Params) (framework.NoiseModel, error) {
	pr := Defaults()
	if p != nil {
		if err := p.Decode(&pr); err != nil {
			if !errors.Is(err, framework.ErrBadInput) {
				err = fmt.Errorf("%w: %v", framework.ErrBadInput, err)
			}
			return nil, err
		}
	}
	switch {
	case pr.Estimate != "bayes" && pr.Estimate != "point":
		return nil, fmt.Errorf("%w: %s: estimate = %q; valid: bayes, point", framework.ErrBadInput, Name, pr.Estimate)
	case !(pr.Alpha > 0) || !(pr.Beta > 0) || math.IsInf(pr.Alpha+pr.Beta, 0):
		return nil, fmt.Errorf("%w: %s: alpha = %v, beta = %v, want finite numbers > 0", framework.ErrBadInput, Name, pr.Alpha, pr.Beta)
	case pr.Estimate == "point" && (pr.Alpha < 1 || pr.Beta < 1):
		return nil, fmt.Errorf("%w: %s: estimate = \"point\" needs alpha, beta ≥ 1 (a MAP estimate inside (0, 1)); got %v, %v", framework.ErrBadInput, Name, pr.Alpha, pr.Beta)
	case !(pr.Init > 0 && pr.Init < 1):
		return nil, fmt.Errorf("%w: %s: init = %v, want an accuracy in (0, 1)", framework.ErrBadInput, Name, pr.Init)
	case !(pr.Strength > 0) || math.IsInf(pr.Strength, 0):
		return nil, fmt.Errorf("%w: %s: init_strength = %v, want a finite number > 0", framework.ErrBadInput, Name, pr.Strength)
	}
	return &Model{params: pr}, nil
}

// Model is the one-coin annotator model.
type Model struct {
	// "bayes": q(a_r) = Beta(A[r], B[r]). "point": Acc[r] is the MAP
	// accuracy (A and B unused).
	A, B   []float64
	Acc    []float64
	C      int
	params Params
	run    *Stats  // "point": running statistics (SVI); nil before the first update
	runW   float64 // the sum of their blending weights

	right, wrong []float64 // logs(r), cached by refresh

	workers []string // annotator names (report)
	answers []int    // answers per annotator in the training corpus (report)
}

var (
	_ framework.NoiseModel   = (*Model)(nil)
	_ framework.DocScorer    = (*Model)(nil)
	_ framework.Persister    = (*Model)(nil)
	_ framework.Checkpointer = (*Model)(nil)
	_ framework.Reporter     = (*Model)(nil)
)

func (m *Model) bayes() bool { return m.params.Estimate == "bayes" }

// Init sizes the parameters: every accuracy starts at init ("bayes": a
// Beta with that mean and init_strength pseudo-answers on the prior).
func (m *Model) Init(s *framework.Setup) error {
	if len(s.Classes) < 2 {
		return fmt.Errorf("%w: %s needs categorical answers with at least 2 classes", framework.ErrIncompatible, Name)
	}
	m.C = len(s.Classes)
	R := len(s.Annotators)
	m.A, m.B, m.Acc = make([]float64, R), make([]float64, R), make([]float64, R)
	for r := range R {
		m.A[r] = m.params.Alpha + m.params.Strength*m.params.Init
		m.B[r] = m.params.Beta + m.params.Strength*(1-m.params.Init)
		m.Acc[r] = m.params.Init
	}
	m.run, m.runW = nil, 0
	m.refresh()
	m.workers = s.Annotators
	var err error
	m.answers, err = s.CountAnswers(Name)
	return err
}

// Accepts accepts categorical targets only.
func (m *Model) Accepts(t framework.Target) error {
	c, ok := t.(*framework.Categorical)
	if !ok {
		return fmt.Errorf("%w: %s needs a categorical target, not %T", framework.ErrIncompatible, Name, t)
	}
	if len(c.Log) != m.C {
		return fmt.Errorf("%w: annotators %s: the response's target has %d classes but the answers have %d", framework.ErrIncompatible, Name, len(c.Log), m.C)
	}
	return nil
}

// logs returns the expected log-probabilities of a right and of a given
// wrong answer of annotator r (cached).
func (m *Model) logs(r int32) (right, wrong float64) { return m.right[r], m.wrong[r] }

// refresh recomputes the cache of logs after the parameters changed.
func (m *Model) refresh() {
	m.right, m.wrong = m.right[:0], m.wrong[:0]
	for r := range m.Acc {
		a, b := m.computeLogs(r)
		m.right, m.wrong = append(m.right, a), append(m.wrong, b)
	}
}

func (m *Model) computeLogs(r int) (right, wrong float64) {
	lc := math.Log(float64(m.C - 1))
	if m.bayes() {
		s := mathext.Digamma(m.A[r] + m.B[r])
		return mathext.Digamma(m.A[r]) - s, mathext.Digamma(m.B[r]) - s - lc
	}
	a := m.Acc[r]
	return math.Log(a), math.Log(1-a) - lc
}

// Evidence adds Σ_r E log p(y_dr | c = l) onto Log[l]: the gradient of
// DocELBO in λ_d.
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

// DocELBO is Σ_r Σ_l λ_l E log p(y_dr | l).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	e := 0.0
	for _, a := range d.Answers {
		right, wrong := m.logs(a.Annotator)
		p := t.P[a.Class]
		e += p*right + (1-p)*wrong
	}
	return e
}

var _ framework.AnswerPredictor = (*Model)(nil)

// LogPredictive is log p(y | q(c)) for answer y by annotator r about a
// document with q(c) = Cat(λ) (framework.AnswerPredictor): log(λ_y·ā_r +
// (1 − λ_y)(1 − ā_r)/(C − 1)) with ā_r = E[a_r] = A_r/(A_r + B_r) ("bayes")
// or the MAP accuracy ("point"). An annotator or class outside the model's,
// or a target that is not a categorical over its classes, gives NaN.
func (m *Model) LogPredictive(t framework.Target, a framework.Answer) float64 {
	cat, ok := t.(*framework.Categorical)
	if !ok || len(cat.P) != m.C || a.Annotator < 0 || int(a.Annotator) >= len(m.Acc) || a.Class < 0 || int(a.Class) >= m.C {
		return math.NaN()
	}
	acc := m.Acc[a.Annotator]
	if m.bayes() {
		acc = m.A[a.Annotator] / (m.A[a.Annotator] + m.B[a.Annotator])
	}
	p := cat.P[a.Class]
	return math.Log(p*acc + (1-p)*(1-acc)/float64(m.C-1))
}

// Stats are, per annotator, the expected correct answers c_r and the
// answers n_r.
type Stats struct{ Correct, N []float64 }

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats {
	return &Stats{Correct: make([]float64, len(m.A)), N: make([]float64, len(m.A))}
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

// Update: "bayes" blends the natural parameters, A ← (1−ρ)A + ρ(α +
// S·c_r), B ← (1−ρ)B + ρ(β + S·(n_r − c_r)); "point" blends the running
// statistics, R ← (1−ρ)R + ρ·S·stats, W ← (1−ρ)W + ρ, and sets the MAP
// accuracy from R/W.
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if step.Rho == 0 {
		return nil
	}
	s := st.(*Stats)
	rho, S := step.Rho, step.Scale
	if m.bayes() {
		for r := range m.A {
			m.A[r] = (1-rho)*m.A[r] + rho*(m.params.Alpha+S*s.Correct[r])
			m.B[r] = (1-rho)*m.B[r] + rho*(m.params.Beta+S*(s.N[r]-s.Correct[r]))
			m.Acc[r] = m.A[r] / (m.A[r] + m.B[r])
		}
		m.refresh()
		return nil
	}
	if m.run == nil {
		m.run = m.NewStats().(*Stats)
	}
	m.runW = (1-rho)*m.runW + rho
	al, be := m.params.Alpha, m.params.Beta
	for r := range m.Acc {
		m.run.Correct[r] = (1-rho)*m.run.Correct[r] + rho*S*s.Correct[r]
		m.run.N[r] = (1-rho)*m.run.N[r] + rho*S*s.N[r]
		c, n := m.run.Correct[r]/m.runW, m.run.N[r]/m.runW
		m.Acc[r] = (c + al - 1) / (n + al + be - 2)
		if n+al+be-2 == 0 { // α = β = 1 and no answers: any accuracy is a MAP
			m.Acc[r] = 0.5
		}
	}
	m.refresh()
	return nil
}

func lbeta(a, b float64) float64 {
	x, _ := math.Lgamma(a)
	y, _ := math.Lgamma(b)
	z, _ := math.Lgamma(a + b)
	return x + y - z
}

// klBeta is KL(Beta(a, b) ‖ Beta(a0, b0)).
func klBeta(a, b, a0, b0 float64) float64 {
	s := mathext.Digamma(a + b)
	return lbeta(a0, b0) - lbeta(a, b) + (a-a0)*(mathext.Digamma(a)-s) + (b-b0)*(mathext.Digamma(b)-s)
}

// ELBO is the annotators' part of the bound: S·Σ_r [c_r E log a_r + (n_r
// − c_r) E log((1 − a_r)/(C − 1))] minus Σ_r KL(q(a_r) ‖ prior)
// ("bayes") or plus Σ_r log Beta(a_r; α, β) ("point").
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local, global := 0.0, 0.0
	al, be := m.params.Alpha, m.params.Beta
	for r := range m.A {
		right, wrong := m.logs(int32(r))
		local += s.Correct[r]*right + (s.N[r]-s.Correct[r])*wrong
		if m.bayes() {
			global -= klBeta(m.A[r], m.B[r], al, be)
		} else {
			a := m.Acc[r]
			global += (al-1)*math.Log(a) + (be-1)*math.Log(1-a) - lbeta(al, be)
		}
	}
	return step.Scale*local + global
}

type saved struct {
	Format   string    `json:"format"`
	Estimate string    `json:"estimate"`
	A        []float64 `json:"a,omitempty"`
	B        []float64 `json:"b,omitempty"`
	Acc      []float64 `json:"accuracies"`
}

// SaveParams writes the parameters as JSON.
func (m *Model) SaveParams(w io.Writer) error {
	p := saved{Format: Name, Estimate: m.params.Estimate, Acc: m.Acc}
	if m.bayes() {
		p.A, p.B = m.A, m.B
	}
	return json.NewEncoder(w).Encode(p)
}

// LoadParams restores what SaveParams wrote into a model initialised with
// as many annotators and the same estimate.
func (m *Model) LoadParams(r io.Reader) error {
	var p saved
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, Name, err)
	}
	R := len(m.Acc)
	if p.Format != Name || p.Estimate != m.params.Estimate || len(p.Acc) != R {
		return fmt.Errorf("%w: %s parameters: format %q, estimate %q, %d accuracies; want %q, %q, %d", framework.ErrBadInput, Name, p.Format, p.Estimate, len(p.Acc), Name, m.params.Estimate, R)
	}
	for r, a := range p.Acc {
		if !(a > 0 && a < 1) {
			return fmt.Errorf("%w: %s parameters: accuracy %d is %v, want it in (0, 1)", framework.ErrBadInput, Name, r, a)
		}
	}
	if m.bayes() {
		if len(p.A) != R || len(p.B) != R {
			return fmt.Errorf("%w: %s parameters: %d and %d Beta parameters, want %d each", framework.ErrBadInput, Name, len(p.A), len(p.B), R)
		}
		for r := range R {
			if !(p.A[r] > 0 && p.B[r] > 0) || math.IsInf(p.A[r]+p.B[r], 0) {
				return fmt.Errorf("%w: %s parameters: Beta(%v, %v) for annotator %d, want finite parameters > 0", framework.ErrBadInput, Name, p.A[r], p.B[r], r)
			}
		}
		copy(m.A, p.A)
		copy(m.B, p.B)
	}
	copy(m.Acc, p.Acc)
	m.refresh()
	return nil
}

// SaveState writes the running statistics of "point" (SVI); "bayes" has
// none beyond its parameters.
func (m *Model) SaveState(w io.Writer) error {
	v := m.running()
	return framework.SaveRunning(w, stateMagic, m.run != nil, m.runW, v[0], v[1])
}

const stateMagic = "MASLDAoc1"

// LoadState restores what SaveState wrote.
func (m *Model) LoadState(r io.Reader) error {
	run := m.NewStats().(*Stats)
	present, w, err := framework.LoadRunning(r, stateMagic, run.Correct, run.N)
	if err != nil {
		return fmt.Errorf("%s: %w", Name, err)
	}
	m.run, m.runW = nil, 0
	if present {
		m.run, m.runW = run, w
	}
	return nil
}

func (m *Model) running() [][]float64 {
	if m.run == nil {
		z := m.NewStats().(*Stats)
		return [][]float64{z.Correct, z.N}
	}
	return [][]float64{m.run.Correct, m.run.N}
}

// Natural returns the parameters Update blends, as one vector: "bayes"
// A and B; "point" the running statistics and their weight (for the
// conformance kit).
func (m *Model) Natural() []float64 {
	if m.bayes() {
		return append(append([]float64{}, m.A...), m.B...)
	}
	v := m.running()
	return append(append(append([]float64{}, v[0]...), v[1]...), m.runW)
}

// Annotator is one annotator in annotators.json.
type Annotator struct {
	Annotator string    `json:"annotator"`
	Answers   int       `json:"answers"`
	Accuracy  float64   `json:"accuracy"`
	Beta      []float64 `json:"beta,omitempty"`       // "bayes": q(a_r) = Beta(A, B)
	Interval  []float64 `json:"interval95,omitempty"` // "bayes": its 2.5% and 97.5% quantiles
}

// Report describes every annotator, for annotators.csv:
//
//	annotator,answers,accuracy[,accuracy_lo,accuracy_hi]
//
// the accuracy being the posterior mean ("bayes", with a 95% interval of
// q(a_r)) or the MAP ("point"); annotators.json holds the same as
// []Annotator.
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "answers", "accuracy"}
	if m.bayes() {
		header = append(header, "accuracy_lo", "accuracy_hi")
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	out := make([]Annotator, len(m.Acc))
	for r := range m.Acc {
		name := strconv.Itoa(r)
		if r < len(m.workers) {
			name = m.workers[r]
		}
		n := 0
		if r < len(m.answers) {
			n = m.answers[r]
		}
		a := Annotator{Annotator: name, Answers: n, Accuracy: m.Acc[r]}
		row := []string{name, strconv.Itoa(n), f(m.Acc[r])}
		if m.bayes() {
			q := distuv.Beta{Alpha: m.A[r], Beta: m.B[r]}
			a.Beta, a.Interval = []float64{m.A[r], m.B[r]}, []float64{q.Quantile(0.025), q.Quantile(0.975)}
			row = append(row, f(a.Interval[0]), f(a.Interval[1]))
		}
		rows = append(rows, row)
		out[r] = a
	}
	return header, rows, out
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "one-coin.correct", Len: len(s.Correct)}, {Name: "one-coin.n", Len: len(s.N)}}
}

// Sums visits Correct and N.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.Correct, s.N)
}

// SetSums sets Correct and N.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	framework.SetSliceSums(0, get, s.Correct, s.N)
}
