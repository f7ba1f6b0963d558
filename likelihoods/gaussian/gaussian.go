package gaussian

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mat"
)

// Name is the name the response is registered under.
const Name = "gaussian"

// LinRegName is the name the fixed-features form (NewLinReg) is registered
// under: the regressor of the LDA + LinReg baseline.
const LinRegName = "linreg"

func init() {
	framework.RegisterLikelihood(Name, func(p framework.Params) (framework.Likelihood, error) {
		c := Defaults()
		if err := p.Decode(&c); err != nil {
			return nil, err
		}
		return New(c)
	})
	framework.RegisterLikelihood(LinRegName, func(p framework.Params) (framework.Likelihood, error) {
		c := LinRegDefaults()
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return NewLinReg(c)
	})
}

// Params are the settings of the `response "gaussian" { ... }` block.
type Params struct {
	// Sigma2 is σ², the variance of the true target around η·z̄_d: its
	// value when EstimateSigma2 is false, its starting value otherwise.
	// 0 (the default) is the variance of the documents' mean answers (1
	// without answers), the variance of the target while the topics
	// predict nothing yet; so the default scales with the answers.
	Sigma2 float64 `hcl:"sigma2,optional"`
	// EstimateSigma2 estimates σ² (sLDA's update, see Response.Update);
	// false keeps σ² fixed as in the paper. Default true. With a
	// supervision weight w > 1 and ExactIters > 0 (the defaults) it is
	// estimated only in the exact pilot and then held (see ExactIters):
	// an estimate under w > 1 is the residual of training documents whose
	// φ the response pulled towards their targets, too small, so the truth
	// would lean on the text (docs/results-regression.md); with
	// ExactIters = 0 it is estimated at every M-step all the same.
	EstimateSigma2 bool `hcl:"estimate_sigma2,optional"`
	// ExactIters is the largest number of batch EM iterations of the
	// exact pilot that starts a weighted fit (w > 1 and EstimateSigma2;
	// default DefaultExactIters; 0: no pilot). The pilot maximises the
	// exact bound (w = 1) and estimates σ² and the annotators until σ²
	// settles (ExactTol); then
	// (framework.Piloted, driven by models.Run.Fit; Progress.Stage 1 then
	// 2) σ² is held at its estimate σ̂², the weight becomes w·σ̂²/σ₀², σ₀²
	// the start of σ² (Sigma2, or the variance of the mean answers), η
	// and the topics restart from their initial values and the configured
	// schedule runs: its φ update sees the supervision strength w/σ₀² of a
	// fit with σ² fixed at σ₀², while q(x_d), η and the annotators see the
	// honest σ̂². See docs/design.md, "The exact pilot".
	ExactIters int `hcl:"exact_iters,optional"`
	// ExactTol ends the exact pilot early, after the first iteration (the
	// second on) at which σ² changed by at most ExactTol relative to its
	// previous value (default DefaultExactTol; 0: run all ExactIters).
	ExactTol float64 `hcl:"exact_tol,optional"`
	// L2 is the ridge μ ≥ 0 on η (default 0.01): the M-step maximises the
	// bound minus μ‖η‖²/(2σ²), i.e. η = (Σ_d E[z̄_d z̄_dᵀ] + μI)⁻¹ Σ_d φ̄_d m_d.
	// 0 is the paper's model; it leaves the coefficient of a topic that no
	// training document uses undetermined (see the package documentation).
	L2 float64 `hcl:"l2,optional"`
	// Intercept adds a free scalar b, unpenalised by L2: x_d ~ N(η·z̄_d + b,
	// σ²). Default false. See the package documentation for how its
	// collinearity with the topics is handled.
	Intercept bool `hcl:"intercept,optional"`
	// Weight is the supervision weight w ≥ 1 (framework.Weighted): the
	// model maximises L_topics + w·(response + annotators), so the
	// response shapes the topics w times as strongly as in the exact bound
	// while q(x_d), η, σ² and the annotators keep their exact updates.
	// Default DefaultWeight; 1 (also what 0 in a Params literal means) is
	// the exact bound of MODEL.md §4. Ignored by linreg.
	Weight float64 `hcl:"weight,optional"`
	// Truth says where a weighted fit with an exact pilot takes the
	// crowd's posterior from (framework.CrowdHolder; docs/design.md, "The
	// truth of the exact bound"): TruthExact (the default; also what ""
	// means) runs the pilot until the exact bound converges and then holds
	// every training document's q(x_d) and the annotators where the pilot
	// left them, so the weighted stage shapes the topics and η for
	// prediction without moving the truth; TruthWeighted lets the truth and
	// the annotators go on with the weighted fit (the model before issue
	// 25's change), the pilot ending when σ² settles. Ignored without a
	// pilot.
	Truth string `hcl:"truth,optional"`
}

// The values of Params.Truth.
const (
	TruthExact    = "exact"
	TruthWeighted = "weighted"
)

// DefaultWeight is the default supervision weight of the gaussian response
// (docs/results-regression.md has the measurements behind it).
const DefaultWeight = 100

// DefaultExactIters and DefaultExactTol are the default limits of the
// exact pilot (Params.ExactIters, Params.ExactTol).
const (
	DefaultExactIters = 50
	DefaultExactTol   = 0.01
)

// Defaults returns the documented defaults: σ² started at the variance of
// the documents' mean answers and estimated in an exact stage of
// at most DefaultExactIters iterations (until it changes by at most
// DefaultExactTol), then held; ridge 0.01, no intercept,
// supervision weight DefaultWeight after the exact stage.
func Defaults() Params {
	return Params{Sigma2: 0, EstimateSigma2: true, L2: 0.01, Weight: DefaultWeight, ExactIters: DefaultExactIters, ExactTol: DefaultExactTol, Truth: TruthExact}
}

// LinRegDefaults returns the documented defaults of "linreg": σ² = 1 fixed,
// ridge 0.01, no intercept.
func LinRegDefaults() Params { return Params{Sigma2: 1, L2: 0.01} }

// Validate checks the settings.
func (p Params) Validate() error { return p.validate(Name) }

// validate checks the settings of the response registered as name.
func (p Params) validate(name string) error {
	switch {
	case name == LinRegName && !(p.Sigma2 > 0) || math.IsInf(p.Sigma2, 0):
		return fmt.Errorf("%w: response %s: sigma2 = %v, want a finite number > 0", framework.ErrBadInput, name, p.Sigma2)
	case !(p.Sigma2 >= 0):
		return fmt.Errorf("%w: response %s: sigma2 = %v, want a finite number > 0 (or 0: the variance of the mean answers)", framework.ErrBadInput, name, p.Sigma2)
	case !(p.Weight >= 1 || p.Weight == 0) || math.IsInf(p.Weight, 0):
		return fmt.Errorf("%w: response %s: weight = %v, want a finite number ≥ 1", framework.ErrBadInput, name, p.Weight)
	case !(p.L2 >= 0) || math.IsInf(p.L2, 0):
		return fmt.Errorf("%w: response %s: l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, name, p.L2)
	case p.ExactIters < 0:
		return fmt.Errorf("%w: response %s: exact_iters = %d, want ≥ 0 (0: no exact pilot)", framework.ErrBadInput, name, p.ExactIters)
	case !(p.ExactTol >= 0) || math.IsInf(p.ExactTol, 0):
		return fmt.Errorf("%w: response %s: exact_tol = %v, want a finite number ≥ 0", framework.ErrBadInput, name, p.ExactTol)
	case p.Truth != "" && p.Truth != TruthExact && p.Truth != TruthWeighted:
		return fmt.Errorf("%w: response %s: truth = %q, want %q or %q", framework.ErrBadInput, name, p.Truth, TruthExact, TruthWeighted)
	}
	return nil
}

// Sigma2Floor is the smallest σ² the estimate may reach (it is reached only
// when every document's residual vanishes, e.g. a corpus of empty
// documents without answers).
const Sigma2Floor = 1e-12

// Response is the Gaussian response of MA-sLDAr (MODEL.md §3):
// x_d | z̄_d ~ N(η·z̄_d + b, σ²) with b ≡ 0 unless Params.Intercept. It
// implements framework.Likelihood, framework.DocScorer,
// framework.Persister and framework.FixedFeatures. Its parameters are
// read-only during the E-step.
//
// Made by NewLinReg, it is instead the linear regression on point features
// x_d | φ̄_d ~ N(η·φ̄_d + b, σ²) of the "LDA + LinReg" baseline (MODEL.md
// §6): the same M-step and bound with φ̄_d φ̄_dᵀ in place of E[z̄_d z̄_dᵀ],
// no supervision term, FixedFeatures true (valid only under the two-stage
// schedule, which freezes φ before the response is fitted).
type Response struct {
	Config Params
	K      int
	Eta    []float64 // η, length K
	B      float64   // the intercept b (0 unless Config.Intercept)
	Sigma2 float64   // σ²

	// The exact pilot (Params.ExactIters): Sigma0 is σ₀², the start of
	// σ²; Held is set by EndPilot, after which σ² is held and the
	// supervision weight is HeldWeight = max(1, w·σ̂²/σ₀²).
	Sigma0     float64
	Held       bool
	HeldWeight float64
	eta0       []float64 // η and b as Init set them (EndPilot restores them)
	b0         float64
	pilotIters int     // M-steps of the pilot so far
	pilotStep  float64 // |Δσ²|/σ² of its last M-step (PilotDone)

	run  *Stats  // running (blended) statistics of SVI; nil before the first update
	runW float64 // Σ of the blending weights in run (bias correction, see Update)

	name  string // the registered name, in messages and the saved format
	fixed bool   // point features φ̄_d (NewLinReg)
}

// New returns a response with the given settings (call Init before use).
func New(p Params) (*Response, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Response{Config: p, Sigma2: p.Sigma2, name: Name}, nil
}

// NewLinReg returns the regression on fixed point features φ̄_d (see
// Response), registered as "linreg": that name is in its messages and in
// its saved parameters' format ("maslda-linreg").
func NewLinReg(p Params) (*Response, error) {
	if err := p.validate(LinRegName); err != nil {
		return nil, err
	}
	return &Response{Config: p, Sigma2: p.Sigma2, name: LinRegName, fixed: true}, nil
}

// FixedFeatures reports whether the response treats φ̄_d as fixed,
// observed features (NewLinReg): then PhiTerm adds nothing, the topics are
// not fitted to the target, and the joint bound is monotone only with φ
// frozen (framework.FixedFeatures).
func (r *Response) FixedFeatures() bool { return r.fixed }

// Init sizes η and sets its starting value: every η_k equal to the mean,
// over the documents with numeric answers, of their mean answer ȳ (so that
// the first prior message η·φ̄_d = ȳ neither pulls the truth towards 0 nor
// shifts it), or 0 without answers; with an intercept, η = 0 and b = ȳ.
func (r *Response) Init(s *framework.Setup) error {
	if s == nil {
		return fmt.Errorf("%w: response %s: no setup", framework.ErrBadInput, r.name)
	}
	if s.K < 1 {
		return fmt.Errorf("%w: response %s: K = %d, want ≥ 1", framework.ErrBadInput, r.name, s.K)
	}
	r.K = s.K
	r.Eta = make([]float64, s.K)
	r.B = 0
	r.run, r.runW = nil, 0
	ybar, yvar := 0.0, 0.0
	if s.Corpus != nil && s.Corpus.Answers != nil && s.Corpus.Answers.Numeric() {
		ybar, yvar = docMeanMoments(s.Corpus.Answers)
	}
	r.Sigma2 = r.Config.Sigma2
	if r.Sigma2 == 0 {
		r.Sigma2 = 1
		if yvar > 0 && !math.IsInf(yvar, 0) {
			r.Sigma2 = yvar
		}
	}
	r.Sigma0, r.Held, r.HeldWeight = r.Sigma2, false, 0
	r.pilotIters, r.pilotStep = 0, math.Inf(1)
	defer func() { r.eta0, r.b0 = append([]float64(nil), r.Eta...), r.B }()
	if r.Config.Intercept {
		r.B = ybar
	} else {
		for k := range r.Eta {
			r.Eta[k] = ybar
		}
	}
	return nil
}

// docMeanMoments is the mean and the variance (n denominator) of the
// documents' mean answers, over the documents with answers; 0, 0 without.
func docMeanMoments(a *framework.Answers) (mean, variance float64) {
	var ms []float64
	for _, as := range a.ByDoc {
		if m, ok := framework.DocMean(as); ok {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return 0, 0
	}
	for _, m := range ms {
		mean += m
	}
	mean /= float64(len(ms))
	for _, m := range ms {
		variance += (m - mean) * (m - mean)
	}
	variance /= float64(len(ms))
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, 0
	}
	return mean, variance
}

// SupervisionWeight is the supervision weight in use (framework.Weighted):
// 1 for fixed features (no supervision term) and during the exact pilot;
// after it (EndPilot) max(1, w·σ̂²/σ₀²); otherwise the configured weight.
func (r *Response) SupervisionWeight() float64 {
	switch {
	case r.fixed || r.Config.Weight == 0:
		return 1
	case r.Held:
		return r.HeldWeight
	case r.piloted():
		return 1
	}
	return r.Config.Weight
}

// piloted reports whether the fit starts with an exact pilot
// (Params.ExactIters): a weight above 1, σ² estimated, exact_iters > 0.
func (r *Response) piloted() bool {
	return !r.fixed && r.Config.Weight > 1 && r.Config.EstimateSigma2 && r.Config.ExactIters > 0
}

// WillHoldCrowd reports whether the fit has an exact pilot after which
// the crowd is held (framework.CrowdHolder: truth = "exact").
func (r *Response) WillHoldCrowd() bool {
	return r.piloted() && r.Config.Truth != TruthWeighted
}

// HoldsCrowd reports whether the crowd is held now (framework.CrowdHolder):
// after EndPilot (also for a model restored after it) with truth =
// "exact".
func (r *Response) HoldsCrowd() bool { return r.WillHoldCrowd() && r.Held }

// Reopen puts a response that holds the crowd back before its pilot's
// end (framework.CrowdHolder): a warm start from a model saved after its
// pilot runs the pilot again from the loaded parameters, σ² starting at
// the saved σ̂², so that the crowd it holds is that fit's. Nothing happens
// otherwise.
func (r *Response) Reopen() {
	if !r.HoldsCrowd() {
		return
	}
	r.Held, r.HeldWeight = false, 0
	r.pilotIters, r.pilotStep = 0, math.Inf(1)
	r.run, r.runW = nil, 0
}

// PilotIters is the largest length of the exact pilot (framework.Piloted):
// exact_iters when the fit has one (see Params.ExactIters) and it has not
// ended, else 0.
func (r *Response) PilotIters() int {
	if !r.piloted() || r.Held {
		return 0
	}
	return r.Config.ExactIters
}

// PilotDone reports whether the pilot may end before PilotIters
// (framework.Piloted): from its second M-step on, when σ² changed by at
// most exact_tol relative to its previous value (never with exact_tol 0).
func (r *Response) PilotDone() bool {
	return r.piloted() && !r.Held && r.Config.ExactTol > 0 && r.pilotIters >= 2 && r.pilotStep <= r.Config.ExactTol
}

// EndPilot ends the exact pilot (framework.Piloted): σ² is held at its
// estimate σ̂², the supervision weight becomes
//
//	w₂ = max(1, w·σ̂²/σ₀²),
//
// so that the supervision term of the φ update, w₂·ρ_dv ∝ w₂/σ̂², has the
// strength w/σ₀² of a fit with σ² fixed at σ₀² (ρ_dv is proportional to
// 1/σ²; PhiTerm), and η, b go back to their values from Init (the topics
// restart too: models.Run.Fit). The bound changes (L_1 → L_w₂); each
// stage is monotone under batch EM. Scale-equivariant: σ̂² and σ₀² both
// scale with c². Nothing happens without a pilot or after its end.
func (r *Response) EndPilot() error {
	if !r.piloted() || r.Held {
		return nil
	}
	r.Held = true
	r.HeldWeight = max(1, r.Config.Weight*r.Sigma2/r.Sigma0)
	copy(r.Eta, r.eta0)
	r.B = r.b0
	r.run, r.runW = nil, 0
	return nil
}

// NewTarget returns a *framework.Gaussian.
func (r *Response) NewTarget() framework.Target { return &framework.Gaussian{} }

// Predict sets d.Target (a *framework.Gaussian) to the predictive
// distribution N(η·φ̄_d + b, σ²) (MODEL.md §3 "Prediction").
func (r *Response) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	t.Mean = r.mean(d)
	t.Var = r.Sigma2
	t.Prec = 1 / r.Sigma2
	t.PrecMean = t.Mean / r.Sigma2
}

// mean is η·φ̄_d + b (b for an empty document, whose φ̄ is 0).
func (r *Response) mean(d *framework.DocState) float64 {
	s := r.B
	for k, p := range d.PhiBar {
		s += r.Eta[k] * p
	}
	return s
}

// quadZZ is ηᵀ E[z̄_d z̄_dᵀ] η (MODEL.md §1), computed in O(L·K) from the
// scalars a_v = η·φ_dv:
//
//	ηᵀE[z̄z̄ᵀ]η = ( (Σ_v n_v a_v)² − Σ_v n_v a_v² + Σ_v n_v (η∘η)·φ_v ) / N².
//
// It is 0 for an empty document.
func (r *Response) quadZZ(d *framework.DocState) float64 {
	doc := d.Doc
	if doc.N == 0 {
		return 0
	}
	es, sq, diag := 0.0, 0.0, 0.0
	for j, n := range doc.Counts {
		row := d.PhiRow(j)
		a, q := 0.0, 0.0
		for k, p := range row {
			e := r.Eta[k] * p
			a += e
			q += e * r.Eta[k]
		}
		es += n * a
		sq += n * a * a
		diag += n * q
	}
	return (es*es - sq + diag) / (doc.N * doc.N)
}

// DocELBO is document d's Gaussian-response part of the ELBO (MODEL.md §4)
// at the current η, b, σ², φ_d and q(x_d) = N(m_d, v_d):
//
//	−½log(2πσ²) − E[(x_d − η·z̄_d − b)²]/(2σ²) + ½log(2πe v_d),
//	E[(x − η·z̄ − b)²] = m² + v − 2m(η·φ̄ + b) + ηᵀE[z̄z̄ᵀ]η + 2b η·φ̄ + b²,
//
// with (η·φ̄)² in place of ηᵀE[z̄z̄ᵀ]η for fixed features. It is safe for
// concurrent use (it allocates nothing and writes nothing).
func (r *Response) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Gaussian)
	m, v := t.Mean, t.Var
	ep := 0.0
	for k, p := range d.PhiBar {
		ep += r.Eta[k] * p
	}
	quad := ep * ep
	if !r.fixed {
		quad = r.quadZZ(d)
	}
	res := m*m + v - 2*m*(ep+r.B) + quad + 2*r.B*ep + r.B*r.B
	return -0.5*math.Log(2*math.Pi*r.Sigma2) - res/(2*r.Sigma2) + 0.5*math.Log(2*math.Pi*math.E*v)
}

// NewLocal returns per-goroutine scratch for the local step.
func (r *Response) NewLocal() framework.LikelihoodLocal { return &Local{r: r} }

// Local is the Gaussian response's part of one document's local step. It
// caches η·s_d, s_d = Σ_v n_dv φ_dv, which is all the supervision term
// needs of s_d, so each word costs O(K).
type Local struct {
	r  *Response
	es float64 // η·s_d
}

// Begin computes η·s_d from d.Phi (nothing for fixed features).
func (l *Local) Begin(d *framework.DocState) {
	if l.r.fixed {
		return
	}
	es := 0.0
	for j, n := range d.Doc.Counts {
		es += n * dot(l.r.Eta, d.PhiRow(j))
	}
	l.es = es
}

// TargetTerm adds the prior message N(η·φ̄_d + b, σ²) onto d.Target:
// Prec += 1/σ², PrecMean += (η·φ̄_d + b)/σ² (MODEL.md §3, v_d and m_d).
func (l *Local) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Gaussian)
	t.Prec += 1 / l.r.Sigma2
	t.PrecMean += l.r.mean(d) / l.r.Sigma2
}

// PhiTerm adds the supervision term of word j (MODEL.md §3) into dst:
//
//	ρ_dv = ((m_d − b)/(N_d σ²)) η − (2(η·φ_{−v}) η + η∘η)/(2 N_d² σ²),
//	η·φ_{−v} = η·s_d − η·φ_dv,
//
// which is (1/n_dv) ∂/∂φ_dv of DocELBO (the derivative treats φ_dv as free
// coordinates; every token of the word shares φ_dv). For n_dv = 1 the
// resulting φ update is the exact coordinate maximiser of the ELBO; for
// n_dv > 1 the term (n_dv² − n_dv)(η·φ_dv)²/(2N_d²σ²), concave in φ_dv, is
// linearised at the current φ_dv, as in MODEL.md §3. Fixed features add
// nothing: the topics do not see the target.
func (l *Local) PhiTerm(dst []float64, d *framework.DocState, j int) {
	r := l.r
	if r.fixed {
		return
	}
	N := d.Doc.N
	t := d.Target.(*framework.Gaussian)
	a := dot(r.Eta, d.PhiRow(j))
	c1 := (t.Mean - r.B) / (N * r.Sigma2)
	c2 := 1 / (2 * N * N * r.Sigma2)
	em := 2 * (l.es - a)
	for k, e := range r.Eta {
		dst[k] += c1*e - c2*(em+e)*e
	}
}

// DocTerm sets dst to PhiTerm's ρ_dv with every φ_dv replaced by φ̄_d
// (framework.PhiDocTerm): η·s_d = N_d η·φ̄_d and η·φ_{−v} = (N_d − 1) η·φ̄_d,
//
//	ρ̄_d = ((m_d − b)/(N_d σ²)) η − (2(N_d − 1)(η·φ̄_d) η + η∘η)/(2 N_d² σ²),
//
// from d.PhiBar (no Begin); exact when every word has φ̄_d. Fixed features
// and an empty document get 0.
func (l *Local) DocTerm(dst []float64, d *framework.DocState) {
	clear(dst)
	r := l.r
	N := d.Doc.N
	if r.fixed || !(N > 0) {
		return
	}
	t := d.Target.(*framework.Gaussian)
	a := dot(r.Eta, d.PhiBar)
	c1 := (t.Mean - r.B) / (N * r.Sigma2)
	c2 := 1 / (2 * N * N * r.Sigma2)
	em := 2 * (N - 1) * a
	for k, e := range r.Eta {
		dst[k] = c1*e - c2*(em+e)*e
	}
}

// PhiTermQuad is the exact form of PhiTerm (framework.PhiQuadratic): with
// t = η·φ_dv and S = η·s_d − n_dv t, DocELBO's part in φ_dv is n_dv times
//
//	((m_d − b)/(N_d σ²)) t − (2S t + (η∘η)·φ_dv)/(2N_d²σ²) − c t²,
//	c = (n_dv − 1)/(2N_d²σ²),
//
// so it adds ρ_k = ((m_d − b)/(N_d σ²)) η_k − (2S + η_k) η_k/(2N_d²σ²) and
// returns c and η. PhiTerm is ρ − 2c·t·η at the current φ_dv.
func (l *Local) PhiTermQuad(dst []float64, d *framework.DocState, j int) (float64, []float64) {
	r := l.r
	if r.fixed {
		return 0, nil
	}
	N := d.Doc.N
	n := d.Doc.Counts[j]
	t := d.Target.(*framework.Gaussian)
	a := dot(r.Eta, d.PhiRow(j))
	c1 := (t.Mean - r.B) / (N * r.Sigma2)
	c2 := 1 / (2 * N * N * r.Sigma2)
	em := 2 * (l.es - n*a)
	for k, e := range r.Eta {
		dst[k] += c1*e - c2*(em+e)*e
	}
	return c2 * (n - 1), r.Eta
}

// QuadBase is PhiTermQuad's part that is the same for every word
// (framework.PhiQuadraticAffine): base_k = ((m_d − b)/(N_d σ²)) η_k −
// η_k²/(2N_d²σ²), and u = η. Fixed features: base 0 and no u.
func (l *Local) QuadBase(dst []float64, d *framework.DocState) []float64 {
	clear(dst)
	r := l.r
	if r.fixed {
		return nil
	}
	N := d.Doc.N
	t := d.Target.(*framework.Gaussian)
	c1 := (t.Mean - r.B) / (N * r.Sigma2)
	c2 := 1 / (2 * N * N * r.Sigma2)
	for k, e := range r.Eta {
		dst[k] = c1*e - c2*e*e
	}
	return r.Eta
}

// QuadWord is the rest of PhiTermQuad for word j at t = η·φ_dv:
// s = −(η·s_d − n_dv t)/(N_d²σ²) and c = (n_dv − 1)/(2N_d²σ²).
func (l *Local) QuadWord(d *framework.DocState, j int, t float64) (s, c float64) {
	r := l.r
	if r.fixed {
		return 0, 0
	}
	N := d.Doc.N
	n := d.Doc.Counts[j]
	c2 := 1 / (2 * N * N * r.Sigma2)
	return -2 * c2 * (l.es - n*t), c2 * (n - 1)
}

// QuadMoved is WordChanged from η·φ_dv before and after:
// η·s_d += n_dv (t1 − t0).
func (l *Local) QuadMoved(d *framework.DocState, j int, t0, _, t1, _ float64) {
	if l.r.fixed {
		return
	}
	l.es += d.Doc.Counts[j] * (t1 - t0)
}

// WordChanged updates η·s_d after φ of word j changed from old:
// η·s += n_dv (η·φ_new − η·φ_old).
func (l *Local) WordChanged(d *framework.DocState, j int, old []float64) {
	if l.r.fixed {
		return
	}
	l.es += d.Doc.Counts[j] * (dot(l.r.Eta, d.PhiRow(j)) - dot(l.r.Eta, old))
}

// DocELBO is the response's DocELBO (framework.DocScorer on the local too).
func (l *Local) DocELBO(d *framework.DocState) float64 { return l.r.DocELBO(d) }

func dot(a, b []float64) float64 {
	s := 0.0
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// Stats are the Gaussian response's sufficient statistics (MODEL.md §3
// M-step, §4), summed over documents:
type Stats struct {
	K       int
	ZZ      []float64 // Σ_d E[z̄_d z̄_dᵀ] (fixed features: Σ_d φ̄_d φ̄_dᵀ), K×K row-major, upper triangle (a ≤ b) only; see ZZAt
	PhiM    []float64 // Σ_d φ̄_d m_d
	PhiSum  []float64 // Σ_d φ̄_d (the intercept's cross term)
	M       float64   // Σ_d m_d
	MM      float64   // Σ_d (m_d² + v_d)
	Docs    float64   // number of documents D
	Entropy float64   // Σ_d ½log(2πe v_d), the entropy of q(x_d)
}

// NewStats returns empty statistics.
func (r *Response) NewStats() framework.Stats { return newStats(r.K) }

func newStats(k int) *Stats {
	return &Stats{K: k, ZZ: make([]float64, k*k), PhiM: make([]float64, k), PhiSum: make([]float64, k)}
}

// Merge adds o (a *Stats of the same K) into s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	s.axpy(1, t)
}

// axpy sets s += a·t.
func (s *Stats) axpy(a float64, t *Stats) {
	for i, x := range t.ZZ {
		s.ZZ[i] += a * x
	}
	for k := range s.PhiM {
		s.PhiM[k] += a * t.PhiM[k]
		s.PhiSum[k] += a * t.PhiSum[k]
	}
	s.M += a * t.M
	s.MM += a * t.MM
	s.Docs += a * t.Docs
	s.Entropy += a * t.Entropy
}

// scale sets s *= a.
func (s *Stats) scale(a float64) {
	for i := range s.ZZ {
		s.ZZ[i] *= a
	}
	for k := range s.PhiM {
		s.PhiM[k] *= a
		s.PhiSum[k] *= a
	}
	s.M *= a
	s.MM *= a
	s.Docs *= a
	s.Entropy *= a
}

// Reset empties s.
func (s *Stats) Reset() { s.scale(0) }

// Accumulate adds document d's statistics (after its local step) to st.
// E[z̄z̄ᵀ] = (s sᵀ − Σ_v n_v φ_v φ_vᵀ + diag(s))/N², s = Σ_v n_v φ_v
// (MODEL.md §1), costs O(L·K²) with L unique words; it is 0 for an empty
// document, whose φ̄ is 0. For fixed features it adds φ̄φ̄ᵀ, O(K²).
func (r *Response) Accumulate(st framework.Stats, d *framework.DocState) {
	s := st.(*Stats)
	K := r.K
	t := d.Target.(*framework.Gaussian)
	m, v := t.Mean, t.Var
	doc := d.Doc
	if r.fixed {
		for a, pa := range d.PhiBar {
			if pa == 0 {
				continue
			}
			zz := s.ZZ[a*K : (a+1)*K]
			for b := a; b < K; b++ {
				zz[b] += pa * d.PhiBar[b]
			}
		}
	} else if doc.N > 0 {
		inv := 1 / (doc.N * doc.N)
		// −Σ_v n_v φ_v φ_vᵀ / N² on the upper triangle.
		for j, n := range doc.Counts {
			row := d.PhiRow(j)
			w := n * inv
			for a := 0; a < K; a++ {
				pa := w * row[a]
				if pa == 0 {
					continue
				}
				zz := s.ZZ[a*K : (a+1)*K]
				for b := a; b < K; b++ {
					zz[b] -= pa * row[b]
				}
			}
		}
		// (s sᵀ + diag s)/N² = φ̄φ̄ᵀ + diag(φ̄)/N, upper triangle.
		for a := 0; a < K; a++ {
			pa := d.PhiBar[a]
			zz := s.ZZ[a*K : (a+1)*K]
			zz[a] += pa / doc.N
			for b := a; b < K; b++ {
				zz[b] += pa * d.PhiBar[b]
			}
		}
	}
	for k, p := range d.PhiBar {
		s.PhiM[k] += p * m
		s.PhiSum[k] += p
	}
	s.M += m
	s.MM += m*m + v
	s.Docs++
	s.Entropy += 0.5 * math.Log(2*math.Pi*math.E*v)
}

// ZZAt is Σ_d E[z̄_d z̄_dᵀ] at (a, b): the statistics keep the upper
// triangle only (a ≤ b).
func (s *Stats) ZZAt(a, b int) float64 {
	if a > b {
		a, b = b, a
	}
	return s.ZZ[a*s.K+b]
}

// residual is Σ_d E[(x_d − η·z̄_d − b)²] from the statistics:
// MM − 2η·PhiM − 2b·M + ηᵀ ZZ η + 2b η·PhiSum + b² D.
func (r *Response) residual(s *Stats) float64 {
	K := r.K
	q := 0.0
	for a := 0; a < K; a++ {
		zz := s.ZZ[a*K : (a+1)*K]
		q += r.Eta[a] * r.Eta[a] * zz[a]
		t := 0.0
		for b := a + 1; b < K; b++ {
			t += zz[b] * r.Eta[b]
		}
		q += 2 * r.Eta[a] * t
	}
	b := r.B
	return s.MM - 2*dot(r.Eta, s.PhiM) - 2*b*s.M + q + 2*b*dot(r.Eta, s.PhiSum) + b*b*s.Docs
}

// Update is the M-step (MODEL.md §3, §5). The statistics are blended into
// running statistics R ← (1−ρ)R + ρ·S·stats with a running weight
// W ← (1−ρ)W + ρ, and η, b, σ² are re-solved from R/W: batch (ρ = S = 1)
// uses exactly this E-step's statistics; under SVI R/W is a weighted average
// of the scaled mini-batch statistics that does not depend on the start
// value R = 0 (W corrects for it). ρ = 0 changes nothing.
//
//	(η, b) = argmax −(Σ_d E[(x_d − η·z̄_d − b)²] + μ‖η‖²)/(2σ²):
//	η = (ZZ + μI)⁻¹ PhiM without an intercept ([fix]: the inverse is
//	outside the sum), the (K+1)-dimensional normal equations with one.
//	σ² = (Σ_d E[(x_d − η·z̄_d − b)²] + μ‖η‖²) / D       (EstimateSigma2)
//
// which is sLDA's update when μ = 0, and with μ > 0 the maximiser of the
// same penalised bound that ELBO reports.
func (r *Response) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: Update before Init", framework.ErrNotTrained, r.name)
	}
	s := st.(*Stats)
	rho := step.Rho
	if rho == 0 {
		return nil
	}
	if !(rho > 0 && rho <= 1) || !(step.Scale > 0) || math.IsInf(step.Scale, 0) {
		return fmt.Errorf("%w: response %s: step ρ = %v, scale = %v, want ρ in (0, 1] and a finite scale > 0", framework.ErrBadInput, r.name, rho, step.Scale)
	}
	if r.run == nil {
		r.run = newStats(r.K)
	}
	r.run.scale(1 - rho)
	r.run.axpy(rho*step.Scale, s)
	r.runW = (1-rho)*r.runW + rho
	eff := newStats(r.K)
	eff.axpy(1/r.runW, r.run)
	if eff.Docs == 0 {
		return nil // no documents: nothing to fit
	}
	if err := r.solve(eff); err != nil {
		return err
	}
	if r.Config.EstimateSigma2 && !r.Held {
		s2 := (r.residual(eff) + r.Config.L2*dot(r.Eta, r.Eta)) / eff.Docs
		if !(s2 >= Sigma2Floor) { // also catches NaN
			if math.IsNaN(s2) {
				return fmt.Errorf("response %s: σ² update is NaN", r.name)
			}
			s2 = Sigma2Floor
		}
		if r.piloted() && !r.Held {
			r.pilotIters++
			r.pilotStep = math.Abs(s2-r.Sigma2) / r.Sigma2
		}
		r.Sigma2 = s2
	}
	return nil
}

// RCond is the reciprocal condition number below which solve switches from
// a Cholesky solve to the SVD's minimum-norm solution.
const RCond = 1e-12

// solve sets η (and b) to the maximiser of the penalised bound given the
// statistics: the normal equations (ZZ + μI) η = PhiM, or with an intercept
//
//	[ ZZ + μI   PhiSum ] [η]   [PhiM]
//	[ PhiSumᵀ   D      ] [b] = [ M  ].
//
// Every non-empty document has Σ_k φ̄_dk = 1, so with an intercept and μ = 0
// the direction (η + c·1, b − c) leaves every prediction of a non-empty
// document unchanged and the system is singular when there are no empty
// documents. Singular or badly conditioned systems (reciprocal condition
// below RCond; also a topic no document uses) are solved by the SVD with
// singular values below RCond·σ_max dropped: the minimum-norm maximiser,
// which is still an exact maximiser of the bound.
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
			a.SetSym(i, j, s.ZZ[i*K+j])
		}
		a.SetSym(i, i, a.At(i, i)+r.Config.L2)
		rhs.SetVec(i, s.PhiM[i])
	}
	if r.Config.Intercept {
		for i := 0; i < K; i++ {
			a.SetSym(i, K, s.PhiSum[i])
		}
		a.SetSym(K, K, s.Docs)
		rhs.SetVec(K, s.M)
	}
	x := mat.NewVecDense(n, nil)
	var chol mat.Cholesky
	if ok := chol.Factorize(a); ok && 1/chol.Cond() > RCond {
		if err := chol.SolveVecTo(x, rhs); err != nil {
			return fmt.Errorf("response %s: η solve: %w", r.name, err)
		}
	} else {
		var svd mat.SVD
		if !svd.Factorize(a, mat.SVDThin) {
			return fmt.Errorf("response %s: η solve: SVD failed", r.name)
		}
		rank := svd.Rank(RCond)
		if rank == 0 {
			for i := 0; i < n; i++ {
				x.SetVec(i, 0)
			}
		} else {
			svd.SolveVecTo(x, rhs, rank)
		}
	}
	for i := 0; i < n; i++ {
		if v := x.AtVec(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("response %s: η solve gave %v", r.name, v)
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

// ELBO is the Gaussian response's part of the bound (MODEL.md §4) at the
// current η, b, σ², the per-document parts from s scaled by st.Scale:
//
//	S·( −(D/2)log(2πσ²) − Σ_d E[(x_d − η·z̄_d − b)²]/(2σ²) + Σ_d ½log(2πe v_d) ) − μ‖η‖²/(2σ²).
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
	// After the exact pilot (Params.ExactIters): σ² is held and the
	// supervision weight in use is Weight. Absent before it and without one.
	Held   bool    `json:"sigma2_held,omitempty"`
	Weight float64 `json:"weight,omitempty"`
}

// paramsVersion is the version of the saved format "maslda-" + name
// ("maslda-gaussian", "maslda-linreg").
const paramsVersion = 1

// SaveParams writes η, b and σ² as JSON (framework.Persister).
func (r *Response) SaveParams(w io.Writer) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: nothing to save before Init", framework.ErrNotTrained, r.name)
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(saved{Format: "maslda-" + r.name, Version: paramsVersion, K: r.K, Eta: r.Eta, Intercept: r.B, Sigma2: r.Sigma2, Held: r.Held, Weight: r.HeldWeight})
}

// LoadParams restores what SaveParams wrote; call it after Init.
func (r *Response) LoadParams(rd io.Reader) error {
	if r.Eta == nil {
		return fmt.Errorf("%w: response %s: LoadParams before Init", framework.ErrNotTrained, r.name)
	}
	paramsFormat := "maslda-" + r.name
	var p saved
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, r.name, err)
	}
	switch {
	case p.Format != paramsFormat || p.Version != paramsVersion:
		return fmt.Errorf("%w: %s parameters: format %q version %d, want %q version %d", framework.ErrBadInput, r.name, p.Format, p.Version, paramsFormat, paramsVersion)
	case p.K != r.K || len(p.Eta) != r.K:
		return fmt.Errorf("%w: %s parameters: K = %d with %d coefficients, the model has K = %d", framework.ErrBadInput, r.name, p.K, len(p.Eta), r.K)
	case !(p.Sigma2 > 0) || math.IsInf(p.Sigma2, 0):
		return fmt.Errorf("%w: %s parameters: sigma2 = %v, want a finite number > 0", framework.ErrBadInput, r.name, p.Sigma2)
	case math.IsNaN(p.Intercept) || math.IsInf(p.Intercept, 0):
		return fmt.Errorf("%w: %s parameters: intercept %v", framework.ErrBadInput, r.name, p.Intercept)
	case p.Held && !(p.Weight >= 1) || math.IsInf(p.Weight, 0):
		return fmt.Errorf("%w: %s parameters: weight %v, want a finite number ≥ 1", framework.ErrBadInput, r.name, p.Weight)
	case p.Intercept != 0 && !r.Config.Intercept:
		return fmt.Errorf("%w: %s parameters: intercept %v but the configuration has intercept = false", framework.ErrBadInput, r.name, p.Intercept)
	}
	for k, e := range p.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return fmt.Errorf("%w: %s parameters: eta[%d] = %v", framework.ErrBadInput, r.name, k, e)
		}
	}
	copy(r.Eta, p.Eta)
	r.B, r.Sigma2 = p.Intercept, p.Sigma2
	r.Held, r.HeldWeight = p.Held, 0
	if p.Held {
		r.HeldWeight = p.Weight
	}
	r.run, r.runW = nil, 0
	return nil
}

// Interface checks.
var (
	_ framework.Likelihood      = (*Response)(nil)
	_ framework.DocScorer       = (*Response)(nil)
	_ framework.Persister       = (*Response)(nil)
	_ framework.FixedFeatures   = (*Response)(nil)
	_ framework.Weighted        = (*Response)(nil)
	_ framework.CrowdHolder     = (*Response)(nil)
	_ framework.Piloted         = (*Response)(nil)
	_ framework.LikelihoodLocal = (*Local)(nil)
	_ framework.PhiQuadratic    = (*Local)(nil)
	_ framework.DocScorer       = (*Local)(nil)
	_ framework.PhiDocTerm      = (*Local)(nil)
)

// Coefficients returns η as one column, with the intercept, σ² and the
// supervision weight in use (framework.Coefficients).
func (r *Response) Coefficients() ([][]float64, map[string]float64) {
	return [][]float64{append([]float64(nil), r.Eta...)}, map[string]float64{"intercept": r.B, "sigma2": r.Sigma2, "weight": r.SupervisionWeight()}
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "gaussian.zz", Len: len(s.ZZ)}, {Name: "gaussian.phim", Len: len(s.PhiM)}, {Name: "gaussian.phisum", Len: len(s.PhiSum)}, {Name: "gaussian.scalars", Len: 4}}
}

// Sums visits ZZ, PhiM, PhiSum, then M, MM, Docs and Entropy.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.ZZ, s.PhiM, s.PhiSum)
	framework.ScalarSums(3, visit, &s.M, &s.MM, &s.Docs, &s.Entropy)
}

// SetSums sets every number.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	framework.SetSliceSums(0, get, s.ZZ, s.PhiM, s.PhiSum)
	framework.SetScalarSums(3, get, &s.M, &s.MM, &s.Docs, &s.Entropy)
}
