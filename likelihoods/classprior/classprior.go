package classprior

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// Name is the name the response is registered under.
const Name = "class-prior"

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

// Estimates of π (Params.Estimate).
const (
	Variational = "variational" // q(π) = Dir(ζ): Bayesian Dawid–Skene
	Point       = "point"       // the MAP π̂ (ML with alpha = 1): Dawid–Skene's EM
)

// Params are the settings of the `response "class-prior" { ... }` block.
type Params struct {
	// Alpha is the symmetric Dirichlet prior Dir(α) of π: > 0, and ≥ 1 with
	// estimate = "point" (a MAP estimate needs a prior density bounded on
	// the simplex). Default 1 (flat).
	Alpha float64 `hcl:"alpha,optional"`
	// Estimate is "variational" (default: q(π) = Dir(ζ)) or "point" (π̂ ∝
	// Σ_d λ_d + α − 1).
	Estimate string `hcl:"estimate,optional"`
}

// Defaults returns the documented defaults: α = 1, variational.
func Defaults() Params { return Params{Alpha: 1, Estimate: Variational} }

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch p.Estimate {
	case Variational, Point:
	default:
		return fmt.Errorf("%w: response %s: estimate = %q; valid: %q (default), %q", framework.ErrBadInput, Name, p.Estimate, Variational, Point)
	}
	if !(p.Alpha > 0) || math.IsInf(p.Alpha, 0) {
		return fmt.Errorf("%w: response %s: alpha = %v, want a finite number > 0", framework.ErrBadInput, Name, p.Alpha)
	}
	if p.Estimate == Point && p.Alpha < 1 {
		return fmt.Errorf("%w: response %s: alpha = %v with estimate = %q, want alpha ≥ 1 (the MAP estimate needs a bounded prior density; use estimate = %q for alpha < 1)", framework.ErrBadInput, Name, p.Alpha, Point, Variational)
	}
	return nil
}

// Response is the class prior p(c_d) = π_c (MODEL.md §6, "Dawid–Skene"):
// a categorical response without topic features. It implements
// framework.Likelihood, framework.DocScorer and framework.Persister; its
// parameters are read-only during the E-step.
type Response struct {
	Config Params
	C      int
	// Zeta is ζ, the Dirichlet posterior q(π) = Dir(ζ) ("variational").
	Zeta []float64
	// Pi is π̂, the point estimate ("point").
	Pi []float64

	elog   []float64 // E[log π_l] or log π̂_l
	global float64   // E[log p(π|α)] − E[log q(π|ζ)], or log Dir(π̂|α)

	run  []float64 // "point" under SVI: running statistics Σ λ (blended)
	runW float64   // Σ of the blending weights in run
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
	return &Response{Config: p}, nil
}

func (r *Response) point() bool { return r.Config.Estimate == Point }

// Init sizes π for Setup.Classes (at least 2, framework.ErrBadInput
// otherwise) and starts from the prior: ζ = α (variational) or the uniform
// π̂ (point). K and the corpus are not used.
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
	r.C = len(s.Classes)
	r.Zeta, r.Pi = nil, nil
	if r.point() {
		r.Pi = make([]float64, r.C)
		for l := range r.Pi {
			r.Pi[l] = 1 / float64(r.C)
		}
	} else {
		r.Zeta = make([]float64, r.C)
		for l := range r.Zeta {
			r.Zeta[l] = r.Config.Alpha
		}
	}
	r.elog = make([]float64, r.C)
	r.run, r.runW = nil, 0
	r.refresh()
	return nil
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

// refresh recomputes E[log π] (or log π̂) and the global ELBO term.
func (r *Response) refresh() {
	a, C := r.Config.Alpha, float64(r.C)
	prior := lgamma(C*a) - C*lgamma(a) // log of Dir(α)'s normaliser
	if r.point() {
		g := prior
		for l, p := range r.Pi {
			r.elog[l] = math.Log(p)
			if a != 1 {
				g += (a - 1) * r.elog[l]
			}
		}
		r.global = g
		return
	}
	sum := 0.0
	for _, z := range r.Zeta {
		sum += z
	}
	ps := mathext.Digamma(sum)
	g := prior - lgamma(sum)
	for l, z := range r.Zeta {
		e := mathext.Digamma(z) - ps
		r.elog[l] = e
		g += lgamma(z) + (a-z)*e
	}
	r.global = g
}

// ElogPi is E[log π_l] ("variational") or log π̂_l ("point"): the prior
// message every document's q(c_d) receives.
func (r *Response) ElogPi(l int) float64 { return r.elog[l] }

// Mean is the class distribution the response predicts: E[π] = ζ/Σζ
// ("variational") or π̂ ("point").
func (r *Response) Mean() []float64 {
	if r.point() {
		return append([]float64(nil), r.Pi...)
	}
	out := append([]float64(nil), r.Zeta...)
	s := 0.0
	for _, z := range out {
		s += z
	}
	for l := range out {
		out[l] /= s
	}
	return out
}

// NewTarget returns q(c_d) = Cat(λ_d) over the C classes.
func (r *Response) NewTarget() framework.Target { return framework.NewCategorical(r.C) }

// IgnoresDocuments is true: the class prior never reads the documents
// (framework.DocumentFree), so it trains on answers alone.
func (r *Response) IgnoresDocuments() bool { return true }

// NewLocal returns the local step's part (stateless).
func (r *Response) NewLocal() framework.LikelihoodLocal { return local{r} }

// Predict sets d.Target (a *framework.Categorical) to the class prior,
// Mean(), whatever the document: the predictive distribution of a new
// document without answers.
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	for l, p := range r.Mean() {
		t.Log[l] = math.Log(p)
	}
	t.Finalize()
}

// DocELBO is document d's part of the response's ELBO at the current π:
// Σ_l λ_dl E[log π_l] + H(λ_d) (terms with λ_dl = 0 are 0).
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	e := t.Entropy()
	for l, p := range t.P {
		if p != 0 {
			e += p * r.elog[l]
		}
	}
	return e
}

// local is the response's part of the local step: the prior message only.
type local struct{ r *Response }

// Begin does nothing: the response does not look at φ.
func (local) Begin(*framework.DocState) {}

// TargetTerm adds the prior message Log[l] += E[log π_l] (or log π̂_l).
func (lc local) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	for l := range t.Log {
		t.Log[l] += lc.r.elog[l]
	}
}

// PhiTerm adds nothing: the topics do not see the target.
func (local) PhiTerm([]float64, *framework.DocState, int) {}

// WordChanged does nothing.
func (local) WordChanged(*framework.DocState, int, []float64) {}

// DocELBO is Response.DocELBO.
func (lc local) DocELBO(d *framework.DocState) float64 { return lc.r.DocELBO(d) }

// Stats are the response's sufficient statistics: Counts_l = Σ_d λ_dl,
// Entropy = Σ_d H(λ_d) and the number of documents.
type Stats struct {
	Counts  []float64
	Entropy float64
	Docs    float64
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats { return &Stats{Counts: make([]float64, r.C)} }

// Merge adds o (a *Stats over as many classes) into s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	for l, x := range t.Counts {
		s.Counts[l] += x
	}
	s.Entropy += t.Entropy
	s.Docs += t.Docs
}

// Reset empties s.
func (s *Stats) Reset() {
	clear(s.Counts)
	s.Entropy, s.Docs = 0, 0
}

// Accumulate adds document d's λ_d and H(λ_d) to st.
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	for l, p := range t.P {
		s.Counts[l] += p
	}
	s.Entropy += t.Entropy()
	s.Docs++
}

// Update is the M-step (MODEL.md §5's blend, framework.Step):
//
//	variational: ζ_l ← (1−ρ)ζ_l + ρ(α + S·Counts_l)
//	point:       R ← (1−ρ)R + ρ·S·Counts, W ← (1−ρ)W + ρ,
//	             π̂_l ∝ max(0, R_l/W + α − 1)
//
// Batch (ρ = S = 1): ζ = α + Σ_d λ_d, the exact maximiser of the bound in
// ζ; π̂ ∝ Σ_d λ_d + α − 1, the maximiser of Σ_l Counts_l log π_l + log
// Dir(π|α) on the simplex. The point estimate's running average divided by
// W does not depend on its start (as the gaussian response's). When every
// R_l/W + α − 1 is 0 (α = 1, no documents) π̂ is kept. ρ = 0 changes
// nothing.
func (r *Response) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.elog == nil {
		return fmt.Errorf("%w: response %s: Update before Init", framework.ErrNotTrained, Name)
	}
	rho, sc := step.Rho, step.Scale
	if err := step.Check("response " + Name); err != nil {
		return err
	}
	if rho == 0 {
		return nil
	}
	s := st.(*Stats)
	a := r.Config.Alpha
	if !r.point() {
		for l := range r.Zeta {
			r.Zeta[l] = (1-rho)*r.Zeta[l] + rho*(a+sc*s.Counts[l])
		}
		r.refresh()
		return nil
	}
	if r.run == nil {
		r.run = make([]float64, r.C)
	}
	r.runW = (1-rho)*r.runW + rho
	total := 0.0
	w := make([]float64, r.C)
	for l := range r.run {
		r.run[l] = (1-rho)*r.run[l] + rho*sc*s.Counts[l]
		w[l] = math.Max(0, r.run[l]/r.runW+a-1)
		total += w[l]
	}
	if total > 0 && !math.IsInf(total, 0) {
		for l := range r.Pi {
			r.Pi[l] = w[l] / total
		}
	}
	r.refresh()
	return nil
}

// ELBO is the response's part of the bound at the current π (MODEL.md §4,
// with the class prior in place of the softmax):
//
//	S·( Σ_l Counts_l E[log π_l] + Σ_d H(λ_d) ) + E[log p(π|α)] − E[log q(π|ζ)]   (variational)
//	S·( Σ_l Counts_l log π̂_l  + Σ_d H(λ_d) ) + log Dir(π̂|α)                    (point)
//
// The response owns the entropy of q(c_d), as the softmax does; annotator
// models add only their evidence terms. Terms with Counts_l = 0 are 0
// (also when π̂_l = 0).
func (r *Response) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	local := s.Entropy
	for l, c := range s.Counts {
		if c != 0 {
			local += c * r.elog[l]
		}
	}
	return step.Scale*local + r.global
}

// saved is the JSON of response.params.
type saved struct {
	Format   string    `json:"format"`
	Version  int       `json:"version"`
	Estimate string    `json:"estimate"`
	Classes  int       `json:"classes"`
	Values   []float64 `json:"values"` // ζ ("variational") or π̂ ("point")
}

const (
	paramsFormat  = "maslda-class-prior"
	paramsVersion = 1
)

// SaveParams writes ζ or π̂ as JSON (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if r.elog == nil {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	v := r.Zeta
	if r.point() {
		v = r.Pi
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(saved{Format: paramsFormat, Version: paramsVersion, Estimate: r.Config.Estimate, Classes: r.C, Values: v})
}

// LoadParams restores what SaveParams wrote; call it after Init with the
// same classes and estimate.
func (r *Response) LoadParams(rd io.Reader) error {
	if r.elog == nil {
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
	case p.Estimate != r.Config.Estimate:
		return fmt.Errorf("%w: %s parameters: estimate %q, the configuration has %q", framework.ErrBadInput, Name, p.Estimate, r.Config.Estimate)
	case p.Classes != r.C || len(p.Values) != r.C:
		return fmt.Errorf("%w: %s parameters: %d classes with %d values, the model has %d classes", framework.ErrBadInput, Name, p.Classes, len(p.Values), r.C)
	}
	sum := 0.0
	for l, x := range p.Values {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 || (!r.point() && x == 0) {
			return fmt.Errorf("%w: %s parameters: value %d is %v, want a finite number > 0 (ζ) or ≥ 0 (π̂)", framework.ErrBadInput, Name, l, x)
		}
		sum += x
	}
	if r.point() {
		if math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("%w: %s parameters: π̂ sums to %v, want 1", framework.ErrBadInput, Name, sum)
		}
		copy(r.Pi, p.Values)
	} else {
		copy(r.Zeta, p.Values)
	}
	r.run, r.runW = nil, 0
	r.refresh()
	return nil
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "class-prior.counts", Len: len(s.Counts)}, {Name: "class-prior.scalars", Len: 2}}
}

// Sums visits Counts, then Entropy and Docs.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.Counts)
	framework.ScalarSums(1, visit, &s.Entropy, &s.Docs)
}

// SetSums sets every number.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	framework.SetSliceSums(0, get, s.Counts)
	framework.SetScalarSums(1, get, &s.Entropy, &s.Docs)
}
