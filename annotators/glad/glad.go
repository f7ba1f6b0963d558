package glad

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mat"
)

// Name is the registered name.
const Name = "glad"

func init() { framework.RegisterNoise(Name, New) }

// Params is the `annotators "glad" { ... }` block.
type Params struct {
	AbilityMean float64 `hcl:"ability_mean,optional"`  // μ_a: prior mean of every ability a_r (default 1)
	AbilitySD   float64 `hcl:"ability_sd,optional"`    // s_a (default 1)
	LogBetaMean float64 `hcl:"log_beta_mean,optional"` // μ_b: prior mean of every task's b_d = log β_d (default 1)
	LogBetaSD   float64 `hcl:"log_beta_sd,optional"`   // s_b (default 1)
	Start       string  `hcl:"start,optional"`         // "one-coin" (default) or "prior": where the abilities start
}

// Defaults returns the documented defaults (Whitehill et al.'s priors:
// a_r ~ N(1, 1), log β_d ~ N(1, 1)).
func Defaults() Params {
	return Params{AbilityMean: 1, AbilitySD: 1, LogBetaMean: 1, LogBetaSD: 1, Start: "one-coin"}
}

// New is the factory registered as "glad".
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
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case pr.Start != "one-coin" && pr.Start != "prior":
		return nil, fmt.Errorf("%w: %s: start = %q; valid: one-coin, prior", framework.ErrBadInput, Name, pr.Start)
	case !fin(pr.AbilityMean) || math.Abs(pr.AbilityMean) > 50:
		return nil, fmt.Errorf("%w: %s: ability_mean = %v, want a finite number in [−50, 50]", framework.ErrBadInput, Name, pr.AbilityMean)
	case !fin(pr.LogBetaMean) || math.Abs(pr.LogBetaMean) > 10:
		return nil, fmt.Errorf("%w: %s: log_beta_mean = %v, want a finite number in [−10, 10]", framework.ErrBadInput, Name, pr.LogBetaMean)
	case !(pr.AbilitySD > 0) || pr.AbilitySD > 100:
		return nil, fmt.Errorf("%w: %s: ability_sd = %v, want a number in (0, 100]", framework.ErrBadInput, Name, pr.AbilitySD)
	case !(pr.LogBetaSD > 0) || pr.LogBetaSD > 5:
		return nil, fmt.Errorf("%w: %s: log_beta_sd = %v, want a number in (0, 5]", framework.ErrBadInput, Name, pr.LogBetaSD)
	}
	return &Model{params: pr}, nil
}

// Model is the GLAD annotator model: an ability per annotator (the global
// parameters) and a log inverse difficulty per task (a local variable,
// maximised in each document's local step; see the package documentation).
type Model struct {
	Ability []float64 // a_r, the MAP abilities
	C       int
	params  Params
	logC1   float64 // log(C − 1)

	workers []string // annotator names (report)
	answers []int    // answers per annotator in the training corpus (report)

	steps, newtonSteps int // the last Update's steps, and how many were Newton's (tests)

	last objectiveMemo // the last objective evaluated (Update's result, ELBO)
}

// objectiveMemo is the objective's value at some statistics, abilities and
// scale, kept so that the same evaluation is not repeated: models.Model
// asks for ELBO after Update (where Update has just evaluated it) and its
// ConvergenceScale asks again for the same statistics. The inputs are
// copies, compared bit for bit, so a reused statistics buffer with other
// contents is never mistaken for the one remembered.
type objectiveMemo struct {
	ok    bool
	off   []int32
	r     []int32
	p     []float64
	a     []float64
	scale float64
	value float64
}

// set remembers value as the objective at (s, a, scale).
func (o *objectiveMemo) set(s *Stats, a []float64, scale, value float64) {
	o.off = append(o.off[:0], s.Off...)
	o.r = append(o.r[:0], s.R...)
	o.p = append(o.p[:0], s.P...)
	o.a = append(o.a[:0], a...)
	o.scale, o.value, o.ok = scale, value, true
}

// get returns the value remembered for (s, a, scale), if it is.
func (o *objectiveMemo) get(s *Stats, a []float64, scale float64) (float64, bool) {
	if !o.ok || math.Float64bits(o.scale) != math.Float64bits(scale) || !slices.Equal(o.off, s.Off) || !slices.Equal(o.r, s.R) || !sameBits(o.p, s.P) || !sameBits(o.a, a) {
		return 0, false
	}
	return o.value, true
}

// sameBits reports whether x and y hold the same float64s bit for bit.
func sameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

var (
	_ framework.NoiseModel = (*Model)(nil)
	_ framework.DocScorer  = (*Model)(nil)
	_ framework.Persister  = (*Model)(nil)
	_ framework.Reporter   = (*Model)(nil)
)

// Init sets the abilities to their start: "prior", every ability at its
// prior mean; "one-coin" (default), from a one-coin fit of the training
// answers (oneCoinStart; the prior mean without a corpus).
func (m *Model) Init(s *framework.Setup) error {
	if s == nil || len(s.Classes) < 2 {
		return fmt.Errorf("%w: %s needs categorical answers with at least 2 classes", framework.ErrIncompatible, Name)
	}
	m.C = len(s.Classes)
	m.logC1 = math.Log(float64(m.C - 1))
	R := len(s.Annotators)
	m.Ability = make([]float64, R)
	for r := range m.Ability {
		m.Ability[r] = m.params.AbilityMean
	}
	m.workers = s.Annotators
	var err error
	if m.answers, err = s.CountAnswers(Name); err != nil {
		return err
	}
	if m.params.Start == "one-coin" && s.Corpus != nil && s.Corpus.Answers != nil {
		m.oneCoinStart(s.Corpus.Answers.ByDoc)
	}
	return nil
}

// oneCoinStart sets the abilities from a one-coin fit of the answers
// alone (flat class prior; accuracy acc_r with a Beta(2, 2) prior, 50 EM
// iterations from 0.7): a_r = logit(acc_r)/e^{μ_b}, the ability that
// gives acc_r on a task of the prior's typical difficulty. From the
// symmetric start (every ability equal) the first E-step is a majority
// vote and the tasks' difficulties can absorb the disagreement: on the
// conformance kit's crowd (C = 2, accuracies 0.85 to 0.35, 3 answers a
// task) GLAD then stays at majority vote (0.565, bound −4436), whereas
// started from the planted abilities it reaches 0.748 with a higher bound
// (−4296); from this start it reaches the latter (TestStart).
func (m *Model) oneCoinStart(byDoc [][]framework.Answer) {
	R, C := len(m.Ability), m.C
	acc := make([]float64, R)
	for r := range acc {
		acc[r] = 0.7
	}
	right, wrong := make([]float64, R), make([]float64, R)
	cor, n := make([]float64, R), make([]float64, R)
	lp := make([]float64, C)
	for range 50 {
		for r := range acc {
			right[r] = math.Log(acc[r])
			wrong[r] = math.Log((1 - acc[r]) / float64(C-1))
		}
		clear(cor)
		clear(n)
		for _, as := range byDoc {
			if len(as) == 0 {
				continue
			}
			clear(lp)
			for _, a := range as {
				for l := range lp {
					if int32(l) == a.Class {
						lp[l] += right[a.Annotator]
					} else {
						lp[l] += wrong[a.Annotator]
					}
				}
			}
			mx := floatsMax(lp)
			z := 0.0
			for l := range lp {
				lp[l] = math.Exp(lp[l] - mx)
				z += lp[l]
			}
			for _, a := range as {
				cor[a.Annotator] += lp[a.Class] / z
				n[a.Annotator]++
			}
		}
		for r := range acc {
			acc[r] = (cor[r] + 1) / (n[r] + 2)
		}
	}
	eb := math.Exp(m.params.LogBetaMean)
	for r, x := range acc {
		m.Ability[r] = math.Log(x/(1-x)) / eb
	}
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

// logistic returns log σ(t), log σ(−t) and σ(t) with one exponential and
// one logarithm.
func logistic(t float64) (ls, lsn, s float64) {
	e := math.Exp(-math.Abs(t))
	l := math.Log1p(e)
	if t >= 0 {
		return -l, -t - l, 1 / (1 + e)
	}
	return t - l, -l, e / (1 + e)
}

// sigmoid is σ(t) = 1/(1 + e^{−t}).
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// Range of b_d: the prior mean ± bRange prior deviations (far beyond any
// maximiser: the prior's log-density there is −bRange²/2 = −450).
const bRange = 30

// maximise1D maximises f from x0 inside [lo, hi] by Newton steps where f
// is concave (f″ < 0) and gradient steps elsewhere, each step at most
// maxStep long and halved until f increases; it stops when a step no
// longer changes x by more than tol (relative) or f cannot be increased.
// f returns the value, first and second derivatives. Deterministic: the
// same f and x0 give the same x, bit for bit.
func maximise1D(f func(x float64) (v, d1, d2 float64), x0, lo, hi, maxStep float64) (x, v float64) {
	x = x0
	v, d1, d2 := f(x)
	for it := 0; it < 200; it++ {
		var step float64
		if d2 < 0 {
			step = -d1 / d2
		} else {
			step = math.Copysign(maxStep, d1)
		}
		if math.Abs(step) > maxStep {
			step = math.Copysign(maxStep, step)
		}
		if d1 == 0 || math.Abs(step) <= 1e-14*math.Max(1, math.Abs(x)) {
			return x, v
		}
		if d2 < 0 && math.Abs(step) <= 1e-8*math.Max(1, math.Abs(x)) {
			return math.Min(hi, math.Max(lo, x+step)), v
		}
		moved := false
		for h := 0; h < 60; h++ {
			y := math.Min(hi, math.Max(lo, x+step))
			if y == x {
				break
			}
			w, e1, e2 := f(y)
			if w >= v {
				small := math.Abs(y-x) <= 1e-12*math.Max(1, math.Abs(x))
				x, v, d1, d2 = y, w, e1, e2
				moved = true
				if small {
					return x, v
				}
				break
			}
			step /= 2
		}
		if !moved {
			return x, v
		}
	}
	return x, v
}

// answerTerms returns, for one answer of an annotator of ability a on a
// task with b = log β: the expected log-likelihood given the probability
// p that the answer is right, and its first and second derivatives in b
// (t = a·e^b):
//
//	p log σ(t) + (1 − p)(log σ(−t) − log(C − 1)),
//	∂/∂b = t(p − σ(t)),   ∂²/∂b² = t(p − σ(t)) − t²σ(t)(1 − σ(t)).
func (m *Model) answerTerms(a, eb, p float64) (v, d1, d2 float64) {
	t := a * eb
	ls, lsn, s := logistic(t)
	v = p*ls + (1-p)*(lsn-m.logC1)
	g := t * (p - s)
	return v, g, g - t*t*s*(1-s)
}

// logPrior is log N(x; μ, s²) and its derivatives.
func logPrior(x, mu, sd float64) (v, d1, d2 float64) {
	z := (x - mu) / sd
	return -0.5*z*z - math.Log(sd) - 0.5*math.Log(2*math.Pi), -z / sd, -1 / (sd * sd)
}

// profile returns max_b L_d(b) and its maximiser for one task's answers
// (annotators rs, probabilities ps that each answer is right) at the
// abilities a: L_d(b) = Σ_i answerTerms + log N(b; μ_b, s_b²). The
// maximiser starts at μ_b, so the result is a function of (rs, ps, a)
// alone. A task without answers contributes 0 (b_d stays at its prior
// mean and its prior density is left out of the bound).
func (m *Model) profile(rs []int32, ps []float64, a []float64) (b, v float64) {
	return m.profileFrom(rs, ps, a, m.params.LogBetaMean)
}

// profileFrom is profile with the maximiser started at b0.
func (m *Model) profileFrom(rs []int32, ps []float64, a []float64, b0 float64) (b, v float64) {
	if len(rs) == 0 {
		return m.params.LogBetaMean, 0
	}
	mu, sd := m.params.LogBetaMean, m.params.LogBetaSD
	f := func(b float64) (v, d1, d2 float64) {
		v, d1, d2 = logPrior(b, mu, sd)
		eb := math.Exp(b)
		for i, r := range rs {
			x, y, z := m.answerTerms(a[r], eb, ps[i])
			v, d1, d2 = v+x, d1+y, d2+z
		}
		return v, d1, d2
	}
	return maximise1D(f, b0, mu-bRange*sd, mu+bRange*sd, 2*sd)
}

// rightProbs fills rs and ps with document d's answers: the annotator and
// λ_{d,y_dr}, the probability under q(c_d) that the answer is right.
func rightProbs(d *framework.DocState, rs []int32, ps []float64) ([]int32, []float64) {
	t := d.Target.(*framework.Categorical)
	rs, ps = rs[:0], ps[:0]
	for _, a := range d.Answers {
		rs, ps = append(rs, a.Annotator), append(ps, t.P[a.Class])
	}
	return rs, ps
}

// DocELBO is the annotators' part of document d's bound at its target λ_d,
// maximised over the task's b_d: max_b Σ_r [λ_{y_dr} log σ(a_r e^b) +
// (1 − λ_{y_dr})(log σ(−a_r e^b) − log(C − 1))] + log N(b; μ_b, s_b²).
func (m *Model) DocELBO(d *framework.DocState) float64 {
	rs, ps := rightProbs(d, nil, nil)
	_, v := m.profile(rs, ps, m.Ability)
	return v
}

// Evidence adds the annotators' message onto d.Target, maximising b_d
// jointly with λ_d given the messages already there (the response's prior
// message; Evidence comes last, before Finalize):
//
//	b* = argmax_b  log Σ_l exp(Log_l + M_l(b)) + log N(b; μ_b, s_b²),
//	M_l(b) = Σ_r [log σ(a_r e^b) if l = y_dr, else log σ(−a_r e^b) − log(C − 1)],
//
// then Log_l += M_l(b*). λ_d = softmax(Log + M(b*)) and b* are then the
// joint maximiser of the document's bound in (λ_d, b_d), and M(b*) is the
// gradient of DocELBO at that λ_d (b* is DocELBO's maximiser there).
func (m *Model) Evidence(d *framework.DocState) {
	if len(d.Answers) == 0 {
		return
	}
	t := d.Target.(*framework.Categorical)
	C := len(t.Log)
	base := append([]float64(nil), t.Log...)
	js := newJoint(C)
	mu, sd := m.params.LogBetaMean, m.params.LogBetaSD
	f := func(b float64) (v, d1, d2 float64) { return m.jointAt(d.Answers, base, b, js) }
	if math.IsInf(floatsMax(base), -1) || hasNaN(base) {
		// No finite message to weigh against: use the prior-free target.
		clear(base)
	}
	b, _ := maximise1D(f, mu, mu-bRange*sd, mu+bRange*sd, 2*sd)
	f(b)
	for l := range t.Log {
		t.Log[l] += js.ev[l]
	}
}

// joint is the scratch of jointAt, C numbers each.
type joint struct {
	ev, z, g, h []float64 // M_l(b), base_l + M_l(b), ∂M_l/∂b, ∂²M_l/∂b²
}

func newJoint(C int) *joint {
	return &joint{ev: make([]float64, C), z: make([]float64, C), g: make([]float64, C), h: make([]float64, C)}
}

// jointAt is Evidence's objective at b and its first two derivatives:
// F(b) = log Σ_l exp(base_l + M_l(b)) + log N(b; μ_b, s_b²), with
// λ = softmax(base + M(b)), F′ = E_λ[M′] + prior′ and F″ = E_λ[M″] +
// Var_λ(M′) + prior″. It leaves M(b) in js.ev.
func (m *Model) jointAt(answers []framework.Answer, base []float64, b float64, js *joint) (v, d1, d2 float64) {
	ev, z, g, h := js.ev, js.z, js.g, js.h
	eb := math.Exp(b)
	clear(ev)
	clear(g)
	clear(h)
	for _, an := range answers {
		tt := m.Ability[an.Annotator] * eb
		right, wrong, s := logistic(tt)
		wrong -= m.logC1
		gr, gw := tt*(1-s), -tt*s
		curv := tt * tt * s * (1 - s)
		for l := range ev {
			if int32(l) == an.Class {
				ev[l] += right
				g[l] += gr
				h[l] += gr - curv
			} else {
				ev[l] += wrong
				g[l] += gw
				h[l] += gw - curv
			}
		}
	}
	mx := math.Inf(-1)
	for l := range z {
		z[l] = base[l] + ev[l]
		mx = math.Max(mx, z[l])
	}
	sum, eg, eh, egg := 0.0, 0.0, 0.0, 0.0
	for l, x := range z {
		w := math.Exp(x - mx)
		if w == 0 {
			continue
		}
		sum += w
		eg += w * g[l]
		eh += w * h[l]
		egg += w * g[l] * g[l]
	}
	eg, eh, egg = eg/sum, eh/sum, egg/sum
	pv, p1, p2 := logPrior(b, m.params.LogBetaMean, m.params.LogBetaSD)
	return mx + math.Log(sum) + pv, eg + p1, eh + egg - eg*eg + p2
}

func floatsMax(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = math.Max(mx, v)
	}
	return mx
}

func hasNaN(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// Stats are every answered document's answers: its annotators and the
// probability that each answer is right (λ_{d,y_dr}), in document order.
// GLAD's M-step needs them whole (the tasks' b_d are re-maximised with
// the abilities), so they are a list, not a sum: merging appends.
type Stats struct {
	Off []int32 // document i's answers are R[Off[i]:Off[i+1]]; len = documents + 1
	R   []int32
	P   []float64
}

// NewStats returns empty statistics.
func (m *Model) NewStats() framework.Stats { return &Stats{Off: []int32{0}} }

// Merge appends o's documents.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	base := int32(len(s.R))
	for _, x := range t.Off[1:] {
		s.Off = append(s.Off, base+x)
	}
	s.R = append(s.R, t.R...)
	s.P = append(s.P, t.P...)
}

// Reset empties s.
func (s *Stats) Reset() { s.Off, s.R, s.P = s.Off[:1], s.R[:0], s.P[:0] }

func (s *Stats) docs() int { return len(s.Off) - 1 }

// byAnnotator groups the answers by annotator (a counting sort, in
// document order): annotator r's answers are byR[start[r]:start[r+1]],
// indices into R and P, and docOf[j] is answer j's document.
func (s *Stats) byAnnotator(R int) (byR []int32, start []int, docOf []int32) {
	start = make([]int, R+1)
	for _, r := range s.R {
		start[r+1]++
	}
	for r := range R {
		start[r+1] += start[r]
	}
	byR = make([]int32, len(s.R))
	docOf = make([]int32, len(s.R))
	next := append([]int(nil), start[:R]...)
	for i := range s.docs() {
		for j := s.Off[i]; j < s.Off[i+1]; j++ {
			r := s.R[j]
			byR[next[r]] = j
			next[r]++
			docOf[j] = int32(i)
		}
	}
	return byR, start, docOf
}

func (s *Stats) doc(i int) ([]int32, []float64) {
	return s.R[s.Off[i]:s.Off[i+1]], s.P[s.Off[i]:s.Off[i+1]]
}

// Accumulate records document d's answers (nothing when it has none).
func (m *Model) Accumulate(st framework.Stats, d *framework.DocState) {
	if len(d.Answers) == 0 {
		return
	}
	s := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	for _, a := range d.Answers {
		s.R = append(s.R, a.Annotator)
		s.P = append(s.P, t.P[a.Class])
	}
	s.Off = append(s.Off, int32(len(s.R)))
}

// objective is the annotators' part of the bound at the abilities a:
// Σ_r log N(a_r; μ_a, s_a²) + S·Σ_d max_b L_d(b), every task's maximiser
// started from μ_b (a function of a alone).
func (m *Model) objective(s *Stats, a []float64, S float64) float64 {
	bs := make([]float64, s.docs())
	for i := range bs {
		bs[i] = m.params.LogBetaMean
	}
	return m.objectiveFrom(s, a, S, bs, make([]float64, len(bs)))
}

// objectiveFrom is objective with each task's maximiser started from
// bs[i]; it leaves the maximisers in bs and their exponentials in eb.
func (m *Model) objectiveFrom(s *Stats, a []float64, S float64, bs, eb []float64) float64 {
	local := 0.0
	for i := range bs {
		rs, ps := s.doc(i)
		var v float64
		bs[i], v = m.profileFrom(rs, ps, a, bs[i])
		eb[i] = math.Exp(bs[i])
		local += v
	}
	global := 0.0
	for _, x := range a {
		v, _, _ := logPrior(x, m.params.AbilityMean, m.params.AbilitySD)
		global += v
	}
	return S*local + global
}

// Update maximises the objective over the abilities, every task's b_d
// profiled (re-maximised, warm-started from step to step): Newton steps
// on the profiled objective (newton), or, where one fails (−H not
// positive definite, no ascent in 30 halvings) or R > newtonMaxAnnotators,
// a round of coordinate ascent (every ability given the b_d: 1-D and
// concave, S Σ log σ(±a β_d) plus a Gaussian prior); until no ability
// moves by more than 1e-10. Then it blends a ← (1 − ρ)·a + ρ·a* (MODEL.md
// §5, the blended parameters being the abilities).
func (m *Model) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if step.Rho == 0 {
		return nil
	}
	s := st.(*Stats)
	S := step.Scale
	R := len(m.Ability)
	byR, start, docOf := s.byAnnotator(R)
	a := append([]float64(nil), m.Ability...)
	eb := make([]float64, s.docs())
	bs := make([]float64, s.docs()) // each task's b_d, warm-started from step to step
	for i := range bs {
		bs[i] = m.params.LogBetaMean
	}
	mua, sda := m.params.AbilityMean, m.params.AbilitySD
	profileAll := func(x, bs, eb []float64) float64 { return m.objectiveFrom(s, x, S, bs, eb) }
	var nw *newton
	if R > 0 && R <= newtonMaxAnnotators {
		nw = newNewton(R, len(bs))
	}
	phi := profileAll(a, bs, eb)
	m.steps, m.newtonSteps = 0, 0
	for step := 0; step < 1000; step++ {
		m.steps++
		if step%16 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		old := append([]float64(nil), a...)
		full := false // a whole Newton step (not shortened by the line search)
		if nw != nil && nw.step(m, s, S, a, bs, eb, &phi, byR, start, docOf) {
			m.newtonSteps++
			full = nw.full
		} else {
			// A round of coordinate ascent: every ability given the b_d.
			for r := range R {
				idx := byR[start[r]:start[r+1]]
				f := func(x float64) (v, d1, d2 float64) {
					v, d1, d2 = logPrior(x, mua, sda)
					lv, l1, l2 := 0.0, 0.0, 0.0
					for _, j := range idx {
						be := eb[docOf[j]]
						ls, lsn, sg := logistic(x * be)
						p := s.P[j]
						lv += p*ls + (1-p)*(lsn-m.logC1)
						l1 += be * (p - sg)
						l2 -= be * be * sg * (1 - sg)
					}
					return v + S*lv, d1 + S*l1, d2 + S*l2
				}
				a[r], _ = maximise1D(f, a[r], mua-1000*sda, mua+1000*sda, 4*sda)
			}
			phi = profileAll(a, bs, eb)
		}
		moved := 0.0
		for r := range a {
			moved = math.Max(moved, math.Abs(a[r]-old[r]))
		}
		scale := math.Max(1, maxAbs(a))
		if moved <= 1e-10*scale || (full && moved <= 1e-6*scale) {
			// After a whole Newton step of at most 1e-6 the next would move
			// the abilities by about its square (Newton converges
			// quadratically here: 5e-5 → 4e-9, 4e-5 → 2e-9 on the
			// simulated crowds), so it is not taken.
			break
		}
	}
	rho := step.Rho
	for r := range m.Ability {
		m.Ability[r] = (1-rho)*m.Ability[r] + rho*a[r]
	}
	// phi is the objective at a (every b_d at its maximiser, started from
	// the previous step's instead of μ_b: the same maximum to rounding),
	// which ELBO is asked for next when the abilities are a (batch, ρ = 1).
	m.last.set(s, a, S, phi)
	return nil
}

// newtonMaxAnnotators is the largest number of annotators for which
// Update takes Newton steps on the profiled objective (an R×R system);
// beyond it, rounds of coordinate ascent only.
var newtonMaxAnnotators = 500

// newton holds the scratch of Update's Newton steps on the profiled
// objective Φ(a) = Σ_r log N(a_r) + S·Σ_d max_b L_d(a, b): with b_d at its
// maximiser, ∂Φ/∂a_r = prior′ + S Σ_{answers of r} e^{b_d}(p − σ(t)), and
// the Hessian is diag(prior″ + S Σ ∂²L/∂a_r²) − S Σ_d u_d u_dᵀ / L_bb(d),
// u_d,r = Σ_{answers of r on d} ∂²L/∂a_r∂b = e^{b_d}((p − σ) − tσ(1 − σ)),
// L_bb(d) = ∂²L_d/∂b² < 0 at the maximiser (the implicit function of b_d).
type newton struct {
	h      *mat.SymDense
	g, d   *mat.VecDense
	chol   mat.Cholesky
	u      []float64 // one task's u_d, by annotator
	mark   []int     // mark[r] = 1 + the task whose u_d holds r (0: none yet)
	touch  []int32   // the annotators of one task
	trial  []float64 // abilities tried
	bTrial []float64
	ebTry  []float64
	full   bool // the last accepted step was the whole Newton step
}

func newNewton(R, D int) *newton {
	return &newton{h: mat.NewSymDense(R, nil), g: mat.NewVecDense(R, nil), d: mat.NewVecDense(R, nil),
		u: make([]float64, R), mark: make([]int, R), trial: make([]float64, R), bTrial: make([]float64, D), ebTry: make([]float64, D)}
}

// step tries one Newton step from a (with bs, eb the tasks' maximisers
// there and *phi the objective): if −H is positive definite and a step
// (halved up to 30 times) does not lower Φ, it moves a, bs, eb and *phi
// there and reports true; otherwise it leaves them and reports false.
func (nw *newton) step(m *Model, s *Stats, S float64, a, bs, eb []float64, phi *float64, byR []int32, start []int, docOf []int32) bool {
	R := len(a)
	nw.assemble(m, s, S, a, bs, eb, byR, start, docOf)
	// −H = LLᵀ, then d = (−H)⁻¹ g.
	nw.h.ScaleSym(-1, nw.h)
	if ok := nw.chol.Factorize(nw.h); !ok {
		return false
	}
	if err := nw.chol.SolveVecTo(nw.d, nw.g); err != nil {
		return false
	}
	alpha := 1.0
	for range 30 {
		for r := range R {
			nw.trial[r] = a[r] + alpha*nw.d.AtVec(r)
		}
		copy(nw.bTrial, bs)
		v := m.objectiveFrom(s, nw.trial, S, nw.bTrial, nw.ebTry)
		if v >= *phi {
			nw.full = alpha == 1
			copy(a, nw.trial)
			copy(bs, nw.bTrial)
			copy(eb, nw.ebTry)
			*phi = v
			return true
		}
		alpha /= 2
	}
	return false
}

// assemble sets nw.g to the gradient ∇Φ(a) and nw.h to the Hessian of Φ
// at a, with bs, eb the tasks' maximisers there (see newton; checked by
// finite differences in TestNewtonDerivatives).
func (nw *newton) assemble(m *Model, s *Stats, S float64, a, bs, eb []float64, byR []int32, start []int, docOf []int32) {
	R := len(a)
	mua, sda := m.params.AbilityMean, m.params.AbilitySD
	muB, sdB := m.params.LogBetaMean, m.params.LogBetaSD
	for r := range R {
		for c := r; c < R; c++ {
			nw.h.SetSym(r, c, 0)
		}
	}
	for r := range R {
		_, p1, p2 := logPrior(a[r], mua, sda)
		g, h := p1, p2
		for _, j := range byR[start[r]:start[r+1]] {
			be := eb[docOf[j]]
			sg := sigmoid(a[r] * be)
			g += S * be * (s.P[j] - sg)
			h -= S * be * be * sg * (1 - sg)
		}
		nw.g.SetVec(r, g)
		nw.h.SetSym(r, r, h)
	}
	for i := range bs {
		rs, ps := s.doc(i)
		_, _, lbb := logPrior(bs[i], muB, sdB)
		nw.touch = nw.touch[:0]
		for k, r := range rs {
			t := a[r] * eb[i]
			sg := sigmoid(t)
			lbb += t*(ps[k]-sg) - t*t*sg*(1-sg)
			if nw.mark[r] != i+1 {
				nw.mark[r] = i + 1
				nw.u[r] = 0
				nw.touch = append(nw.touch, r)
			}
			nw.u[r] += eb[i] * ((ps[k] - sg) - t*sg*(1-sg))
		}
		if lbb < 0 {
			for x, r := range nw.touch {
				for _, c := range nw.touch[x:] {
					nw.h.SetSym(int(r), int(c), nw.h.At(int(r), int(c))-S*nw.u[r]*nw.u[c]/lbb)
				}
			}
		}
	}
	clear(nw.mark)
}

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// ELBO is the annotators' part of the bound at the current abilities,
// every task's b_d at its maximiser: S·Σ_d max_b L_d(b) + Σ_r log N(a_r;
// μ_a, s_a²).
func (m *Model) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	if v, ok := m.last.get(s, m.Ability, step.Scale); ok {
		return v
	}
	v := m.objective(s, m.Ability, step.Scale)
	m.last.set(s, m.Ability, step.Scale, v)
	return v
}

type saved struct {
	Format    string    `json:"format"`
	Abilities []float64 `json:"abilities"`
}

// SaveParams writes the abilities as JSON.
func (m *Model) SaveParams(w io.Writer) error {
	return json.NewEncoder(w).Encode(saved{Format: Name, Abilities: m.Ability})
}

// LoadParams restores what SaveParams wrote into a model initialised with
// as many annotators.
func (m *Model) LoadParams(r io.Reader) error {
	var p saved
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: %s parameters: %v", framework.ErrBadInput, Name, err)
	}
	if p.Format != Name || len(p.Abilities) != len(m.Ability) {
		return fmt.Errorf("%w: %s parameters: format %q, %d abilities; want %q, %d", framework.ErrBadInput, Name, p.Format, len(p.Abilities), Name, len(m.Ability))
	}
	for r, a := range p.Abilities {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("%w: %s parameters: ability %d is %v, want a finite number", framework.ErrBadInput, Name, r, a)
		}
	}
	copy(m.Ability, p.Abilities)
	return nil
}

// Natural returns the parameters Update blends: the abilities (for the
// conformance kit).
func (m *Model) Natural() []float64 { return append([]float64(nil), m.Ability...) }

// Annotator is one annotator in annotators.json.
type Annotator struct {
	Annotator string  `json:"annotator"`
	Answers   int     `json:"answers"`
	Ability   float64 `json:"ability"`
	// Accuracy is σ(a_r·e^{μ_b}): the probability of a right answer on a
	// task of the prior's typical difficulty.
	Accuracy float64 `json:"accuracy"`
}

// Report describes every annotator, for annotators.csv:
//
//	annotator,answers,ability,accuracy
//
// accuracy being σ(a_r·e^{μ_b}), the probability of a right answer on a
// task of typical difficulty (b_d at its prior mean); annotators.json
// holds the same as []Annotator.
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "answers", "ability", "accuracy"}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	out := make([]Annotator, len(m.Ability))
	eb := math.Exp(m.params.LogBetaMean)
	for r, a := range m.Ability {
		name := strconv.Itoa(r)
		if r < len(m.workers) {
			name = m.workers[r]
		}
		n := 0
		if r < len(m.answers) {
			n = m.answers[r]
		}
		acc := sigmoid(a * eb)
		out[r] = Annotator{Annotator: name, Answers: n, Ability: a, Accuracy: acc}
		rows = append(rows, []string{name, strconv.Itoa(n), f(a), f(acc)})
	}
	return header, rows, out
}
