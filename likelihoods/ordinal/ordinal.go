package ordinal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// Name is the name the response is registered under.
const Name = "ordinal"

func init() {
	framework.RegisterLikelihood(Name, func(p framework.Params) (framework.Likelihood, error) {
		c := Defaults()
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return New(c)
	})
}

// Params are the settings of the `response "ordinal" { ... }` block.
type Params struct {
	// L2 is μ ≥ 0, the penalty (μ/2)‖η‖² (a Gaussian prior on η with
	// variance 1/μ); default 0.01. It also picks one solution along the
	// common shift that η and the cut points cannot tell apart (η + a·1,
	// b + a give the same probabilities, since Σ_k z̄_dk = 1).
	L2 float64 `hcl:"l2,optional"`
	// PriorCount is a_0 ≥ 0, the weight of the cut points' prior: a_0
	// pseudo-documents of every level at score s = 0, log prior
	// a_0 Σ_c log p(c | s = 0; b). It keeps every gap positive and every
	// cut point finite when a level has no mass (default 1).
	PriorCount float64 `hcl:"prior_count,optional"`
	// MaxIters is the number of L-BFGS iterations of a batch M-step
	// (warm-started); default 100, ≥ 1.
	MaxIters int `hcl:"max_iters,optional"`
	// SVIIters is the number of L-BFGS iterations on each SVI mini-batch's
	// objective; default 5, ≥ 1.
	SVIIters int `hcl:"svi_iters,optional"`
	// Levels, when given, are the level names from lowest to highest; Init
	// refuses class names (framework.Setup.Classes) that are not exactly
	// these, in this order. Without it the classes' order is the levels'
	// (numeric labels are sorted numerically by the answer readers).
	Levels []string `hcl:"levels,optional"`
}

// Defaults returns the documented defaults.
func Defaults() Params { return Params{L2: 0.01, PriorCount: 1, MaxIters: 100, SVIIters: 5} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch {
	case !(p.L2 >= 0) || math.IsInf(p.L2, 0):
		return fmt.Errorf("%w: response %s: l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, Name, p.L2)
	case !(p.PriorCount >= 0) || math.IsInf(p.PriorCount, 0):
		return fmt.Errorf("%w: response %s: prior_count = %v, want a finite number ≥ 0", framework.ErrBadInput, Name, p.PriorCount)
	case p.MaxIters < 1:
		return fmt.Errorf("%w: response %s: max_iters = %d, want ≥ 1 (default %d)", framework.ErrBadInput, Name, p.MaxIters, Defaults().MaxIters)
	case p.SVIIters < 1:
		return fmt.Errorf("%w: response %s: svi_iters = %d, want ≥ 1 (default %d)", framework.ErrBadInput, Name, p.SVIIters, Defaults().SVIIters)
	case p.Levels != nil && len(p.Levels) < 2:
		return fmt.Errorf("%w: response %s: levels = %q, want at least 2", framework.ErrBadInput, Name, p.Levels)
	}
	return nil
}

// Response is the ordered-logit response (doc.go): p(c_d = c | z̄_d) =
// F(b_c − η·z̄_d) − F(b_{c−1} − η·z̄_d), F the logistic function, η a
// K-vector, b_0 < … < b_{C−2} the cut points. It implements
// framework.Likelihood, framework.DocScorer, framework.Persister and
// Ordered; its LikelihoodLocal implements framework.PhiQuadratic. Its
// parameters are read-only during the E-step.
type Response struct {
	Config Params
	C, K   int
	Names  []string  // the level names, lowest first
	Eta    []float64 // η, K
	Cuts   []float64 // b_0 < … < b_{C−2}

	last Solve
}

// Ordered is the capability of a component whose categorical target's
// classes are ordered levels (lowest first), for a target-kind registry to
// recognise ordinal components.
type Ordered interface {
	Levels() []string
}

// Solve describes the last M-step.
type Solve struct {
	Docs      int     // documents in the (mini-)batch
	Iters     int     // L-BFGS iterations
	Status    string  // gonum's termination status ("" when no solve ran)
	Objective float64 // the maximised objective at the solver's point
	Warning   error   // a line-search failure that ended the solve with an accepted point
}

// Interface checks.
var (
	_ framework.Likelihood      = (*Response)(nil)
	_ framework.DocScorer       = (*Response)(nil)
	_ framework.Persister       = (*Response)(nil)
	_ Ordered                   = (*Response)(nil)
	_ framework.LikelihoodLocal = (*local)(nil)
	_ framework.DocScorer       = (*local)(nil)
	_ framework.PhiQuadratic    = (*local)(nil)
)

// New returns a response with the given settings (call Init before use).
func New(p Params) (*Response, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Response{Config: p}, nil
}

// Levels are the level names, lowest first (Ordered).
func (r *Response) Levels() []string { return slices.Clone(r.Names) }

// Kind is "ordinal" (framework.Kinded): the kind of target registered by
// framework/targets, whose files carry the median level beside the
// categorical columns and whose metrics include errors in levels.
func (r *Response) Kind() string { return "ordinal" }

// LastSolve describes the last M-step (for diagnostics).
func (r *Response) LastSolve() Solve { return r.last }

// Init sizes η (K, zero) and the cut points for Setup.Classes (the levels,
// at least 2, lowest first): b_c = logit((c+1)/C), the maximiser of the
// prior, under which every level has probability 1/C at η = 0. Errors wrap
// framework.ErrBadInput, or framework.ErrIncompatible when the classes are
// not the configured levels.
func (r *Response) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: response %s: no setup", framework.ErrBadInput, Name)
	}
	switch c := len(s.Classes); {
	case c == 0:
		return fmt.Errorf("%w: response %s needs ordered levels: give categorical answers", framework.ErrBadInput, Name)
	case c < 2:
		return fmt.Errorf("%w: response %s needs at least 2 levels, got %d (%q)", framework.ErrBadInput, Name, c, s.Classes[0])
	}
	if s.K < 1 {
		return fmt.Errorf("%w: response %s: %d topics, want ≥ 1", framework.ErrBadInput, Name, s.K)
	}
	if lv := r.Config.Levels; lv != nil && !slices.Equal(lv, s.Classes) {
		return fmt.Errorf("%w: response %s: the classes are %s, lowest first, but levels = %s", framework.ErrIncompatible, Name, quote(s.Classes), quote(lv))
	}
	r.C, r.K = len(s.Classes), s.K
	r.Names = slices.Clone(s.Classes)
	r.Eta = make([]float64, r.K)
	r.Cuts = make([]float64, r.C-1)
	for c := range r.Cuts {
		p := float64(c+1) / float64(r.C)
		r.Cuts[c] = math.Log(p / (1 - p))
	}
	r.last = Solve{}
	return nil
}

func quote(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// NewTarget returns q(c_d) = Cat(λ_d) over the C levels.
func (r *Response) NewTarget() framework.Target { return framework.NewCategorical(r.C) }

// NewLocal returns one goroutine's scratch for the local step.
func (r *Response) NewLocal() framework.LikelihoodLocal { return &local{r: r} }

func dot(a, b []float64) float64 {
	s := 0.0
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// wordVar is Var_{φ}(η_z) = (η∘η)·φ − (η·φ)², the variance of η_z for
// one token z ~ φ, with t = η·φ.
func wordVar(eta, phi []float64) (v, t float64) {
	q := 0.0
	for k, p := range phi {
		e := eta[k]
		t += e * p
		q += e * e * p
	}
	return q - t*t, t
}

// moments returns the mean ŝ_d = η·φ̄_d and the variance V_d =
// (1/N_d²) Σ_v n_dv Var_{φ_dv}(η_z) of the score s_d = η·z̄_d under q(z)
// (0 and 0 for an empty document).
func (r *Response) moments(d *framework.DocState) (mean, variance float64) {
	N := d.Doc.N
	if !(N > 0) {
		return 0, 0
	}
	for j, n := range d.Doc.Counts {
		v, _ := wordVar(r.Eta, d.PhiRow(j))
		variance += n * v
	}
	return dot(r.Eta, d.PhiBar), variance / (N * N)
}

// bound is document d's response term without the entropy:
// Σ_c λ_c [log p(c | ŝ) − (M_c/2) V] (doc.go, "The bound").
func (r *Response) bound(lam []float64, mean, variance float64) float64 {
	e := 0.0
	for c, p := range lam {
		if p != 0 {
			e += p * (logLevel(c, mean, r.Cuts) - 0.5*Curvature(c, r.C)*variance)
		}
	}
	return e
}

// DocELBO is document d's part of the response's bound at the current η
// and cut points: Σ_c λ_dc [log p(c | ŝ_d) − (M_c/2) V_d] + H(λ_d), a lower
// bound of E_q[log p(c_d | z̄_d)] + H(λ_d). Safe for concurrent use.
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	m, v := r.moments(d)
	return r.bound(t.P, m, v) + t.Entropy()
}

// Predict sets d.Target (a *framework.Categorical) to the ordered logit at
// the point estimate ŝ_d = η·φ̄_d: Log[c] = log p(c | η·φ̄_d).
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	s := dot(r.Eta, d.PhiBar)
	for c := range t.Log {
		t.Log[c] = logLevel(c, s, r.Cuts)
	}
	t.Finalize()
}

// local is one goroutine's part of the local step: η·s_d (s_d = Σ_v n_dv
// φ_dv) and Σ_v n_dv Var_{φ_dv}(η_z) of the current document.
type local struct {
	r    *Response
	doc  *framework.Doc
	es   float64 // η·s_d = N_d ŝ_d
	vsum float64 // N_d² V_d
}

// Begin computes η·s_d and N_d² V_d from d.Phi.
func (lc *local) Begin(d *framework.DocState) {
	lc.doc, lc.es, lc.vsum = d.Doc, 0, 0
	for j, n := range d.Doc.Counts {
		v, t := wordVar(lc.r.Eta, d.PhiRow(j))
		lc.es += n * t
		lc.vsum += n * v
	}
}

func (lc *local) mean(d *framework.DocState) float64 {
	if !(d.Doc.N > 0) {
		return 0
	}
	return lc.es / d.Doc.N
}

// TargetTerm adds the prior message, the gradient of the bound in λ_d:
// Log[c] += log p(c | ŝ_d) − (M_c/2) V_d.
func (lc *local) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	r := lc.r
	s, v := lc.mean(d), 0.0
	if N := d.Doc.N; N > 0 {
		v = lc.vsum / (N * N)
	}
	for c := range t.Log {
		t.Log[c] += logLevel(c, s, r.Cuts) - 0.5*Curvature(c, r.C)*v
	}
}

// slopes returns G = Σ_c λ_c ∂/∂s log p(c | ŝ) and M̄ = Σ_c λ_c M_c.
func (lc *local) slopes(d *framework.DocState) (G, M float64) {
	t := d.Target.(*framework.Categorical)
	s := lc.mean(d)
	for c, p := range t.P {
		if p != 0 {
			G += p * slope(c, s, lc.r.Cuts)
			M += p * Curvature(c, lc.r.C)
		}
	}
	return G, M
}

// PhiTerm adds, for word j of d (t = η·φ_dv),
//
//	ρ_dvk = G η_k / N_d − M̄ (η_k² − 2t η_k) / (2N_d²),
//
// (1/n_dv) ∂/∂φ_dvk of the document's bound. O(K + C).
func (lc *local) PhiTerm(dst []float64, d *framework.DocState, j int) {
	N := d.Doc.N
	G, M := lc.slopes(d)
	eta := lc.r.Eta
	t := dot(eta, d.PhiRow(j))
	a, b := G/N, M/(2*N*N)
	for k, e := range eta {
		dst[k] += a*e - b*(e*e-2*t*e)
	}
}

// PhiTermQuad is the minorant of the bound in φ_dv that the topic layer
// maximises exactly (framework.PhiQuadratic; doc.go, "The φ step"): per
// token ρ·φ_dv − c (η·φ_dv)² with
//
//	ρ_k = (G/N_d + M̄ n_dv t/N_d²) η_k − M̄ η_k²/(2N_d²),  c = M̄ (n_dv − 1)/(2N_d²),
//
// t = η·φ_dv at the current φ_dv. It equals the bound at the current φ_dv
// and lies below it elsewhere, so every φ step raises the bound; PhiTerm
// is ρ − 2c·t·η.
func (lc *local) PhiTermQuad(dst []float64, d *framework.DocState, j int) (float64, []float64) {
	N := d.Doc.N
	n := d.Doc.Counts[j]
	G, M := lc.slopes(d)
	eta := lc.r.Eta
	t := dot(eta, d.PhiRow(j))
	a, b := G/N+M*n*t/(N*N), M/(2*N*N)
	for k, e := range eta {
		dst[k] += a*e - b*e*e
	}
	return b * (n - 1), eta
}

// QuadBase is PhiTermQuad's part that is the same for every word of a
// sweep (framework.PhiQuadraticAffine): base_k = −M̄ η_k²/(2N_d²), u = η.
func (lc *local) QuadBase(dst []float64, d *framework.DocState) []float64 {
	N := d.Doc.N
	_, M := lc.slopes(d)
	b := M / (2 * N * N)
	for k, e := range lc.r.Eta {
		dst[k] = -b * e * e
	}
	return lc.r.Eta
}

// QuadWord is the rest of PhiTermQuad for word j at t = η·φ_dv:
// s = G/N_d + M̄ n_dv t/N_d² and c = M̄ (n_dv − 1)/(2N_d²).
func (lc *local) QuadWord(d *framework.DocState, j int, t float64) (s, c float64) {
	N := d.Doc.N
	n := d.Doc.Counts[j]
	G, M := lc.slopes(d)
	return G/N + M*n*t/(N*N), M / (2 * N * N) * (n - 1)
}

// QuadMoved is WordChanged from the moments of η under φ_dv before and
// after (t = η·φ_dv, q = Σ_k φ_dvk η_k²; wordVar's variance is q − t²).
func (lc *local) QuadMoved(d *framework.DocState, j int, t0, q0, t1, q1 float64) {
	n := d.Doc.Counts[j]
	lc.es += n * (t1 - t0)
	lc.vsum += n * ((q1 - t1*t1) - (q0 - t0*t0))
}

// WordChanged updates η·s_d and N_d² V_d after φ of word j changed from old.
func (lc *local) WordChanged(d *framework.DocState, j int, old []float64) {
	n := d.Doc.Counts[j]
	vn, tn := wordVar(lc.r.Eta, d.PhiRow(j))
	vo, to := wordVar(lc.r.Eta, old)
	lc.es += n * (tn - to)
	lc.vsum += n * (vn - vo)
}

// DocELBO is Response.DocELBO (framework.DocScorer on the local too).
func (lc *local) DocELBO(d *framework.DocState) float64 { return lc.r.DocELBO(d) }

// Stats are what the M-step needs of a (mini-)batch: each document's φ̄_d
// (K) and λ_d (C) in accumulation order (Merge appends: 8·(K + C) bytes per
// document), the K×K matrix Σ_d M̄_d A_d with A_d = (1/N_d²) Σ_v n_dv
// (diag φ_dv − φ_dv φ_dvᵀ) (so that M̄_d V_d = ηᵀ(M̄_d A_d)η; upper
// triangle only), and Σ_d H(λ_d).
type Stats struct {
	K, C    int
	Bar     []float64 // n×K
	Lam     []float64 // n×C
	A       []float64 // K×K, entries a ≤ b
	Entropy float64
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats {
	return &Stats{K: r.K, C: r.C, A: make([]float64, r.K*r.K)}
}

// Docs is the number of documents in s.
func (s *Stats) Docs() int {
	if s.C == 0 {
		return 0
	}
	return len(s.Lam) / s.C
}

// Merge appends o (a *Stats of the same response) to s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	s.Bar = append(s.Bar, t.Bar...)
	s.Lam = append(s.Lam, t.Lam...)
	for i, x := range t.A {
		s.A[i] += x
	}
	s.Entropy += t.Entropy
}

// Reset empties s (keeping its storage).
func (s *Stats) Reset() {
	s.Bar, s.Lam, s.Entropy = s.Bar[:0], s.Lam[:0], 0
	clear(s.A)
}

// Accumulate records document d's φ̄_d, λ_d, M̄_d A_d and H(λ_d).
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	s.Bar = append(s.Bar, d.PhiBar...)
	s.Lam = append(s.Lam, t.P...)
	s.Entropy += t.Entropy()
	N := d.Doc.N
	if !(N > 0) {
		return
	}
	M := 0.0
	for c, p := range t.P {
		M += p * Curvature(c, r.C)
	}
	K := r.K
	for j, n := range d.Doc.Counts {
		w := M * n / (N * N)
		row := d.PhiRow(j)
		for a, pa := range row {
			wa := w * pa
			s.A[a*K+a] += wa
			for b := a; b < K; b++ {
				s.A[a*K+b] -= wa * row[b]
			}
		}
	}
}

// quadForm returns ηᵀAη and, when g is non-nil, adds −Aη into g (A
// symmetric, stored as its upper triangle).
func quadForm(A []float64, eta, g []float64) float64 {
	K := len(eta)
	q := 0.0
	for a := 0; a < K; a++ {
		q += A[a*K+a] * eta[a] * eta[a]
		for b := a + 1; b < K; b++ {
			q += 2 * A[a*K+b] * eta[a] * eta[b]
		}
	}
	if g != nil {
		for a := 0; a < K; a++ {
			for b := 0; b < K; b++ {
				x := A[min(a, b)*K+max(a, b)]
				g[a] -= x * eta[b]
			}
		}
	}
	return q
}

// data returns Σ_d Σ_c λ_dc [log p(c | η·φ̄_d; b) − (M_c/2) V_d(η)] over
// the documents of s and, when ge and gb are non-nil, sets them to its
// gradient in η and b:
//
//	∂/∂η   = Σ_d Σ_c λ_dc g_c(ŝ_d) φ̄_d − (Σ_d M̄_d A_d) η,
//	∂/∂b_c = Σ_d [λ_dc ∂/∂b_c log p(c | ŝ_d) + λ_d,c+1 ∂/∂b_c log p(c+1 | ŝ_d)].
func (r *Response) data(eta, cuts []float64, s *Stats, ge, gb []float64) float64 {
	C, K := r.C, r.K
	if ge != nil {
		clear(ge)
		clear(gb)
	}
	total := 0.0
	for d := range s.Docs() {
		bar, lam := s.Bar[d*K:(d+1)*K], s.Lam[d*C:(d+1)*C]
		sd := dot(eta, bar)
		gs := 0.0
		for c, p := range lam {
			if p == 0 {
				continue
			}
			lp, g, du, dl := level(c, sd, cuts)
			total += p * lp
			if ge != nil {
				gs += p * g
				if c < C-1 {
					gb[c] += p * du
				}
				if c > 0 {
					gb[c-1] += p * dl
				}
			}
		}
		if ge != nil {
			for k, x := range bar {
				ge[k] += gs * x
			}
		}
	}
	return total - 0.5*quadForm(s.A, eta, ge)
}

// logPrior is the cut points' log prior a_0 Σ_c log p(c | 0; b) and, when
// gb is non-nil, adds its gradient into gb.
func (r *Response) logPrior(cuts, gb []float64) float64 {
	a0 := r.Config.PriorCount
	if a0 == 0 {
		return 0
	}
	e := 0.0
	for c := 0; c < r.C; c++ {
		lp, _, du, dl := level(c, 0, cuts)
		e += a0 * lp
		if gb != nil {
			if c < r.C-1 {
				gb[c] += a0 * du
			}
			if c > 0 {
				gb[c-1] += a0 * dl
			}
		}
	}
	return e
}

// penalty is (μ/2)‖η‖².
func (r *Response) penalty(eta []float64) float64 { return 0.5 * r.Config.L2 * dot(eta, eta) }

// objective is the M-step's objective at S = scale,
//
//	L(η, b) = S·data(η, b) − (μ/2)‖η‖² + a_0 Σ_c log p(c | 0; b),
//
// with its gradient in η and b (gb may not be nil when ge is not).
func (r *Response) objective(eta, cuts []float64, s *Stats, scale float64, ge, gb []float64) float64 {
	v := scale * r.data(eta, cuts, s, ge, gb)
	if ge != nil {
		for k := range ge {
			ge[k] = scale*ge[k] - r.Config.L2*eta[k]
		}
		for c := range gb {
			gb[c] *= scale
		}
	}
	return v - r.penalty(eta) + r.logPrior(cuts, gb)
}

// pack writes η and the cut points as the solver's variables: η, b_0 and
// the log-gaps log(b_c − b_{c−1}).
func pack(x, eta, cuts []float64) {
	K := len(eta)
	copy(x, eta)
	x[K] = cuts[0]
	for c := 1; c < len(cuts); c++ {
		x[K+c] = math.Log(cuts[c] - cuts[c-1])
	}
}

// unpack is pack's inverse.
func unpack(x, eta, cuts []float64) {
	K := len(eta)
	copy(eta, x[:K])
	cuts[0] = x[K]
	for c := 1; c < len(cuts); c++ {
		cuts[c] = cuts[c-1] + math.Exp(x[K+c])
	}
}

// objectiveWeight is W = max(1, S·n): the solver minimises −L/W, so that
// its tolerances are per document.
func objectiveWeight(docs int, scale float64) float64 { return math.Max(1, scale*float64(docs)) }

// solverObjective is −L/W in the solver's variables (pack) with its
// gradient by the chain rule: ∂/∂b_0 = Σ_c ∂L/∂b_c, ∂/∂log-gap_i =
// (b_i − b_{i−1}) Σ_{c ≥ i} ∂L/∂b_c.
func (r *Response) solverObjective(s *Stats, scale float64) func(x, g []float64) float64 {
	K, C := r.K, r.C
	W := objectiveWeight(s.Docs(), scale)
	eta, cuts := make([]float64, K), make([]float64, C-1)
	ge, gb := make([]float64, K), make([]float64, C-1)
	return func(x, g []float64) float64 {
		unpack(x, eta, cuts)
		for c := 1; c < len(cuts); c++ {
			if !(cuts[c] > cuts[c-1]) {
				return math.NaN() // a gap underflowed: outside the domain
			}
		}
		if g == nil {
			return -r.objective(eta, cuts, s, scale, nil, nil) / W
		}
		v := r.objective(eta, cuts, s, scale, ge, gb)
		for k := range ge {
			g[k] = -ge[k] / W
		}
		tail := 0.0
		for c := C - 2; c >= 0; c-- {
			tail += gb[c]
			if c == 0 {
				g[K] = -tail / W
			} else {
				g[K+c] = -(cuts[c] - cuts[c-1]) * tail / W
			}
		}
		return -v / W
	}
}

// Update is the M-step (doc.go, "M-step"): with the statistics of the
// (mini-)batch B and S = st.Scale it maximises L(η, b) (objective),
// concave in (η, b), by L-BFGS (optim.Minimize) in η, b_0 and the log-gaps,
// warm-started from the current parameters: max_iters iterations when
// st.Full, svi_iters otherwise. The solver's point is never worse than the
// start, so a batch step cannot lower the bound. Then η ← (1−ρ)η + ρη_B
// and b ← (1−ρ)b + ρb_B (a blend of increasing vectors is increasing);
// ρ = 0 changes nothing.
func (r *Response) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: Update before Init", framework.ErrNotTrained, Name)
	}
	if err := step.Check("response " + Name); err != nil {
		return err
	}
	s := st.(*Stats)
	r.last = Solve{Docs: s.Docs()}
	if step.Rho == 0 {
		return nil
	}
	iters := r.Config.SVIIters
	if step.Full {
		iters = r.Config.MaxIters
	}
	x0 := make([]float64, r.K+r.C-1)
	pack(x0, r.Eta, r.Cuts)
	res, err := optim.Minimize(ctx, r.solverObjective(s, step.Scale), x0, optim.LBFGSOptions{MaxIters: iters, GradTol: 1e-10, FuncTol: 1e-14})
	r.last.Iters, r.last.Status, r.last.Warning = res.Iters, res.Status, res.Warning
	r.last.Objective = -res.F * objectiveWeight(s.Docs(), step.Scale)
	if err != nil {
		if ctx.Err() != nil || math.IsNaN(res.F) {
			return fmt.Errorf("response %s: M-step: %w", Name, err)
		}
		r.last.Warning = err // no progress from the start: keep the parameters
		return nil
	}
	eta, cuts := make([]float64, r.K), make([]float64, r.C-1)
	unpack(res.X, eta, cuts)
	for k, x := range eta {
		r.Eta[k] = (1-step.Rho)*r.Eta[k] + step.Rho*x
	}
	for c, x := range cuts {
		r.Cuts[c] = (1-step.Rho)*r.Cuts[c] + step.Rho*x
	}
	return nil
}

// ELBO is the response's part of the bound at the current parameters:
//
//	S Σ_d [Σ_c λ_dc (log p(c | ŝ_d) − (M_c/2) V_d) + H(λ_d)] − (μ/2)‖η‖² + a_0 Σ_c log p(c | 0; b).
//
// The response owns the entropy of q(c_d); the last two terms are the log
// priors of the MAP estimates (up to constants).
func (r *Response) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	return step.Scale*(r.data(r.Eta, r.Cuts, s, nil, nil)+s.Entropy) - r.penalty(r.Eta) + r.logPrior(r.Cuts, nil)
}

// saved is the JSON of response.params.
type saved struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Levels  []string  `json:"levels"`
	K       int       `json:"k"`
	Eta     []float64 `json:"eta"`
	Cuts    []float64 `json:"cuts"`
}

const (
	paramsFormat  = "maslda-ordinal"
	paramsVersion = 1
)

// SaveParams writes the levels, η and the cut points as JSON
// (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	if err := e.Encode(saved{Format: paramsFormat, Version: paramsVersion, Levels: r.Names, K: r.K, Eta: r.Eta, Cuts: r.Cuts}); err != nil {
		return fmt.Errorf("response %s: saving: %w", Name, err)
	}
	return nil
}

// LoadParams restores what SaveParams wrote; call it after Init with the
// same levels and K. Errors wrap framework.ErrBadInput.
func (r *Response) LoadParams(rd io.Reader) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: LoadParams before Init", framework.ErrNotTrained, Name)
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
	case !slices.Equal(p.Levels, r.Names) || p.K != r.K || len(p.Eta) != r.K || len(p.Cuts) != r.C-1:
		return fmt.Errorf("%w: %s parameters: levels %s and %d topics (%d coefficients, %d cut points); the model has levels %s and %d topics", framework.ErrBadInput, Name, quote(p.Levels), p.K, len(p.Eta), len(p.Cuts), quote(r.Names), r.K)
	}
	for k, e := range p.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%w: %s parameters: η[%d] = %v, want a finite number", framework.ErrBadInput, Name, k, e)
		}
	}
	for c, b := range p.Cuts {
		if math.IsNaN(b) || math.IsInf(b, 0) || (c > 0 && !(b > p.Cuts[c-1])) {
			return fmt.Errorf("%w: %s parameters: cut points %v, want finite and increasing", framework.ErrBadInput, Name, p.Cuts)
		}
	}
	copy(r.Eta, p.Eta)
	copy(r.Cuts, p.Cuts)
	return nil
}

// Sample draws a level for each row of zbar from the ordered logit
// p(c | z̄) = F(b_c − η·z̄) − F(b_{c−1} − η·z̄): the latent score η·z̄ plus
// standard logistic noise, cut at b (planted data). It panics when cuts is
// empty or not increasing, or eta and a row of zbar differ in length
// (programmer errors, as math/rand does).
func Sample(zbar [][]float64, eta, cuts []float64, rng *rand.Rand) []int {
	if len(cuts) == 0 {
		panic("ordinal.Sample: no cut points")
	}
	for c := 1; c < len(cuts); c++ {
		if !(cuts[c] > cuts[c-1]) {
			panic("ordinal.Sample: cut points not increasing")
		}
	}
	out := make([]int, len(zbar))
	for d, z := range zbar {
		if len(z) != len(eta) {
			panic("ordinal.Sample: η and z̄ differ in length")
		}
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		x := dot(eta, z) + math.Log(u/(1-u))
		c := 0
		for c < len(cuts) && x > cuts[c] {
			c++
		}
		out[d] = c
	}
	return out
}

// Coefficients returns η as one column and the cut points b_0 < … <
// b_{C−2} as cut_0, cut_1, … (framework.Coefficients).
func (r *Response) Coefficients() ([][]float64, map[string]float64) {
	sc := make(map[string]float64, len(r.Cuts))
	for i, b := range r.Cuts {
		sc["cut_"+strconv.Itoa(i)] = b
	}
	return [][]float64{append([]float64(nil), r.Eta...)}, sc
}
