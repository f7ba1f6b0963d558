package classprior

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

func newResp(t testing.TB, p Params, C int) *Response {
	t.Helper()
	r, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	classes := make([]string, C)
	for l := range classes {
		classes[l] = string(rune('a' + l))
	}
	if err := r.Init(&framework.Setup{K: 1, Classes: classes}); err != nil {
		t.Fatal(err)
	}
	return r
}

// docWith is a document state whose q(c) is λ.
func docWith(lam []float64) *framework.DocState {
	t := framework.NewCategorical(len(lam))
	for l, p := range lam {
		t.Log[l] = math.Log(p)
	}
	t.Finalize()
	return &framework.DocState{Doc: &framework.Doc{}, Target: t}
}

var fixtureLambdas = [][]float64{{1, 0, 0}, {0.5, 0.5, 0}, {0.5, 0.25, 0.25}}

func fixtureStats(r *Response) *Stats {
	s := r.NewStats().(*Stats)
	for _, lam := range fixtureLambdas {
		r.Accumulate(s, docWith(lam))
	}
	return s
}

// TestFixture: one batch M-step on three documents, against the numbers of
// testdata/fixture.py (SciPy's digamma and gammaln, independent of this
// code): ζ = α + Σ λ, E[log π], π̂ ∝ Σ λ + α − 1 and both ELBOs.
func TestFixture(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		estimate string
		values   []float64 // ζ or π̂
		elog     []float64
		elbo     float64
	}{
		{Variational, []float64{4, 2.75, 2.25}, []float64{-0.8845238095238095, -1.3217404529801773, -1.568095011331875}, -1.6923973575279532},
		{Point, []float64{0.5, 0.2916666666666667, 0.20833333333333334}, []float64{math.Log(0.5), math.Log(0.2916666666666667), math.Log(0.20833333333333334)}, 0.32389681284765981},
	} {
		r := newResp(t, Params{Alpha: 2, Estimate: tc.estimate}, 3)
		s := fixtureStats(r)
		if err := r.Update(ctx, s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		got := r.Zeta
		if tc.estimate == Point {
			got = r.Pi
		}
		// gonum's digamma is good to about 5e-11 (docs/design.md); SciPy's to 1e-15.
		approx := cmpopts.EquateApprox(1e-10, 0)
		if !cmp.Equal(got, tc.values, approx) || !cmp.Equal(r.elog, tc.elog, approx) {
			t.Errorf("%s: values %v, E[log π] %v; want %v, %v", tc.estimate, got, r.elog, tc.values, tc.elog)
		}
		if e := r.ELBO(s, framework.BatchStep(1)); math.Abs(e-tc.elbo) > 1e-10*math.Abs(tc.elbo) {
			t.Errorf("%s: ELBO %.17g, want %.17g", tc.estimate, e, tc.elbo)
		}
	}
}

// randomStats are the statistics of n random documents over C classes,
// some with exactly zero mass on a class.
func randomStats(r *Response, rng *rand.Rand, n int) *Stats {
	s := r.NewStats().(*Stats)
	lam := make([]float64, r.C)
	for range n {
		sum := 0.0
		for l := range lam {
			lam[l] = rng.ExpFloat64()
			if rng.IntN(4) == 0 {
				lam[l] = 0
			}
			sum += lam[l]
		}
		if sum == 0 {
			lam[0], sum = 1, 1
		}
		for l := range lam {
			lam[l] /= sum
		}
		r.Accumulate(s, docWith(lam))
	}
	return s
}

// TestVariationalUpdateMaximises: after a batch Update the ELBO is
// stationary in ζ (central differences of the ELBO as a function of ζ,
// all coordinates), and perturbing ζ lowers it.
func TestVariationalUpdateMaximises(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, alpha := range []float64{0.3, 1, 4} {
		r := newResp(t, Params{Alpha: alpha, Estimate: Variational}, 4)
		s := randomStats(r, rng, 7)
		if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		at := func(zeta []float64) float64 {
			q := newResp(t, Params{Alpha: alpha, Estimate: Variational}, 4)
			copy(q.Zeta, zeta)
			q.refresh()
			return q.ELBO(s, framework.BatchStep(1))
		}
		best := r.ELBO(s, framework.BatchStep(1))
		if e := at(r.Zeta); e != best {
			t.Fatalf("ELBO recomputed at ζ: %v, want %v", e, best)
		}
		z := append([]float64(nil), r.Zeta...)
		const h = 1e-5
		for l := range z {
			z[l] += h
			up := at(z)
			z[l] -= 2 * h
			down := at(z)
			z[l] += h
			if g := (up - down) / (2 * h); math.Abs(g) > 1e-7 {
				t.Errorf("α = %v: ∂ELBO/∂ζ_%d = %v at the update, want 0", alpha, l, g)
			}
			for _, step := range []float64{-0.3, 0.3} {
				z[l] += step * r.Zeta[l]
				if e := at(z); e > best {
					t.Errorf("α = %v: ζ_%d × %v: ELBO %v > %v at the update", alpha, l, 1+step, e, best)
				}
				z[l] = r.Zeta[l]
			}
		}
	}
}

// TestPointUpdateMaximises: after a batch Update, moving probability
// between any two classes (the simplex's tangent directions) lowers the
// ELBO, and its directional derivatives vanish.
func TestPointUpdateMaximises(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, alpha := range []float64{1, 1.5, 5} {
		r := newResp(t, Params{Alpha: alpha, Estimate: Point}, 4)
		s := randomStats(r, rng, 9)
		if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		at := func(pi []float64) float64 {
			q := newResp(t, Params{Alpha: alpha, Estimate: Point}, 4)
			copy(q.Pi, pi)
			q.refresh()
			return q.ELBO(s, framework.BatchStep(1))
		}
		best := r.ELBO(s, framework.BatchStep(1))
		pi := append([]float64(nil), r.Pi...)
		for i := range pi {
			for j := range pi {
				if i == j || pi[j] == 0 {
					continue
				}
				if pi[i] > 0 { // interior: the derivative vanishes
					const h = 1e-6
					pi[i] += h
					pi[j] -= h
					up := at(pi)
					pi[i] -= 2 * h
					pi[j] += 2 * h
					down := at(pi)
					copy(pi, r.Pi)
					if g := (up - down) / (2 * h); math.Abs(g) > 1e-6 {
						t.Errorf("α = %v: derivative along e_%d − e_%d = %v, want 0", alpha, i, j, g)
					}
				}
				eps := 0.2 * pi[j]
				pi[i] += eps
				pi[j] -= eps
				if e := at(pi); e > best {
					t.Errorf("α = %v: moving %v from class %d to %d raises the ELBO %v → %v", alpha, eps, j, i, best, e)
				}
				copy(pi, r.Pi)
			}
		}
	}
}

// TestPointWithEmptyClass: with α = 1 a class no document has gets π̂ = 0,
// its message is −Inf (λ = 0 exactly) and the ELBO stays finite.
func TestPointWithEmptyClass(t *testing.T) {
	r := newResp(t, Params{Alpha: 1, Estimate: Point}, 3)
	s := r.NewStats().(*Stats)
	r.Accumulate(s, docWith([]float64{0.25, 0.75, 0}))
	r.Accumulate(s, docWith([]float64{1, 0, 0}))
	if err := r.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.625, 0.375, 0}; !cmp.Equal(r.Pi, want, cmpopts.EquateApprox(1e-15, 0)) {
		t.Errorf("π̂ = %v, want %v", r.Pi, want)
	}
	if e := r.ELBO(s, framework.BatchStep(1)); math.IsNaN(e) || math.IsInf(e, 0) {
		t.Errorf("ELBO = %v", e)
	}
	d := &framework.DocState{Doc: &framework.Doc{}, Target: framework.NewCategorical(3)}
	r.NewLocal().TargetTerm(d)
	d.Target.Finalize()
	if p := d.Target.(*framework.Categorical).P; p[2] != 0 || math.Abs(p[0]-0.625) > 1e-15 {
		t.Errorf("λ from the prior message alone = %v", p)
	}
	// No documents at all with α = 1: π̂ is kept.
	q := newResp(t, Params{Alpha: 1, Estimate: Point}, 3)
	if err := q.Update(context.Background(), q.NewStats(), framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}; !cmp.Equal(q.Pi, want) {
		t.Errorf("π̂ without documents = %v, want %v", q.Pi, want)
	}
}

// TestLocalAndDocELBO: the prior message is E[log π]; λ from the message
// plus some evidence maximises DocELBO + λ·evidence (checked against
// random λ); ELBO with S = 1 is Σ DocELBO + the global term; PhiTerm adds
// nothing.
func TestLocalAndDocELBO(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := newResp(t, Params{Alpha: 0.5, Estimate: Variational}, 3)
	s0 := randomStats(r, rng, 5)
	if err := r.Update(context.Background(), s0, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	lc := r.NewLocal()
	ev := []float64{0.4, -1.2, 0.9}
	d := &framework.DocState{Doc: &framework.Doc{}, Target: framework.NewCategorical(3)}
	lc.Begin(d)
	lc.TargetTerm(d)
	tg := d.Target.(*framework.Categorical)
	for l := range ev {
		if tg.Log[l] != r.ElogPi(l) {
			t.Errorf("message %d = %v, want E[log π] = %v", l, tg.Log[l], r.ElogPi(l))
		}
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
		other := docWith([]float64{rng.Float64() + 1e-3, rng.Float64() + 1e-3, rng.Float64() + 1e-3})
		if e := f(other); e > best+1e-12 {
			t.Fatalf("λ = %v beats the message's λ = %v: %v > %v", other.Target.(*framework.Categorical).P, tg.P, e, best)
		}
	}
	dst := []float64{1, 2}
	lc.PhiTerm(dst, d, 0)
	lc.WordChanged(d, 0, nil)
	if !cmp.Equal(dst, []float64{1, 2}) {
		t.Errorf("PhiTerm changed dst to %v", dst)
	}
	s := r.NewStats()
	sum := 0.0
	for _, lam := range fixtureLambdas {
		d := docWith(lam)
		sum += r.DocELBO(d)
		r.Accumulate(s, d)
	}
	if e := r.ELBO(s, framework.BatchStep(2)); math.Abs(e-(sum+r.global)) > 1e-12 {
		t.Errorf("ELBO %v, Σ DocELBO + global %v", e, sum+r.global)
	}
}

// TestSVI: ρ = 0 changes nothing; the variational blend is MODEL.md §5's;
// the point estimate's running average does not depend on its start, so a
// first step with any ρ is the batch estimate of S copies of the batch.
func TestSVI(t *testing.T) {
	ctx := context.Background()
	r := newResp(t, Params{Alpha: 2, Estimate: Variational}, 3)
	s := fixtureStats(r)
	if err := r.Update(ctx, s, framework.Step{Rho: 0, Scale: 5}); err != nil || !cmp.Equal(r.Zeta, []float64{2, 2, 2}) {
		t.Errorf("ρ = 0: ζ = %v, err %v", r.Zeta, err)
	}
	if err := r.Update(ctx, s, framework.Step{Rho: 0.25, Scale: 4, Iter: 1}); err != nil {
		t.Fatal(err)
	}
	// ζ = 0.75·2 + 0.25·(2 + 4·counts), counts = (2, 0.75, 0.25).
	if want := []float64{4, 2.75, 2.25}; !cmp.Equal(r.Zeta, want, cmpopts.EquateApprox(1e-15, 0)) {
		t.Errorf("SVI ζ = %v, want %v", r.Zeta, want)
	}
	p := newResp(t, Params{Alpha: 2, Estimate: Point}, 3)
	if err := p.Update(ctx, s, framework.Step{Rho: 0.3, Scale: 2, Iter: 1}); err != nil {
		t.Fatal(err)
	}
	// π̂ ∝ 2·counts + 1 = (5, 2.5, 1.5)/9.
	if want := []float64{5.0 / 9, 2.5 / 9, 1.5 / 9}; !cmp.Equal(p.Pi, want, cmpopts.EquateApprox(1e-15, 0)) {
		t.Errorf("first SVI π̂ = %v, want %v", p.Pi, want)
	}
	if err := r.Update(ctx, s, framework.Step{Rho: 1.5, Scale: 1}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("ρ = 1.5: err = %v", err)
	}
}

func TestPredict(t *testing.T) {
	r := newResp(t, Params{Alpha: 1, Estimate: Variational}, 3)
	copy(r.Zeta, []float64{6, 3, 1})
	r.refresh()
	d := &framework.DocState{Doc: &framework.Doc{}, Target: r.NewTarget()}
	r.Predict(d)
	if got := d.Target.(*framework.Categorical).P; !cmp.Equal(got, []float64{0.6, 0.3, 0.1}, cmpopts.EquateApprox(1e-15, 0)) {
		t.Errorf("prediction %v, want E[π] = (0.6, 0.3, 0.1)", got)
	}
}

func TestPersistRoundTrip(t *testing.T) {
	for _, est := range []string{Variational, Point} {
		r := newResp(t, Params{Alpha: 2, Estimate: est}, 3)
		if err := r.Update(context.Background(), fixtureStats(r), framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := r.SaveParams(&buf); err != nil {
			t.Fatal(err)
		}
		saved := buf.String()
		q := newResp(t, Params{Alpha: 2, Estimate: est}, 3)
		if err := q.LoadParams(strings.NewReader(saved)); err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(q.Zeta, r.Zeta) || !cmp.Equal(q.Pi, r.Pi) || !cmp.Equal(q.elog, r.elog) || q.global != r.global {
			t.Errorf("%s: round trip ζ %v π̂ %v, want %v %v", est, q.Zeta, q.Pi, r.Zeta, r.Pi)
		}
		other := Point
		if est == Point {
			other = Variational
		}
		for name, tc := range map[string]struct {
			C    int
			est  string
			text string
		}{
			"wrong classes":  {4, est, saved},
			"other estimate": {3, other, saved},
			"unknown field":  {3, est, strings.Replace(saved, `"classes"`, `"klasses"`, 1)},
			"wrong format":   {3, est, strings.Replace(saved, paramsFormat, "other", 1)},
			"truncated":      {3, est, saved[:len(saved)/2]},
			"negative value": {3, est, strings.Replace(saved, `"values": [`, `"values": [-`, 1)},
		} {
			q := newResp(t, Params{Alpha: 2, Estimate: tc.est}, tc.C)
			if err := q.LoadParams(strings.NewReader(tc.text)); !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("%s/%s: err = %v, want ErrBadInput", est, name, err)
			}
		}
	}
	var r Response
	if err := r.SaveParams(&bytes.Buffer{}); !errors.Is(err, framework.ErrNotTrained) {
		t.Errorf("SaveParams before Init: %v", err)
	}
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		p  Params
		ok bool
	}{
		{Defaults(), true},
		{Params{Alpha: 0.1, Estimate: Variational}, true},
		{Params{Alpha: 1, Estimate: Point}, true},
		{Params{Alpha: 3, Estimate: Point}, true},
		{Params{Alpha: 0.5, Estimate: Point}, false},
		{Params{Alpha: 0, Estimate: Variational}, false},
		{Params{Alpha: math.NaN(), Estimate: Variational}, false},
		{Params{Alpha: math.Inf(1), Estimate: Variational}, false},
		{Params{Alpha: 1, Estimate: "map"}, false},
		{Params{Alpha: 1, Estimate: ""}, false},
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
	for _, classes := range [][]string{nil, {"only"}} {
		if err := r.Init(&framework.Setup{K: 1, Classes: classes}); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("classes %v: err = %v", classes, err)
		}
	}
	if err := r.Init(nil); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("nil setup: err = %v", err)
	}
}
