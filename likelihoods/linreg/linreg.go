package linreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mat"
)

// Name is the name the response is registered under.
const Name = "linreg"

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

// Params are the settings of the `response "linreg" { ... }` block (the
// gaussian response's options).
type Params struct {
	// Sigma2 is σ², the variance of the true target around η·φ̄_d + b: its
	// value when EstimateSigma2 is false, its starting value otherwise
	// (default 1, > 0).
	Sigma2 float64 `hcl:"sigma2,optional"`
	// EstimateSigma2 re-estimates σ² at every M-step; default false.
	EstimateSigma2 bool `hcl:"estimate_sigma2,optional"`
	// L2 is the ridge μ ≥ 0 on η (default 0.01): the M-step maximises the
	// bound minus μ‖η‖²/(2σ²), η = (Σ_d φ̄_d φ̄_dᵀ + μI)⁻¹ Σ_d φ̄_d m_d.
	L2 float64 `hcl:"l2,optional"`
	// Intercept adds a free scalar b, unpenalised by L2; default false.
	Intercept bool `hcl:"intercept,optional"`
}

// Defaults returns the documented defaults: σ² = 1 fixed, ridge 0.01, no
// intercept.
func Defaults() Params { return Params{Sigma2: 1, L2: 0.01} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch {
	case !(p.Sigma2 > 0) || math.IsInf(p.Sigma2, 0):
		return fmt.Errorf("%w: response %s: sigma2 = %v, want a finite number > 0", framework.ErrBadInput, Name, p.Sigma2)
	case !(p.L2 >= 0) || math.IsInf(p.L2, 0):
		return fmt.Errorf("%w: response %s: l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, Name, p.L2)
	}
	return nil
}

// Sigma2Floor is the smallest σ² the estimate may reach.
const Sigma2Floor = 1e-12

// RCond is the reciprocal condition number below which the M-step switches
// from a Cholesky solve to the SVD's minimum-norm solution.
const RCond = 1e-12

// Response is ridge linear regression on the point features φ̄_d:
// x_d | φ̄_d ~ N(η·φ̄_d + b, σ²) (MODEL.md §6, "LDA + LinReg"). It implements
// framework.Likelihood, framework.DocScorer and framework.Persister, and
// FixedFeatures (true): it is valid only when the topics are fitted first
// and frozen (the two-stage schedule). Its parameters are read-only during
// the E-step.
type Response struct {
	Config Params
	K      int
	Eta    []float64 // η, length K
	B      float64   // the intercept b (0 unless Config.Intercept)
	Sigma2 float64   // σ²

	run  *Stats  // running (blended) statistics of SVI
	runW float64 // Σ of the blending weights in run
}

// Interface checks.
var (
	_ framework.Likelihood      = (*Response)(nil)
	_ framework.DocScorer       = (*Response)(nil)
	_ framework.Persister       = (*Response)(nil)
	_ framework.LikelihoodLocal = local{}
	_ framework.DocScorer       = local{}
)

// New returns a response with the given settings (call Init before use).
func New(p Params) (*Response, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Response{Config: p, Sigma2: p.Sigma2}, nil
}

// FixedFeatures reports that the response treats φ̄_d as fixed features:
// PhiTerm adds nothing, so the topics are not fitted to the target and the
// joint bound is not monotone unless φ is frozen (two-stage schedule).
func (r *Response) FixedFeatures() bool { return true }

// Init sizes η and starts it as the gaussian response does: every η_k equal
// to ȳ, the mean over answered documents of their mean answer (η = 0 and
// b = ȳ with an intercept), so the first prior message neither shrinks nor
// shifts the truth; 0 without numeric answers.
func (r *Response) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: response %s: no setup", framework.ErrBadInput, Name)
	}
	if s.K < 1 {
		return fmt.Errorf("%w: response %s: K = %d, want ≥ 1", framework.ErrBadInput, Name, s.K)
	}
	r.K = s.K
	r.Eta = make([]float64, s.K)
	r.B = 0
	r.Sigma2 = r.Config.Sigma2
	r.run, r.runW = nil, 0
	ybar := 0.0
	if s.Corpus != nil && s.Corpus.Answers != nil && s.Corpus.Answers.Numeric() {
		ybar = s.Corpus.Answers.MeanDocMean()
	}
	if r.Config.Intercept {
		r.B = ybar
	} else {
		for k := range r.Eta {
			r.Eta[k] = ybar
		}
	}
	return nil
}

// NewTarget returns a *framework.Gaussian.
func (r *Response) NewTarget() framework.Target { return &framework.Gaussian{} }

// mean is η·φ̄_d + b.
func (r *Response) mean(bar []float64) float64 {
	s := r.B
	for k, p := range bar {
		s += r.Eta[k] * p
	}
	return s
}

// Predict sets d.Target (a *framework.Gaussian) to N(η·φ̄_d + b, σ²).
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	t.Mean = r.mean(d.PhiBar)
	t.Var = r.Sigma2
	t.Prec = 1 / r.Sigma2
	t.PrecMean = t.Mean / r.Sigma2
}

// DocELBO is document d's part of the response's ELBO at the current η, b,
// σ² and q(x_d) = N(m_d, v_d):
//
//	−½log(2πσ²) − ((m_d − η·φ̄_d − b)² + v_d)/(2σ²) + ½log(2πe v_d).
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Gaussian)
	e := t.Mean - r.mean(d.PhiBar)
	return -0.5*math.Log(2*math.Pi*r.Sigma2) - (e*e+t.Var)/(2*r.Sigma2) + 0.5*math.Log(2*math.Pi*math.E*t.Var)
}

// NewLocal returns the local step's part (stateless).
func (r *Response) NewLocal() framework.LikelihoodLocal { return local{r} }

type local struct{ r *Response }

// Begin does nothing.
func (local) Begin(*framework.DocState) {}

// TargetTerm adds the prior message N(η·φ̄_d + b, σ²): Prec += 1/σ²,
// PrecMean += (η·φ̄_d + b)/σ².
func (l local) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	t.Prec += 1 / l.r.Sigma2
	t.PrecMean += l.r.mean(d.PhiBar) / l.r.Sigma2
}

// PhiTerm adds nothing: the features φ̄_d are fixed (see FixedFeatures).
func (local) PhiTerm([]float64, *framework.DocState, int) {}

// WordChanged does nothing.
func (local) WordChanged(*framework.DocState, int, []float64) {}

// DocELBO is Response.DocELBO.
func (l local) DocELBO(d *framework.DocState) float64 { return l.r.DocELBO(d) }

// Stats are the response's sufficient statistics, summed over documents.
type Stats struct {
	K       int
	XX      []float64 // Σ_d φ̄_d φ̄_dᵀ, K×K row-major (symmetric, both triangles)
	XM      []float64 // Σ_d φ̄_d m_d
	XSum    []float64 // Σ_d φ̄_d (the intercept's cross term)
	M       float64   // Σ_d m_d
	MM      float64   // Σ_d (m_d² + v_d)
	Docs    float64   // number of documents
	Entropy float64   // Σ_d ½log(2πe v_d)
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats { return newStats(r.K) }

func newStats(k int) *Stats {
	return &Stats{K: k, XX: make([]float64, k*k), XM: make([]float64, k), XSum: make([]float64, k)}
}

// Merge adds o (a *Stats of the same K) into s.
func (s *Stats) Merge(o framework.Stats) { s.axpy(1, o.(*Stats)) }

func (s *Stats) axpy(a float64, t *Stats) {
	for i, x := range t.XX {
		s.XX[i] += a * x
	}
	for k := range s.XM {
		s.XM[k] += a * t.XM[k]
		s.XSum[k] += a * t.XSum[k]
	}
	s.M += a * t.M
	s.MM += a * t.MM
	s.Docs += a * t.Docs
	s.Entropy += a * t.Entropy
}

// scale sets s *= a.
func (s *Stats) scale(a float64) {
	for i := range s.XX {
		s.XX[i] *= a
	}
	for k := range s.XM {
		s.XM[k] *= a
		s.XSum[k] *= a
	}
	s.M *= a
	s.MM *= a
	s.Docs *= a
	s.Entropy *= a
}

// Reset empties s.
func (s *Stats) Reset() { s.scale(0) }

// Accumulate adds document d's statistics (O(K²)).
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Gaussian)
	K := r.K
	for a, x := range d.PhiBar {
		if x == 0 {
			continue
		}
		row := s.XX[a*K : (a+1)*K]
		for b, y := range d.PhiBar {
			row[b] += x * y
		}
		s.XM[a] += x * t.Mean
		s.XSum[a] += x
	}
	s.M += t.Mean
	s.MM += t.Mean*t.Mean + t.Var
	s.Docs++
	s.Entropy += 0.5 * math.Log(2*math.Pi*math.E*t.Var)
}

// residual is Σ_d E[(x_d − η·φ̄_d − b)²] = MM − 2η·XM − 2bM + ηᵀXXη +
// 2bη·XSum + b²D.
func (r *Response) residual(s *Stats) float64 {
	K := r.K
	q := 0.0
	for a := 0; a < K; a++ {
		q += r.Eta[a] * dot(s.XX[a*K:(a+1)*K], r.Eta)
	}
	b := r.B
	return s.MM - 2*dot(r.Eta, s.XM) - 2*b*s.M + q + 2*b*dot(r.Eta, s.XSum) + b*b*s.Docs
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Update is the M-step. As in the gaussian response, the statistics are
// blended into running statistics R ← (1−ρ)R + ρ·S·stats with a running
// weight W ← (1−ρ)W + ρ, and η, b, σ² are solved from R/W: batch (ρ = S =
// 1) uses exactly this E-step's statistics. ρ = 0 changes nothing.
//
//	η = (Σ φ̄φ̄ᵀ + μI)⁻¹ Σ φ̄ m                              (no intercept)
//	[Σ φ̄φ̄ᵀ + μI, Σ φ̄; Σ φ̄ᵀ, D] [η; b] = [Σ φ̄ m; Σ m]      (intercept)
//	σ² = (Σ_d E[(x_d − η·φ̄_d − b)²] + μ‖η‖²)/D              (estimate_sigma2)
//
// the exact maximisers of the bound minus μ‖η‖²/(2σ²) (η first: it does
// not depend on σ²).
func (r *Response) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: Update before Init", framework.ErrNotTrained, Name)
	}
	rho := step.Rho
	if !(rho >= 0 && rho <= 1) || !(step.Scale >= 0) || math.IsInf(step.Scale, 0) {
		return fmt.Errorf("%w: response %s: step ρ = %v, S = %v; want ρ ∈ [0, 1] and a finite S ≥ 0", framework.ErrBadInput, Name, rho, step.Scale)
	}
	if rho == 0 {
		return nil
	}
	s := st.(*Stats)
	if r.run == nil {
		r.run = newStats(r.K)
	}
	r.run.scale(1 - rho)
	r.run.axpy(rho*step.Scale, s)
	r.runW = (1-rho)*r.runW + rho
	eff := newStats(r.K)
	eff.axpy(1/r.runW, r.run)
	if eff.Docs == 0 {
		return nil
	}
	if err := r.solve(eff); err != nil {
		return err
	}
	if r.Config.EstimateSigma2 {
		s2 := (r.residual(eff) + r.Config.L2*dot(r.Eta, r.Eta)) / eff.Docs
		if math.IsNaN(s2) {
			return fmt.Errorf("response %s: σ² update is NaN", Name)
		}
		r.Sigma2 = math.Max(s2, Sigma2Floor)
	}
	return nil
}

// solve sets η (and b) from the normal equations; a singular or badly
// conditioned system (μ = 0 with an intercept, or a topic no document
// uses) is solved by the SVD's minimum-norm solution, still an exact
// maximiser of the bound.
func (r *Response) solve(s *Stats) error {
	K := r.K
	n := K
	if r.Config.Intercept {
		n++
	}
	a := mat.NewSymDense(n, nil)
	rhs := mat.NewVecDense(n, nil)
	for i := 0; i < K; i++ {
		for j := i; j < K; j++ {
			a.SetSym(i, j, s.XX[i*K+j])
		}
		a.SetSym(i, i, a.At(i, i)+r.Config.L2)
		rhs.SetVec(i, s.XM[i])
	}
	if r.Config.Intercept {
		for i := 0; i < K; i++ {
			a.SetSym(i, K, s.XSum[i])
		}
		a.SetSym(K, K, s.Docs)
		rhs.SetVec(K, s.M)
	}
	x := mat.NewVecDense(n, nil)
	var chol mat.Cholesky
	if ok := chol.Factorize(a); ok && 1/chol.Cond() > RCond {
		if err := chol.SolveVecTo(x, rhs); err != nil {
			return fmt.Errorf("response %s: η solve: %w", Name, err)
		}
	} else {
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDThin) {
			return errors.New("response linreg: η solve: SVD failed")
		}
		if rank := svd.Rank(RCond); rank > 0 {
			svd.SolveVecTo(x, rhs, rank)
		}
	}
	for i := 0; i < n; i++ {
		if v := x.AtVec(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("response %s: η solve gave %v", Name, v)
		}
	}
	for k := range r.Eta {
		r.Eta[k] = x.AtVec(k)
	}
	if r.Config.Intercept {
		r.B = x.AtVec(K)
	}
	return nil
}

// ELBO is the response's part of the bound at the current η, b, σ², the
// per-document parts from st scaled by S:
//
//	S·( −(D/2)log(2πσ²) − Σ_d E[(x_d − η·φ̄_d − b)²]/(2σ²) + Σ_d ½log(2πe v_d) ) − μ‖η‖²/(2σ²).
func (r *Response) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local := -0.5*s.Docs*math.Log(2*math.Pi*r.Sigma2) - r.residual(s)/(2*r.Sigma2) + s.Entropy
	return step.Scale*local - r.Config.L2*dot(r.Eta, r.Eta)/(2*r.Sigma2)
}

// saved is the JSON of response.params.
type saved struct {
	Format    string    `json:"format"`
	Version   int       `json:"version"`
	K         int       `json:"k"`
	Eta       []float64 `json:"eta"`
	Intercept float64   `json:"intercept"`
	Sigma2    float64   `json:"sigma2"`
}

const (
	paramsFormat  = "maslda-linreg"
	paramsVersion = 1
)

// SaveParams writes η, b and σ² as JSON (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(saved{Format: paramsFormat, Version: paramsVersion, K: r.K, Eta: r.Eta, Intercept: r.B, Sigma2: r.Sigma2})
}

// LoadParams restores what SaveParams wrote; call it after Init.
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
	case p.K != r.K || len(p.Eta) != r.K:
		return fmt.Errorf("%w: %s parameters: K = %d with %d coefficients, the model has K = %d", framework.ErrBadInput, Name, p.K, len(p.Eta), r.K)
	case !(p.Sigma2 > 0) || math.IsInf(p.Sigma2, 0):
		return fmt.Errorf("%w: %s parameters: sigma2 = %v, want a finite number > 0", framework.ErrBadInput, Name, p.Sigma2)
	case math.IsNaN(p.Intercept) || math.IsInf(p.Intercept, 0):
		return fmt.Errorf("%w: %s parameters: intercept %v", framework.ErrBadInput, Name, p.Intercept)
	case p.Intercept != 0 && !r.Config.Intercept:
		return fmt.Errorf("%w: %s parameters: intercept %v but the configuration has intercept = false", framework.ErrBadInput, Name, p.Intercept)
	}
	for k, e := range p.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%w: %s parameters: eta[%d] = %v", framework.ErrBadInput, Name, k, e)
		}
	}
	copy(r.Eta, p.Eta)
	r.B, r.Sigma2 = p.Intercept, p.Sigma2
	r.run, r.runW = nil, 0
	return nil
}
