package biasprecision

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// crowdStats draws per-annotator statistics of R annotators with noise
// variances spread around 1 and biases around 0.
func crowdStats(R int, seed uint64) (n, sy, sq []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	n, sy, sq = make([]float64, R), make([]float64, R), make([]float64, R)
	for r := range R {
		sd := math.Exp(rng.NormFloat64() * 0.5)
		b := rng.NormFloat64() * 0.7
		n[r] = float64(1 + rng.IntN(30))
		for range int(n[r]) {
			e := b + sd*rng.NormFloat64()
			sy[r] += e
			sq[r] += e*e + 0.1
		}
	}
	return n, sy, sq
}

// TestHyperGrad: hyperGrad is the gradient of logZ in (log a₀, log β₀,
// log κ₀), by central differences, with and without biases.
func TestHyperGrad(t *testing.T) {
	n, sy, sq := crowdStats(12, 1)
	for _, bias := range []bool{true, false} {
		l := &learned{k0: 2.5, a0: 1.7, b0: 0.9}
		g := l.hyperGrad(n, sy, sq, bias)
		u := []float64{math.Log(l.a0), math.Log(l.b0), math.Log(l.k0)}
		f := func(v []float64) float64 {
			return logZ(math.Exp(v[2]), math.Exp(v[0]), math.Exp(v[1]), n, sy, sq, bias)
		}
		for i := range 3 {
			const h = 1e-6
			up, dn := append([]float64(nil), u...), append([]float64(nil), u...)
			up[i] += h
			dn[i] -= h
			fd := (f(up) - f(dn)) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("bias %v, coordinate %d: gradient %.10g, central difference %.10g", bias, i, g[i], fd)
			}
		}
	}
}

// learnedModel is an initialised model with prior = "learned" over R
// annotators (no corpus: s₀² = prior_var or 1).
func learnedModel(t *testing.T, R int, bias bool) *Model {
	t.Helper()
	p := Defaults()
	p.Prior = PriorLearned
	if !bias {
		p.Bias = None
	}
	return modelOf(t, R, p)
}

// modelOf is a model with settings p over R annotators a0, a1, …,
// initialised without a corpus.
func modelOf(t *testing.T, R int, p Params) *Model {
	t.Helper()
	m, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, R)
	for r := range names {
		names[r] = fmt.Sprint("a", r)
	}
	if err := m.Init(&framework.Setup{Annotators: names}); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLearnedBoundIsMarginal: after a batch update the annotators' part of
// the bound equals the log marginal likelihood of the statistics,
// Σ_r log Z_r − (n_r/2) ln 2π (conjugacy: the posterior is exact given the
// statistics), the hyperparameters are a stationary point of it (or at a
// bound), and the textbook form of the Normal–Gamma terms gives the same bound as learnedKL's.
func TestLearnedBoundIsMarginal(t *testing.T) {
	for _, bias := range []bool{true, false} {
		for seed := uint64(1); seed <= 3; seed++ {
			R := 12
			n, sy, sq := crowdStats(R, seed)
			m := learnedModel(t, R, bias)
			st := &Stats{N: n, SY: sy, SQ: sq}
			if err := m.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
			l := m.learn
			want := logZ(l.k0, l.a0, l.b0, n, sy, sq, bias)
			for _, nr := range n {
				want -= nr / 2 * math.Log(2*math.Pi)
			}
			got := m.ELBO(st, framework.BatchStep(1))
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("bias %v, seed %d: bound %.12g, log marginal likelihood %.12g", bias, seed, got, want)
			}
			g := l.hyperGrad(n, sy, sq, bias)
			if l.a0 < hyperA[1] && l.k0 < hyperK[1] && math.Abs(g[0])+math.Abs(g[1])+math.Abs(g[2]) > 1e-6 {
				t.Errorf("bias %v, seed %d: gradient %v at the learned hyperparameters (a₀ %v, β₀ %v, κ₀ %v)", bias, seed, g, l.a0, l.b0, l.k0)
			}
			// The textbook Normal–Gamma terms.
			lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
			kl := 0.0
			for r, p := range m.Prec {
				a, rate, el := l.shape[r], l.rate[r], l.elogp[r]
				kl += l.a0*math.Log(l.b0) - lg(l.a0) + (l.a0-1)*el - l.b0*p
				kl += a - math.Log(rate) + lg(a) + (1-a)*mathext.Digamma(a)
				if bias {
					mu, kr := m.Bias[r], l.kap[r]
					kl += 0.5*math.Log(l.k0/(2*math.Pi)) + 0.5*el - 0.5*l.k0*(p*mu*mu+1/kr)
					kl += 0.5 * (1 + math.Log(2*math.Pi) - math.Log(kr) - el)
				}
			}
			if k := m.learnedKL(); math.Abs(k-kl) > 1e-9*math.Max(1, math.Abs(kl)) {
				t.Errorf("bias %v, seed %d: learnedKL %.12g, textbook %.12g", bias, seed, k, kl)
			}
		}
	}
}

// TestLearnedPools: annotators of one noise level give a prior that pools
// them (a₀ large: their precisions near the common one), annotators of
// very different noise levels a broad one; an annotator with one answer
// gets about the crowd's typical precision under the first and is left to
// its answer under the second.
func TestLearnedPools(t *testing.T) {
	const R = 40
	rng := rand.New(rand.NewPCG(7, 7))
	run := func(spread float64) (a0 float64, lone float64) {
		n, sy, sq := make([]float64, R), make([]float64, R), make([]float64, R)
		for r := range R {
			sd := math.Exp(spread * rng.NormFloat64())
			n[r] = 20
			if r == 0 {
				n[r] = 1
			}
			for range int(n[r]) {
				e := sd * rng.NormFloat64()
				sy[r] += e
				sq[r] += e * e
			}
		}
		sq[0], sy[0] = 9, 3 // one answer, residual 3: precision 1/9 alone
		m := learnedModel(t, R, false)
		if err := m.Update(context.Background(), &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		return m.learn.a0, m.Prec[0]
	}
	aSame, pSame := run(0)
	aMixed, pMixed := run(1.5)
	if !(aSame > 10*aMixed) {
		t.Errorf("shape a₀ %v for alike annotators, %v for unlike ones: want the first far larger", aSame, aMixed)
	}
	if !(pSame > 0.5 && pMixed < pSame) {
		t.Errorf("the one-answer annotator's precision: %v among alike annotators (want near 1), %v among unlike ones (want lower)", pSame, pMixed)
	}
}

// TestLearnedFloor: an annotator whose residuals vanish (the truth follows
// it) does not drive β₀ to 0 and its precision to infinity: β₀ stays at
// least s₀²/2 and the precision below (a₀ + n/2)/β₀.
func TestLearnedFloor(t *testing.T) {
	const R = 10
	n, sy, sq := crowdStats(R, 4)
	n[0], sy[0], sq[0] = 20, 0, 1e-12
	m := learnedModel(t, R, true)
	if err := m.Update(context.Background(), &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if l := m.learn; l.b0 < m.S0/2*(1-1e-12) {
		t.Errorf("β₀ = %v below s₀²/2 = %v", l.b0, m.S0/2)
	}
	if p, top := m.Prec[0], (m.learn.a0+10)/m.learn.b0; !(p <= top*(1+1e-12)) {
		t.Errorf("precision %v of the annotator without residuals, want at most (a₀ + n/2)/β₀ = %v", p, top)
	}
}

// TestSimulatePrior: count annotators drawn from the Normal–Gamma prior:
// precisions average shape/rate, biases have variance E[1/(κp)] (for
// shape > 1, rate/(κ(shape − 1))), none without kappa; the same seed draws
// the same crowd; bad settings are errors.
func TestSimulatePrior(t *testing.T) {
	truth := &framework.Truth{Value: make([]float64, 50)}
	sim := func(sp SimulateParams) (framework.Simulation, error) {
		return (&Model{}).Simulate(framework.ParamsFunc(func(into any) error {
			*into.(*SimulateParams) = sp
			return nil
		}), truth)
	}
	sp := SimulateParams{Count: 4000, Shape: 3, Rate: 1.5, Kappa: 2}
	s, err := sim(sp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(2, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	st := s.(*simulation)
	mp, vb := 0.0, 0.0
	for r := range st.prec {
		mp += st.prec[r] / 4000
		vb += st.bias[r] * st.bias[r] / 4000
	}
	if math.Abs(mp-2) > 0.06 {
		t.Errorf("mean precision %v, want shape/rate = 2", mp)
	}
	if want := 1.5 / (2 * 2); math.Abs(vb-want) > 0.05 {
		t.Errorf("bias variance %v, want rate/(κ(shape − 1)) = %v", vb, want)
	}
	again, _ := sim(sp)
	if _, err := again.Sample(2, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	if a := again.(*simulation); a.prec[17] != st.prec[17] || a.bias[99] != st.bias[99] {
		t.Error("the same seed drew another crowd")
	}
	nob, _ := sim(SimulateParams{Count: 5, Shape: 1, Rate: 1})
	if _, err := nob.Sample(1, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	for _, b := range nob.(*simulation).bias {
		if b != 0 {
			t.Errorf("bias %v without kappa", b)
		}
	}
	for _, bad := range []SimulateParams{{Count: 0, Shape: 1, Rate: 1}, {Count: 3, Shape: 0, Rate: 1}, {Count: 3, Shape: 1, Rate: 1, Kappa: -1}, {Count: 3, Shape: 1, Rate: 1, Bias: []float64{0}, Precision: []float64{1}}} {
		if _, err := sim(bad); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%+v: %v, want ErrBadInput", bad, err)
		}
	}
}

// BenchmarkLearnedUpdate: one batch update of the learned prior (the
// hyperparameters' fit and the posteriors) for 500 annotators, from the
// previous update's state.
func BenchmarkLearnedUpdate(b *testing.B) {
	const R = 500
	n, sy, sq := crowdStats(R, 9)
	p := Defaults()
	p.Prior = PriorLearned
	m, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, R)
	for r := range names {
		names[r] = fmt.Sprint("a", r)
	}
	if err := m.Init(&framework.Setup{Annotators: names}); err != nil {
		b.Fatal(err)
	}
	st := &Stats{N: n, SY: sy, SQ: sq}
	ctx := context.Background()
	if err := m.Update(ctx, st, framework.BatchStep(1)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		// statistics that move a little between updates, as in EM
		sq[i%R] *= 1.001
		if err := m.Update(ctx, st, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLearnBias: with learn = "bias" an update moves κ₀ alone: a₀ and β₀
// stay the fixed prior's (1 + ν₀/2, ν₀s₀²/2), κ₀ is where Σ_r log Z_r is
// stationary in log κ₀ (hyperGrad) and no κ₀ nearby has a larger Σ_r log
// Z_r; it grows when the biases spread no more than their answers' noise
// explains and shrinks when they spread more; learn = "all" moves a₀ and
// β₀ too. Bad settings are errors.
func TestLearnBias(t *testing.T) {
	const R = 60
	fit := func(learn string, spread float64) *Model {
		rng := rand.New(rand.NewPCG(11, 3))
		n, sy, sq := make([]float64, R), make([]float64, R), make([]float64, R)
		for r := range R {
			b := spread * rng.NormFloat64()
			n[r] = float64(2 + rng.IntN(4))
			for range int(n[r]) {
				e := b + rng.NormFloat64()
				sy[r] += e
				sq[r] += e*e + 0.05
			}
		}
		p := Defaults()
		p.Prior, p.Learn, p.BiasAnchor = PriorLearned, learn, AnchorNone // type-II ML (with the anchor: TestLearnBiasAnchored)
		m := modelOf(t, R, p)
		a0, b0 := m.learn.a0, m.learn.b0
		if err := m.Update(context.Background(), &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		l := m.learn
		if learn == LearnBias {
			if l.a0 != a0 || l.b0 != b0 {
				t.Errorf("spread %v: a₀, β₀ moved from %v, %v to %v, %v", spread, a0, b0, l.a0, l.b0)
			}
			if g := l.hyperGrad(n, sy, sq, true)[2]; math.Abs(g) > 1e-6 && l.k0 > hyperK[0] && l.k0 < hyperK[1] {
				t.Errorf("spread %v: ∂/∂log κ₀ = %v at κ₀ = %v", spread, g, l.k0)
			}
			at := logZ(l.k0, l.a0, l.b0, n, sy, sq, true)
			for _, f := range []float64{0.9, 0.99, 1.01, 1.1} {
				if z := logZ(l.k0*f, l.a0, l.b0, n, sy, sq, true); z > at+1e-9 {
					t.Errorf("spread %v: Σ log Z %v at κ₀·%v above %v at κ₀ = %v", spread, z, f, at, l.k0)
				}
			}
		} else if l.a0 == a0 && l.b0 == b0 {
			t.Errorf("learn = all: a₀, β₀ did not move")
		}
		return m
	}
	alike, apart := fit(LearnBias, 0.05), fit(LearnBias, 3)
	if !(alike.learn.k0 > 10*apart.learn.k0) {
		t.Errorf("κ₀ %v for biases within their noise, %v for biases spread by 3: want the first far larger", alike.learn.k0, apart.learn.k0)
	}
	fit(LearnAll, 1)
	for _, p := range []Params{{Learn: "some", Prior: PriorLearned}, {Learn: LearnBias, Prior: PriorFixed}} {
		if _, err := New(p); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("New(%+v): err = %v", p, err)
		}
	}
}

// TestLearnBiasAnchored: with learn = "bias" and bias_anchor = "mean"
// (anchoredStep) every batch update keeps Σ_r n_r μ_r = 0 and never lowers
// the annotators' part of the bound (ELBO, the function the schedule
// checks, not the update's own algebra); at the fixed point the bound is
// stationary, by central differences of ELBO, in κ₀, in every active
// annotator's κ_r, a_r and β_r, and in its μ_r up to the anchor's
// multiplier (∂ELBO/∂μ_r = λ n_r, one λ for all). An annotator without
// answers keeps the prior.
func TestLearnBiasAnchored(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		const R = 12
		n, sy, sq := crowdStats(R, seed)
		n[3], sy[3], sq[3] = 0, 0, 0
		p := Defaults()
		p.Prior, p.Learn = PriorLearned, LearnBias
		m := modelOf(t, R, p)
		st := &Stats{N: n, SY: sy, SQ: sq}
		anchoredRun(t, m, st, fmt.Sprint("seed ", seed))
		l := m.learn
		if l.kap[3] != l.k0 || l.shape[3] != l.a0 || l.rate[3] != l.b0 || m.Bias[3] != 0 {
			t.Errorf("seed %d: the annotator without answers has κ %v, a %v, β %v, μ %v; want the prior's %v, %v, %v, 0", seed, l.kap[3], l.shape[3], l.rate[3], m.Bias[3], l.k0, l.a0, l.b0)
		}
		d := func(get func() float64, put func(float64)) float64 { return elboDiff(m, st, get, put) }
		if g := d(func() float64 { return l.k0 }, func(v float64) { l.k0 = v }) * l.k0; math.Abs(g) > 1e-4 {
			t.Errorf("seed %d: ∂ELBO/∂log κ₀ = %v at κ₀ = %v", seed, g, l.k0)
		}
		posteriorsStationary(t, m, st, fmt.Sprint("seed ", seed))
	}
}

// posteriorsStationary fails unless m's ELBO on st is stationary, by
// central differences, in every answering annotator's κ_r, a_r and β_r,
// and in μ_r up to one multiplier λ·n_r (the mean anchor's).
func posteriorsStationary(t *testing.T, m *Model, st *Stats, label string) {
	t.Helper()
	l := m.learn
	d := func(get func() float64, put func(float64)) float64 { return elboDiff(m, st, get, put) }
	lam := math.NaN()
	for r, nr := range st.N {
		if nr == 0 {
			continue
		}
		gk := d(func() float64 { return l.kap[r] }, func(v float64) { l.kap[r] = v })
		ga := d(func() float64 { return l.shape[r] }, func(v float64) { l.shape[r] = v; setGamma(m, r) })
		gb := d(func() float64 { return l.rate[r] }, func(v float64) { l.rate[r] = v; setGamma(m, r) })
		for _, g := range []struct {
			name string
			v    float64
		}{{"κ_r", gk}, {"a_r", ga}, {"β_r", gb}} {
			if math.Abs(g.v) > 1e-4 {
				t.Errorf("%s, annotator %d: ∂ELBO/∂%s = %v", label, r, g.name, g.v)
			}
		}
		gm := d(func() float64 { return m.Bias[r] }, func(v float64) { m.Bias[r] = v }) / nr
		if math.IsNaN(lam) {
			lam = gm
		} else if math.Abs(gm-lam) > 1e-4*math.Max(1, math.Abs(lam)) {
			t.Errorf("%s, annotator %d: ∂ELBO/∂μ_r / n_r = %v, the first annotator's %v: not one multiplier", label, r, gm, lam)
		}
	}
}

// anchoredRun applies 300 batch updates of st to m and fails if the bound
// (ELBO, the schedule's function) falls or the mean anchor Σ_r n_r μ_r = 0
// breaks after any of them.
func anchoredRun(t *testing.T, m *Model, st *Stats, label string) {
	t.Helper()
	step := framework.BatchStep(1)
	prev := m.ELBO(st, step)
	for it := range 300 {
		if err := m.Update(context.Background(), st, step); err != nil {
			t.Fatal(err)
		}
		e := m.ELBO(st, step)
		if e < prev-1e-9*math.Abs(prev) {
			t.Fatalf("%s, update %d: the bound fell from %v to %v", label, it, prev, e)
		}
		sum, abs := 0.0, 0.0
		for r, nr := range st.N {
			sum += nr * m.Bias[r]
			abs += nr * math.Abs(m.Bias[r])
		}
		if math.Abs(sum) > 1e-12*abs {
			t.Fatalf("%s, update %d: Σ n_r μ_r = %v", label, it, sum)
		}
		prev = e
	}
}

// elboDiff is the central difference of m's ELBO on st in one coordinate,
// read by get and set by put (which keeps what depends on it consistent).
func elboDiff(m *Model, st *Stats, get func() float64, put func(float64)) float64 {
	step := framework.BatchStep(1)
	x := get()
	h := 1e-6 * math.Max(1, math.Abs(x))
	put(x + h)
	up := m.ELBO(st, step)
	put(x - h)
	dn := m.ELBO(st, step)
	put(x)
	return (up - dn) / (2 * h)
}

// setGamma makes E[p_r] and E[log p_r] follow the posterior's a_r, β_r.
func setGamma(m *Model, r int) {
	l := m.learn
	m.Prec[r] = l.shape[r] / l.rate[r]
	l.elogp[r] = elogGamma(l.shape[r], l.rate[r])
}

// TestLearnBiasAnchoredBlend: under SVI (0 < ρ < 1, scale S ≠ 1) the
// anchored update (learn = "bias" and learn = "precision") is the batch update of the running statistics
// R/W = (1−ρ)·B + ρ·S·A: a model stepped that way ends where a fresh model
// updated once on those statistics does (κ₀ settles to the same maximiser
// from either start), so anchoredStep reads the running statistics, not
// one mini-batch's or their unnormalised sums.
func TestLearnBiasAnchoredBlend(t *testing.T) {
	for _, learn := range []string{LearnBias, LearnPrecision} {
		t.Run(learn, func(t *testing.T) { anchoredBlend(t, learn) })
	}
}

func anchoredBlend(t *testing.T, learn string) {
	const R, rho, S = 12, 0.3, 2.5
	nb, syb, sqb := crowdStats(R, 4)
	na, sya, sqa := crowdStats(R, 5)
	p := Defaults()
	p.Prior, p.Learn, p.BiasPrior = PriorLearned, learn, "3"
	stepped := modelOf(t, R, p)
	ctx := context.Background()
	if err := stepped.Update(ctx, &Stats{N: nb, SY: syb, SQ: sqb}, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if err := stepped.Update(ctx, &Stats{N: na, SY: sya, SQ: sqa}, framework.Step{Rho: rho, Scale: S, Iter: 2}); err != nil {
		t.Fatal(err)
	}
	n, sy, sq := make([]float64, R), make([]float64, R), make([]float64, R)
	for r := range R {
		n[r] = (1-rho)*nb[r] + rho*S*na[r]
		sy[r] = (1-rho)*syb[r] + rho*S*sya[r]
		sq[r] = (1-rho)*sqb[r] + rho*S*sqa[r]
	}
	fresh := modelOf(t, R, p)
	for range 50 { // the same statistics: κ₀'s coordinate steps settle from the fresh start too
		if err := fresh.Update(ctx, &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
	}
	zero := &Stats{N: make([]float64, R), SY: make([]float64, R), SQ: make([]float64, R)}
	for range 50 { // steps that leave R/W as it is (ρ ≈ 0, an empty mini-batch) while κ₀ settles
		if err := stepped.Update(ctx, zero, framework.Step{Rho: 1e-300, Scale: S, Iter: 3}); err != nil {
			t.Fatal(err)
		}
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	if ls, lf := stepped.learn, fresh.learn; !close(ls.k0, lf.k0) || !close(ls.a0, lf.a0) || !close(ls.b0, lf.b0) {
		t.Errorf("(κ₀, a₀, β₀) %v, %v, %v after the blended step; %v, %v, %v from the blended statistics", ls.k0, ls.a0, ls.b0, lf.k0, lf.a0, lf.b0)
	}
	for r := range R {
		if !close(stepped.Bias[r], fresh.Bias[r]) || !close(stepped.Prec[r], fresh.Prec[r]) {
			t.Errorf("annotator %d: μ, E[p] %v, %v after the blended step; %v, %v from the blended statistics", r, stepped.Bias[r], stepped.Prec[r], fresh.Bias[r], fresh.Prec[r])
		}
	}
}
