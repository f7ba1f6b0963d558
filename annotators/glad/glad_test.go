package glad_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/glad"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
)

// GLAD passes the conformance kit (C = 2, 3): among others the evidence
// is the gradient of DocELBO at the target it leads to (the task's b_d
// maximised jointly with λ_d), Update maximises the profile bound, and
// batch EM is monotone.
func TestKit(t *testing.T) {
	for _, C := range []int{2, 3} {
		frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
			New:     func() (framework.NoiseModel, error) { return glad.New(nil) },
			Kind:    frameworktest.KindCategorical,
			Classes: C,
			Natural: func(n framework.NoiseModel) []float64 { return n.(*glad.Model).Natural() },
		})
	}
}

// params is a framework.Params from a map (the keys of the HCL block).
type params map[string]float64

func (p params) Decode(v any) error {
	pr := v.(*glad.Params)
	for k, x := range p {
		switch k {
		case "ability_mean":
			pr.AbilityMean = x
		case "ability_sd":
			pr.AbilitySD = x
		case "log_beta_mean":
			pr.LogBetaMean = x
		case "log_beta_sd":
			pr.LogBetaSD = x
		default:
			return fmt.Errorf("%w: unknown key %q", framework.ErrBadInput, k)
		}
	}
	return nil
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		p    params
		want string
	}{
		{params{"ability_sd": 0}, "ability_sd = 0"},
		{params{"log_beta_sd": -1}, "log_beta_sd = -1"},
		{params{"log_beta_sd": 6}, "log_beta_sd = 6"},
		{params{"ability_mean": math.NaN()}, "ability_mean = NaN"},
		{params{"log_beta_mean": 11}, "log_beta_mean = 11"},
		{params{"nope": 1}, `unknown key "nope"`},
	} {
		_, err := glad.New(tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error with %q", tc.p, err, tc.want)
		}
	}
	if _, err := glad.New(params{"ability_mean": 0, "log_beta_mean": 0}); err != nil {
		t.Errorf("zero means: %v", err)
	}
}

func newModel(t *testing.T, R, C int) *glad.Model {
	t.Helper()
	n, err := glad.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, c := make([]string, R), make([]string, C)
	for i := range w {
		w[i] = "w" + strconv.Itoa(i)
	}
	for i := range c {
		c[i] = "c" + strconv.Itoa(i)
	}
	if err := n.Init(&framework.Setup{K: 1, V: 1, Annotators: w, Classes: c}); err != nil {
		t.Fatal(err)
	}
	return n.(*glad.Model)
}

func logSig(t float64) float64 { return -math.Log1p(math.Exp(-t)) }

// TestByHand: one task answered 0 by an annotator of ability 1 (C = 2),
// λ = (0.8, 0.2). DocELBO is max_b 0.8 log σ(e^b) + 0.2 log σ(−e^b) −
// (b − 1)²/2 − ½ log 2π, checked against a fine grid; the evidence onto a
// flat incoming message is (log σ(e^b*), log σ(−e^b*)) with b* the joint
// maximiser, at which λ* = softmax(evidence) satisfies the profile's
// stationarity: Σ λ*_y … = 0.
func TestByHand(t *testing.T) {
	m := newModel(t, 1, 2)
	tg := framework.NewCategorical(2)
	tg.P[0], tg.P[1] = 0.8, 0.2
	d := &framework.DocState{Answers: []framework.Answer{{Annotator: 0, Class: 0}}, Target: tg}
	L := func(b, p float64) float64 {
		e := math.Exp(b)
		return p*logSig(e) + (1-p)*logSig(-e) - (b-1)*(b-1)/2 - 0.5*math.Log(2*math.Pi)
	}
	best := math.Inf(-1)
	for b := -4.0; b <= 6; b += 1e-5 {
		best = math.Max(best, L(b, 0.8))
	}
	if got := m.DocELBO(d); math.Abs(got-best) > 1e-9 {
		t.Errorf("DocELBO = %.12g, the grid's maximum %.12g", got, best)
	}
	// Joint: maximise F(b) = log(σ(e^b) + σ(−e^b)) + prior = prior alone
	// would be b = 1 if the evidence did not depend on b; here
	// log Σ_l exp(M_l) = log(σ(t) + σ(−t)) = 0, so F is the prior: b* = 1.
	tg2 := framework.NewCategorical(2)
	d.Target = tg2
	m.Evidence(d)
	e := math.E
	if math.Abs(tg2.Log[0]-logSig(e)) > 1e-9 || math.Abs(tg2.Log[1]-logSig(-e)) > 1e-9 {
		t.Errorf("evidence %v, want (log σ(e), log σ(−e)) = (%.10g, %.10g)", tg2.Log, logSig(e), logSig(-e))
	}
	// With an incoming message favouring class 0 (log 4), b* > 1 (the
	// answer agrees with the likely class: an easy task).
	tg3 := framework.NewCategorical(2)
	tg3.Log[0] = math.Log(4)
	d.Target = tg3
	m.Evidence(d)
	t0 := tg3.Log[0] - math.Log(4)
	// t0 = log σ(e^b*): recover b*.
	bstar := math.Log(-math.Log(math.Exp(-t0) - 1))
	if !(bstar > 1) {
		t.Errorf("b* = %v with an agreeing prior message, want > 1", bstar)
	}
	tg3.Finalize()
	// Stationarity of the profile at λ*: p e^b(1 − σ) − (1 − p) e^b σ − (b − 1) = 0.
	eb := math.Exp(bstar)
	s := 1 / (1 + math.Exp(-eb))
	p := tg3.P[0]
	if g := eb*(p-s) - (bstar - 1); math.Abs(g) > 1e-7 {
		t.Errorf("at λ* = %.6f, b* = %.6f: the profile's derivative is %.3g, want 0", p, bstar, g)
	}
}

// TestUpdateByHand: one annotator, two tasks answered right with
// certainty (p = 1). The ability maximises log N(a; 1, 1) + Σ_d max_b
// [log σ(a e^b) + log N(b; 1, 1)]; checked against a grid over a with
// the inner maximum by grid too.
func TestUpdateByHand(t *testing.T) {
	m := newModel(t, 1, 2)
	s := m.NewStats().(*glad.Stats)
	for range 2 {
		tg := framework.NewCategorical(2)
		tg.P[0], tg.P[1] = 1, 0
		m.Accumulate(s, &framework.DocState{Answers: []framework.Answer{{Annotator: 0, Class: 0}}, Target: tg})
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	obj := func(a float64) float64 {
		inner := math.Inf(-1)
		for b := -3.0; b <= 5; b += 1e-3 {
			inner = math.Max(inner, logSig(a*math.Exp(b))-(b-1)*(b-1)/2)
		}
		return -(a-1)*(a-1)/2 + 2*inner
	}
	bestA, best := 0.0, math.Inf(-1)
	for a := 0.0; a <= 4; a += 1e-3 {
		if v := obj(a); v > best {
			bestA, best = a, v
		}
	}
	if got := m.Ability[0]; math.Abs(got-bestA) > 5e-3 {
		t.Errorf("ability %.6f, the grid's maximiser %.4f", got, bestA)
	}
	if !(m.Ability[0] > 1) {
		t.Errorf("two right answers left the ability at %.4f, not above its prior mean 1", m.Ability[0])
	}
}

// TestPersist: the saved abilities load back; a wrong count or NaN is
// refused.
func TestPersist(t *testing.T) {
	m := newModel(t, 3, 2)
	m.Ability[1] = -0.5
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	h := newModel(t, 3, 2)
	if err := h.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if h.Ability[1] != -0.5 {
		t.Errorf("loaded %v", h.Ability)
	}
	for _, bad := range []string{`{"format":"glad","abilities":[1,2]}`, `{"format":"glad","abilities":[1,2,NaN]}`, `{"format":"mace","abilities":[1,2,3]}`} {
		if err := newModel(t, 3, 2).LoadParams(strings.NewReader(bad)); err == nil {
			t.Errorf("%s loaded", bad)
		}
	}
}

// plantedGLAD draws a crowd from GLAD itself: 8 annotators with abilities
// from strong (3) to adversarial (−1.5), tasks of varied difficulty (b_d
// ~ N(0.5, 1)), 4 classes, 5 answers per task.
func plantedGLAD(seed uint64, D int) (truth []int, a *framework.Answers, abilities []float64) {
	rng := rand.New(rand.NewPCG(seed, 0x676c6164))
	abilities = []float64{3, 2, 1.5, 0.4, 0.2, 0.1, -1, -1.5}
	const C = 4
	a = &framework.Answers{Classes: []string{"a", "b", "c", "d"}, ByDoc: make([][]framework.Answer, D)}
	for r := range abilities {
		a.Annotators = append(a.Annotators, "r"+strconv.Itoa(r))
	}
	truth = make([]int, D)
	for d := range D {
		truth[d] = rng.IntN(C)
		beta := math.Exp(0.5 + rng.NormFloat64())
		for _, r := range rng.Perm(len(abilities))[:5] {
			y := truth[d]
			if rng.Float64() >= 1/(1+math.Exp(-abilities[r]*beta)) {
				y = (y + 1 + rng.IntN(C-1)) % C
			}
			a.ByDoc[d] = append(a.ByDoc[d], framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)})
		}
	}
	return truth, a, abilities
}

func majority(a *framework.Answers, truth []int) float64 {
	right := 0.0
	for d, as := range a.ByDoc {
		votes := make([]int, len(a.Classes))
		for _, x := range as {
			votes[x.Class]++
		}
		mx, n := 0, 0
		for _, v := range votes {
			if v > mx {
				mx, n = v, 1
			} else if v == mx {
				n++
			}
		}
		if votes[truth[d]] == mx {
			right += 1 / float64(n)
		}
	}
	return right / float64(len(truth))
}

// answersOnly is a corpus of one empty document per task of a.
func answersOnly(a *framework.Answers) *framework.Corpus {
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(a.ByDoc)), Answers: a}
	for d := range c.Docs {
		c.Docs[d].ID = strconv.Itoa(d)
	}
	return c
}

// fitConfig trains the configuration src on c and returns the run and
// its final bound.
func fitConfig(t *testing.T, src string, c *framework.Corpus) (*models.Run, float64) {
	t.Helper()
	cfg, err := models.ParseConfig([]byte(src), "glad.hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Fit(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return run, res.ELBO
}

// accuracy is the share of the training tasks whose inferred class is
// the truth.
func accuracy[T int | float64](run *models.Run, truth []T) float64 {
	right := 0
	for d := range truth {
		if T(run.Model.Target(d).(*framework.Categorical).Argmax()) == truth[d] {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}

// TestPlanted: on answers drawn from GLAD, the glad preset beats majority
// vote and orders the annotators by ability, adversaries last (negative).
// Measured (seeds 1, 2, 3): majority vote 0.858 / 0.838 / 0.831, GLAD
// 0.943 / 0.930 / 0.920; the threshold, majority + 0.05, leaves about
// 0.04 of margin.
func TestPlanted(t *testing.T) {
	if testing.Short() {
		t.Skip("a recovery test: run without -short")
	}
	for _, seed := range []uint64{1, 2, 3} {
		truth, a, ab := plantedGLAD(seed, 600)
		run, _ := fitConfig(t, "seed = 1\nmodel = \"glad\"\n", answersOnly(a))
		acc, mv := accuracy(run, truth), majority(a, truth)
		got := run.Model.Noise.(*glad.Model).Ability
		t.Logf("seed %d: GLAD %.3f, majority vote %.3f; abilities %.2f (planted %v)", seed, acc, mv, got, ab)
		if acc < mv+0.05 {
			t.Errorf("seed %d: GLAD %.3f, majority vote %.3f: want majority + 0.05", seed, acc, mv)
		}
		for r := 1; r < len(ab); r++ {
			if ab[r-1]-ab[r] >= 0.5 && !(got[r-1] > got[r]) {
				t.Errorf("seed %d: annotators %d and %d (planted %.1f > %.1f) estimated %.2f, %.2f", seed, r-1, r, ab[r-1], ab[r], got[r-1], got[r])
			}
		}
		for r := 6; r < 8; r++ {
			if !(got[r] < 0) {
				t.Errorf("seed %d: adversary %d has ability %.2f, want < 0", seed, r, got[r])
			}
		}
	}
}

// TestStart: on the conformance kit's crowd (C = 2, accuracies 0.85,
// 0.65, 0.5, 0.4, 0.35, 3 answers a task: majority vote 0.565), GLAD from
// the symmetric start (start = "prior") stays at majority vote, while the
// default one-coin start reaches a higher bound and accuracy (measured:
// bound −4436.2 and 0.565 against −4296.0 and 0.748; the planted
// abilities as the start also give −4296.1 and 0.748).
func TestStart(t *testing.T) {
	if testing.Short() {
		t.Skip("a recovery test: run without -short")
	}
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.V, spec.K, spec.C, spec.DocLen = 1500, 0, 30, 2, 2, 5
	spec.Accuracies, spec.PerDoc = []float64{0.85, 0.65, 0.5, 0.4, 0.35}, 3
	spec.EtaScale = 0
	p, err := frameworktest.NewClassCrowd(spec, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := answersOnly(p.Train.Answers)
	fit := func(src string) (acc, elbo float64) {
		run, elbo := fitConfig(t, "seed = 1\nmodel = \"glad\"\n"+src, c)
		return accuracy(run, p.Truth), elbo
	}
	mv := p.MajorityVote()
	accP, elboP := fit("annotators \"glad\" {\n  start = \"prior\"\n}\n")
	accO, elboO := fit("")
	t.Logf("majority vote %.4f; start = prior: %.4f (bound %.2f); one-coin start: %.4f (bound %.2f)", mv, accP, elboP, accO, elboO)
	if !(elboO > elboP) {
		t.Errorf("the one-coin start ends at bound %.4f, not above the prior start's %.4f", elboO, elboP)
	}
	if accO < mv+0.1 {
		t.Errorf("one-coin start: %.4f, want majority vote %.4f + 0.1", accO, mv)
	}
}

// TestWithDocuments: GLAD as MA-sLDAc's annotator model (softmax response
// on the documents) on the hard-tasks crowd (synth.AggregatorAnswers: 8
// good annotators, 35% of the tasks answered at random by everyone; 5
// answers a task), 400 documents of synth.CrowdBase: the documents lift
// the truth well above majority vote and above GLAD on the answers alone.
// Measured (seed 1): majority vote (ties split) 0.740, GLAD alone 0.745,
// with the documents 0.830 (3 s).
func TestWithDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("a recovery test: run without -short")
	}
	spec := synth.CrowdBase()
	spec.D, spec.Test = 400, 10
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(1, 16)))
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := synth.AggregatorAnswers("hard-tasks", cr.Truth, cr.Train.Answers.Classes, 5, rand.New(rand.NewPCG(1, 17)))
	if err != nil {
		t.Fatal(err)
	}
	withDocs := &framework.Corpus{V: cr.Train.V, Docs: cr.Train.Docs, Answers: a}
	fit := func(src string, c *framework.Corpus) float64 {
		run, _ := fitConfig(t, src, c)
		return accuracy(run, cr.Truth)
	}
	mv := majority(a, cr.Truth)
	alone := fit("seed = 1\nmodel = \"glad\"\n", answersOnly(a))
	docs := fit("seed = 1\ntopics {\n  k = 8\n}\nresponse \"softmax\" {}\nannotators \"glad\" {}\ninference \"batch\" {\n  max_iters = 40\n}\n", withDocs)
	t.Logf("majority vote %.3f, GLAD alone %.3f, with the documents %.3f", mv, alone, docs)
	if docs < mv+0.04 || docs < alone+0.02 {
		t.Errorf("with the documents %.3f: want majority vote %.3f + 0.04 and GLAD alone %.3f + 0.02", docs, mv, alone)
	}
}

// TestOneCoinStartAccuracy: the one-coin start sets each ability so that
// an answer on a task of the prior's typical difficulty (b = μ_b = 1) is
// right with the one-coin fit's accuracy: σ(a_r·e^{μ_b}) = acc_r, acc_r from
// the one-coin EM of oneCoinStart (flat class prior, Beta(2, 2), 50
// iterations from 0.7) written out again here on a small crowd.
func TestOneCoinStartAccuracy(t *testing.T) {
	const R, C = 4, 3
	byDoc := [][]framework.Answer{
		{{Annotator: 0, Class: 0}, {Annotator: 1, Class: 0}, {Annotator: 2, Class: 1}},
		{{Annotator: 0, Class: 2}, {Annotator: 1, Class: 2}, {Annotator: 3, Class: 2}},
		{{Annotator: 1, Class: 1}, {Annotator: 2, Class: 0}, {Annotator: 3, Class: 1}},
		{{Annotator: 0, Class: 1}, {Annotator: 2, Class: 1}, {Annotator: 3, Class: 0}},
		{{Annotator: 0, Class: 0}, {Annotator: 3, Class: 0}},
	}
	acc := []float64{0.7, 0.7, 0.7, 0.7}
	for range 50 {
		cor, n := make([]float64, R), make([]float64, R)
		for _, as := range byDoc {
			lp := make([]float64, C)
			for _, a := range as {
				for l := range lp {
					if int32(l) == a.Class {
						lp[l] += math.Log(acc[a.Annotator])
					} else {
						lp[l] += math.Log((1 - acc[a.Annotator]) / (C - 1))
					}
				}
			}
			z := 0.0
			for l := range lp {
				lp[l] = math.Exp(lp[l])
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
	n, err := glad.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := []string{"a", "b", "c", "d"}
	cl := []string{"x", "y", "z"}
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(byDoc)), Answers: &framework.Answers{Annotators: w, Classes: cl, ByDoc: byDoc}}
	if err := n.Init(&framework.Setup{K: 1, V: 1, Annotators: w, Classes: cl, Corpus: c}); err != nil {
		t.Fatal(err)
	}
	m := n.(*glad.Model)
	for r, want := range acc {
		if got := 1 / (1 + math.Exp(-m.Ability[r]*math.E)); math.Abs(got-want) > 1e-12 {
			t.Errorf("annotator %d: σ(a·e^{μ_b}) = %.15g, the one-coin accuracy %.15g", r, got, want)
		}
	}
}
