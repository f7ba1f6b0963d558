package topics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

func fixture(t *testing.T, k int) (*Layer, *framework.Corpus) {
	t.Helper()
	c, _, err := synth.LDA(synth.LDASpec{D: 40, V: 30, K: k, DocLen: 25, Alpha: 0.3, TopicConc: 0.1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.K, cfg.Alpha, cfg.Tau = k, 0.3, 0.2
	l, err := New(cfg, c.V)
	if err != nil {
		t.Fatal(err)
	}
	l.Init(c, rand.New(rand.NewPCG(3, 4)))
	return l, c
}

// docELBO is document d's whole topic-layer ELBO with E[log θ] recomputed
// from γ (so that γ can be perturbed independently of φ).
func docELBO(l *Layer, ds *framework.DocState) float64 {
	ElogDirichlet(ds.ElogTheta, ds.Gamma)
	return l.DocELBO(ds) + l.WordELBO(ds)
}

// TestGammaIsMaximiser: after a sweep, γ is the exact maximiser of the ELBO
// given φ (MODEL.md §1), so every coordinate perturbation lowers the bound
// and the central finite difference of the gradient vanishes.
func TestGammaIsMaximiser(t *testing.T) {
	l, c := fixture(t, 4)
	ds := framework.NewDocState(l.K, 64)
	s := l.NewScratch()
	for i := range 5 {
		ds.Bind(i, &c.Docs[i], nil)
		l.Start(ds, nil)
		l.Sweep(ds, nil, s)
		base := docELBO(l, ds)
		for k := range ds.Gamma {
			g := ds.Gamma[k]
			h := 1e-5 * math.Max(1, g)
			ds.Gamma[k] = g + h
			up := docELBO(l, ds)
			ds.Gamma[k] = g - h
			down := docELBO(l, ds)
			ds.Gamma[k] = g
			if grad := (up - down) / (2 * h); math.Abs(grad) > 1e-5 {
				t.Errorf("doc %d: ∂L/∂γ_%d = %g at the update, want 0", i, k, grad)
			}
			if up > base+1e-12 || down > base+1e-12 {
				t.Errorf("doc %d: perturbing γ_%d raises the ELBO (%v, %v > %v)", i, k, up, down, base)
			}
		}
	}
}

// linearSup is a supervision term with fixed ρ_vk (its part of the bound is
// Σ_v n_v φ_v·ρ_v), to check the supervised φ update alone.
type linearSup struct{ rho [][]float64 }

func (s linearSup) Begin(*framework.DocState)      {}
func (s linearSup) TargetTerm(*framework.DocState) {}
func (s linearSup) PhiTerm(dst []float64, _ *framework.DocState, j int) {
	for k, r := range s.rho[j] {
		dst[k] += r
	}
}
func (s linearSup) WordChanged(*framework.DocState, int, []float64) {}

func (s linearSup) bound(ds *framework.DocState) float64 {
	e := 0.0
	for j, n := range ds.Doc.Counts {
		for k, p := range ds.PhiRow(j) {
			e += n * p * s.rho[j][k]
		}
	}
	return e
}

// TestPhiIsMaximiser: the φ update of Sweep (unsupervised: the block
// update from exp tables; supervised: word by word with ρ, weighted by w)
// is the maximiser on the simplex given the E[log θ] it was computed from:
// moving mass between any two topics of a word lowers the bound, and the
// gradient along e_i − e_j vanishes. γ is held at the value the φ update
// saw (Sweep updates γ after φ).
func TestPhiIsMaximiser(t *testing.T) {
	l, c := fixture(t, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name   string
		sup    *linearSup
		weight float64
	}{{"unsupervised", nil, 1}, {"supervised", &linearSup{}, 1}, {"supervised, w = 3", &linearSup{}, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			ds := framework.NewDocState(l.K, 64)
			s := l.NewScratch()
			ds.Bind(0, &c.Docs[0], nil)
			l.Start(ds, nil)
			l.Sweep(ds, nil, s)
			l.Sweep(ds, nil, s)
			gamma := append([]float64(nil), ds.Gamma...)
			f := func() float64 { return l.DocELBO(ds) + l.WordELBO(ds) }
			if tc.sup == nil {
				l.Sweep(ds, nil, s)
			} else {
				tc.sup.rho = nil
				for range ds.Doc.Words {
					r := make([]float64, l.K)
					for k := range r {
						r[k] = rng.NormFloat64()
					}
					tc.sup.rho = append(tc.sup.rho, r)
				}
				l.SweepWeighted(ds, tc.sup, tc.weight, s)
				f = func() float64 { return l.DocELBO(ds) + l.WordELBO(ds) + tc.weight*tc.sup.bound(ds) }
			}
			copy(ds.Gamma, gamma)
			ElogDirichlet(ds.ElogTheta, ds.Gamma)
			ds.PhiChanged() // φ is written below
			base := f()
			for j := range ds.Doc.Words {
				row := ds.PhiRow(j)
				for a := 0; a < l.K; a++ {
					for b := 0; b < l.K; b++ {
						if a == b {
							continue
						}
						h := 1e-6 * math.Min(row[a], row[b])
						row[a] += h
						row[b] -= h
						up := f()
						row[a] -= 2 * h
						row[b] += 2 * h
						down := f()
						row[a] += h
						row[b] -= h
						if grad := (up - down) / (2 * h); math.Abs(grad) > 1e-4*ds.Doc.Counts[j] {
							t.Errorf("word %d: directional derivative along e_%d − e_%d = %g, want 0", j, a, b, grad)
						}
						if up > base+1e-12 || down > base+1e-12 {
							t.Errorf("word %d: moving mass between topics %d and %d raises the ELBO", j, a, b)
						}
					}
				}
			}
		})
	}
}

// TestSweepsRaiseELBO: each sweep of the local step can only raise the
// document's ELBO (coordinate ascent).
func TestSweepsRaiseELBO(t *testing.T) {
	l, c := fixture(t, 5)
	ds := framework.NewDocState(l.K, 64)
	s := l.NewScratch()
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		l.Start(ds, nil)
		prev := math.Inf(-1)
		for it := range 15 {
			l.Sweep(ds, nil, s)
			e := l.DocELBO(ds) + l.WordELBO(ds)
			if e < prev-1e-9*math.Abs(prev) {
				t.Fatalf("doc %d sweep %d: ELBO fell from %v to %v", i, it, prev, e)
			}
			prev = e
		}
	}
}

// TestHandFixture: two topics with identical ζ give φ = ½ for every word
// and γ = α + N/2 after one sweep; the batch update then gives ζ = τ + ½ n.
func TestHandFixture(t *testing.T) {
	cfg := Defaults()
	cfg.K, cfg.Alpha, cfg.Tau = 2, 0.5, 0.25
	l, err := New(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	doc := framework.Doc{Words: []int32{0, 2}, Counts: []float64{3, 1}, N: 4}
	ds := framework.NewDocState(2, 2)
	ds.Bind(0, &doc, nil)
	l.Start(ds, nil)
	if diff := cmp.Diff([]float64{2.5, 2.5}, ds.Gamma); diff != "" {
		t.Errorf("γ start (α + N/K) mismatch:\n%s", diff)
	}
	l.Sweep(ds, nil, l.NewScratch())
	opt := cmpopts.EquateApprox(0, 1e-15)
	if diff := cmp.Diff([]float64{0.5, 0.5, 0.5, 0.5}, ds.Phi, opt); diff != "" {
		t.Errorf("φ mismatch:\n%s", diff)
	}
	if diff := cmp.Diff([]float64{2.5, 2.5}, ds.Gamma, opt); diff != "" {
		t.Errorf("γ mismatch:\n%s", diff)
	}
	st := l.NewStats()
	l.Accumulate(st, ds)
	if err := l.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// Word-major ζ: word 0 got 3·½ per topic, word 1 nothing, word 2 ½.
	want := []float64{1.75, 1.75, 0.25, 0.25, 0.75, 0.75}
	if diff := cmp.Diff(want, l.Zeta, opt); diff != "" {
		t.Errorf("ζ after the batch update mismatch:\n%s", diff)
	}
	// E[log β_kv] = ψ(ζ_kv) − ψ(Σ_v ζ_kv), Σ = 2.75.
	if got, wantE := l.ElogBeta[0], digamma(1.75)-digamma(2.75); math.Abs(got-wantE) > 1e-14 {
		t.Errorf("E[log β_00] = %v, want %v", got, wantE)
	}
}

func digamma(x float64) float64 {
	// ψ(x) by recurrence and the asymptotic series, independent of gonum.
	r := 0.0
	for ; x < 20; x++ {
		r -= 1 / x
	}
	x2 := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - x2*(1.0/12-x2*(1.0/120-x2*(1.0/252-x2*(1.0/240-x2/132))))
}

// TestStatsMergeAndStep: merging two shards equals accumulating both; a zero
// step (ρ = 0) leaves ζ unchanged; ρ blends as MODEL.md §5 says.
func TestStatsMergeAndStep(t *testing.T) {
	l, c := fixture(t, 3)
	ds := framework.NewDocState(l.K, 64)
	s := l.NewScratch()
	whole, a, b := l.NewStats(), l.NewStats(), l.NewStats()
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		l.Infer(ds, nil, s)
		l.Accumulate(whole, ds)
		if i < 17 {
			l.Accumulate(a, ds)
		} else {
			l.Accumulate(b, ds)
		}
	}
	ta := slices.Clone(a.(*Stats).touched)
	tb := slices.Clone(b.(*Stats).touched)
	a.Merge(b)
	w, u := whole.(*Stats), a.(*Stats)
	opt := cmpopts.EquateApprox(1e-13, 1e-13)
	if !cmp.Equal(w.Word, u.Word, opt) || !cmp.Equal(w.DocELBO, u.DocELBO, opt) || w.Docs != u.Docs {
		t.Error("merged statistics differ from the union's")
	}
	// The touched rows (which ELBO, Merge and Reset visit) are the union of
	// both shards', each once, and marked.
	want := slices.Sorted(slices.Values(slices.Compact(slices.Sorted(slices.Values(append(ta, tb...))))))
	got := slices.Sorted(slices.Values(u.touched))
	if !cmp.Equal(got, want) || !cmp.Equal(got, slices.Sorted(slices.Values(w.touched))) {
		t.Errorf("touched rows after Merge %v, want the union %v", got, want)
	}
	for v, m := range u.mark {
		if m != slices.Contains(want, int32(v)) {
			t.Errorf("row %d marked %v after Merge", v, m)
		}
	}
	if len(tb) == 0 || len(want) == len(ta) {
		t.Fatalf("the second shard touches no row the first does not: the check cannot fail")
	}
	st := framework.BatchStep(1)
	if ew, eu := l.ELBO(whole, st), l.ELBO(a, st); math.Abs(ew-eu) > 1e-12*math.Abs(ew) {
		t.Errorf("ELBO of merged statistics %v, of the union %v", eu, ew)
	}
	c2 := u
	c2.Reset()
	if len(c2.touched) != 0 || slices.Contains(c2.mark, true) || slices.ContainsFunc(c2.Word, func(x float64) bool { return x != 0 }) {
		t.Errorf("Reset after Merge left rows")
	}
	for i := range c.Docs {
		ds.Bind(i, &c.Docs[i], nil)
		l.Infer(ds, nil, s)
		l.Accumulate(a, ds)
	}
	before := append([]float64(nil), l.Zeta...)
	if err := l.Update(context.Background(), whole, framework.Step{Rho: 0, Scale: 5}); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(before, l.Zeta) {
		t.Error("a zero step changed ζ")
	}
	rho, scale := 0.3, 2.5
	if err := l.Update(context.Background(), whole, framework.Step{Rho: rho, Scale: scale}); err != nil {
		t.Fatal(err)
	}
	for i, z := range l.Zeta {
		want := (1-rho)*before[i] + rho*(l.Tau+scale*w.Word[i])
		if math.Abs(z-want) > 1e-12*math.Abs(want) {
			t.Fatalf("ζ[%d] = %v, want %v", i, z, want)
		}
	}
	// SVI's bound with scale S is the bound of S copies of the batch:
	// statistics of two copies at S/2 give the same (the word term and
	// the documents' terms both scaled, the global terms once).
	twice := l.NewStats()
	twice.Merge(whole)
	twice.Merge(whole)
	st = framework.Step{Rho: rho, Scale: scale}
	if e1, e2 := l.ELBO(whole, st), l.ELBO(twice, framework.Step{Rho: rho, Scale: scale / 2}); math.Abs(e1-e2) > 1e-12*math.Abs(e1) {
		t.Errorf("ELBO at scale %v: %v; of two copies at scale %v: %v", scale, e1, scale/2, e2)
	}
	if e1, e0 := l.ELBO(whole, st), l.ELBO(whole, framework.Step{Rho: rho, Scale: 1}); e1 == e0 {
		t.Errorf("ELBO does not depend on the scale (%v)", e1)
	}
	// A cancelled context stops the update.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Update(ctx, whole, framework.BatchStep(1)); err == nil {
		t.Error("Update ignored a cancelled context")
	}
}

func TestEmptyDocument(t *testing.T) {
	l, _ := fixture(t, 3)
	ds := framework.NewDocState(l.K, 1)
	ds.Bind(0, &framework.Doc{}, nil)
	l.Infer(ds, nil, l.NewScratch())
	for _, g := range ds.Gamma {
		if g != l.Alpha {
			t.Fatalf("empty document: γ = %v, want α", ds.Gamma)
		}
	}
	if e := l.DocELBO(ds) + l.WordELBO(ds); math.Abs(e) > 1e-12 {
		t.Errorf("empty document ELBO = %v, want 0", e)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{
		{K: 0, Alpha: 1, Tau: 1, LocalIters: 1, Init: "seeded", LocalInit: "best"},
		{K: 1, Alpha: 0, Tau: 1, LocalIters: 1, Init: "seeded", LocalInit: "best"},
		{K: 1, Alpha: 1, Tau: math.NaN(), LocalIters: 1, Init: "seeded", LocalInit: "best"},
		{K: 1, Alpha: 1, Tau: 1, LocalIters: 0, Init: "seeded", LocalInit: "best"},
		{K: 1, Alpha: 1, Tau: 1, LocalIters: 1, Init: "x", LocalInit: "best"},
		{K: 1, Alpha: 1, Tau: 1, LocalIters: 1, Init: "seeded", LocalInit: "x"},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := Defaults().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
}

// Example runs the local step of one document against two fixed topics.
func Example() {
	cfg := Defaults()
	cfg.K = 2
	l, _ := New(cfg, 4)
	// Topic 0 on words 0–1, topic 1 on words 2–3.
	copy(l.Zeta, []float64{50, 0.1, 50, 0.1, 0.1, 50, 0.1, 50})
	l.Refresh()
	doc := framework.Doc{Words: []int32{0, 1, 3}, Counts: []float64{4, 2, 2}, N: 8}
	ds := framework.NewDocState(2, 3)
	ds.Bind(0, &doc, nil)
	l.Infer(ds, nil, l.NewScratch())
	fmt.Printf("γ = [%.2f %.2f]\n", ds.Gamma[0], ds.Gamma[1])
	// Output: γ = [6.10 2.10]
}

// TestSweepPhi: SweepPhi sets the same φ and φ̄ as a sweep from the same
// state, leaves γ and E[log θ] unchanged, and reports the largest change
// of φ̄ (0 when repeated without supervision, since φ depends only on
// E[log θ] then); an unsupervised SweepPhi is the exact maximiser over φ
// given γ, so it cannot lower the bound (γ fixed).
func TestSweepPhi(t *testing.T) {
	l, c := fixture(t, 5)
	s := l.NewScratch()
	for i := range c.Docs[:10] {
		a := framework.NewDocState(l.K, c.Docs[i].Len())
		b := framework.NewDocState(l.K, c.Docs[i].Len())
		for _, ds := range []*framework.DocState{a, b} {
			ds.Bind(i, &c.Docs[i], nil)
			l.Start(ds, nil)
			l.Sweep(ds, nil, s) // some state
			l.Sweep(ds, nil, s)
		}
		before := docELBO(l, b)
		gamma := slices.Clone(b.Gamma)
		prevBar := slices.Clone(b.PhiBar)
		l.Sweep(a, nil, s)
		change := l.SweepPhi(b, nil, 1, s)
		if !slices.Equal(a.Phi, b.Phi) || !slices.Equal(a.PhiBar, b.PhiBar) {
			t.Fatalf("doc %d: SweepPhi's φ differs from Sweep's", i)
		}
		if !slices.Equal(b.Gamma, gamma) {
			t.Fatalf("doc %d: SweepPhi changed γ", i)
		}
		want := 0.0
		for k, p := range b.PhiBar {
			want = max(want, math.Abs(p-prevBar[k]))
		}
		if change != want || !(change > 0) {
			t.Errorf("doc %d: change %v, want the largest |Δφ̄_k| %v (> 0)", i, change, want)
		}
		if after := docELBO(l, b); after < before-1e-9*math.Abs(before) {
			t.Errorf("doc %d: SweepPhi lowered the bound with γ fixed: %v -> %v", i, before, after)
		}
		if again := l.SweepPhi(b, nil, 1, s); again != 0 {
			t.Errorf("doc %d: a second unsupervised SweepPhi moved φ̄ by %v", i, again)
		}
	}
}

// TestDocELBOFromLogs: after each kind of sweep DocELBO comes from the
// sweep's normalisers (DocState.Logs valid) and equals the same with a
// logarithm per word and topic; a write to φ (PhiChanged), a new E[log β]
// (for the multiplicative sweeps' deferred words) or a Bind to another
// document makes it fall back to the logarithms.
func TestDocELBOFromLogs(t *testing.T) {
	l, c := fixture(t, 4)
	s := l.NewScratch()
	rng := rand.New(rand.NewPCG(9, 10))
	sup := &linearSup{}
	for j := 0; j < 64; j++ {
		r := make([]float64, l.K)
		for k := range r {
			r[k] = rng.NormFloat64()
		}
		sup.rho = append(sup.rho, r)
	}
	for _, tc := range []struct {
		name     string
		sweep    func(ds *framework.DocState)
		deferred bool
	}{
		{"plain", func(ds *framework.DocState) { l.Sweep(ds, nil, s) }, true},
		{"supervised", func(ds *framework.DocState) { l.SweepWeighted(ds, sup, 1, s) }, false},
		{"supervised, w = 2.5", func(ds *framework.DocState) { l.SweepWeighted(ds, sup, 2.5, s) }, false},
		{"phi only", func(ds *framework.DocState) { l.SweepPhi(ds, sup, 1, s) }, false},
		{"doc term", func(ds *framework.DocState) { l.SweepDoc(ds, []float64{0.3, -1, 0, 2}, 1, s) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := framework.NewDocState(l.K, 64)
			for i := range 5 {
				ds.Bind(i, &c.Docs[i], nil)
				if ds.Logs.Valid {
					t.Fatal("valid after Bind")
				}
				l.Start(ds, nil)
				tc.sweep(ds)
				tc.sweep(ds)
				want := l.thetaELBO(ds.Gamma, ds.ElogTheta) + l.wordsWithLogs(ds)
				if !ds.Logs.Valid || ds.Logs.Deferred != tc.deferred {
					t.Fatalf("document %d: Logs valid %v deferred %v after the sweep", i, ds.Logs.Valid, ds.Logs.Deferred)
				}
				if got := l.DocELBO(ds); math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("document %d: DocELBO %v from the normalisers, %v with logarithms", i, got, want)
				}
				// φ written: the logarithms.
				row := ds.PhiRow(0)
				row[0], row[1] = row[0]+row[1], 0
				ds.UpdatePhiBar()
				if got, want := l.DocELBO(ds), l.thetaELBO(ds.Gamma, ds.ElogTheta)+l.wordsWithLogs(ds); ds.Logs.Valid || got != want {
					t.Errorf("document %d after a write to φ: valid %v, DocELBO %v, want %v", i, ds.Logs.Valid, got, want)
				}
			}
			// New topics: deferred words fall back, the others need not.
			tc.sweep(ds)
			l.Refresh()
			want := l.thetaELBO(ds.Gamma, ds.ElogTheta) + l.wordsWithLogs(ds)
			if got := l.DocELBO(ds); tc.deferred && got != want || math.Abs(got-want) > 1e-12*math.Abs(want) {
				t.Errorf("after Refresh: DocELBO %v, want %v", got, want)
			}
		})
	}
}
