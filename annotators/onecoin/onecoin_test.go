package onecoin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/onecoin"
	"github.com/maslda/maslda/annotators/perfect"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
	"gonum.org/v1/gonum/mathext"
)

// One-coin passes the conformance kit under both estimates (C = 2, 3).
func TestKit(t *testing.T) {
	for _, est := range []string{"bayes", "point"} {
		for _, C := range []int{2, 3} {
			frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
				New: func() (framework.NoiseModel, error) {
					return onecoin.New(params{"estimate": est})
				},
				Kind:    frameworktest.KindCategorical,
				Classes: C,
				Natural: func(n framework.NoiseModel) []float64 { return n.(*onecoin.Model).Natural() },
			})
		}
	}
}

// params is a framework.Params from a map (the keys of the HCL block).
type params map[string]any

func (p params) Decode(v any) error {
	pr := v.(*onecoin.Params)
	for k, x := range p {
		switch k {
		case "estimate":
			pr.Estimate = x.(string)
		case "alpha":
			pr.Alpha = x.(float64)
		case "beta":
			pr.Beta = x.(float64)
		default:
			return fmt.Errorf("%w: unknown key %q", framework.ErrBadInput, k)
		}
	}
	return nil
}

func newModel(t *testing.T, p framework.Params, R, C int) *onecoin.Model {
	t.Helper()
	n, err := onecoin.New(p)
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
	return n.(*onecoin.Model)
}

// TestByHand: with q(a) = Beta(3, 1) and C = 3, a right answer weighs
// ψ(3) − ψ(4) = −1/3 and a wrong one ψ(1) − ψ(4) − log 2 = −(1 + 1/2 +
// 1/3) − log 2; a task answered 0 by the annotator gets Log = (−1/3, w,
// w). One task with λ = (0.5, 0.25, 0.25) answered 0, under the prior
// Beta(2, 1): the update is A = 2 + 0.5, B = 1 + 0.5. The point estimate
// with α = β = 2 from c = 0.5, n = 1 is (0.5 + 1)/(1 + 2) = 0.5.
func TestByHand(t *testing.T) {
	m := newModel(t, nil, 1, 3)
	if err := m.LoadParams(strings.NewReader(`{"format":"one-coin","estimate":"bayes","a":[3],"b":[1],"accuracies":[0.75]}`)); err != nil {
		t.Fatal(err)
	}
	ds := framework.NewDocState(1, 0)
	ds.Bind(0, &framework.Doc{}, []framework.Answer{{Annotator: 0, Class: 0}})
	tg := framework.NewCategorical(3)
	ds.Target = tg
	tg.Reset()
	m.Evidence(ds)
	right, wrong := -1.0/3, -(1+0.5+1.0/3)-math.Log(2)
	if d := mathext.Digamma(3) - mathext.Digamma(4); math.Abs(d-right) > 1e-12 {
		t.Fatalf("ψ(3) − ψ(4) = %v, want −1/3", d)
	}
	for l, want := range []float64{right, wrong, wrong} {
		if math.Abs(tg.Log[l]-want) > 1e-12 {
			t.Errorf("Log[%d] = %.15g, want %.15g", l, tg.Log[l], want)
		}
	}
	copy(tg.P, []float64{0.5, 0.25, 0.25})
	if got, want := m.DocELBO(ds), 0.5*right+0.5*wrong; math.Abs(got-want) > 1e-12 {
		t.Errorf("DocELBO %.15g, want %.15g", got, want)
	}
	s := m.NewStats()
	m.Accumulate(s, ds)
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if m.A[0] != 2.5 || m.B[0] != 1.5 {
		t.Errorf("Beta(%v, %v) after the update, want Beta(2.5, 1.5)", m.A[0], m.B[0])
	}
	p := newModel(t, params{"estimate": "point", "alpha": 2.0, "beta": 2.0}, 1, 3)
	s = p.NewStats()
	p.Accumulate(s, ds)
	if err := p.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if p.Acc[0] != 0.5 {
		t.Errorf("MAP accuracy %v, want 0.5", p.Acc[0])
	}
}

// TestParams: bad blocks and bad saved parameters are refused; a save
// and load round trip keeps the parameters.
func TestParams(t *testing.T) {
	for _, p := range []params{{"estimate": "mle"}, {"alpha": -1.0}, {"estimate": "point", "alpha": 0.5}, {"beta": math.Inf(1)}} {
		if _, err := onecoin.New(p); err == nil {
			t.Errorf("%v: accepted", p)
		}
	}
	m := newModel(t, nil, 2, 3)
	for _, bad := range []string{`{"format":"mace"}`, `{"format":"one-coin","estimate":"bayes","a":[1,1],"b":[1,1],"accuracies":[0.5,1.5]}`,
		`{"format":"one-coin","estimate":"bayes","a":[1],"b":[1,1],"accuracies":[0.5,0.5]}`, `{"format":"one-coin","estimate":"point","accuracies":[0.5,0.5]}`} {
		if err := m.LoadParams(strings.NewReader(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	m.A[1], m.B[1] = 7, 2
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	n := newModel(t, nil, 2, 3)
	if err := n.LoadParams(&buf); err != nil {
		t.Fatal(err)
	}
	if n.A[1] != 7 || n.B[1] != 2 {
		t.Errorf("loaded Beta(%v, %v), want Beta(7, 2)", n.A[1], n.B[1])
	}
}

// crowd plants 900 tasks of 3 classes answered 3 times each by 6
// annotators of accuracies 0.95, 0.9, 0.85, 0.4, 0.35, 0.35 (wrong
// answers uniform): majority vote is pulled down by the three weak ones.
func crowd() (*framework.Corpus, []int, []float64) {
	rng := rand.New(rand.NewPCG(13, 1))
	acc := []float64{0.95, 0.9, 0.85, 0.4, 0.35, 0.35}
	const D, C = 900, 3
	a := &framework.Answers{Classes: []string{"x", "y", "z"}, ByDoc: make([][]framework.Answer, D)}
	for r := range acc {
		a.Annotators = append(a.Annotators, "a"+strconv.Itoa(r))
	}
	truth := make([]int, D)
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, D), Answers: a}
	for d := range D {
		c.Docs[d].ID = strconv.Itoa(d)
		truth[d] = rng.IntN(C)
		for _, r := range rng.Perm(len(acc))[:3] {
			y := truth[d]
			if rng.Float64() >= acc[r] {
				y = (y + 1 + rng.IntN(C-1)) % C
			}
			a.ByDoc[d] = append(a.ByDoc[d], framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)})
		}
	}
	return c, truth, acc
}

// TestPlanted: on answers alone the one-coin preset beats majority vote
// and recovers every annotator's accuracy. Measured (seed 13): majority
// 0.734, one-coin 0.878 (bayes and point); accuracies within 0.062 of
// the realised ones, the good and the weak annotators told apart.
func TestPlanted(t *testing.T) {
	c, truth, acc := crowd()
	w := make([]float64, 3)
	mv := 0.0
	for d, as := range c.Answers.ByDoc {
		perfect.MajorityWeights(w, as)
		mv += w[truth[d]]
	}
	mv /= float64(len(truth))
	for _, src := range []string{"model = \"one-coin\"\n", "model = \"one-coin\"\nannotators \"one-coin\" {\n  estimate = \"point\"\n}\n"} {
		cfg, err := models.ParseConfig([]byte(src), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Fit(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		right := 0
		for d := range truth {
			p := run.Model.Target(d).(*framework.Categorical).P
			best := 0
			for l := range p {
				if p[l] > p[best] {
					best = l
				}
			}
			if best == truth[d] {
				right++
			}
		}
		got := float64(right) / float64(len(truth))
		m := run.Model.Noise.(*onecoin.Model)
		t.Logf("%q: one-coin %.3f, majority vote %.3f, accuracies %.3f", src, got, mv, m.Acc)
		if got < mv+0.05 {
			t.Errorf("one-coin %.3f, want majority vote %.3f + 0.05", got, mv)
		}
		// Against each annotator's realised accuracy (its answers that
		// are right; the planted one gives it up to sampling noise, s.e.
		// 0.02 here). The model measures them against the inferred truth,
		// wrong on 12% of the tasks: measured gaps up to 0.062.
		ok, n := make([]float64, len(acc)), make([]float64, len(acc))
		for d, as := range c.Answers.ByDoc {
			for _, a := range as {
				n[a.Annotator]++
				if int(a.Class) == truth[d] {
					ok[a.Annotator]++
				}
			}
		}
		for r := range acc {
			if real := ok[r] / n[r]; math.Abs(m.Acc[r]-real) > 0.08 || (m.Acc[r] > 0.6) != (acc[r] > 0.6) {
				t.Errorf("annotator %d: accuracy %.3f, realised %.3f (planted %.2f)", r, m.Acc[r], real, acc[r])
			}
		}
	}
}

// TestLogPredictive: with q(a) = Beta(3, 1) (ā = 3/4) and C = 3, an answer
// 0 about a task with λ = (0.5, 0.2, 0.3) has probability 0.5·3/4 +
// 0.5·(1/4)/2; the point estimate uses the MAP accuracy; answers outside
// the model give NaN.
func TestLogPredictive(t *testing.T) {
	m := newModel(t, nil, 1, 3)
	if err := m.LoadParams(strings.NewReader(`{"format":"one-coin","estimate":"bayes","a":[3],"b":[1],"accuracies":[0.75]}`)); err != nil {
		t.Fatal(err)
	}
	lam := framework.NewCategorical(3)
	copy(lam.P, []float64{0.5, 0.2, 0.3})
	if got, want := m.LogPredictive(lam, framework.Answer{Annotator: 0, Class: 0}), math.Log(0.5*0.75+0.5*0.125); math.Abs(got-want) > 1e-12 {
		t.Errorf("bayes: %v, want %v", got, want)
	}
	p := newModel(t, params{"estimate": "point"}, 1, 3)
	p.Acc[0] = 0.6
	if got, want := p.LogPredictive(lam, framework.Answer{Annotator: 0, Class: 2}), math.Log(0.3*0.6+0.7*0.2); math.Abs(got-want) > 1e-12 {
		t.Errorf("point: %v, want %v", got, want)
	}
	for _, bad := range []framework.Answer{{Annotator: 1}, {Class: 3}, {Annotator: -1}} {
		if got := m.LogPredictive(lam, bad); !math.IsNaN(got) {
			t.Errorf("answer %+v outside the model: %v, want NaN", bad, got)
		}
	}
}

// TestPointIsMAP: the point update sets each accuracy where the bound (the
// expected log likelihood plus the log Beta prior) is stationary, with
// numbers for which the posterior mean differs from the MAP (c = 3.7 of
// n = 5, α = 2, β = 3: MAP (c + α − 1)/(n + α + β − 2) = 4.7/8, mean
// (c + α)/(n + α + β) = 5.7/10): a central difference of ELBO in the
// accuracy vanishes there.
func TestPointIsMAP(t *testing.T) {
	m := newModel(t, params{"estimate": "point", "alpha": 2.0, "beta": 3.0}, 1, 3)
	s := &onecoin.Stats{Correct: []float64{3.7}, N: []float64{5}}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Acc[0], 4.7/8; math.Abs(got-want) > 1e-15 {
		t.Errorf("accuracy %v, want the MAP %v", got, want)
	}
	elboAt := func(a float64) float64 {
		var buf bytes.Buffer
		if err := m.SaveParams(&buf); err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(buf.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		p["accuracies"] = []float64{a}
		b, _ := json.Marshal(p)
		h := newModel(t, params{"estimate": "point", "alpha": 2.0, "beta": 3.0}, 1, 3)
		if err := h.LoadParams(bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		return h.ELBO(s, framework.BatchStep(1))
	}
	a, eps := m.Acc[0], 1e-6
	if d := (elboAt(a+eps) - elboAt(a-eps)) / (2 * eps); math.Abs(d) > 1e-6 {
		t.Errorf("∂ELBO/∂a = %v at the update's accuracy %v: not the bound's maximiser", d, a)
	}
}
