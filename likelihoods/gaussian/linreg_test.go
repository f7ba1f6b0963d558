package gaussian

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
)

func newLinReg(t testing.TB, p Params, K int) *Response {
	t.Helper()
	r, err := NewLinReg(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(&framework.Setup{K: K}); err != nil {
		t.Fatal(err)
	}
	return r
}

func pointDoc(bar []float64, m, v float64) *framework.DocState {
	return &framework.DocState{Doc: &framework.Doc{N: 1}, PhiBar: append([]float64(nil), bar...), Target: &framework.Gaussian{Mean: m, Var: v, Prec: 1 / v, PrecMean: m / v}}
}

// The fixture of testdata/linreg_reference.py: 10 documents, K = 3, μ = 0.3.
var (
	fixtureBar = [][]float64{
		{0.0879, 0.8073, 0.1048},
		{0.0109, 0.8963, 0.0928},
		{0.4712, 0.0457, 0.4831},
		{0.235, 0.6702, 0.0948},
		{0.3207, 0.1828, 0.49650000000000005},
		{0.0335, 0.2931, 0.6734},
		{0.8819, 0.0057, 0.11239999999999994},
		{0.5577, 0.025, 0.4173},
		{0.8025, 0.1647, 0.03279999999999994},
		{0.2787, 0.702, 0.019300000000000095},
	}
	fixtureM = []float64{3.055, 3.6567, -0.5731, 3.2693, 0.3615, -0.2299, 0.9959, 0.453, 2.2913, 2.2613}
	fixtureV = []float64{0.0934, 0.113, 0.1016, 0.2457, 0.2382, 0.1181, 0.1372, 0.1129, 0.1993, 0.058}
)

func fixtureDocs() []*framework.DocState {
	out := make([]*framework.DocState, len(fixtureM))
	for d := range out {
		out[d] = pointDoc(fixtureBar[d], fixtureM[d], fixtureV[d])
	}
	return out
}

func statsOf(r *Response, docs []*framework.DocState) *Stats {
	s := r.NewStats().(*Stats)
	for _, d := range docs {
		r.Accumulate(s, d)
	}
	return s
}

// TestLinRegMStepMatchesReference: a batch M-step gives scikit-learn's Ridge
// (testdata/linreg_reference.py; it agrees with NumPy's normal equations to 3e-15)
// and the σ² estimate computed there.
func TestLinRegMStepMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		intercept bool
		eta       []float64
		b, sigma2 float64
	}{
		{false, []float64{1.2955084422476009, 3.4253818338374806, -1.2855568653351348}, 0, 0.8621197667097021},
		{true, []float64{0.10599510057744399, 2.2456274410009645, -2.351622541578412}, 1.2576742758723511, 0.7325038529173514},
	} {
		r := newLinReg(t, Params{Sigma2: 1, EstimateSigma2: true, L2: 0.3, Intercept: tc.intercept}, 3)
		if err := r.Update(context.Background(), statsOf(r, fixtureDocs()), framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		approx := cmpopts.EquateApprox(1e-12, 1e-13)
		if !cmp.Equal(r.Eta, tc.eta, approx) || !cmp.Equal(r.B, tc.b, approx) || !cmp.Equal(r.Sigma2, tc.sigma2, approx) {
			t.Errorf("intercept %v: η %v b %v σ² %v; want %v %v %v", tc.intercept, r.Eta, r.B, r.Sigma2, tc.eta, tc.b, tc.sigma2)
		}
	}
}

// elboAt is the response's ELBO on s at the given parameters.
func elboAt(t *testing.T, p Params, s *Stats, eta []float64, b, sigma2 float64) float64 {
	q := newLinReg(t, p, len(eta))
	copy(q.Eta, eta)
	q.B, q.Sigma2 = b, sigma2
	return q.ELBO(s, framework.BatchStep(1))
}

// TestLinRegMStepIsStationary: after a batch M-step the ELBO's gradient in η, b
// and (estimated) σ² vanishes (central differences) and perturbations
// lower it.
func TestLinRegMStepIsStationary(t *testing.T) {
	for _, icpt := range []bool{false, true} {
		p := Params{Sigma2: 2, EstimateSigma2: true, L2: 0.3, Intercept: icpt}
		r := newLinReg(t, p, 3)
		s := statsOf(r, fixtureDocs())
		if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		best := r.ELBO(s, framework.BatchStep(1))
		eta := append([]float64(nil), r.Eta...)
		b, s2 := r.B, r.Sigma2
		const h = 1e-6
		check := func(what string, f func(x float64) float64, x float64) {
			if g := (f(x+h) - f(x-h)) / (2 * h); math.Abs(g) > 1e-6 {
				t.Errorf("intercept %v: ∂ELBO/∂%s = %v at the M-step, want 0", icpt, what, g)
			}
			for _, dx := range []float64{-0.05, 0.05} {
				if e := f(x + dx); e > best {
					t.Errorf("intercept %v: %s + %v raises the ELBO %v → %v", icpt, what, dx, best, e)
				}
			}
		}
		for k := range eta {
			check("η_"+string(rune('0'+k)), func(x float64) float64 {
				e := append([]float64(nil), eta...)
				e[k] = x
				return elboAt(t, p, s, e, b, s2)
			}, eta[k])
		}
		if icpt {
			check("b", func(x float64) float64 { return elboAt(t, p, s, eta, x, s2) }, b)
		}
		check("σ²", func(x float64) float64 { return elboAt(t, p, s, eta, b, x) }, s2)
	}
}

// TestTargetTermAndELBO: the prior message is N(η·φ̄ + b, σ²); q(x) from it
// and an annotator's evidence is the stationary point of DocELBO plus the
// annotator's term; ELBO with S = 1 is Σ DocELBO − μ‖η‖²/(2σ²).
func TestLinRegTargetTermAndELBO(t *testing.T) {
	p := Params{Sigma2: 0.5, L2: 0.2, Intercept: true}
	r := newLinReg(t, p, 3)
	copy(r.Eta, []float64{1, -2, 0.5})
	r.B = 0.7
	lc := r.NewLocal()
	d := pointDoc([]float64{0.2, 0.3, 0.5}, 0, 1)
	d.Target.Reset()
	lc.Begin(d)
	lc.TargetTerm(d)
	tg := d.Target.(*framework.Gaussian)
	mu := 0.2 - 0.6 + 0.25 + 0.7
	if math.Abs(tg.Prec-2) > 1e-15 || math.Abs(tg.PrecMean-mu/0.5) > 1e-15 {
		t.Errorf("message (%v, %v), want (2, %v)", tg.Prec, tg.PrecMean, mu/0.5)
	}
	// An annotator with precision 3 answering 1.4.
	tg.Prec += 3
	tg.PrecMean += 3 * 1.4
	tg.Finalize()
	f := func(m, v float64) float64 {
		x := pointDoc(d.PhiBar, m, v)
		return r.DocELBO(x) + 0.5*math.Log(3/(2*math.Pi)) - 1.5*((1.4-m)*(1.4-m)+v)
	}
	const h = 1e-6
	if gm := (f(tg.Mean+h, tg.Var) - f(tg.Mean-h, tg.Var)) / (2 * h); math.Abs(gm) > 1e-7 {
		t.Errorf("∂/∂m = %v at q(x), want 0", gm)
	}
	if gv := (f(tg.Mean, tg.Var+h) - f(tg.Mean, tg.Var-h)) / (2 * h); math.Abs(gv) > 1e-6 {
		t.Errorf("∂/∂v = %v at q(x), want 0", gv)
	}
	dst := []float64{1, 2, 3}
	lc.PhiTerm(dst, d, 0)
	lc.WordChanged(d, 0, nil)
	if !cmp.Equal(dst, []float64{1, 2, 3}) {
		t.Errorf("PhiTerm changed dst to %v", dst)
	}
	docs := fixtureDocs()
	s := statsOf(r, docs)
	sum := 0.0
	for _, d := range docs {
		sum += r.DocELBO(d)
	}
	pen := 0.2 * (1 + 4 + 0.25) / (2 * 0.5)
	if got := r.ELBO(s, framework.BatchStep(1)); math.Abs(got-(sum-pen)) > 1e-12*math.Abs(sum) {
		t.Errorf("ELBO %v, Σ DocELBO − penalty %v", got, sum-pen)
	}
	if !r.FixedFeatures() {
		t.Error("FixedFeatures() = false, want true")
	}
	pr := pointDoc(d.PhiBar, 0, 1)
	r.Predict(pr)
	if g := pr.Target.(*framework.Gaussian); math.Abs(g.Mean-mu) > 1e-15 || g.Var != 0.5 {
		t.Errorf("prediction N(%v, %v), want N(%v, 0.5)", g.Mean, g.Var, mu)
	}
}

// TestSingular: μ = 0 with an intercept (φ̄ rows sum to 1: the system is
// singular) and a topic no document uses still give an exact maximiser
// (stationary ELBO) without NaN.
func TestLinRegSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := Params{Sigma2: 1, L2: 0, Intercept: true}
	r := newLinReg(t, p, 4)
	var docs []*framework.DocState
	for range 8 {
		x, y := rng.Float64(), rng.Float64()
		bar := []float64{x / (1 + x + y), y / (1 + x + y), 1 / (1 + x + y), 0} // topic 3 unused
		docs = append(docs, pointDoc(bar, 3*bar[0]-bar[1]+0.1*rng.NormFloat64(), 0.1))
	}
	s := statsOf(r, docs)
	if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	best := r.ELBO(s, framework.BatchStep(1))
	if math.IsNaN(best) {
		t.Fatal("ELBO is NaN")
	}
	for k := range r.Eta {
		for _, dx := range []float64{-0.01, 0.01} {
			e := append([]float64(nil), r.Eta...)
			e[k] += dx
			if got := elboAt(t, p, s, e, r.B, r.Sigma2); got > best+1e-9 {
				t.Errorf("η_%d + %v raises the ELBO %v → %v", k, dx, best, got)
			}
		}
	}
}

func TestLinRegPersistRoundTrip(t *testing.T) {
	r := newLinReg(t, Params{Sigma2: 1, Intercept: true}, 3)
	copy(r.Eta, []float64{1.25, -2.5e-7, 3.1})
	r.B, r.Sigma2 = 0.1, 0.123456789
	var buf bytes.Buffer
	if err := r.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	q := newLinReg(t, Params{Sigma2: 1, Intercept: true}, 3)
	if err := q.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(q.Eta, r.Eta) || q.B != r.B || q.Sigma2 != r.Sigma2 {
		t.Errorf("round trip: η %v b %v σ² %v, want %v %v %v", q.Eta, q.B, q.Sigma2, r.Eta, r.B, r.Sigma2)
	}
	for name, tc := range map[string]struct {
		k    int
		icpt bool
		text string
	}{
		"wrong K":         {4, true, saved},
		"intercept off":   {3, false, saved},
		"unknown field":   {3, true, strings.Replace(saved, `"k"`, `"kk"`, 1)},
		"negative sigma2": {3, true, strings.Replace(saved, `"sigma2": 0.123456789`, `"sigma2": -1`, 1)},
		"wrong format":    {3, true, strings.Replace(saved, `"maslda-linreg"`, `"maslda-gaussian"`, 1)},
		"truncated":       {3, true, saved[:len(saved)/2]},
	} {
		q := newLinReg(t, Params{Sigma2: 1, Intercept: tc.icpt}, tc.k)
		if err := q.LoadParams(strings.NewReader(tc.text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
}

func TestLinRegParamsAndInit(t *testing.T) {
	for _, tc := range []struct {
		p  Params
		ok bool
	}{
		{LinRegDefaults(), true},
		{Params{Sigma2: 0.1, EstimateSigma2: true, L2: 0, Intercept: true}, true},
		{Params{Sigma2: 0}, false},
		{Params{Sigma2: math.NaN()}, false},
		{Params{Sigma2: 1, L2: -1}, false},
		{Params{Sigma2: 1, L2: math.Inf(1)}, false},
	} {
		_, err := NewLinReg(tc.p)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, framework.ErrBadInput)) {
			t.Errorf("NewLinReg(%+v): err = %v, want ok = %v", tc.p, err, tc.ok)
		}
	}
	l, err := framework.Default.Likelihood(LinRegName, nil)
	if err != nil || l.(*Response).Config != LinRegDefaults() {
		t.Errorf("defaults: %v, %v", l, err)
	}
	r, _ := NewLinReg(LinRegDefaults())
	for _, s := range []*framework.Setup{nil, {K: 0}} {
		if err := r.Init(s); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("Init(%+v): err = %v", s, err)
		}
	}
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 3), Answers: &framework.Answers{
		Annotators: []string{"a", "b"},
		ByDoc:      [][]framework.Answer{{{Annotator: 0, Class: -1, Value: 1}, {Annotator: 1, Class: -1, Value: 3}}, nil, {{Annotator: 0, Class: -1, Value: 5}}},
	}}
	for _, icpt := range []bool{false, true} {
		r, _ := NewLinReg(Params{Sigma2: 1, Intercept: icpt})
		if err := r.Init(&framework.Setup{K: 2, Corpus: c}); err != nil {
			t.Fatal(err)
		}
		want, b := []float64{3.5, 3.5}, 0.0
		if icpt {
			want, b = []float64{0, 0}, 3.5
		}
		if !cmp.Equal(r.Eta, want) || r.B != b {
			t.Errorf("intercept %v: η %v b %v, want %v %v", icpt, r.Eta, r.B, want, b)
		}
	}
}
