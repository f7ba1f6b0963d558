package valueprior

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
)

// Name is the name the response is registered under.
const Name = "value-prior"

func init() {
	framework.RegisterLikelihood(Name, func(p framework.Params) (framework.Likelihood, error) {
		var c Params
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return New(c)
	})
}

// Priors of the values (Params.Prior).
const (
	Learned = "learned" // y_d ~ N(μ, σ²), μ and σ² estimated
	Flat    = "flat"    // an improper flat prior: the annotators alone decide
)

// Params are the settings of the `response "value-prior" { ... }` block.
type Params struct {
	// Prior is "learned" (default: y_d ~ N(μ, σ²) with μ and σ² by maximum
	// likelihood) or "flat" (no prior message: with a perfect annotator
	// each value is exactly its aggregate, the mean or the median answer;
	// μ and σ² are still estimated, for Predict).
	Prior string `hcl:"prior,optional"`
}

// Validate checks the settings; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch p.Prior {
	case "", Learned, Flat:
		return nil
	}
	return fmt.Errorf("%w: response %s: prior = %q; valid: %q (default), %q", framework.ErrBadInput, Name, p.Prior, Learned, Flat)
}

// Response is the value prior y_d ~ N(μ, σ²): a numeric response without
// topic features. It implements framework.Likelihood, framework.DocScorer,
// framework.DocumentFree, framework.Persister and framework.Checkpointer.
type Response struct {
	Config     Params
	Mu, Sigma2 float64

	ready bool
	run   [3]float64 // running (D, Σ m, Σ (m² + v)), blended
	runW  float64    // Σ of the blending weights in run (0: none yet)
}

// Interface checks.
var (
	_ framework.Likelihood      = (*Response)(nil)
	_ framework.DocScorer       = (*Response)(nil)
	_ framework.DocumentFree    = (*Response)(nil)
	_ framework.Persister       = (*Response)(nil)
	_ framework.Checkpointer    = (*Response)(nil)
	_ framework.LikelihoodLocal = local{}
)

// New returns a response (call Init before use).
func New(p Params) (*Response, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Response{Config: p}, nil
}

func (r *Response) flat() bool { return r.Config.Prior == Flat }

// Init needs numeric answers (no Setup.Classes: framework.ErrIncompatible)
// and starts μ, σ² at the mean and variance of the documents' mean answers.
func (r *Response) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: response %s: no setup", framework.ErrBadInput, Name)
	}
	if len(s.Classes) > 0 {
		return fmt.Errorf("%w: response %s models numbers, but the answers are %d classes: use response \"class-prior\" for class labels", framework.ErrIncompatible, Name, len(s.Classes))
	}
	r.Mu, r.Sigma2 = 0, 1
	r.run, r.runW = [3]float64{}, 0
	if s.Corpus != nil && s.Corpus.Answers != nil && s.Corpus.Answers.Numeric() {
		var n, sum, sumSq float64
		for _, as := range s.Corpus.Answers.ByDoc {
			if len(as) == 0 {
				continue
			}
			m := 0.0
			for _, a := range as {
				m += a.Value
			}
			m /= float64(len(as))
			n, sum, sumSq = n+1, sum+m, sumSq+m*m
		}
		if n > 0 && !math.IsNaN(sum) && !math.IsInf(sumSq, 0) {
			r.Mu = sum / n
			if v := sumSq/n - r.Mu*r.Mu; v > 0 {
				r.Sigma2 = v
			}
		}
	}
	r.ready = true
	return nil
}

// NewTarget returns q(y_d) = N(m_d, v_d).
func (r *Response) NewTarget() framework.Target { return &framework.Gaussian{} }

// IgnoresDocuments is true: the value prior never reads the documents.
func (r *Response) IgnoresDocuments() bool { return true }

// NewLocal returns the local step's part (stateless).
func (r *Response) NewLocal() framework.LikelihoodLocal { return local{r} }

// Predict sets d.Target to the prior N(μ, σ²), whatever the document.
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	t.Reset()
	t.Prec, t.PrecMean = 1/r.Sigma2, r.Mu/r.Sigma2
	t.Finalize()
}

// DocELBO is document d's part of the bound:
// −½log(2πσ²) − ((m − μ)² + v)/(2σ²) + ½log(2πe·v), or with the flat
// prior the entropy ½log(2πe·v) alone (0 for a document that no message
// reached: v = ∞).
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Gaussian)
	if r.flat() {
		if math.IsInf(t.Var, 1) {
			return 0
		}
		return 0.5 * math.Log(2*math.Pi*math.E*t.Var)
	}
	res := t.Mean - r.Mu
	return -0.5*math.Log(2*math.Pi*r.Sigma2) - (res*res+t.Var)/(2*r.Sigma2) + 0.5*math.Log(2*math.Pi*math.E*t.Var)
}

// local is the response's part of the local step: the prior message only.
type local struct{ r *Response }

func (local) Begin(*framework.DocState) {}

// TargetTerm adds the prior message N(μ, σ²) (nothing with the flat
// prior).
func (lc local) TargetTerm(d *framework.DocState) {
	if lc.r.flat() {
		return
	}
	t := d.Target.(*framework.Gaussian)
	t.Prec += 1 / lc.r.Sigma2
	t.PrecMean += lc.r.Mu / lc.r.Sigma2
}

func (local) PhiTerm([]float64, *framework.DocState, int)     {}
func (local) WordChanged(*framework.DocState, int, []float64) {}

// DocELBO is Response.DocELBO.
func (lc local) DocELBO(d *framework.DocState) float64 { return lc.r.DocELBO(d) }

// Stats are the response's sufficient statistics: the number of documents,
// Σ m_d, Σ (m_d² + v_d) and Σ_d ½log(2πe·v_d) (the entropies).
type Stats struct {
	Docs, Sum, SumSq, Entropy float64
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats { return &Stats{} }

// Merge adds o (a *Stats) into s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	s.Docs += t.Docs
	s.Sum += t.Sum
	s.SumSq += t.SumSq
	s.Entropy += t.Entropy
}

// Reset empties s.
func (s *Stats) Reset() { *s = Stats{} }

// Accumulate adds document d's q(y_d).
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	t := d.Target.(*framework.Gaussian)
	if math.IsInf(t.Var, 1) {
		return // no message reached it (flat prior, no answers): nothing to learn
	}
	s.Docs++
	s.Sum += t.Mean
	s.SumSq += t.Mean*t.Mean + t.Var
	s.Entropy += 0.5 * math.Log(2*math.Pi*math.E*t.Var)
}

// Update is the M-step: running averages of the statistics, blended with ρ
// and scaled by S (MODEL.md §5), then μ = Σm/D and σ² = Σ(m² + v)/D − μ²,
// the maximisers of the bound (batch: ρ = S = 1, the statistics
// themselves). Without documents μ and σ² are kept; ρ = 0 changes nothing.
func (r *Response) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !r.ready {
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
	for i, x := range [3]float64{s.Docs, s.Sum, s.SumSq} {
		r.run[i] = (1-rho)*r.run[i] + rho*sc*x
	}
	r.runW = (1-rho)*r.runW + rho
	r.solve()
	return nil
}

// solve sets μ and σ² from the running statistics (kept when they are
// empty or degenerate).
func (r *Response) solve() {
	n := r.run[0]
	if !(n > 0) {
		return
	}
	mu := r.run[1] / n
	v := r.run[2]/n - mu*mu
	if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(mu) {
		r.Mu, r.Sigma2 = mu, v
	}
}

// ELBO is the response's part of the bound at the current μ, σ²:
// S·Σ_d [−½log(2πσ²) − ((m_d − μ)² + v_d)/(2σ²) + ½log(2πe·v_d)].
func (r *Response) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	if r.flat() {
		return step.Scale * s.Entropy
	}
	quad := s.SumSq - 2*r.Mu*s.Sum + s.Docs*r.Mu*r.Mu
	return step.Scale * (-0.5*s.Docs*math.Log(2*math.Pi*r.Sigma2) - quad/(2*r.Sigma2) + s.Entropy)
}

// Coefficients reports μ and σ² (`maslda report`); no topic coefficients.
func (r *Response) Coefficients() ([][]float64, map[string]float64) {
	return nil, map[string]float64{"mean": r.Mu, "variance": r.Sigma2}
}

// saved is the JSON of response.params.
type saved struct {
	Format  string  `json:"format"`
	Version int     `json:"version"`
	Mean    float64 `json:"mean"`
	Var     float64 `json:"variance"`
}

const (
	paramsFormat  = "maslda-value-prior"
	paramsVersion = 1
)

// SaveParams writes μ and σ² as JSON (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if !r.ready {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, Name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(saved{Format: paramsFormat, Version: paramsVersion, Mean: r.Mu, Var: r.Sigma2})
}

// LoadParams restores what SaveParams wrote (after Init).
func (r *Response) LoadParams(rd io.Reader) error {
	if !r.ready {
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
	case math.IsNaN(p.Mean) || math.IsInf(p.Mean, 0) || !(p.Var > 0) || math.IsInf(p.Var, 0):
		return fmt.Errorf("%w: %s parameters: mean %v, variance %v; want a finite mean and a finite variance > 0", framework.ErrBadInput, Name, p.Mean, p.Var)
	}
	r.Mu, r.Sigma2 = p.Mean, p.Var
	r.run, r.runW = [3]float64{}, 0
	return nil
}

// stateMagic starts the response's checkpoint state.
const stateMagic = "MASLDAV1"

// SaveState writes the running SVI statistics (framework.Checkpointer).
func (r *Response) SaveState(w io.Writer) error {
	if r.runW == 0 {
		return framework.SaveRunning(w, stateMagic, false, 0)
	}
	return framework.SaveRunning(w, stateMagic, true, r.runW, r.run[:])
}

// LoadState restores what SaveState wrote.
func (r *Response) LoadState(rd io.Reader) error {
	if !r.ready {
		return fmt.Errorf("%w: response %s: LoadState before Init", framework.ErrNotTrained, Name)
	}
	run := make([]float64, 3)
	ok, w, err := framework.LoadRunning(rd, stateMagic, run)
	if err != nil {
		return err
	}
	r.run, r.runW = [3]float64{}, 0
	if ok {
		copy(r.run[:], run)
		r.runW = w
	}
	return nil
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "value-prior.scalars", Len: 4}}
}

// Sums visits Docs, Sum, SumSq and Entropy.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.ScalarSums(0, visit, &s.Docs, &s.Sum, &s.SumSq, &s.Entropy)
}

// SetSums sets every number.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	framework.SetScalarSums(0, get, &s.Docs, &s.Sum, &s.SumSq, &s.Entropy)
}
