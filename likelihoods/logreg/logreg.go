package logreg

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// Name is the name the response is registered under.
const Name = "logreg"

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

// Params are the settings of the `response "logreg" { ... }` block.
type Params struct {
	// L2 is μ ≥ 0, the penalty (μ/2)‖η‖² on all C×K coefficients (a
	// Gaussian prior with variance 1/μ); default 0.01. It picks one η among
	// those the softmax cannot tell apart (a common vector added to every
	// row) and keeps η finite on separable classes; 0 allows both.
	L2 float64 `hcl:"l2,optional"`
	// MaxIters is the number of L-BFGS iterations of a batch M-step
	// (warm-started from the current η); default 100, ≥ 1.
	MaxIters int `hcl:"max_iters,optional"`
	// SVIIters is the number of L-BFGS iterations on each SVI mini-batch's
	// objective; default 5, ≥ 1.
	SVIIters int `hcl:"svi_iters,optional"`
}

// Defaults returns the documented defaults.
func Defaults() Params { return Params{L2: 0.01, MaxIters: 100, SVIIters: 5} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch {
	case !(p.L2 >= 0) || math.IsInf(p.L2, 0):
		return fmt.Errorf("%w: response %s: l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, Name, p.L2)
	case p.MaxIters < 1:
		return fmt.Errorf("%w: response %s: max_iters = %d, want ≥ 1 (default %d)", framework.ErrBadInput, Name, p.MaxIters, Defaults().MaxIters)
	case p.SVIIters < 1:
		return fmt.Errorf("%w: response %s: svi_iters = %d, want ≥ 1 (default %d)", framework.ErrBadInput, Name, p.SVIIters, Defaults().SVIIters)
	}
	return nil
}

// Response is multinomial logistic regression on the point features φ̄_d:
// p(c_d = l | φ̄_d) = softmax(η φ̄_d)_l, η a C×K matrix (MODEL.md §6, "LDA
// + LogReg", "LDA + Raykar"). It implements framework.Likelihood,
// framework.DocScorer and framework.Persister, and FixedFeatures (true):
// it is valid only when the topics are fitted first and frozen (the
// two-stage schedule). Its parameters are read-only during the E-step.
type Response struct {
	Config Params
	C, K   int
	Eta    []float64 // η, C×K row-major: Eta[l*K+k] = η_lk

	last Solve
}

// Solve describes the last M-step.
type Solve struct {
	Docs      int     // documents in the (mini-)batch
	Iters     int     // L-BFGS iterations
	Status    string  // gonum's termination status ("" when no solve ran)
	Objective float64 // the maximised objective S·data − (μ/2)‖η‖² at the solver's point
	Warning   error   // a line-search failure that ended the solve with an accepted point
}

// Interface checks.
var (
	_ framework.Likelihood      = (*Response)(nil)
	_ framework.DocScorer       = (*Response)(nil)
	_ framework.Persister       = (*Response)(nil)
	_ framework.LikelihoodLocal = (*local)(nil)
	_ framework.DocScorer       = (*local)(nil)
)

// New returns a response with the given settings (call Init before use).
func New(p Params) (*Response, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Response{Config: p}, nil
}

// FixedFeatures reports that the response treats φ̄_d as fixed features:
// PhiTerm adds nothing, so the topics are not fitted to the target and the
// joint bound is not monotone unless φ is frozen (two-stage schedule).
func (r *Response) FixedFeatures() bool { return true }

// LastSolve describes the last M-step (for diagnostics).
func (r *Response) LastSolve() Solve { return r.last }

// Init sizes η (C×K, zero: the first prior message is uniform) for
// Setup.Classes (at least 2) and Setup.K (at least 1); errors wrap
// framework.ErrBadInput.
func (r *Response) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: response %s: no setup", framework.ErrBadInput, Name)
	}
	switch c := len(s.Classes); {
	case c == 0:
		return fmt.Errorf("%w: response %s needs class names: give categorical answers", framework.ErrBadInput, Name)
	case c < 2:
		return fmt.Errorf("%w: response %s needs at least 2 classes, got %d (%q)", framework.ErrBadInput, Name, c, s.Classes[0])
	}
	if s.K < 1 {
		return fmt.Errorf("%w: response %s: %d topics, want ≥ 1", framework.ErrBadInput, Name, s.K)
	}
	r.C, r.K = len(s.Classes), s.K
	r.Eta = make([]float64, r.C*r.K)
	r.last = Solve{}
	return nil
}

// NewTarget returns q(c_d) = Cat(λ_d) over the C classes.
func (r *Response) NewTarget() framework.Target { return framework.NewCategorical(r.C) }

// NewLocal returns one goroutine's scratch for the local step.
func (r *Response) NewLocal() framework.LikelihoodLocal {
	return &local{r: r, z: make([]float64, r.C)}
}

// logits sets z_l = η_l·φ̄ and returns log Σ_l exp(z_l).
func logits(eta []float64, K int, bar, z []float64) float64 {
	mx := math.Inf(-1)
	for l := range z {
		s := 0.0
		for k, x := range bar {
			s += eta[l*K+k] * x
		}
		z[l] = s
		mx = math.Max(mx, s)
	}
	s := 0.0
	for _, v := range z {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}

// docTerm is Σ_l λ_l log softmax(η φ̄)_l (terms with λ_l = 0 are 0), using
// z (length C) as scratch.
func docTerm(eta []float64, K int, bar, lam, z []float64) float64 {
	lse := logits(eta, K, bar, z)
	e := 0.0
	for l, p := range lam {
		if p != 0 {
			e += p * (z[l] - lse)
		}
	}
	return e
}

// Predict sets d.Target (a *framework.Categorical) to softmax(η φ̄_d).
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	logits(r.Eta, r.K, d.PhiBar, t.Log)
	t.Finalize()
}

// DocELBO is document d's part of the response's ELBO at the current η:
// Σ_l λ_dl log softmax(η φ̄_d)_l + H(λ_d). Safe for concurrent use.
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	return docTerm(r.Eta, r.K, d.PhiBar, t.P, make([]float64, r.C)) + t.Entropy()
}

// local is one goroutine's part of the local step.
type local struct {
	r *Response
	z []float64
}

// Begin does nothing: the message depends on φ̄_d only, read by TargetTerm.
func (*local) Begin(*framework.DocState) {}

// TargetTerm adds the exact log-likelihood of each class as the prior
// message: Log[l] += η_l·φ̄_d − log Σ_t exp(η_t·φ̄_d).
func (lc *local) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	lse := logits(lc.r.Eta, lc.r.K, d.PhiBar, lc.z)
	for l, v := range lc.z {
		t.Log[l] += v - lse
	}
}

// PhiTerm adds nothing: the features φ̄_d are fixed (see FixedFeatures).
func (*local) PhiTerm([]float64, *framework.DocState, int) {}

// WordChanged does nothing.
func (*local) WordChanged(*framework.DocState, int, []float64) {}

// DocELBO is Response.DocELBO with this goroutine's scratch.
func (lc *local) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	return docTerm(lc.r.Eta, lc.r.K, d.PhiBar, t.P, lc.z) + t.Entropy()
}

// Stats are what the M-step needs of each document of a (mini-)batch, in
// accumulation order: φ̄_d (K) and λ_d (C), and Σ_d H(λ_d). Merge
// appends, so merged statistics are those of the union; they cost
// 8·(K + C) bytes per document.
type Stats struct {
	K, C    int
	Bar     []float64 // n×K
	Lam     []float64 // n×C
	Entropy float64   // Σ_d H(λ_d)
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats { return &Stats{K: r.K, C: r.C} }

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
	s.Entropy += t.Entropy
}

// Reset empties s (keeping its storage).
func (s *Stats) Reset() {
	s.Bar, s.Lam, s.Entropy = s.Bar[:0], s.Lam[:0], 0
}

// Accumulate records document d's φ̄_d, λ_d and H(λ_d).
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	s.Bar = append(s.Bar, d.PhiBar...)
	s.Lam = append(s.Lam, t.P...)
	s.Entropy += t.Entropy()
}

// data returns Σ_d Σ_l λ_dl log softmax(η φ̄_d)_l over the documents of s
// and, when grad is non-nil, sets grad to its gradient
//
//	∂/∂η_lk = Σ_d (λ_dl − softmax(η φ̄_d)_l) φ̄_dk.
func (r *Response) data(eta []float64, s *Stats, grad []float64) float64 {
	C, K := r.C, r.K
	z := make([]float64, C)
	if grad != nil {
		clear(grad)
	}
	total := 0.0
	for d := range s.Docs() {
		bar, lam := s.Bar[d*K:(d+1)*K], s.Lam[d*C:(d+1)*C]
		lse := logits(eta, K, bar, z)
		for l, p := range lam {
			if p != 0 {
				total += p * (z[l] - lse)
			}
			if grad != nil {
				c := p - math.Exp(z[l]-lse)
				g := grad[l*K : (l+1)*K]
				for k, x := range bar {
					g[k] += c * x
				}
			}
		}
	}
	return total
}

// objectiveWeight is W = max(1, S·n): the M-step minimises −L/W, so that the
// solver's tolerances are per document.
func objectiveWeight(docs int, scale float64) float64 { return math.Max(1, scale*float64(docs)) }

// objective returns −L(η)/W and its gradient, L(η) = S·data(η) −
// (μ/2)‖η‖², the function Update minimises.
func (r *Response) objective(s *Stats, scale float64) func(x, g []float64) float64 {
	W := objectiveWeight(s.Docs(), scale)
	mu := r.Config.L2
	return func(x, g []float64) float64 {
		v := r.data(x, s, g)
		pen := 0.0
		for _, e := range x {
			pen += e * e
		}
		if g != nil {
			for i := range g {
				g[i] = -(scale*g[i] - mu*x[i]) / W
			}
		}
		return -(scale*v - 0.5*mu*pen) / W
	}
}

// Update is the M-step: with the statistics of the (mini-)batch B and S =
// st.Scale it maximises
//
//	L_B(η) = S Σ_{d∈B} Σ_l λ_dl log softmax(η φ̄_d)_l − (μ/2)‖η‖²,
//
// concave in η (strictly for μ > 0), by L-BFGS (optim.Minimize)
// warm-started from the current η: max_iters iterations when st.Full,
// svi_iters otherwise. The solver's point η_B is never worse than the start,
// so a batch step cannot lower the bound. η ← (1−ρ)η + ρ η_B; ρ = 0 changes
// nothing.
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
	if step.Rho == 0 || (s.Docs() == 0 && r.Config.L2 == 0) {
		return nil
	}
	iters := r.Config.SVIIters
	if step.Full {
		iters = r.Config.MaxIters
	}
	res, err := optim.Minimize(ctx, r.objective(s, step.Scale), r.Eta, optim.LBFGSOptions{MaxIters: iters, GradTol: 1e-10, FuncTol: 1e-14})
	r.last.Iters, r.last.Status, r.last.Warning = res.Iters, res.Status, res.Warning
	r.last.Objective = -res.F * objectiveWeight(s.Docs(), step.Scale)
	if err != nil {
		if ctx.Err() != nil || math.IsNaN(res.F) {
			return fmt.Errorf("response %s: M-step: %w", Name, err)
		}
		r.last.Warning = err // no progress from the start: keep η
		return nil
	}
	for i, x := range res.X {
		r.Eta[i] = (1-step.Rho)*r.Eta[i] + step.Rho*x
	}
	return nil
}

// ELBO is the response's part of the bound at the current η:
//
//	S Σ_d [ Σ_l λ_dl log softmax(η φ̄_d)_l + H(λ_d) ] − (μ/2)‖η‖².
//
// The response owns the entropy of q(c_d), as the softmax does.
func (r *Response) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	pen := 0.0
	for _, e := range r.Eta {
		pen += e * e
	}
	return step.Scale*(r.data(r.Eta, s, nil)+s.Entropy) - 0.5*r.Config.L2*pen
}

// saved is the JSON of response.params.
type saved struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Classes int       `json:"classes"`
	K       int       `json:"k"`
	Eta     []float64 `json:"eta"` // class-major
}

const (
	paramsFormat  = "maslda-logreg"
	paramsVersion = 1
)

// SaveParams writes η as JSON (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(saved{Format: paramsFormat, Version: paramsVersion, Classes: r.C, K: r.K, Eta: r.Eta})
}

// LoadParams restores what SaveParams wrote; call it after Init with the
// same classes and K.
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
	case p.Classes != r.C || p.K != r.K || len(p.Eta) != r.C*r.K:
		return fmt.Errorf("%w: %s parameters: %d classes × %d topics with %d coefficients, the model has %d × %d", framework.ErrBadInput, Name, p.Classes, p.K, len(p.Eta), r.C, r.K)
	}
	for i, e := range p.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%w: %s parameters: η[%d][%d] = %v, want a finite number", framework.ErrBadInput, Name, i/r.K, i%r.K, e)
		}
	}
	copy(r.Eta, p.Eta)
	return nil
}

// Coefficients returns η per class (framework.Coefficients).
func (r *Response) Coefficients() ([][]float64, map[string]float64) {
	eta := make([][]float64, r.C)
	for l := range eta {
		eta[l] = append([]float64(nil), r.Eta[l*r.K:(l+1)*r.K]...)
	}
	return eta, nil
}
