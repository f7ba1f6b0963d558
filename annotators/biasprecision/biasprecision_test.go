package biasprecision

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

func near(a, b, rel, abs float64) bool {
	return math.Abs(a-b) <= abs+rel*math.Max(math.Abs(a), math.Abs(b))
}

func numeric(workers []string, byDoc [][]framework.Answer) *framework.Corpus {
	return &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(byDoc)), Answers: &framework.Answers{Annotators: workers, ByDoc: byDoc}}
}

func ans(w int32, y float64) framework.Answer {
	return framework.Answer{Annotator: w, Class: -1, Value: y}
}

func newModel(t testing.TB, p Params, c *framework.Corpus) *Model {
	t.Helper()
	m, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	var w []string
	if c != nil && c.Answers != nil {
		w = c.Answers.Annotators
	}
	if err := m.Init(&framework.Setup{K: 2, Annotators: w, Corpus: c}); err != nil {
		t.Fatal(err)
	}
	return m
}

// docState is a document with the given answers and q(x) = N(mean, v).
func docState(answers []framework.Answer, mean, v float64) *framework.DocState {
	ds := framework.NewDocState(2, 0)
	ds.Bind(0, &framework.Doc{}, answers)
	ds.Target = &framework.Gaussian{Mean: mean, Var: v}
	return ds
}

// randomDocs simulates R annotators on n documents (each answering with
// probability ½, annotator 0 answering exactly once) and gives every
// document a random q(x).
func randomDocs(rng *rand.Rand, R, n int) []*framework.DocState {
	bias := []float64{0.5, -1, 0, 2, 0.1}[:R]
	prec := []float64{4, 1, 0.5, 9, 2}[:R]
	var out []*framework.DocState
	for d := 0; d < n; d++ {
		x := rng.NormFloat64() * 2
		var as []framework.Answer
		for r := 0; r < R; r++ {
			if (r == 0 && d == 0) || (r > 0 && rng.IntN(2) == 0) {
				as = append(as, ans(int32(r), x+bias[r]+rng.NormFloat64()/math.Sqrt(prec[r])))
			}
		}
		out = append(out, docState(as, x+0.3*rng.NormFloat64(), 0.05+0.2*rng.Float64()))
	}
	return out
}

func TestEvidence(t *testing.T) {
	m := newModel(t, fixedDefaults(), numeric([]string{"a", "b"}, [][]framework.Answer{nil}))
	m.Bias = []float64{0.5, -1}
	m.Prec = []float64{2, 8}
	ds := docState([]framework.Answer{ans(0, 3), ans(1, 1)}, 0, 0)
	g := ds.Target.(*framework.Gaussian)
	g.Prec, g.PrecMean = 2, 5 // a prior message: N(5/2, 1/2)
	m.Evidence(ds)
	// 2 + 2 + 8 = 12; 5 + 2·(3 − ½) + 8·(1 + 1) = 26.
	if g.Prec != 12 || g.PrecMean != 26 {
		t.Errorf("natural parameters (%v, %v), want (12, 26)", g.Prec, g.PrecMean)
	}
	g.Finalize()
	if !near(g.Mean, 13.0/6, 1e-15, 0) || !near(g.Var, 1.0/12, 1e-15, 0) {
		t.Errorf("q(x) = N(%v, %v), want N(13/6, 1/12)", g.Mean, g.Var)
	}
	// A document without answers adds nothing.
	none := docState(nil, 0, 0)
	m.Evidence(none)
	if g := none.Target.(*framework.Gaussian); g.Prec != 0 || g.PrecMean != 0 {
		t.Errorf("no answers: natural parameters (%v, %v)", g.Prec, g.PrecMean)
	}
}

// TestMStepMaximises: after a batch Update, every b_r and p_r maximises
// ELBO(s) (the annotators' bound plus the prior's log density): central
// differences vanish and perturbations lower it, for the flat prior (the
// paper's update), the default prior and a prior on the bias.
func TestMStepMaximises(t *testing.T) {
	for _, p := range []Params{{}, unanchored(), {PriorAnswers: 3, PriorVar: 0.7, BiasPrior: "2"}} {
		rng := rand.New(rand.NewPCG(1, 2))
		docs := randomDocs(rng, 5, 60)
		byDoc := make([][]framework.Answer, len(docs))
		for i, d := range docs {
			byDoc[i] = d.Answers
		}
		m := newModel(t, p, numeric([]string{"a", "b", "c", "d", "e"}, byDoc))
		s := m.NewStats()
		for _, d := range docs {
			m.Accumulate(s, d)
		}
		st := framework.BatchStep(1)
		if err := m.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		best := m.ELBO(s, st)
		for r := range m.Prec {
			for _, ptr := range []*float64{&m.Bias[r], &m.Prec[r]} {
				x0 := *ptr
				f := func(x float64) float64 { *ptr = x; return m.ELBO(s, st) }
				h := 1e-6 * math.Max(1, math.Abs(x0))
				if g := (f(x0+h) - f(x0-h)) / (2 * h); math.Abs(g) > 1e-6*math.Max(1, math.Abs(best)) {
					t.Errorf("%+v annotator %d: gradient %g at the M-step, want 0", p, r, g)
				}
				for _, d := range []float64{0.02, -0.02} {
					if e := f(x0 + d*math.Max(0.1, math.Abs(x0))); e >= best {
						t.Errorf("%+v annotator %d: perturbation raised the bound %v ≥ %v", p, r, e, best)
					}
				}
				f(x0)
			}
		}
	}
}

// TestMStepFormulas checks the update against MODEL.md §3 by hand for the
// flat prior: b = mean(y − m), p = 1/mean(v + (y − m − b)²).
func TestMStepFormulas(t *testing.T) {
	c := numeric([]string{"a"}, [][]framework.Answer{{ans(0, 3)}, {ans(0, 1)}, {ans(0, 2)}})
	m := newModel(t, Params{}, c)
	s := m.NewStats()
	// residuals y − m: 3−2 = 1, 1−1.5 = −0.5, 2−1 = 1; v = 0.1, 0.2, 0.3.
	for i, mv := range [][2]float64{{2, 0.1}, {1.5, 0.2}, {1, 0.3}} {
		m.Accumulate(s, docState(c.Answers.ByDoc[i], mv[0], mv[1]))
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// b = 1.5/3 = 0.5; residuals − b: 0.5, −1, 0.5; Σ(v + r²) = 0.6 + 1.5 = 2.1; p = 3/2.1.
	if !near(m.Bias[0], 0.5, 1e-15, 0) || !near(m.Prec[0], 3/2.1, 1e-14, 0) {
		t.Errorf("b = %v, p = %v; want 0.5, %v", m.Bias[0], m.Prec[0], 3/2.1)
	}
}

// TestDocELBOMatchesStats: the statistics-based bound equals the sum of the
// documents' DocELBO plus the prior, scaled as documented.
func TestDocELBOMatchesStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	docs := randomDocs(rng, 4, 30)
	m := newModel(t, Params{PriorAnswers: 2, PriorVar: 1.5, BiasPrior: "1"}, numeric([]string{"a", "b", "c", "d"}, nil))
	m.Bias = []float64{0.2, -0.4, 1, 0}
	m.Prec = []float64{3, 0.7, 2, 5}
	s := m.NewStats()
	sum := 0.0
	for _, d := range docs {
		m.Accumulate(s, d)
		sum += m.DocELBO(d)
	}
	lp := m.LogPrior()
	if got := m.ELBO(s, framework.BatchStep(1)); !near(got, sum+lp, 1e-12, 1e-10) {
		t.Errorf("ELBO(stats) = %.12g, Σ DocELBO + log prior = %.12g", got, sum+lp)
	}
	if got := m.ELBO(s, framework.Step{Rho: 0.3, Scale: 7}); !near(got, 7*sum+lp, 1e-12, 1e-10) {
		t.Errorf("scaled ELBO(stats) = %.12g, want %.12g", got, 7*sum+lp)
	}
	// The prior is a proper density: check one term against its formula.
	// Gamma(p | 2, 1.5) · N(b | 0, 1/p): p = 3, b = 0.2.
	want := 2*math.Log(1.5) - 0 + math.Log(3) - 1.5*3 + 0.5*math.Log(3/(2*math.Pi)) - 0.5*3*0.04
	mm := newModel(t, Params{PriorAnswers: 2, PriorVar: 1.5, BiasPrior: "1"}, numeric([]string{"a"}, nil))
	mm.Bias[0], mm.Prec[0] = 0.2, 3
	if got := mm.LogPrior(); !near(got, want, 1e-13, 0) {
		t.Errorf("log prior %v, want %v", got, want)
	}
}

// TestOneAnswer: an annotator with a single answer gets a finite precision
// under the default prior (its bias explains its answer: residual 0, so
// p = (1 + ν₀)/(v + ν₀s₀²)), while the flat prior lets it grow without
// bound as v shrinks.
func TestOneAnswer(t *testing.T) {
	c := numeric([]string{"once", "often"}, [][]framework.Answer{{ans(0, 4), ans(1, 3)}, {ans(1, 1)}, {ans(1, 2.5)}})
	p := unanchored()
	p.BiasPrior = "0" // "auto" would give κ₀ = 3 to this crowd of 2 answers per annotator (TestBiasPriorAuto)
	m := newModel(t, p, c)
	// s₀²: each annotator's deviations on document 0 (±0.5) are its only
	// ones, so removing its mean deviation leaves 0: s₀² falls back to the
	// variance of all answers (4, 3, 1, 2.5): 4.6875/3 = 1.5625.
	if !near(m.S0, 1.5625, 1e-15, 0) {
		t.Errorf("prior variance %v, want 1.5625", m.S0)
	}
	s := m.NewStats()
	for i, as := range c.Answers.ByDoc {
		m.Accumulate(s, docState(as, float64(i), 0.01))
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	want := (1 + 1) / (0.01 + 1*1.5625)
	if !near(m.Prec[0], want, 1e-14, 0) || math.IsInf(m.Prec[0], 0) {
		t.Errorf("one-answer precision %v, want %v", m.Prec[0], want)
	}
	flat := newModel(t, Params{}, c)
	if err := flat.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if !near(flat.Prec[0], 1/0.01, 1e-10, 0) {
		t.Errorf("flat prior: one-answer precision %v, want 1/v = 100", flat.Prec[0])
	}
}

func TestInit(t *testing.T) {
	// Two documents with answers from a, b, c; c alone on a third.
	c := numeric([]string{"a", "b", "c"}, [][]framework.Answer{
		{ans(0, 1), ans(1, 3)},            // mean 2: e = −1, +1, weight 2/(2−1) = 2
		{ans(0, 2), ans(1, 2), ans(2, 5)}, // mean 3: e = −1, −1, +2, weight 3/2
		{ans(2, 7)},                       // a single answer: no deviation
	})
	m := newModel(t, fixedDefaults(), c)
	// Σw(e − ē)² per annotator: a: e = −1, −1 → 0; b: e = +1 (w 2), −1 (w 1.5),
	// Σw = 3.5, Σwe = 0.5, Σwe² = 3.5 → 3.5 − 0.25/3.5 = 24/7; c: one → 0.
	// s₀² = (24/7)/5 answers = 24/35.
	if !near(m.S0, 24.0/35, 1e-15, 0) {
		t.Errorf("s₀² = %v, want 24/35", m.S0)
	}
	// p_r = (c_r + ν₀)/(Σw e² + ν₀s₀²): a, b: (2 + 1)/(3.5 + 24/35) = 105/146.5;
	// c: (1 + 1)/(6 + 24/35) = 70/234.
	if !near(m.Prec[0], 105/146.5, 1e-14, 0) || !near(m.Prec[1], 105/146.5, 1e-14, 0) || !near(m.Prec[2], 70.0/234, 1e-14, 0) {
		t.Errorf("initial precisions %v", m.Prec)
	}
	if !slices.Equal(m.Bias, []float64{0, 0, 0}) || !slices.Equal(m.Answers, []int{2, 2, 2}) {
		t.Errorf("biases %v answers %v", m.Bias, m.Answers)
	}
	// A configured prior variance is kept.
	if m := newModel(t, Params{PriorAnswers: 1, PriorVar: 4}, c); m.S0 != 4 {
		t.Errorf("prior_var 4 became %v", m.S0)
	}
	// Without a corpus (a saved model being rebuilt).
	m2 := newModel(t, fixedDefaults(), nil)
	if m2.S0 != 1 || len(m2.Prec) != 0 {
		t.Errorf("no corpus: s₀² %v, %d annotators", m2.S0, len(m2.Prec))
	}
	// Errors.
	bad := numeric([]string{"a"}, [][]framework.Answer{{ans(0, math.NaN())}})
	m3, _ := New(fixedDefaults())
	if err := m3.Init(&framework.Setup{Annotators: []string{"a"}, Corpus: bad}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("NaN answer: err = %v", err)
	}
	cat := numeric([]string{"a"}, [][]framework.Answer{{{Annotator: 0, Class: 1, Value: 1}}})
	cat.Answers.Classes = []string{"x", "y"}
	if err := m3.Init(&framework.Setup{Annotators: []string{"a"}, Corpus: cat}); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("categorical answers: err = %v", err)
	}
}

func TestBind(t *testing.T) {
	m, _ := New(fixedDefaults())
	if err := m.Accepts(&framework.Gaussian{}); err != nil {
		t.Errorf("Gaussian target refused: %v", err)
	}
	if err := m.Accepts(framework.NewCategorical(3)); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("categorical target: err = %v, want ErrIncompatible", err)
	}
}

func TestPersistRoundTrip(t *testing.T) {
	c := numeric([]string{"ann", "bob"}, [][]framework.Answer{{ans(0, 1), ans(1, 2)}})
	m := newModel(t, fixedDefaults(), c)
	m.Bias = []float64{0.1, -2.5e-9}
	m.Prec = []float64{10.000000001, 0.25}
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	q := newModel(t, fixedDefaults(), numeric([]string{"ann", "bob"}, nil))
	if err := q.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(q.Bias, m.Bias) || !slices.Equal(q.Prec, m.Prec) || !slices.Equal(q.Answers, m.Answers) || q.S0 != m.S0 {
		t.Errorf("round trip: %+v, want %+v", q, m)
	}
	for name, tc := range map[string]struct {
		workers []string
		text    string
	}{
		"renamed annotator": {[]string{"ann", "carl"}, saved},
		"fewer annotators":  {[]string{"ann"}, saved},
		"zero precision":    {[]string{"ann", "bob"}, strings.Replace(saved, "0.25", "0", 1)},
		"unknown field":     {[]string{"ann", "bob"}, strings.Replace(saved, `"bias"`, `"biases"`, 1)},
		"bad version":       {[]string{"ann", "bob"}, strings.Replace(saved, `"version": 1`, `"version": 2`, 1)},
		"negative count":    {[]string{"ann", "bob"}, strings.Replace(saved, "\n    1,", "\n    -1,", 1)},
	} {
		q := newModel(t, fixedDefaults(), numeric(tc.workers, nil))
		if err := q.LoadParams(strings.NewReader(tc.text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
}

func TestReport(t *testing.T) {
	m := newModel(t, fixedDefaults(), numeric([]string{"ann", "bob"}, [][]framework.Answer{{ans(0, 1), ans(1, 2)}, {ans(1, 0)}}))
	m.Bias = []float64{0.5, -1}
	m.Prec = []float64{4, 0.25}
	header, rows, doc := m.Report()
	if !slices.Equal(header, []string{"annotator", "answers", "bias", "precision", "sd", "ignores_items"}) {
		t.Errorf("header %v", header)
	}
	want := [][]string{{"ann", "1", "0.5", "4", "0.5", "false"}, {"bob", "2", "-1", "0.25", "2", "false"}}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d = %v, want %v", i, rows[i], want[i])
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `[{"annotator":"ann","answers":1,"bias":0.5,"precision":4,"sd":0.5},{"annotator":"bob","answers":2,"bias":-1,"precision":0.25,"sd":2}]` {
		t.Errorf("JSON %s", got)
	}
}

func TestRegistryAndParams(t *testing.T) {
	n, err := framework.Default.Noise(Name, framework.ParamsFunc(func(into any) error {
		p := into.(*Params)
		p.PriorAnswers, p.PriorVar, p.BiasPrior = 0, 2, "1"
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.(*Model).Config; got != (Params{PriorAnswers: 0, PriorVar: 2, BiasPrior: "1", BiasAnchor: AnchorMean, Bias: Each, Precision: Each, Prior: PriorAuto, Constant: ConstantIgnore}) {
		t.Errorf("decoded %+v", got)
	}
	for _, p := range []Params{{PriorAnswers: -1}, {PriorVar: -1}, {BiasPrior: "NaN"}, {BiasPrior: "-1"}, {BiasPrior: "Inf"}, {BiasPrior: "some"}, {PriorAnswers: math.Inf(1)}, {Bias: "some"}, {Precision: "pooled"}, {Prior: "hier"}, {Prior: PriorLearned, Precision: Shared}, {Constant: "drop"}} {
		if _, err := New(p); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("New(%+v): err = %v", p, err)
		}
	}
}

// TestSample checks the simulator's distribution: y − x has mean b_r and
// variance 1/p_r; perDoc annotators per document, distinct and sorted.
func TestSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const D = 20000
	truth := make([]float64, D)
	for d := range truth {
		truth[d] = rng.NormFloat64()
	}
	all := Sample(truth, PaperBias, PaperPrec, 0, rng)
	n := make([]float64, 5)
	s := make([]float64, 5)
	ss := make([]float64, 5)
	for d, as := range all {
		if len(as) != 5 {
			t.Fatalf("document %d has %d answers, want all 5", d, len(as))
		}
		for _, a := range as {
			e := a.Value - truth[d]
			n[a.Annotator]++
			s[a.Annotator] += e
			ss[a.Annotator] += e * e
			if a.Class != -1 {
				t.Fatalf("class %d, want -1", a.Class)
			}
		}
	}
	for r := range n {
		mean := s[r] / n[r]
		prec := 1 / (ss[r]/n[r] - mean*mean)
		// 4 standard errors: sd(mean) = 1/√(n p); sd(p̂)/p ≈ √(2/n).
		if math.Abs(mean-PaperBias[r]) > 4/math.Sqrt(n[r]*PaperPrec[r]) || math.Abs(prec/PaperPrec[r]-1) > 4*math.Sqrt(2/n[r]) {
			t.Errorf("annotator %d: bias %.4f precision %.4f, want %v %v", r, mean, prec, PaperBias[r], PaperPrec[r])
		}
	}
	two := Sample(truth[:2000], PaperBias, PaperPrec, 2, rng)
	count := make([]int, 5)
	for d, as := range two {
		if len(as) != 2 || as[0].Annotator >= as[1].Annotator {
			t.Fatalf("document %d: answers %v, want 2 distinct sorted annotators", d, as)
		}
		count[as[0].Annotator]++
		count[as[1].Annotator]++
	}
	for r, c := range count { // 800 expected, sd ≈ 22
		if c < 700 || c > 900 {
			t.Errorf("annotator %d chosen %d times of 4000, want about 800", r, c)
		}
	}
	for _, f := range []func(){
		func() { Sample(truth, []float64{0}, []float64{1, 2}, 0, rng) },
		func() { Sample(truth, []float64{0}, []float64{0}, 0, rng) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("invalid arguments did not panic")
				}
			}()
			f()
		}()
	}
}

// unanchored is Defaults with bias_anchor = "none": the tests of the
// unconstrained M-step (the anchored one is tested in anchor_test.go).
// fixedDefaults are the defaults with the fixed prior (Params.Prior
// "fixed"): the tests of the MAP estimates' mathematics use them whatever
// prior the defaults choose.
func fixedDefaults() Params {
	p := Defaults()
	p.Prior = PriorFixed
	return p
}

func unanchored() Params {
	p := fixedDefaults()
	p.BiasAnchor = AnchorNone
	return p
}

// TestLogPredictive: with b = 0.5, p = 2 and q(t) = N(1, 0.25), an answer
// 2 has density N(2; 1.5, 0.25 + 0.5); outside the model, NaN.
func TestLogPredictive(t *testing.T) {
	m := newModel(t, fixedDefaults(), numeric([]string{"a"}, [][]framework.Answer{nil}))
	m.Bias, m.Prec = []float64{0.5}, []float64{2}
	q := &framework.Gaussian{Mean: 1, Var: 0.25}
	want := -0.5*math.Log(2*math.Pi*0.75) - 0.25/(2*0.75)
	if got := m.LogPredictive(q, ans(0, 2)); !near(got, want, 1e-14, 0) {
		t.Errorf("LogPredictive %v, want %v", got, want)
	}
	for _, bad := range []framework.Answer{ans(1, 2), ans(-1, 2)} {
		if got := m.LogPredictive(q, bad); !math.IsNaN(got) {
			t.Errorf("answer %+v outside the model: %v, want NaN", bad, got)
		}
	}
	if got := m.LogPredictive(framework.NewCategorical(2), ans(0, 1)); !math.IsNaN(got) {
		t.Errorf("a categorical target: %v, want NaN", got)
	}
}

// TestShared: with bias = "none" and precision = "shared", an update sets
// every bias to 0 and every precision to (N + ν₀)/(Σ((y − m)² + v) + ν₀s₀²)
// over all answers, and the prior counts the Gamma once; with biases, the
// shared precision adds one per annotator under κ₀ > 0.
func TestShared(t *testing.T) {
	c := numeric([]string{"a", "b"}, [][]framework.Answer{{ans(0, 1), ans(1, 3)}, {ans(1, 2)}})
	p := Params{PriorAnswers: 2, PriorVar: 0.5, Bias: None, Precision: Shared}
	m := newModel(t, p, c)
	docs := []*framework.DocState{docState(c.Answers.ByDoc[0], 1.5, 0.1), docState(c.Answers.ByDoc[1], 2.5, 0.2)}
	s := m.NewStats()
	for _, d := range docs {
		m.Accumulate(s, d)
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// residuals: 1 − 1.5, 3 − 1.5, 2 − 2.5; variances 0.1, 0.1, 0.2.
	q := 0.25 + 2.25 + 0.25 + 0.1 + 0.1 + 0.2
	want := (3 + 2.0) / (q + 2*0.5)
	for r := range m.Prec {
		if m.Bias[r] != 0 || !near(m.Prec[r], want, 1e-14, 0) {
			t.Errorf("annotator %d: b = %v, p = %v; want 0 and %v", r, m.Bias[r], m.Prec[r], want)
		}
	}
	a0, b0 := 1+2.0/2, 2*0.5/2
	lg, _ := math.Lgamma(a0)
	if got, wantLP := m.LogPrior(), a0*math.Log(b0)-lg+(a0-1)*math.Log(want)-b0*want; !near(got, wantLP, 1e-14, 0) {
		t.Errorf("LogPrior %v, want %v (one Gamma)", got, wantLP)
	}
	pb := Params{PriorAnswers: 0, BiasPrior: "1", BiasAnchor: AnchorNone, Precision: Shared}
	mb := newModel(t, pb, c)
	mb.Prec = []float64{1, 1}
	s = mb.NewStats()
	for _, d := range docs {
		mb.Accumulate(s, d)
	}
	if err := mb.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// b_a = (1 − 1.5)/(1 + 1), b_b = ((3 − 1.5) + (2 − 2.5))/(2 + 1).
	ba, bb := -0.25, 1.0/3
	qa := 0.25 + 0.1 - 2*ba*(-0.5) + ba*ba
	qb := 2.25 + 0.25 + 0.3 - 2*bb*1.0 + 2*bb*bb
	wantB := (3 + 2.0) / (qa + qb + ba*ba + bb*bb)
	if !near(mb.Bias[0], ba, 1e-14, 0) || !near(mb.Bias[1], bb, 1e-14, 0) || !near(mb.Prec[0], wantB, 1e-14, 0) || mb.Prec[0] != mb.Prec[1] {
		t.Errorf("biases %v, precisions %v; want [%v %v] and %v for both", mb.Bias, mb.Prec, ba, bb, wantB)
	}
}

// TestBiasPriorAuto: bias_prior = "auto" gives κ₀ = AutoBiasPrior (3) to a
// crowd whose annotators average fewer than AutoFewAnswers (5) answers, 0
// to one with 5 or more, 0 under the learned prior; the κ₀ chosen is the
// one Update uses (b_r = Σ(y − m)/(n_r + κ₀), by hand below), and it is
// saved: a model rebuilt without answers (κ₀ 0 from Init) takes the file's.
func TestBiasPriorAuto(t *testing.T) {
	// crowd builds D documents with truth 0 answered by annotators a and b
	// (a answers 1 or 1.1 on every one, b −1 or −1.2 on the first nb:
	// neither gives one answer to everything).
	crowd := func(D, nb int) *framework.Corpus {
		by := make([][]framework.Answer, D)
		for d := range by {
			by[d] = []framework.Answer{ans(0, 1+0.1*float64(d%2))}
			if d < nb {
				by[d] = append(by[d], ans(1, -1-0.2*float64(d%2)))
			}
		}
		return numeric([]string{"a", "b"}, by)
	}
	for _, tc := range []struct {
		name      string
		D, nb     int
		prior     string
		kappa     float64
		wantKappa float64
	}{
		{name: "4.5 answers each", D: 5, nb: 4, wantKappa: AutoBiasPrior},
		{name: "5 answers each", D: 5, nb: 5, wantKappa: 0},
		{name: "1 answer each", D: 1, nb: 1, wantKappa: AutoBiasPrior},
		{name: "learned", D: 5, nb: 4, prior: PriorLearned, wantKappa: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := unanchored()
			if tc.prior != "" {
				p.Prior = tc.prior
			}
			c := crowd(tc.D, tc.nb)
			m := newModel(t, p, c)
			if m.Kappa != tc.wantKappa {
				t.Fatalf("κ₀ = %v, want %v", m.Kappa, tc.wantKappa)
			}
			if tc.prior == PriorLearned {
				return
			}
			s := m.NewStats()
			for _, as := range c.Answers.ByDoc {
				m.Accumulate(s, docState(as, 0, 0.01))
			}
			if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
			sa := 0.0
			for d := range tc.D {
				sa += 1 + 0.1*float64(d%2)
			}
			if want := sa / (float64(tc.D) + tc.wantKappa); !near(m.Bias[0], want, 1e-14, 0) {
				t.Errorf("b_a = %v, want Σ(y − m)/(n + κ₀) = %v", m.Bias[0], want)
			}
			sb := 0.0
			for d := range tc.nb {
				sb -= 1 + 0.2*float64(d%2)
			}
			if want := sb / (float64(tc.nb) + tc.wantKappa); !near(m.Bias[1], want, 1e-14, 0) {
				t.Errorf("b_b = %v, want %v", m.Bias[1], want)
			}
			var buf bytes.Buffer
			if err := m.SaveParams(&buf); err != nil {
				t.Fatal(err)
			}
			re := newModel(t, p, numeric([]string{"a", "b"}, nil))
			if re.Kappa != 0 {
				t.Fatalf("rebuilt without answers: κ₀ = %v, want 0", re.Kappa)
			}
			if err := re.LoadParams(&buf); err != nil {
				t.Fatal(err)
			}
			if re.Kappa != tc.wantKappa || re.LogPrior() != m.LogPrior() {
				t.Errorf("loaded κ₀ %v (log prior %v), want the saved %v (%v)", re.Kappa, re.LogPrior(), tc.wantKappa, m.LogPrior())
			}
		})
	}
	// A number is the κ₀, whatever the crowd.
	p := unanchored()
	p.BiasPrior = "0.5"
	if m := newModel(t, p, crowd(1, 1)); m.Kappa != 0.5 {
		t.Errorf("bias_prior = 0.5: κ₀ = %v", m.Kappa)
	}
}
