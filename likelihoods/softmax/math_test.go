package softmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
	"github.com/maslda/maslda/framework/synth"
)

// randomDocState returns a document of L unique words (counts 1..maxCount)
// with random φ rows (Dirichlet(0.5)), φ̄ from φ, and a target with random
// λ (Finalize of random log-potentials).
func randomDocState(rng *rand.Rand, K, C, L, maxCount int) *framework.DocState {
	doc := &framework.Doc{ID: "x"}
	for j := 0; j < L; j++ {
		doc.Words = append(doc.Words, int32(j))
		n := float64(1 + rng.IntN(maxCount))
		doc.Counts = append(doc.Counts, n)
		doc.N += n
	}
	ds := framework.NewDocState(K, L)
	ds.Bind(0, doc, nil)
	for j := 0; j < L; j++ {
		synth.Dirichlet(ds.PhiRow(j), 0.5, rng)
	}
	ds.UpdatePhiBar()
	tg := framework.NewCategorical(C)
	for l := range tg.Log {
		tg.Log[l] = 2 * rng.NormFloat64()
	}
	tg.Finalize()
	ds.Target = tg
	return ds
}

func testSoftmax(t testing.TB, C, K int, etaScale float64, rng *rand.Rand) *Softmax {
	t.Helper()
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := r.(*Softmax)
	if err := s.Init(&framework.Setup{K: K, Classes: make([]string, C)}); err != nil {
		t.Fatal(err)
	}
	for i := range s.Eta {
		s.Eta[i] = etaScale * rng.NormFloat64()
	}
	return s
}

// Test 1(a): the gradient of the M-step objective −L(η)/W (data term of
// MODEL.md §2 with the [fix], the L2 penalty, the S scaling) against
// central differences, on random documents including an empty one and a
// one-token one (large η/N_d).
func TestGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const C, K = 3, 4
	for trial := 0; trial < 4; trial++ {
		s := testSoftmax(t, C, K, 1.5, rng)
		s.Mu = 0.3
		s.MuText = []float64{0.3, 2.7}[trial%2] // text_l2 = l2, and apart
		var recs []docView[float32]
		for d := 0; d < 5; d++ {
			L := 1 + rng.IntN(6)
			maxCount := 4
			if d == 0 {
				L, maxCount = 1, 1 // N_d = 1: h = exp(η)
			}
			ds := randomDocState(rng, K, C, L, maxCount)
			v := docView[float32]{doc: ds.Doc, phi: make([]float32, len(ds.Phi)), lam: ds.Target.(*framework.Categorical).P, bar: ds.PhiBar}
			for i, p := range ds.Phi {
				v.phi[i] = float32(p)
			}
			recs = append(recs, v)
		}
		recs = append(recs, docView[float32]{doc: &framework.Doc{}, lam: []float64{0.2, 0.3, 0.5}, bar: make([]float64, K)})
		scale := 1 + 2*rng.Float64()
		f := s.objective(recs, nil, scale, nil)
		x := append([]float64(nil), s.Eta...)
		g := make([]float64, len(x))
		f(x, g)
		const h = 1e-5
		for i := range x {
			fd, _, _ := centralDiff(func(x []float64) float64 { return f(x, nil) }, x, i, h)
			if d := math.Abs(fd - g[i]); d > 1e-7*math.Max(1, math.Abs(fd)) {
				t.Errorf("trial %d: ∂/∂η[%d][%d]: analytic %.10g, central difference %.10g", trial, i/K, i%K, g[i], fd)
			}
		}
	}
}

// elboResponse is f(φ) = λ·ηφ̄_d − log Σ_l B_dl(φ), φ̄ = (1/N)Σ_v n_v φ_v,
// for any positive φ (not only on the simplex).
func elboResponse(s *Softmax, ds *framework.DocState) float64 {
	tg := ds.Target.(*framework.Categorical)
	sc := newEvalScratch(s.C, s.K)
	bar := make([]float64, s.K)
	for j, n := range ds.Doc.Counts {
		for k, p := range ds.PhiRow(j) {
			bar[k] += n * p / ds.Doc.N
		}
	}
	return evalDoc(s.Eta, s.C, s.K, docView[float64]{doc: ds.Doc, phi: ds.Phi, lam: tg.P, bar: bar}, sc, nil)
}

// WordChanged keeps log B_dl equal to its definition after a sequence of
// word updates (including safeguarded ones), and every update raises the
// document's ELBO as a function of φ_dv. With a strong η (|η_lk| ~ 20 for
// documents of ~20 tokens) the raw linearised step lowers that objective
// for some words: the test checks that such words occur (so the safeguard
// is exercised) and, with the safeguard off, that the check fails.
func TestWordChangedCachesAndAscent(t *testing.T) {
	for _, guard := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(3, 3))
		const C, K = 3, 4
		pr := &probe{}
		fell := 0
		for trial := 0; trial < 40; trial++ {
			s := testSoftmax(t, C, K, 20, rng)
			s.probe, s.guard = pr, guard
			ds := randomDocState(rng, K, C, 5, 6)
			lc := newLocal(s)
			lc.Begin(ds)
			logits := make([]float64, K)
			old := make([]float64, K)
			a := make([]float64, K) // stands for E[log θ] + E[log β_v]
			for sweep := 0; sweep < 3; sweep++ {
				for j, n := range ds.Doc.Counts {
					for k := range a {
						a[k] = rng.NormFloat64() - 2
					}
					before := wordObjective(s, ds, j, n, a)
					copy(logits, a)
					lc.PhiTerm(logits, ds, j)
					copy(old, ds.PhiRow(j))
					softmaxTo(ds.PhiRow(j), logits)
					lc.WordChanged(ds, j, old)
					after := wordObjective(s, ds, j, n, a)
					if after < before-1e-9*math.Abs(before) {
						fell++
						if guard {
							t.Errorf("trial %d: word %d: objective fell %.12g -> %.12g", trial, j, before, after)
						}
					}
					ds.UpdatePhiBar()
				}
			}
			if guard && len(lc.pendN) == 0 {
				t.Errorf("trial %d: no log B increment pending after the sweeps: the deferral is not exercised", trial)
			}
			lc.flushLogB()
			want := newLocal(s)
			want.Begin(ds)
			for l := range lc.logB {
				if d := math.Abs(lc.logB[l] - want.logB[l]); d > 1e-9*math.Max(1, math.Abs(want.logB[l])) {
					t.Errorf("trial %d: cached log B[%d] = %.12g, recomputed %.12g", trial, l, lc.logB[l], want.logB[l])
				}
			}
		}
		t.Logf("safeguard %v: %d word updates; the raw (linearised) step lowered the objective in %d (worst ΔF %.3g); backtracked %d, reverted %d; objective fell after the update %d times",
			guard, pr.words.Load(), pr.decreases.Load(), math.Float64frombits(pr.worst.Load()), pr.backtracked.Load(), pr.reverted.Load(), fell)
		if guard && pr.decreases.Load() == 0 {
			t.Errorf("safeguard %v: no raw step lowered the objective: the test does not exercise the safeguard", guard)
		}
		if !guard && fell == 0 {
			t.Errorf("without the safeguard the objective never fell: the check cannot fail")
		}
	}
}

// wordObjective is the part of the document's ELBO that depends on φ_dv
// (word j), with a_k = E[log θ_dk] + E[log β_kv]:
// n_v Σ_k φ_vk (a_k − log φ_vk) + λ·ηφ̄_d − log Σ_l B_dl.
func wordObjective(s *Softmax, ds *framework.DocState, j int, n float64, a []float64) float64 {
	e := 0.0
	for k, p := range ds.PhiRow(j) {
		if p > 0 {
			e += n * p * (a[k] - math.Log(p))
		}
	}
	return e + elboResponse(s, ds)
}

func softmaxTo(dst, x []float64) {
	z := special.LogSumExp(x)
	for k, v := range x {
		dst[k] = math.Exp(v - z)
	}
}

// TestDocELBOFromCaches: after Begin and supervised word updates (and
// after Resume, which is Begin for another document), local.DocELBO reads log Σ_l B_dl from the caches and
// equals the bound recomputed over every word (Softmax.DocELBO) to 1e-12;
// once a φ row changes behind the caches' back (a restore, another
// start) it is the recomputed bound, bit for bit; so it is for another
// document and after η moved.
func TestDocELBOFromCaches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	const C, K = 4, 5
	for trial := range 20 {
		s := testSoftmax(t, C, K, 5, rng)
		ds := randomDocState(rng, K, C, 6, 7)
		lc := newLocal(s)
		lc.Begin(ds)
		logits, old := make([]float64, K), make([]float64, K)
		for range 2 {
			for j := range ds.Doc.Counts {
				for k := range logits {
					logits[k] = rng.NormFloat64() - 2
				}
				lc.PhiTerm(logits, ds, j)
				copy(old, ds.PhiRow(j))
				softmaxTo(ds.PhiRow(j), logits)
				lc.WordChanged(ds, j, old)
			}
			ds.UpdatePhiBar()
			lc.Resume(ds)
		}
		want := s.DocELBO(ds)
		if got := lc.DocELBO(ds); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d: DocELBO from the caches %.15g, recomputed %.15g", trial, got, want)
		}
		if lc.logZ == 0 {
			t.Fatalf("trial %d: no log Σ B cached", trial)
		}
		lc.logZ += 1 // a stale cache shows below unless DocELBO recomputes
		if got := lc.DocELBO(ds); math.Abs(got-(want-1)) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("trial %d: DocELBO %.15g with log Σ B raised by 1, want %.15g: not read from the caches", trial, got, want-1)
		}
		row := ds.PhiRow(1)
		row[0], row[1] = row[1], row[0]
		if got, want := lc.DocELBO(ds), s.DocELBO(ds); got != want {
			t.Errorf("trial %d: φ changed behind the caches: DocELBO %.15g, recomputed %.15g", trial, got, want)
		}
		row[0], row[1] = row[1], row[0]
		s.Eta[0] += 0.5
		if got, want := lc.DocELBO(ds), s.DocELBO(ds); got != want {
			t.Errorf("trial %d: η moved: DocELBO %.15g, recomputed %.15g", trial, got, want)
		}
		s.Eta[0] -= 0.5
		other := randomDocState(rng, K, C, 6, 7)
		twin := *ds.Doc // the same words and counts (N_d, h̃) in another document
		other.Doc = &twin
		if got, want := lc.DocELBO(other), s.DocELBO(other); got != want {
			t.Errorf("trial %d: another document: DocELBO %.15g, recomputed %.15g", trial, got, want)
		}
		lc.Resume(other) // not the caches' document: Begin
		fresh := newLocal(s)
		fresh.Begin(other)
		if lc.logZ != fresh.logZ {
			t.Errorf("trial %d: Resume of another document: log Σ B %.15g, Begin's %.15g", trial, lc.logZ, fresh.logZ)
		}
	}
}

// TestDeferredLogB checks WordChanged's deferred log B increments: the
// same sweeps with log B brought up to date after every word (flushLogB,
// what WordChanged did before it deferred them) and with the increments
// left pending until the end give the same log B bit for bit, and the
// same φ, p and log Σ_l B_dl; a replay out of order or with the wrong
// increment (u for log1p(u)) would not.
func TestDeferredLogB(t *testing.T) {
	t.Run("queued", func(t *testing.T) { testDeferredLogB(t) })
	// A queue that flushes itself every 5 changes (maxPending) gives the
	// same bits.
	t.Run("capped", func(t *testing.T) {
		defer func(m int) { maxPending = m }(maxPending)
		maxPending = 5
		testDeferredLogB(t)
	})
}

func testDeferredLogB(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const C, K = 5, 4
	for trial := 0; trial < 20; trial++ {
		s := testSoftmax(t, C, K, 20, rng)
		ds := randomDocState(rng, K, C, 8, 6)
		ds2 := framework.NewDocState(K, len(ds.Doc.Words))
		ds2.Bind(0, ds.Doc, nil)
		copy(ds2.Phi, ds.Phi)
		ds2.UpdatePhiBar()
		ds2.Target = ds.Target // read, not written, by PhiTerm
		lazy, eager := newLocal(s), newLocal(s)
		lazy.Begin(ds)
		eager.Begin(ds2)
		logits := make([]float64, K)
		old := make([]float64, K)
		a := make([]float64, K)
		for sweep := 0; sweep < 3; sweep++ {
			for j := range ds.Doc.Counts {
				for k := range a {
					a[k] = rng.NormFloat64() - 2
				}
				for _, c := range []struct {
					lc *local
					ds *framework.DocState
				}{{lazy, ds}, {eager, ds2}} {
					copy(logits, a)
					c.lc.PhiTerm(logits, c.ds, j)
					copy(old, c.ds.PhiRow(j))
					softmaxTo(c.ds.PhiRow(j), logits)
					c.lc.WordChanged(c.ds, j, old)
				}
				eager.flushLogB()
			}
		}
		if len(lazy.pendN) == 0 {
			t.Fatalf("trial %d: nothing pending: the test does not exercise the deferral", trial)
		}
		lazy.flushLogB()
		for l := range lazy.logB {
			if math.Float64bits(lazy.logB[l]) != math.Float64bits(eager.logB[l]) || math.Float64bits(lazy.p[l]) != math.Float64bits(eager.p[l]) {
				t.Fatalf("trial %d: class %d: deferred log B %v, p %v; eager %v, %v", trial, l, lazy.logB[l], lazy.p[l], eager.logB[l], eager.p[l])
			}
		}
		if lazy.logZ != eager.logZ {
			t.Fatalf("trial %d: log Σ B %v deferred, %v eager", trial, lazy.logZ, eager.logZ)
		}
		for i := range ds.Phi {
			if ds.Phi[i] != ds2.Phi[i] {
				t.Fatalf("trial %d: φ[%d] %v deferred, %v eager", trial, i, ds.Phi[i], ds2.Phi[i])
			}
		}
	}
}
