package logreg

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

func newResp(t testing.TB, p Params, C, K int) *Response {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	classes := make([]string, C)
	for l := range classes {
		classes[l] = string(rune('a' + l))
	}
	if err := r.Init(&framework.Setup{K: K, Classes: classes}); err != nil {
		t.Fatal(err)
	}
	return r
}

// docState is a document whose φ̄ is bar and whose q(c) is λ.
func docState(bar, lam []float64) *framework.DocState {
	t := framework.NewCategorical(len(lam))
	for l, p := range lam {
		t.Log[l] = math.Log(p)
	}
	t.Finalize()
	return &framework.DocState{Doc: &framework.Doc{N: 1}, PhiBar: append([]float64(nil), bar...), Target: t}
}

func simplex(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	s := 0.0
	for i := range x {
		x[i] = rng.ExpFloat64()
		s += x[i]
	}
	for i := range x {
		x[i] /= s
	}
	return x
}

func randomDocs(rng *rand.Rand, n, C, K int) []*framework.DocState {
	out := make([]*framework.DocState, n)
	for i := range out {
		out[i] = docState(simplex(rng, K), simplex(rng, C))
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

// TestGradientFiniteDifferences checks the M-step objective's hand-written
// gradient against central differences, with an SVI scale and a penalty.
func TestGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	C, K := 4, 3
	r := newResp(t, Params{L2: 0.3, MaxIters: 10, SVIIters: 1}, C, K)
	s := statsOf(r, randomDocs(rng, 9, C, K))
	f := r.objective(s, 2.5)
	x := make([]float64, C*K)
	for i := range x {
		x[i] = 2 * rng.NormFloat64()
	}
	g := make([]float64, len(x))
	f(x, g)
	const h = 1e-6
	for i := range x {
		orig := x[i]
		x[i] = orig + h
		up := f(x, nil)
		x[i] = orig - h
		down := f(x, nil)
		x[i] = orig
		if want := (up - down) / (2 * h); math.Abs(g[i]-want) > 1e-7*(1+math.Abs(want)) {
			t.Errorf("∂/∂η[%d]: %.10g, finite differences %.10g", i, g[i], want)
		}
	}
}

// The fixture of testdata/reference.py: 12 documents, K = 3, C = 3, μ = 0.5.
var (
	fixtureBar = [][]float64{
		{0.3288, 0.58, 0.09120000000000006},
		{0.0004, 0.8725, 0.1271},
		{0.0192, 0.0565, 0.9243},
		{0.8832, 0.1009, 0.015900000000000025},
		{0.1366, 0.7271, 0.1363000000000001},
		{0.4842, 0.514, 0.0018000000000000238},
		{0.02, 0.5313, 0.4487},
		{0.3083, 0.1475, 0.5442},
		{0.6459, 0.0734, 0.28069999999999995},
		{0.4334, 0.5156, 0.051000000000000045},
		{0.4694, 0.1284, 0.4022},
		{0.0728, 0.3004, 0.6268},
	}
	fixtureLam = [][]float64{
		{0.4463, 0.0054, 0.5483},
		{0.0527, 0.7183, 0.22899999999999998},
		{0.7453, 0.0078, 0.2469},
		{0.2973, 0.1281, 0.5746},
		{0.2658, 0.7158, 0.018399999999999972},
		{0.5928, 0.2504, 0.15680000000000005},
		{0.1693, 0.4353, 0.3954},
		{0.553, 0.1215, 0.3254999999999999},
		{0.1172, 0.7305, 0.1523},
		{0.3308, 0.042, 0.6272},
		{0.1788, 0.1162, 0.7050000000000001},
		{0.0759, 0.0012, 0.9229},
	}
	// The maximiser (scikit-learn's LogisticRegression, then Newton's
	// method in NumPy to a gradient of 1e-16) and the objective there.
	fixtureEta       = []float64{0.012916762610064646, -0.218894473687718, 0.1664486030838764, -0.28338793894315545, 0.25858822056419845, -0.46040822806791565, 0.27047117633309065, -0.03969374687648016, 0.29395962498403944}
	fixtureObjective = -12.86541144922032
)

// TestMStepMatchesReference: one batch M-step from η = 0 on the fixture
// gives the reference η (testdata/reference.py: scikit-learn's
// multinomial LogisticRegression with C = 1/μ, no intercept, each document
// repeated per class with weight λ_dl, polished by Newton's method).
func TestMStepMatchesReference(t *testing.T) {
	r := newResp(t, Params{L2: 0.5, MaxIters: 100, SVIIters: 5}, 3, 3)
	docs := make([]*framework.DocState, len(fixtureBar))
	for i := range docs {
		docs[i] = docState(fixtureBar[i], fixtureLam[i])
	}
	s := statsOf(r, docs)
	if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(r.Eta, fixtureEta, cmpopts.EquateApprox(0, 1e-7)) {
		t.Errorf("η = %v\nwant  %v", r.Eta, fixtureEta)
	}
	if got := r.LastSolve().Objective; math.Abs(got-fixtureObjective) > 1e-10 {
		t.Errorf("objective %.15g, want %.15g", got, fixtureObjective)
	}
	// The objective is the data part of ELBO minus the penalty.
	if got, want := r.ELBO(s, framework.BatchStep(1))-s.Entropy, fixtureObjective; math.Abs(got-want) > 1e-10 {
		t.Errorf("ELBO − Σ H(λ) = %.15g, want %.15g", got, want)
	}
}

// TestTargetTerm: the prior message is the exact log-likelihood
// log softmax(ηφ̄)_l (its exponentials sum to 1); with no evidence q(c) is
// the prediction and the document's ELBO part is exactly 0 (λ = p:
// Σ p log p + H(p) = 0); with evidence, λ maximises DocELBO + λ·evidence.
func TestTargetTerm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	C, K := 3, 4
	r := newResp(t, Defaults(), C, K)
	for i := range r.Eta {
		r.Eta[i] = 3 * rng.NormFloat64()
	}
	lc := r.NewLocal()
	d := docState(simplex(rng, K), []float64{1, 1, 1})
	d.Target.Reset()
	lc.Begin(d)
	lc.TargetTerm(d)
	tg := d.Target.(*framework.Categorical)
	sum := 0.0
	for _, v := range tg.Log {
		sum += math.Exp(v)
	}
	if math.Abs(sum-1) > 1e-14 {
		t.Errorf("Σ_l exp(message_l) = %v, want 1", sum)
	}
	tg.Finalize()
	p := docState(d.PhiBar, []float64{1, 1, 1})
	r.Predict(p)
	if !cmp.Equal(tg.P, p.Target.(*framework.Categorical).P, cmpopts.EquateApprox(1e-14, 0)) {
		t.Errorf("q(c) without evidence %v, prediction %v", tg.P, p.Target.(*framework.Categorical).P)
	}
	if e := lc.(*local).DocELBO(d); math.Abs(e) > 1e-14 {
		t.Errorf("DocELBO with λ = p: %v, want 0", e)
	}
	ev := []float64{-0.5, 1.5, 0.2}
	for l := range ev {
		tg.Log[l] += ev[l]
	}
	tg.Finalize()
	f := func(d *framework.DocState) float64 {
		e := r.DocELBO(d)
		for l, p := range d.Target.(*framework.Categorical).P {
			e += p * ev[l]
		}
		return e
	}
	best := f(d)
	for range 200 {
		if o := docState(d.PhiBar, simplex(rng, C)); f(o) > best+1e-12 {
			t.Fatalf("λ = %v beats the posterior %v", o.Target.(*framework.Categorical).P, tg.P)
		}
	}
	dst := []float64{1, 2, 3, 4}
	lc.PhiTerm(dst, d, 0)
	lc.WordChanged(d, 0, nil)
	if !cmp.Equal(dst, []float64{1, 2, 3, 4}) {
		t.Errorf("PhiTerm changed dst to %v", dst)
	}
	if !r.FixedFeatures() {
		t.Error("FixedFeatures() = false, want true")
	}
}

// TestELBO: with S = 1 the ELBO is Σ_d DocELBO − (μ/2)‖η‖²; an M-step does
// not lower it; with S = 3 the per-document part is tripled.
func TestELBO(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	C, K := 3, 3
	r := newResp(t, Params{L2: 0.2, MaxIters: 100, SVIIters: 5}, C, K)
	for i := range r.Eta {
		r.Eta[i] = rng.NormFloat64()
	}
	docs := randomDocs(rng, 15, C, K)
	s := statsOf(r, docs)
	pen := 0.0
	for _, e := range r.Eta {
		pen += e * e
	}
	sum := 0.0
	for _, d := range docs {
		sum += r.DocELBO(d)
	}
	before := r.ELBO(s, framework.BatchStep(1))
	if want := sum - 0.1*pen; math.Abs(before-want) > 1e-12*math.Abs(want) {
		t.Errorf("ELBO %v, Σ DocELBO − penalty %v", before, want)
	}
	if got, want := r.ELBO(s, framework.Step{Rho: 1, Scale: 3}), 3*sum-0.1*pen; math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("ELBO with S = 3: %v, want %v", got, want)
	}
	if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if after := r.ELBO(s, framework.BatchStep(1)); after < before {
		t.Errorf("M-step lowered the ELBO: %v → %v", before, after)
	}
}

func TestPersistRoundTrip(t *testing.T) {
	r := newResp(t, Defaults(), 3, 2)
	copy(r.Eta, []float64{1.5, -2.5e-7, 3.1, 0, -1, 0.25})
	var buf bytes.Buffer
	if err := r.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	q := newResp(t, Defaults(), 3, 2)
	if err := q.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(q.Eta, r.Eta) {
		t.Errorf("round trip η = %v, want %v", q.Eta, r.Eta)
	}
	for name, tc := range map[string]struct {
		C, K int
		text string
	}{
		"wrong classes": {4, 2, saved},
		"wrong K":       {3, 3, saved},
		"unknown field": {3, 2, strings.Replace(saved, `"k"`, `"kk"`, 1)},
		"wrong format":  {3, 2, strings.Replace(saved, paramsFormat, "other", 1)},
		"truncated":     {3, 2, saved[:len(saved)/2]},
	} {
		q := newResp(t, Defaults(), tc.C, tc.K)
		if err := q.LoadParams(strings.NewReader(tc.text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
	var z Response
	if err := z.SaveParams(&bytes.Buffer{}); !errors.Is(err, framework.ErrNotTrained) {
		t.Errorf("SaveParams before Init: %v", err)
	}
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		p  Params
		ok bool
	}{
		{Defaults(), true},
		{Params{L2: 0, MaxIters: 1, SVIIters: 1}, true},
		{Params{L2: -1, MaxIters: 1, SVIIters: 1}, false},
		{Params{L2: math.NaN(), MaxIters: 1, SVIIters: 1}, false},
		{Params{L2: math.Inf(1), MaxIters: 1, SVIIters: 1}, false},
		{Params{L2: 1, MaxIters: 0, SVIIters: 1}, false},
		{Params{L2: 1, MaxIters: 1, SVIIters: 0}, false},
	} {
		_, err := New(tc.p)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, framework.ErrBadInput)) {
			t.Errorf("New(%+v): err = %v, want ok = %v", tc.p, err, tc.ok)
		}
	}
	l, err := framework.Default.Likelihood(Name, nil)
	if err != nil || l.(*Response).Config != Defaults() {
		t.Errorf("defaults: %v, %v", l, err)
	}
	r, _ := New(Defaults())
	for _, s := range []*framework.Setup{nil, {K: 2}, {K: 2, Classes: []string{"x"}}, {K: 0, Classes: []string{"x", "y"}}} {
		if err := r.Init(s); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("Init(%+v): err = %v", s, err)
		}
	}
}
