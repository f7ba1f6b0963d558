package topics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

// slowFixture is a layer whose K topics are nearly equal (ζ_kv = 1 + a
// little noise, as a random start's), with documents drawn from planted
// topics: a regime where plain sweeps creep towards their fixed point
// (the numpy cross-check's first E-steps).
func slowFixture(t *testing.T, k int, accel string) (*Layer, *framework.Corpus) {
	t.Helper()
	c, _, err := synth.LDA(synth.LDASpec{D: 30, V: 40, K: k, DocLen: 20, Alpha: 0.3, TopicConc: 0.1}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.K, cfg.Alpha, cfg.Tau, cfg.FreshAccel = k, 0.1, 0.1, accel
	l, err := New(cfg, c.V)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range l.Zeta {
		l.Zeta[i] = 1 + 0.1*rng.Float64()
	}
	l.Refresh()
	return l, c
}

// TestFreshSweepsReachTheFixedPoint: SQUAREM's fresh local step ends where
// plain sweeps end when they are run to a tight tolerance (the same γ_d
// and bound), in fewer sweeps, and a plain local step stopped after as few
// sweeps has not got there.
func TestFreshSweepsReachTheFixedPoint(t *testing.T) {
	plain, c := slowFixture(t, 3, "none")
	plain.LocalIters, plain.LocalTol = 100000, 1e-10
	sq, _ := slowFixture(t, 3, "squarem")
	sq.LocalIters, sq.LocalTol = 100000, 1e-10
	ds := framework.NewDocState(3, 64)
	s := plain.NewScratch()
	var nPlain, nSq int
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		np := plain.Infer(ds, nil, s)
		want, wantL := slices.Clone(ds.Gamma), docELBO(plain, ds)
		ns := sq.Infer(ds, nil, s)
		if diff := cmp.Diff(want, ds.Gamma, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
			t.Errorf("doc %d: SQUAREM's γ (-plain +squarem):\n%s", i, diff)
		}
		if got := docELBO(sq, ds); !(got >= wantL-1e-9*(1+math.Abs(wantL))) {
			t.Errorf("doc %d: SQUAREM's bound %v below plain sweeps' %v", i, got, wantL)
		}
		nPlain += np
		nSq += ns
	}
	if !(float64(nSq) < 0.5*float64(nPlain)) {
		t.Errorf("SQUAREM took %d sweeps, plain %d: want fewer than half", nSq, nPlain)
	}
	t.Logf("sweeps: plain %d, SQUAREM %d", nPlain, nSq)

	// With a cap of 20 sweeps (the numpy cross-check's), SQUAREM is at the
	// fixed point on more documents than plain sweeps.
	farPlain, farSq := 0, 0
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		plain.LocalIters, plain.LocalTol = 100000, 1e-10
		plain.Infer(ds, nil, s)
		want := slices.Clone(ds.Gamma)
		plain.LocalIters, plain.LocalTol = 20, 0
		plain.Infer(ds, nil, s)
		if !cmp.Equal(want, ds.Gamma, cmpopts.EquateApprox(0, 1e-3)) {
			farPlain++
		}
		sq.LocalIters, sq.LocalTol = 20, 0
		sq.Infer(ds, nil, s)
		if !cmp.Equal(want, ds.Gamma, cmpopts.EquateApprox(0, 1e-3)) {
			farSq++
		}
	}
	t.Logf("documents not at the fixed point after 20 sweeps: plain %d, SQUAREM %d (of %d)", farPlain, farSq, len(c.Docs))
	if !(2*farSq < farPlain) {
		t.Errorf("after 20 sweeps %d documents are not at the fixed point with SQUAREM, %d with plain sweeps: want fewer than half as many", farSq, farPlain)
	}
}

// TestFreshSweepsState: after a fresh local step with SQUAREM the
// document's state is a sweep's: γ = α + Σ_v n_dv φ_dv, E[log θ_d] and φ̄_d
// from them, the bound from the sweep's normalisers equal to the bound
// with logarithms, and the last sweep's change below LocalTol.
func TestFreshSweepsState(t *testing.T) {
	l, c := slowFixture(t, 4, "squarem")
	ds := framework.NewDocState(4, 64)
	s := l.NewScratch()
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		if n := l.Infer(ds, nil, s); n >= l.LocalIters {
			t.Fatalf("doc %d: not converged in %d sweeps", i, n)
		}
		g := make([]float64, l.K)
		bar := make([]float64, l.K)
		for k := range g {
			g[k] = l.Alpha
		}
		for j, n := range ds.Doc.Counts {
			for k, p := range ds.PhiRow(j) {
				g[k] += n * p
				bar[k] += n * p / ds.Doc.N
			}
		}
		if diff := cmp.Diff(g, ds.Gamma, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
			t.Errorf("doc %d: γ is not α + Σ n φ (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(bar, ds.PhiBar, cmpopts.EquateApprox(1e-12, 1e-15)); diff != "" {
			t.Errorf("doc %d: φ̄ (-want +got):\n%s", i, diff)
		}
		e := make([]float64, l.K)
		ElogDirichlet(e, ds.Gamma)
		if diff := cmp.Diff(e, ds.ElogTheta, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
			t.Errorf("doc %d: E[log θ] (-want +got):\n%s", i, diff)
		}
		if got, want := l.DocELBO(ds), l.thetaELBO(ds.Gamma, ds.ElogTheta)+l.wordsWithLogs(ds); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("doc %d: DocELBO from the normalisers %v, with logarithms %v", i, got, want)
		}
		if ch := l.Sweep(ds, nil, s); !(ch < l.LocalTol) {
			t.Errorf("doc %d: one more sweep moves γ by %v, want < %v", i, ch, l.LocalTol)
		}
	}
}

// TestFreshSweepsNoneIsPlain: fresh_accel = "none" and every warm local
// step are plain sweeps, bit for bit.
func TestFreshSweepsNoneIsPlain(t *testing.T) {
	for _, accel := range []string{"none", "squarem"} {
		l, c := slowFixture(t, 3, accel)
		ds := framework.NewDocState(3, 64)
		s := l.NewScratch()
		for i := range c.Docs {
			ds.Bind(i, &c.Docs[i], nil)
			var warm []float64
			if accel == "squarem" { // the warm path: a γ from a fresh step
				l.Infer(ds, nil, s)
				warm = slices.Clone(ds.Gamma)
				warm[0] += 1
			}
			n := l.Infer(ds, warm, s)
			got := slices.Clone(ds.Gamma)
			l.Start(ds, warm)
			m := l.LocalIters
			for it := 1; it <= l.LocalIters; it++ {
				if l.Sweep(ds, nil, s) < l.LocalTol {
					m = it
					break
				}
			}
			if n != m || !slices.Equal(got, ds.Gamma) {
				t.Errorf("%s, doc %d: Infer %d sweeps %v, plain %d sweeps %v", accel, i, n, got, m, ds.Gamma)
			}
		}
	}
}

// TestSquaremStep checks the step on hand-computed sequences.
func TestSquaremStep(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name       string
		g0, g1, g2 []float64
		alpha      float64
		want       float64
	}{
		// 1 → 2 → 2.5 halves the distance to 3 each time: s = −2 lands on
		// 3 = 1 + 4·1 + 4·(−0.5).
		{"geometric", []float64{1, 1}, []float64{2, 1}, []float64{2.5, 1}, 0.1, -2},
		{"still", []float64{1, 1}, []float64{1, 1}, []float64{1, 1}, 0.1, -1},
		{"no faster than a sweep", []float64{1, 1}, []float64{2, 1}, []float64{1, 1}, 0.1, -1},
		{"not a number", []float64{nan, 1}, []float64{2, 1}, []float64{2.5, 1}, 0.1, -1},
		// 4 → 2 → 1.5 goes to 4/3 (s = −4/3); with α = 1.4 that is out of
		// F's range, and moving s halfway to −1 twice (−1.083…) gives
		// γ'_0 ≈ 1.427.
		{"kept above alpha", []float64{4, 2}, []float64{2, 2}, []float64{1.5, 2}, 1.4, 0},
	} {
		got := squaremStep(tc.g0, tc.g1, tc.g2, tc.alpha)
		if tc.want != 0 {
			if got != tc.want {
				t.Errorf("%s: step %v, want %v", tc.name, got, tc.want)
			}
			continue
		}
		// The admissibility case: the full step is inadmissible, the one
		// returned is admissible and between it and −1.
		full := -math.Sqrt(sq(tc.g1[0]-tc.g0[0]) / sq(tc.g2[0]-2*tc.g1[0]+tc.g0[0]))
		if y := extrapolate(tc.g0, tc.g1, tc.g2, full); y[0] >= tc.alpha {
			t.Fatalf("%s: the full step %v is admissible (%v): a bad fixture", tc.name, full, y)
		}
		if !(got > full && got < -1) {
			t.Errorf("%s: step %v, want in (%v, −1)", tc.name, got, full)
		}
		for k, y := range extrapolate(tc.g0, tc.g1, tc.g2, got) {
			if !(y >= tc.alpha) {
				t.Errorf("%s: step %v gives γ'_%d = %v < α = %v", tc.name, got, k, y, tc.alpha)
			}
		}
	}
}

func sq(x float64) float64 { return x * x }

func extrapolate(g0, g1, g2 []float64, s float64) []float64 {
	y := make([]float64, len(g0))
	for k, x := range g0 {
		r, v := g1[k]-x, g2[k]-2*g1[k]+x
		y[k] = x - 2*s*r + s*s*v
	}
	return y
}
