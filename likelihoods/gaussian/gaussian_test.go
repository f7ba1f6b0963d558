package gaussian

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// randDoc builds a document of L unique words with counts in {1, 2, 3}
// (so that shared φ with n_dv > 1 is exercised) and random φ rows on the
// simplex, its φ̄, and a Gaussian target with the given moments.
func randDoc(rng *rand.Rand, K, L int, m, v float64) *framework.DocState {
	doc := &framework.Doc{ID: "d"}
	for j := 0; j < L; j++ {
		doc.Words = append(doc.Words, int32(j))
		n := float64(1 + rng.IntN(3))
		doc.Counts = append(doc.Counts, n)
		doc.N += n
	}
	ds := framework.NewDocState(K, L)
	ds.Bind(0, doc, nil)
	for j := 0; j < L; j++ {
		row := ds.PhiRow(j)
		s := 0.0
		for k := range row {
			row[k] = 0.05 + rng.Float64()
			s += row[k]
		}
		for k := range row {
			row[k] /= s
		}
	}
	ds.UpdatePhiBar()
	ds.Target = &framework.Gaussian{Mean: m, Var: v}
	return ds
}

func newResp(t testing.TB, p Params, K int, eta []float64, b float64) *Response {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(&framework.Setup{K: K}); err != nil {
		t.Fatal(err)
	}
	copy(r.Eta, eta)
	r.B = b
	return r
}

func near(a, b, rel, abs float64) bool {
	return math.Abs(a-b) <= abs+rel*math.Max(math.Abs(a), math.Abs(b))
}

// naiveZZ is E[z̄z̄ᵀ] from its definition over tokens: each of the N tokens
// has its own assignment z_n ~ Cat(φ_n) (tokens of word v share φ_dv), so
// E[z̄z̄ᵀ] = (1/N²)(Σ_{n≠n'} φ_n φ_n'ᵀ + Σ_n diag φ_n) — the O(N²K²) sum.
func naiveZZ(ds *framework.DocState) [][]float64 {
	K := ds.K
	var tok [][]float64
	for j, n := range ds.Doc.Counts {
		for i := 0; i < int(n); i++ {
			tok = append(tok, ds.PhiRow(j))
		}
	}
	N := float64(len(tok))
	zz := make([][]float64, K)
	for a := range zz {
		zz[a] = make([]float64, K)
	}
	for i, p := range tok {
		for a := 0; a < K; a++ {
			zz[a][a] += p[a] / (N * N)
		}
		for i2, q := range tok {
			if i2 == i {
				continue
			}
			for a := 0; a < K; a++ {
				for b := 0; b < K; b++ {
					zz[a][b] += p[a] * q[b] / (N * N)
				}
			}
		}
	}
	return zz
}

func TestSecondMomentMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	K := 4
	eta := []float64{0.3, -2, 1, 5}
	r := newResp(t, Params{Sigma2: 1}, K, eta, 0)
	ds := randDoc(rng, K, 7, 0, 1)
	s := r.NewStats().(*Stats)
	r.Accumulate(s, ds)
	zz := naiveZZ(ds)
	q := 0.0
	for a := 0; a < K; a++ {
		for b := 0; b < K; b++ {
			if !near(s.ZZAt(a, b), zz[a][b], 1e-12, 1e-14) {
				t.Errorf("E[z̄z̄ᵀ][%d][%d] = %v, definition gives %v", a, b, s.ZZAt(a, b), zz[a][b])
			}
			q += eta[a] * zz[a][b] * eta[b]
		}
	}
	if got := r.quadZZ(ds); !near(got, q, 1e-12, 1e-14) {
		t.Errorf("ηᵀE[z̄z̄ᵀ]η = %v, definition gives %v", got, q)
	}
}

// TestConjugatePosterior: with the topics (φ) fixed, q(x_d) from the prior
// message and two annotators' evidence is the precision-weighted Gaussian
// posterior, computed by hand:
//
//	η = (1, 2, 4); word 0 (count 1) φ = (1, 0, 0); word 1 (count 3)
//	φ = (0, ½, ½); N = 4, φ̄ = (¼, ⅜, ⅜), η·φ̄ = ¼ + ¾ + 3/2 = 5/2.
//	σ² = ½: prior precision 2, precision×mean 2·5/2 = 5.
//	annotator 0: p = 2, b = ½, y = 3: precision 2, precision×mean 2·(3 − ½) = 5.
//	annotator 1: p = 8, b = −1, y = 1: precision 8, precision×mean 8·(1 + 1) = 16.
//	1/v = 2 + 2 + 8 = 12, v = 1/12;  m = (5 + 5 + 16)/12 = 13/6.
func TestConjugatePosterior(t *testing.T) {
	r := newResp(t, Params{Sigma2: 0.5}, 3, []float64{1, 2, 4}, 0)
	doc := &framework.Doc{Words: []int32{0, 1}, Counts: []float64{1, 3}, N: 4}
	ds := framework.NewDocState(3, 2)
	ds.Bind(0, doc, nil)
	copy(ds.PhiRow(0), []float64{1, 0, 0})
	copy(ds.PhiRow(1), []float64{0, 0.5, 0.5})
	ds.UpdatePhiBar()
	ds.Target = r.NewTarget()
	tg := ds.Target.(*framework.Gaussian)
	loc := r.NewLocal()
	loc.Begin(ds)
	loc.TargetTerm(ds)
	// The two annotators' evidence, as a noise model adds it.
	for _, a := range []struct{ p, b, y float64 }{{2, 0.5, 3}, {8, -1, 1}} {
		tg.Prec += a.p
		tg.PrecMean += a.p * (a.y - a.b)
	}
	tg.Finalize()
	if !near(tg.Var, 1.0/12, 1e-15, 0) || !near(tg.Mean, 13.0/6, 1e-15, 0) {
		t.Errorf("q(x) = N(%v, %v), want N(13/6, 1/12)", tg.Mean, tg.Var)
	}
	// Without answers the posterior is the prior N(η·φ̄, σ²) = N(5/2, 1/2).
	tg.Reset()
	loc.TargetTerm(ds)
	tg.Finalize()
	if !near(tg.Var, 0.5, 1e-15, 0) || !near(tg.Mean, 2.5, 1e-15, 0) {
		t.Errorf("prior-only q(x) = N(%v, %v), want N(5/2, 1/2)", tg.Mean, tg.Var)
	}
	// Predict gives the same prior as the predictive distribution.
	r.Predict(ds)
	if tg.Mean != 2.5 || tg.Var != 0.5 {
		t.Errorf("Predict = N(%v, %v), want N(5/2, 1/2)", tg.Mean, tg.Var)
	}
}

// accumulated returns statistics of n random documents (one of them empty)
// with random targets.
func accumulated(t testing.TB, r *Response, rng *rand.Rand, n int) (*Stats, []*framework.DocState) {
	s := r.NewStats().(*Stats)
	var docs []*framework.DocState
	for i := 0; i < n; i++ {
		var ds *framework.DocState
		if i == 3 {
			ds = framework.NewDocState(r.K, 0)
			ds.Bind(i, &framework.Doc{}, nil)
			ds.UpdatePhiBar()
			ds.Target = &framework.Gaussian{Mean: 1.5, Var: 0.3}
		} else {
			x := rng.NormFloat64()
			ds = randDoc(rng, r.K, 2+rng.IntN(6), 2+x, 0.1+rng.Float64())
			// Sharpen φ so the truth depends on the topics.
			for j := 0; j < ds.Doc.Len(); j++ {
				row := ds.PhiRow(j)
				row[i%r.K] += 2
				for k := range row {
					row[k] /= 3
				}
			}
			ds.UpdatePhiBar()
		}
		r.Accumulate(s, ds)
		docs = append(docs, ds)
	}
	return s, docs
}

// TestMStepMaximises: after a batch Update, η, b and σ² maximise ELBO(s):
// central differences vanish and perturbations lower the bound.
func TestMStepMaximises(t *testing.T) {
	for _, p := range []Params{
		{Sigma2: 1, EstimateSigma2: true},
		{Sigma2: 1, EstimateSigma2: true, L2: 0.7},
		{Sigma2: 2, EstimateSigma2: true, L2: 0.3, Intercept: true},
		{Sigma2: 0.5, L2: 0.1},
	} {
		rng := rand.New(rand.NewPCG(9, 10))
		K := 4
		r := newResp(t, p, K, make([]float64, K), 0)
		s, _ := accumulated(t, r, rng, 40)
		st := framework.BatchStep(1)
		if err := r.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		best := r.ELBO(s, st)
		type param struct {
			name string
			ptr  *float64
		}
		ps := []param{}
		for k := range r.Eta {
			ps = append(ps, param{"eta", &r.Eta[k]})
		}
		if p.Intercept {
			ps = append(ps, param{"b", &r.B})
		}
		if p.EstimateSigma2 {
			ps = append(ps, param{"sigma2", &r.Sigma2})
		}
		for _, q := range ps {
			x0 := *q.ptr
			f := func(x float64) float64 { *q.ptr = x; return r.ELBO(s, st) }
			h := 1e-5 * math.Max(1, math.Abs(x0))
			g := (f(x0+h) - f(x0-h)) / (2 * h)
			if math.Abs(g) > 1e-5*math.Abs(best) {
				t.Errorf("%+v: ∂ELBO/∂%s = %g at the M-step, want 0", p, q.name, g)
			}
			for _, d := range []float64{1e-2, -1e-2} {
				if e := f(x0 + d*math.Max(1, math.Abs(x0))); e >= best {
					t.Errorf("%+v: perturbing %s raised the bound: %v ≥ %v", p, q.name, e, best)
				}
			}
			f(x0)
		}
		if !p.EstimateSigma2 && r.Sigma2 != p.Sigma2 {
			t.Errorf("σ² changed to %v with estimate_sigma2 = false", r.Sigma2)
		}
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSingularSystems: a topic no document uses (with μ = 0), and an
// intercept with μ = 0 (collinear with the topics, Σ_k φ̄_dk = 1), give
// finite minimum-norm maximisers.
func TestSingularSystems(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(19, 20))
	// Topic 2 unused.
	r := newResp(t, Params{Sigma2: 1}, 3, []float64{0, 0, 0}, 0)
	s := r.NewStats().(*Stats)
	for i := 0; i < 10; i++ {
		ds := randDoc(rng, 3, 3, float64(i), 0.2)
		for j := 0; j < ds.Doc.Len(); j++ {
			row := ds.PhiRow(j)
			row[0] += row[2]
			row[2] = 0
		}
		ds.UpdatePhiBar()
		r.Accumulate(s, ds)
	}
	if err := r.Update(ctx, s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if r.Eta[2] != 0 && math.Abs(r.Eta[2]) > 1e-8 {
		t.Errorf("unused topic got η = %v, want the minimum-norm 0", r.Eta[2])
	}
	// Intercept, μ = 0, no empty documents.
	r = newResp(t, Params{Sigma2: 1, Intercept: true}, 3, []float64{0, 0, 0}, 0)
	s = r.NewStats().(*Stats)
	for i := 0; i < 10; i++ {
		r.Accumulate(s, randDoc(rng, 3, 4, rng.NormFloat64()+3, 0.2))
	}
	st := framework.BatchStep(1)
	if err := r.Update(ctx, s, st); err != nil {
		t.Fatal(err)
	}
	best := r.ELBO(s, st)
	if math.IsNaN(best) || math.IsInf(best, 0) {
		t.Fatalf("ELBO %v", best)
	}
	// Shifting along the null direction (η + c1, b − c) keeps the bound;
	// any other direction lowers it.
	for k := range r.Eta {
		r.Eta[k] += 0.3
	}
	r.B -= 0.3
	if e := r.ELBO(s, st); !near(e, best, 1e-10, 1e-10) {
		t.Errorf("null direction changed the bound: %v vs %v", e, best)
	}
	r.Eta[0] += 0.1
	if e := r.ELBO(s, st); e >= best {
		t.Errorf("perturbation raised the bound: %v ≥ %v", e, best)
	}
}

// TestEmptyDocument: N_d = 0 has φ̄ = 0 and E[z̄z̄ᵀ] = 0; nothing is NaN.
func TestEmptyDocument(t *testing.T) {
	for _, icpt := range []bool{false, true} {
		r := newResp(t, Params{Sigma2: 2, Intercept: icpt}, 3, []float64{1, 2, 3}, 0)
		if icpt {
			r.B = 0.5
		}
		ds := framework.NewDocState(3, 0)
		ds.Bind(0, &framework.Doc{}, nil)
		ds.UpdatePhiBar()
		ds.Target = r.NewTarget()
		loc := r.NewLocal()
		loc.Begin(ds)
		loc.TargetTerm(ds)
		ds.Target.Finalize()
		tg := ds.Target.(*framework.Gaussian)
		if tg.Mean != r.B || tg.Var != 2 {
			t.Errorf("intercept %v: empty document's q(x) = N(%v, %v), want N(%v, 2)", icpt, tg.Mean, tg.Var, r.B)
		}
		s := r.NewStats().(*Stats)
		r.Accumulate(s, ds)
		for _, x := range append(append([]float64{s.MM, s.Entropy, r.DocELBO(ds), r.ELBO(s, framework.BatchStep(1))}, s.ZZ...), s.PhiM...) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("intercept %v: non-finite statistic or bound %v", icpt, x)
			}
		}
		if s.ZZAt(0, 0) != 0 || s.PhiM[0] != 0 {
			t.Errorf("empty document contributed E[z̄z̄ᵀ] or φ̄m")
		}
	}
}

func TestPersistRoundTrip(t *testing.T) {
	r := newResp(t, Params{Sigma2: 1, Intercept: true}, 3, []float64{1.25, -2.5e-7, 3.1}, 0.1)
	r.Sigma2 = 0.123456789
	var buf bytes.Buffer
	if err := r.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	q := newResp(t, Params{Sigma2: 1, Intercept: true}, 3, nil, 0)
	if err := q.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if !equal(q.Eta, r.Eta) || q.B != r.B || q.Sigma2 != r.Sigma2 {
		t.Errorf("round trip: η %v b %v σ² %v, want %v %v %v", q.Eta, q.B, q.Sigma2, r.Eta, r.B, r.Sigma2)
	}
	for name, tc := range map[string]struct {
		k    int
		icpt bool
		text string
	}{
		"wrong K":          {4, true, saved},
		"intercept off":    {3, false, saved},
		"unknown field":    {3, true, strings.Replace(saved, `"k"`, `"kk"`, 1)},
		"negative sigma2":  {3, true, strings.Replace(saved, `"sigma2": 0.123456789`, `"sigma2": -1`, 1)},
		"wrong format":     {3, true, strings.Replace(saved, "maslda-gaussian", "other", 1)},
		"truncated":        {3, true, saved[:len(saved)/2]},
		"short eta vector": {3, true, strings.Replace(saved, "3.1\n", "", 1)},
	} {
		q := newResp(t, Params{Sigma2: 1, Intercept: tc.icpt}, tc.k, nil, 0)
		if err := q.LoadParams(strings.NewReader(tc.text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
}

func TestRegistryAndParams(t *testing.T) {
	l, err := framework.Default.Likelihood(Name, framework.ParamsFunc(func(into any) error {
		p := into.(*Params)
		p.Sigma2, p.EstimateSigma2, p.L2, p.Intercept = 0.5, true, 0.01, true
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if r := l.(*Response); r.Config != (Params{Sigma2: 0.5, EstimateSigma2: true, L2: 0.01, Intercept: true, Weight: DefaultWeight, ExactIters: DefaultExactIters, ExactTol: DefaultExactTol, Truth: TruthExact}) {
		t.Errorf("decoded %+v", r.Config)
	}
	if l, err := framework.Default.Likelihood(Name, nil); err != nil || l.(*Response).Config != Defaults() {
		t.Errorf("defaults: %v, %v", l, err)
	}
	for _, p := range []Params{{Sigma2: -1}, {Sigma2: math.NaN()}, {Sigma2: math.Inf(1)}, {Sigma2: 1, L2: -1}, {Sigma2: 1, L2: math.NaN()}, {Sigma2: 1, Weight: 0.5}, {Sigma2: 1, Weight: math.Inf(1)}, {Sigma2: 1, Weight: math.NaN()}, {Sigma2: 1, Truth: "both"}} {
		if _, err := New(p); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("New(%+v): err = %v, want ErrBadInput", p, err)
		}
	}
	r, _ := New(Defaults())
	if err := r.Init(&framework.Setup{K: 0}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("K = 0: err = %v", err)
	}
}

// TestInitFromAnswers: η starts at the mean of the documents' mean answers
// (b with an intercept), so the first prior message is that mean.
func TestInitFromAnswers(t *testing.T) {
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 3), Answers: &framework.Answers{
		Annotators: []string{"a", "b"},
		ByDoc:      [][]framework.Answer{{{Annotator: 0, Class: -1, Value: 1}, {Annotator: 1, Class: -1, Value: 3}}, nil, {{Annotator: 0, Class: -1, Value: 5}}},
	}}
	for _, icpt := range []bool{false, true} {
		r, _ := New(Params{Sigma2: 1, Intercept: icpt})
		if err := r.Init(&framework.Setup{K: 2, Corpus: c}); err != nil {
			t.Fatal(err)
		}
		// (mean(1, 3) + 5)/2 = 3.5
		want := []float64{3.5, 3.5}
		if icpt {
			want = []float64{0, 0}
			if r.B != 3.5 {
				t.Errorf("b = %v, want 3.5", r.B)
			}
		}
		if !equal(r.Eta, want) {
			t.Errorf("intercept %v: η = %v, want %v", icpt, r.Eta, want)
		}
	}
	// sigma2 = 0: σ² starts at the variance (n denominator) of the
	// documents' mean answers 2 and 5 (the document without answers left
	// out), 2.25; not that of all answers (1, 3, 5: 8/3); 1 without answers.
	r, _ := New(Params{Sigma2: 0, EstimateSigma2: false})
	if err := r.Init(&framework.Setup{K: 2, Corpus: c}); err != nil {
		t.Fatal(err)
	}
	if r.Sigma2 != 2.25 {
		t.Errorf("sigma2 = 0: σ² = %v, want 2.25", r.Sigma2)
	}
	if err := r.Init(&framework.Setup{K: 2}); err != nil {
		t.Fatal(err)
	}
	if r.Sigma2 != 1 {
		t.Errorf("sigma2 = 0 without answers: σ² = %v, want 1", r.Sigma2)
	}
}

// TestFirstSVIStep: the running statistics are bias-corrected (divided by
// the sum of their blending weights), so a first update at ρ < 1 from
// Init's state fits exactly what ρ = 1 fits from the same statistics: the
// empty start carries no weight. (Without the correction η would be fitted
// to ρ·S·statistics, the kit's Blend check on the statistics alone cannot
// see it.)
func TestFirstSVIStep(t *testing.T) {
	for _, p := range []Params{
		{Sigma2: 1, EstimateSigma2: true, L2: 0.7},
		{Sigma2: 2, EstimateSigma2: true, L2: 0.3, Intercept: true},
	} {
		K := 4
		full := newResp(t, p, K, make([]float64, K), 0)
		s, _ := accumulated(t, full, rand.New(rand.NewPCG(3, 4)), 40)
		if err := full.Update(context.Background(), s, framework.Step{Rho: 1, Scale: 2.5, Iter: 1}); err != nil {
			t.Fatal(err)
		}
		part := newResp(t, p, K, make([]float64, K), 0)
		if err := part.Update(context.Background(), s, framework.Step{Rho: 0.3, Scale: 2.5, Iter: 1}); err != nil {
			t.Fatal(err)
		}
		got := append(append([]float64(nil), part.Eta...), part.B, part.Sigma2)
		want := append(append([]float64(nil), full.Eta...), full.B, full.Sigma2)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%+v: parameter %d after a first update at ρ = 0.3: %.15g, at ρ = 1: %.15g", p, i, got[i], want[i])
			}
		}
	}
}
