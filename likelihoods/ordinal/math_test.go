package ordinal

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

var testCuts = []float64{-2.5, -0.4, 0.1, 3}

// level against the naive difference of two logistic CDFs (where it is well
// conditioned) and its derivatives against central differences.
func TestLevelDerivatives(t *testing.T) {
	naive := func(c int, s float64, b []float64) float64 {
		hi, lo := 1.0, 0.0
		if c < len(b) {
			hi = sigmoid(b[c] - s)
		}
		if c > 0 {
			lo = sigmoid(b[c-1] - s)
		}
		return math.Log(hi - lo)
	}
	const h = 1e-6
	for c := 0; c <= len(testCuts); c++ {
		for _, s := range []float64{-6, -1.3, 0, 0.2, 2.7, 8} {
			lp, g, du, dl := level(c, s, testCuts)
			if want := naive(c, s, testCuts); math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("level %d at s = %v: log p = %.15g, naive %.15g", c, s, lp, want)
			}
			if gs := slope(c, s, testCuts); math.Abs(gs-g) > 1e-15 {
				t.Errorf("level %d at s = %v: slope %.15g, level's g %.15g", c, s, gs, g)
			}
			fd := (logLevel(c, s+h, testCuts) - logLevel(c, s-h, testCuts)) / (2 * h)
			if math.Abs(fd-g) > 1e-7 {
				t.Errorf("level %d at s = %v: ∂/∂s = %.10g, central differences %.10g", c, s, g, fd)
			}
			for i, want := range map[int]float64{c: du, c - 1: dl} {
				if i < 0 || i >= len(testCuts) {
					continue
				}
				b := append([]float64(nil), testCuts...)
				b[i] += h
				up := logLevel(c, s, b)
				b[i] -= 2 * h
				fd := (up - logLevel(c, s, b)) / (2 * h)
				if math.Abs(fd-want) > 1e-6*math.Max(1, math.Abs(fd)) {
					t.Errorf("level %d at s = %v: ∂/∂b_%d = %.10g, central differences %.10g", c, s, i, want, fd)
				}
			}
		}
	}
	// Far tails: no cancellation, no overflow.
	if lp := logLevel(2, 60, testCuts); !(lp < -50) || math.IsInf(lp, 0) {
		t.Errorf("log p(level 2 | s = 60) = %v, want a finite number near −60", lp)
	}
	if lp := logLevel(1, 0, []float64{0, 800}); math.Abs(lp-math.Log(0.5)) > 1e-12 {
		t.Errorf("log p for a gap of 800 = %v, want log ½", lp)
	}
}

// The curvature −∂²/∂s² log p(c | s) never exceeds M_c (the bound's
// premise), and comes close to it: end levels near 1/4 far out, interior
// levels near 1/2 for a narrow interval.
func TestCurvatureBound(t *testing.T) {
	const h = 1e-4
	for _, b := range [][]float64{testCuts, {-0.01, 0.01}, {-3, -2.999, 5}} {
		C := len(b) + 1
		worst := make([]float64, C)
		for c := range C {
			for s := -12.0; s <= 12; s += 0.01 {
				curv := -(logLevel(c, s+h, b) - 2*logLevel(c, s, b) + logLevel(c, s-h, b)) / (h * h)
				worst[c] = math.Max(worst[c], curv)
				if curv > Curvature(c, C)+1e-5 {
					t.Fatalf("cuts %v level %d at s = %.2f: curvature %.6g > M_c = %v", b, c, s, curv, Curvature(c, C))
				}
			}
		}
		t.Logf("cuts %v: largest curvature per level %.4f", b, worst)
	}
}

// randomDoc is a document of L words with random counts, φ and λ.
func randomDoc(rng *rand.Rand, K, C, L int) *framework.DocState {
	doc := &framework.Doc{}
	for j := range L {
		n := float64(1 + rng.IntN(3))
		doc.Words = append(doc.Words, int32(j))
		doc.Counts = append(doc.Counts, n)
		doc.N += n
	}
	d := framework.NewDocState(K, L)
	d.Bind(0, doc, nil)
	for j := range L {
		synth.Dirichlet(d.PhiRow(j), 0.7, rng)
	}
	d.UpdatePhiBar()
	tg := framework.NewCategorical(C)
	for c := range tg.Log {
		tg.Log[c] = rng.NormFloat64()
	}
	tg.Finalize()
	d.Target = tg
	return d
}

func testResponse(t *testing.T, K int, eta, cuts []float64) *Response {
	t.Helper()
	r, err := New(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	classes := make([]string, len(cuts)+1)
	for c := range classes {
		classes[c] = string(rune('a' + c))
	}
	if err := r.Init(&framework.Setup{K: K, Classes: classes}); err != nil {
		t.Fatal(err)
	}
	copy(r.Eta, eta)
	copy(r.Cuts, cuts)
	return r
}

// The bound is below E_q[log p(c | z̄)], estimated by Monte Carlo over
// z ~ φ (each token drawn independently), for every level, by more than
// the Monte Carlo error; and it is exact for a document of one topic.
func TestBoundBelowExpectation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const K, C, draws = 4, 5, 40000
	eta := []float64{-3, 4, 0.5, 6}
	r := testResponse(t, K, eta, testCuts)
	for i := range 6 {
		d := randomDoc(rng, K, C, 1+i)
		mean, v := r.moments(d)
		sums := make([]float64, C)
		sq := make([]float64, C)
		for range draws {
			s := 0.0
			for j, n := range d.Doc.Counts {
				for range int(n) {
					s += eta[synth.Categorical(d.PhiRow(j), rng)]
				}
			}
			s /= d.Doc.N
			for c := range C {
				lp := logLevel(c, s, testCuts)
				sums[c] += lp
				sq[c] += lp * lp
			}
		}
		for c := range C {
			e := sums[c] / draws
			se := math.Sqrt((sq[c]/draws - e*e) / draws)
			b := logLevel(c, mean, testCuts) - 0.5*Curvature(c, C)*v
			if b > e+4*se {
				t.Errorf("document %d (N = %v) level %d: bound %.5f above E_q[log p] = %.5f ± %.5f", i, d.Doc.N, c, b, e, se)
			}
			if i == 5 && c == 2 {
				t.Logf("N = %v, V = %.3f: level %d bound %.4f, E_q[log p] %.4f, Jensen's log p(ŝ) %.4f", d.Doc.N, v, c, b, e, logLevel(c, mean, testCuts))
			}
		}
	}
	d := randomDoc(rng, K, C, 3)
	for j := range 3 {
		row := d.PhiRow(j)
		clear(row)
		row[1] = 1
	}
	d.UpdatePhiBar()
	if _, v := r.moments(d); v != 0 {
		t.Errorf("a document of one topic has V = %v, want 0", v)
	}
}

// PhiTermQuad's minorant: per token ρ·φ − c(η·φ)², times n_dv, plus the
// rest, is ≤ the document's bound for any φ_dv and equal at the current
// one (so the topic layer's exact maximiser of it raises the bound).
func TestPhiQuadMinorant(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	const K, C = 4, 5
	r := testResponse(t, K, []float64{-5, 7, 1, 3}, testCuts)
	for i := range 8 {
		d := repeatedWordDoc(rng, K, C, float64(2+i))
		lc := r.NewLocal().(*local)
		lc.Begin(d)
		rho := make([]float64, K)
		cq, u := lc.PhiTermQuad(rho, d, 1)
		n := d.Doc.Counts[1]
		surrogate := func(phi []float64) float64 {
			t := dot(u, phi)
			return n * (dot(rho, phi) - cq*t*t)
		}
		row := d.PhiRow(1)
		old := append([]float64(nil), row...)
		f0 := r.DocELBO(d)
		s0 := surrogate(old)
		for range 50 {
			synth.Dirichlet(row, 0.3, rng)
			d.UpdatePhiBar()
			f := r.DocELBO(d)
			if s := surrogate(row); f-f0 < s-s0-1e-12 {
				t.Fatalf("doc %d: the bound rose by %.6g where the minorant rose by %.6g: not a minorant", i, f-f0, s-s0)
			}
		}
		copy(row, old)
		d.UpdatePhiBar()
	}
}

// The M-step's gradient (objective, in η and b) against central
// differences, and the solver's chain rule in the log-gaps.
func TestObjectiveGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	const K, C = 3, 5
	r := testResponse(t, K, []float64{1, -2, 0.5}, testCuts)
	s := r.NewStats()
	for range 7 {
		r.Accumulate(s, randomDoc(rng, K, C, 4))
	}
	st := s.(*Stats)
	ge, gb := make([]float64, K), make([]float64, C-1)
	eta, cuts := append([]float64(nil), r.Eta...), append([]float64(nil), r.Cuts...)
	r.objective(eta, cuts, st, 2.5, ge, gb)
	const h = 1e-6
	f := func() float64 { return r.objective(eta, cuts, st, 2.5, nil, nil) }
	for i, v := range [][]float64{eta, cuts} {
		g := [][]float64{ge, gb}[i]
		for k := range v {
			x := v[k]
			v[k] = x + h
			up := f()
			v[k] = x - h
			down := f()
			v[k] = x
			if fd := (up - down) / (2 * h); math.Abs(fd-g[k]) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂L/∂%s[%d] = %.10g, central differences %.10g", []string{"η", "b"}[i], k, g[k], fd)
			}
		}
	}
	obj := r.solverObjective(st, 2.5)
	x := make([]float64, K+C-1)
	pack(x, eta, cuts)
	g := make([]float64, len(x))
	obj(x, g)
	for i := range x {
		xi := x[i]
		x[i] = xi + h
		up := obj(x, nil)
		x[i] = xi - h
		down := obj(x, nil)
		x[i] = xi
		if fd := (up - down) / (2 * h); math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("solver variable %d: gradient %.10g, central differences %.10g", i, g[i], fd)
		}
	}
}

// TestLogPriorByHand: the cut points' log prior is a_0 Σ_c log p(c | 0; b)
// over every level, the top one included, with p(c | 0) = σ(b_c) −
// σ(b_{c−1}) (σ(b_{−1}) = 0, σ(b_{C−1}) = 1), and its gradient is the
// derivative of that sum (central differences). Issue 29: a prior missing
// its top level was caught only by rounding noise in a Merge check.
func TestLogPriorByHand(t *testing.T) {
	cuts := []float64{-1.3, -0.2, 0.4, 2.1}
	r := testResponse(t, 2, []float64{0, 0}, cuts)
	r.Config.PriorCount = 1.7
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	hand := func(b []float64) float64 {
		e := 0.0
		for c := 0; c <= len(b); c++ {
			hi, lo := 1.0, 0.0
			if c < len(b) {
				hi = sig(b[c])
			}
			if c > 0 {
				lo = sig(b[c-1])
			}
			e += 1.7 * math.Log(hi-lo)
		}
		return e
	}
	g := make([]float64, len(cuts))
	if got, want := r.logPrior(cuts, g), hand(cuts); math.Abs(got-want) > 1e-12 {
		t.Errorf("logPrior %.15g, by hand %.15g", got, want)
	}
	for i := range cuts {
		up, dn := append([]float64(nil), cuts...), append([]float64(nil), cuts...)
		up[i] += 1e-6
		dn[i] -= 1e-6
		if fd := (hand(up) - hand(dn)) / 2e-6; math.Abs(fd-g[i]) > 1e-6 {
			t.Errorf("∂logPrior/∂b_%d = %.10g, central difference %.10g", i, g[i], fd)
		}
	}
}

// The affine form (framework.PhiQuadraticAffine) is PhiTermQuad's: base +
// s·u equals ρ and QuadWord's c its c, for every word; QuadMoved leaves
// the caches where WordChanged does.
func TestQuadAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 10))
	const K, C = 4, 5
	r := testResponse(t, K, []float64{-5, 7, 1, 3}, testCuts)
	var _ framework.PhiQuadraticAffine = r.NewLocal().(*local)
	for i := range 6 {
		d := repeatedWordDoc(rng, K, C, float64(2+i))
		lc := r.NewLocal().(*local)
		lc.Begin(d)
		base := make([]float64, K)
		u := lc.QuadBase(base, d)
		for j := range d.Doc.Words {
			rho := make([]float64, K)
			cq, uq := lc.PhiTermQuad(rho, d, j)
			s, c := lc.QuadWord(d, j, dot(u, d.PhiRow(j)))
			if !near(c, cq, 1e-14) {
				t.Fatalf("doc %d word %d: QuadWord's c = %v, PhiTermQuad's %v", i, j, c, cq)
			}
			for k := range rho {
				if uq[k] != u[k] || !near(base[k]+s*u[k], rho[k], 1e-12) {
					t.Fatalf("doc %d word %d: base + s·u = %v at %d, ρ = %v", i, j, base[k]+s*u[k], k, rho[k])
				}
			}
			// Move the word's φ: QuadMoved and WordChanged agree.
			row := d.PhiRow(j)
			old := append([]float64(nil), row...)
			synth.Dirichlet(row, 0.5, rng)
			mom := func(p []float64) (t, q float64) {
				for k, x := range p {
					t += x * u[k]
					q += x * u[k] * u[k]
				}
				return t, q
			}
			t0, q0 := mom(old)
			t1, q1 := mom(row)
			a := *lc
			a.QuadMoved(d, j, t0, q0, t1, q1)
			lc.WordChanged(d, j, old)
			if !near(a.es, lc.es, 1e-12) || !near(a.vsum, lc.vsum, 1e-12) {
				t.Fatalf("doc %d word %d: QuadMoved gives η·s %v, N²V %v; WordChanged %v, %v", i, j, a.es, a.vsum, lc.es, lc.vsum)
			}
		}
	}
}

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*(1+math.Max(math.Abs(a), math.Abs(b)))
}

// repeatedWordDoc is randomDoc's document of 3 words whose second word
// has n tokens.
func repeatedWordDoc(rng *rand.Rand, K, C int, n float64) *framework.DocState {
	d := randomDoc(rng, K, C, 3)
	d.Doc.Counts[1] = n
	d.Doc.N = d.Doc.Counts[0] + d.Doc.Counts[1] + d.Doc.Counts[2]
	d.UpdatePhiBar()
	return d
}
