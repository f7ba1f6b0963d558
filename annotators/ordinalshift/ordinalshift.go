package ordinalshift

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

// Name is the name the model is registered under.
const Name = "ordinal-shift"

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

// Params are the settings of the `annotators "ordinal-shift" { ... }` block.
type Params struct {
	// PriorCount is ν > 0, the weight of the prior: ν pseudo-answers per
	// true level from the reference annotator (shift 0, stretch 1,
	// precision Precision), spread over the levels as it would answer
	// (default 1).
	PriorCount float64 `hcl:"prior_count,optional"`
	// Precision is a_0 > 0, the reference annotator's precision, where
	// every annotator starts (default 2: the true level of an interior
	// item with probability F(1) − F(−1) ≈ 0.46, a neighbour ≈ 0.22 each).
	Precision float64 `hcl:"precision,optional"`
	// MaxIters bounds the Newton iterations of each annotator's M-step
	// (default 50, ≥ 1).
	MaxIters int `hcl:"max_iters,optional"`
}

// Defaults returns the documented defaults.
func Defaults() Params { return Params{PriorCount: 1, Precision: 2, MaxIters: 50} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch {
	case !(p.PriorCount > 0) || math.IsInf(p.PriorCount, 0):
		return fmt.Errorf("%w: annotators %s: prior_count = %v, want a finite number > 0", framework.ErrBadInput, Name, p.PriorCount)
	case !(p.Precision > 0) || math.IsInf(p.Precision, 0):
		return fmt.Errorf("%w: annotators %s: precision = %v, want a finite number > 0", framework.ErrBadInput, Name, p.Precision)
	case p.MaxIters < 1:
		return fmt.Errorf("%w: annotators %s: max_iters = %d, want ≥ 1 (default %d)", framework.ErrBadInput, Name, p.MaxIters, Defaults().MaxIters)
	}
	return nil
}

// Annotator is one annotator's parameters on the latent scale (doc.go):
// she perceives x = Stretch·m_c + Shift + ε/Precision for an item of true
// level c (ε standard logistic) and answers the level whose interval
// (κ_{l−1}, κ_l] holds x.
type Annotator struct {
	Shift     float64 `json:"shift"`     // t_r, in levels: > 0 rates high
	Stretch   float64 `json:"stretch"`   // s_r: > 1 favours the extremes, < 1 the middle
	Precision float64 `json:"precision"` // a_r > 0: consistency
}

// natural returns (α, β, γ) = (a, a·s, a·t).
func (a Annotator) natural() [3]float64 {
	return [3]float64{a.Precision, a.Precision * a.Stretch, a.Precision * a.Shift}
}

func fromNatural(th [3]float64) Annotator {
	return Annotator{Shift: th[2] / th[0], Stretch: th[1] / th[0], Precision: th[0]}
}

// Model is the ordinal-shift annotator model (doc.go). It implements
// framework.NoiseModel, framework.DocScorer, framework.Persister,
// framework.Reporter and framework.Sampler (sampler.go). Its parameters are read-only during the E-step.
type Model struct {
	Config  Params
	C       int
	Names   []string     // the level names, lowest first
	Workers []string     // the annotators' names
	Theta   [][3]float64 // (α_r, β_r, γ_r)

	logP  []float64 // R×C×C: log p(y = l | c) at [(r·C + c)·C + l]
	prior []float64 // C×C: ν·p_0(l | c), the prior's pseudo-counts
	run   *Stats    // running statistics (SVI); nil before the first update
	runW  float64   // the sum of their blending weights
}

var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
	_ framework.Sampler    = (*Model)(nil)
)

// New returns a model with the given settings (call Init before use).
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Model{Config: p}, nil
}

// Levels are the level names, lowest first (the Ordered capability of
// likelihoods/ordinal).
func (m *Model) Levels() []string { return slices.Clone(m.Names) }

// position is m_c = c − (C−1)/2, level c's place on the latent scale.
func position(c, C int) float64 { return float64(c) - float64(C-1)/2 }

// cut is κ_l = l + 1/2 − (C−1)/2, the boundary between levels l and l+1.
func cut(l, C int) float64 { return float64(l) + 0.5 - float64(C-1)/2 }

// logProb is log p(y = l | c; θ) with its gradient and Hessian in θ when
// g and h are non-nil (g += w·∇, h += w·∇², h row-major 3×3).
func logProb(th [3]float64, c, l, C int, w float64, g []float64, h []float64) float64 {
	mc := position(c, C)
	base := -th[1]*mc - th[2]
	x, y := th[0]*cut(l, C)+base, th[0]*cut(l-1, C)+base
	lp, lx, ly, lxx, lyy, lxy := interval(x, y, l < C-1, l > 0)
	if g != nil {
		jx := [3]float64{cut(l, C), -mc, -1}
		jy := [3]float64{cut(l-1, C), -mc, -1}
		for i := range 3 {
			g[i] += w * (lx*jx[i] + ly*jy[i])
			for j := range 3 {
				h[i*3+j] += w * (lxx*jx[i]*jx[j] + lyy*jy[i]*jy[j] + lxy*(jx[i]*jy[j]+jy[i]*jx[j]))
			}
		}
	}
	return lp
}

// Init sizes the annotators from Setup.Workers and the levels from
// Setup.Classes (at least 2; fewer is framework.ErrIncompatible), every
// annotator at the reference (shift 0, stretch 1, precision a_0).
func (m *Model) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: annotators %s: no setup", framework.ErrBadInput, Name)
	}
	if len(s.Classes) < 2 {
		return fmt.Errorf("%w: annotators %s need ordered levels (categorical answers with at least 2 classes)", framework.ErrIncompatible, Name)
	}
	m.C = len(s.Classes)
	m.Names = slices.Clone(s.Classes)
	m.Workers = slices.Clone(s.Annotators)
	ref := Annotator{Stretch: 1, Precision: m.Config.Precision}.natural()
	m.Theta = make([][3]float64, len(s.Annotators))
	for r := range m.Theta {
		m.Theta[r] = ref
	}
	C := m.C
	m.prior = make([]float64, C*C)
	for c := range C {
		for l := range C {
			m.prior[c*C+l] = m.Config.PriorCount * math.Exp(logProb(ref, c, l, C, 0, nil, nil))
		}
	}
	m.logP = make([]float64, len(s.Annotators)*C*C)
	m.refresh()
	m.run, m.runW = nil, 0
	return nil
}

// refresh recomputes the table of log p(y = l | c) from Theta.
func (m *Model) refresh() {
	C := m.C
	for r, th := range m.Theta {
		for c := range C {
			for l := range C {
				m.logP[(r*C+c)*C+l] = logProb(th, c, l, C, 0, nil, nil)
			}
		}
	}
}

// Accepts accepts categorical targets only.
func (m *Model) Accepts(t framework.Target) error {
	if _, ok := t.(*framework.Categorical); !ok {
		return fmt.Errorf("%w: annotators %s need a categorical target (ordered levels), not %T", framework.ErrIncompatible, Name, t)
	}
	return nil
}

// Evidence adds Σ_r log p(y_dr | c) to Log[c]: the gradient of DocELBO in
// λ_d.
func (m *Model) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	C := m.C
	for _, a := range d.Answers {
		row := m.logP[int(a.Annotator)*C*C:]
		for c := range t.Log {
			t.Log[c] += row[c*C+int(a.Class)]
		}
	}
}

// DocELBO is E_q[log p(answers_d | c_d)] = Σ_r Σ_c λ_dc log p(y_dr | c).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	C := m.C
	e := 0.0
	for _, a := range d.Answers {
		row := m.logP[int(a.Annotator)*C*C:]
		for c, p := range t.P {
			e += p * row[c*C+int(a.Class)]
		}
	}
	return e
}

// Stats are, per annotator, the expected counts N_r[c][l] = Σ_{d: y_dr = l}
// λ_dc (R×C×C, as logP).
type Stats struct{ N []float64 }

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats {
	return &Stats{N: make([]float64, len(m.Theta)*m.C*m.C)}
}

// Merge adds o.
func (s *Stats) Merge(o framework.Stats) {
	for i, x := range o.(*Stats).N {
		s.N[i] += x
	}
}

// Reset empties s.
func (s *Stats) Reset() { clear(s.N) }

// Accumulate adds document d's answers: λ_dc to N_r[c][y_dr].
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	C := m.C
	for _, a := range d.Answers {
		row := s.N[int(a.Annotator)*C*C:]
		for c, p := range t.P {
			row[c*C+int(a.Class)] += p
		}
	}
}

// Update blends the running statistics, R ← (1−ρ)R + ρ·S·stats, W ←
// (1−ρ)W + ρ (MODEL.md §5), and sets every annotator to the maximiser of
// Σ_{c,l} (R_r[c][l]/W + ν p_0(l | c)) log p_r(l | c), concave in (α, β,
// γ), by Newton's method with step halving (fit). ρ = 0 changes nothing.
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.Theta == nil {
		return fmt.Errorf("%w: annotators %s: Update before Init", framework.ErrNotTrained, Name)
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
	for i, x := range s.N {
		m.run.N[i] = (1-rho)*m.run.N[i] + rho*step.Scale*x
	}
	C := m.C
	w := make([]float64, C*C)
	for r := range m.Theta {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range w {
			w[i] = m.run.N[r*C*C+i]/m.runW + m.prior[i]
		}
		m.Theta[r] = fit(m.Theta[r], w, C, m.Config.MaxIters)
	}
	m.refresh()
	return nil
}

// objective is Σ_{c,l} w[c·C+l] log p(l | c; θ), with its gradient and
// Hessian when g, h are non-nil (they are overwritten).
func objective(th [3]float64, w []float64, C int, g, h []float64) float64 {
	if g != nil {
		clear(g)
		clear(h)
	}
	f := 0.0
	for c := range C {
		for l := range C {
			if x := w[c*C+l]; x != 0 {
				f += x * logProb(th, c, l, C, x, g, h)
			}
		}
	}
	return f
}

// fit maximises objective from th by Newton's method: the direction
// solves (−H) d = g (−H positive definite: the prior's pseudo-counts cover
// every pair of levels), halved until the precision stays positive and the
// objective does not fall. It stops when a full step changes the
// objective by less than 1e-15 relative, or after maxIters.
func fit(th [3]float64, w []float64, C, maxIters int) [3]float64 {
	g, h := make([]float64, 3), make([]float64, 9)
	f := objective(th, w, C, g, h)
	for range maxIters {
		d, ok := solve3(h, g)
		if !ok {
			d = [3]float64{g[0], g[1], g[2]} // not expected: gradient ascent
		}
		step := 1.0
		var next [3]float64
		var fn float64
		accepted := false
		for range 60 {
			for i := range 3 {
				next[i] = th[i] + step*d[i]
			}
			if next[0] > 0 {
				if fn = objective(next, w, C, nil, nil); fn >= f {
					accepted = true
					break
				}
			}
			step /= 2
		}
		if !accepted {
			break
		}
		gain := fn - f
		th, f = next, objective(next, w, C, g, h)
		if gain <= 1e-15*math.Abs(f) && step == 1 {
			break
		}
	}
	return th
}

// solve3 solves (−H) d = g for a symmetric negative definite H by
// Cholesky; ok is false when −H is not positive definite.
func solve3(h []float64, g []float64) (d [3]float64, ok bool) {
	var a [3][3]float64
	for i := range 3 {
		for j := range 3 {
			a[i][j] = -h[i*3+j]
		}
	}
	var L [3][3]float64
	for i := range 3 {
		for j := 0; j <= i; j++ {
			s := a[i][j]
			for k := range j {
				s -= L[i][k] * L[j][k]
			}
			if i == j {
				if !(s > 0) {
					return d, false
				}
				L[i][i] = math.Sqrt(s)
			} else {
				L[i][j] = s / L[j][j]
			}
		}
	}
	var y [3]float64
	for i := range 3 {
		s := g[i]
		for k := range i {
			s -= L[i][k] * y[k]
		}
		y[i] = s / L[i][i]
	}
	for i := 2; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < 3; k++ {
			s -= L[k][i] * d[k]
		}
		d[i] = s / L[i][i]
	}
	return d, true
}

// ELBO is S·Σ_r Σ_{c,l} N_r[c][l] log p_r(l | c) plus the log prior of
// the MAP estimates, Σ_r Σ_{c,l} ν p_0(l | c) log p_r(l | c) (up to a
// constant).
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	C := m.C
	data, prior := 0.0, 0.0
	for i, x := range s.N {
		if x != 0 {
			data += x * m.logP[i]
		}
		prior += m.prior[i%(C*C)] * m.logP[i]
	}
	return step.Scale*data + prior
}

// Annotators returns every annotator's shift, stretch and precision, in
// the order of Setup.Workers.
func (m *Model) Annotators() []Annotator {
	out := make([]Annotator, len(m.Theta))
	for r, th := range m.Theta {
		out[r] = fromNatural(th)
	}
	return out
}

// Prob is p(y = l | c) for annotator r.
func (m *Model) Prob(r, c, l int) float64 { return math.Exp(m.logP[(r*m.C+c)*m.C+l]) }

// Report describes every annotator for annotators.csv and annotators.json
// (framework.Reporter): shift, stretch, precision and the probability of
// answering the true level, averaged over the levels. annotators.json is
// a list of {name, shift, stretch, precision, accuracy}, as the other
// built-in models' lists (maslda plot reads it by its keys).
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "shift", "stretch", "precision", "accuracy"}
	type entry struct {
		Name string `json:"name"`
		Annotator
		Accuracy float64 `json:"accuracy"`
	}
	all := []entry{}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for r, a := range m.Annotators() {
		acc := 0.0
		for c := range m.C {
			acc += m.Prob(r, c, c) / float64(m.C)
		}
		all = append(all, entry{m.Workers[r], a, acc})
		rows = append(rows, []string{m.Workers[r], f(a.Shift), f(a.Stretch), f(a.Precision), f(acc)})
	}
	return header, rows, all
}

// saved is the JSON of the annotators' parameters: each annotator's
// (α, β, γ) = (precision, precision·stretch, precision·shift), the
// parameters the M-step fits (saved as such, so that a round trip is
// exact).
type saved struct {
	Format     string       `json:"format"`
	Version    int          `json:"version"`
	Levels     []string     `json:"levels"`
	Annotators [][3]float64 `json:"alpha_beta_gamma"`
}

const (
	paramsFormat  = "maslda-ordinal-shift"
	paramsVersion = 1
)

// SaveParams writes the levels and every annotator's (α, β, γ) as JSON
// (framework.Persister).
func (m *Model) SaveParams(w io.Writer) error {
	if m.Theta == nil {
		return fmt.Errorf("%w: annotators %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	if err := e.Encode(saved{Format: paramsFormat, Version: paramsVersion, Levels: m.Names, Annotators: m.Theta}); err != nil {
		return fmt.Errorf("annotators %s: saving: %w", Name, err)
	}
	return nil
}

// LoadParams restores what SaveParams wrote into a model initialised with
// the same levels and as many annotators. Errors wrap
// framework.ErrBadInput.
func (m *Model) LoadParams(rd io.Reader) error {
	if m.Theta == nil {
		return fmt.Errorf("%w: annotators %s: LoadParams before Init", framework.ErrNotTrained, Name)
	}
	var p saved
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, Name, err)
	}
	switch {
	case p.Format != paramsFormat || p.Version != paramsVersion:
		return fmt.Errorf("%w: %s parameters: format %q version %d, want %q version %d", framework.ErrBadInput, Name, p.Format, p.Version, paramsFormat, paramsVersion)
	case !slices.Equal(p.Levels, m.Names) || len(p.Annotators) != len(m.Theta):
		return fmt.Errorf("%w: %s parameters: %d levels and %d annotators, the model has %d and %d", framework.ErrBadInput, Name, len(p.Levels), len(p.Annotators), m.C, len(m.Theta))
	}
	for r, th := range p.Annotators {
		if !(th[0] > 0) || math.IsInf(th[0], 0) || math.IsNaN(th[1]) || math.IsInf(th[1], 0) || math.IsNaN(th[2]) || math.IsInf(th[2], 0) {
			return fmt.Errorf("%w: %s parameters: annotator %d: (α, β, γ) = %v, want finite numbers and α > 0", framework.ErrBadInput, Name, r, th)
		}
	}
	copy(m.Theta, p.Annotators)
	m.refresh()
	return nil
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "ordinal-shift.n", Len: len(s.N)}}
}

// Sums visits N.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) { framework.SliceSums(0, visit, s.N) }

// SetSums sets N.
func (s *Stats) SetSums(get func(part int, dst []float64)) { framework.SetSliceSums(0, get, s.N) }
