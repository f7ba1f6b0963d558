package softmax

import (
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/framework/special"
)

func quadParams(into any) error { into.(*Params).Bound = "quadratic"; return nil }

func newQuad() (framework.Likelihood, error) { return New(framework.ParamsFunc(quadParams)) }

// The conformance kit with the quadratic bound.
func TestKitQuadratic(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New:     newQuad,
		Classes: 3,
		Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Softmax).Eta) },
	})
}

func testQuad(t testing.TB, C, K int, etaScale float64, rng *rand.Rand) *Softmax {
	s := testSoftmax(t, C, K, etaScale, rng)
	s.quad = true
	return s
}

// The M-step objective's gradient under the quadratic bound against
// central differences (random documents, an empty one, N_d = 1).
func TestQuadGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 1))
	const C, K = 3, 4
	for trial := 0; trial < 4; trial++ {
		s := testQuad(t, C, K, 1.5, rng)
		s.Mu = 0.3
		var recs []docView[float32]
		for d := 0; d < 5; d++ {
			L, maxCount := 1+rng.IntN(6), 4
			if d == 0 {
				L, maxCount = 1, 1
			}
			ds := randomDocState(rng, K, C, L, maxCount)
			recs = append(recs, docView[float32]{doc: ds.Doc, lam: ds.Target.(*framework.Categorical).P, bar: ds.PhiBar})
		}
		recs = append(recs, docView[float32]{doc: &framework.Doc{}, lam: []float64{0.2, 0.3, 0.5}, bar: make([]float64, K)})
		scale := 1 + 2*rng.Float64()
		cov := make([]float64, K*K)
		for d := 0; d < 3; d++ {
			addCov(cov, randomDocState(rng, K, C, 4, 3), K)
		}
		f := s.objective(recs, cov, scale, nil)
		x := slices.Clone(s.Eta)
		g := make([]float64, len(x))
		f(x, g)
		const h = 1e-5
		for i := range x {
			xp, xm := slices.Clone(x), slices.Clone(x)
			xp[i] += h
			xm[i] -= h
			fd := (f(xp, nil) - f(xm, nil)) / (2 * h)
			if d := math.Abs(fd - g[i]); d > 1e-7*math.Max(1, math.Abs(fd)) {
				t.Errorf("trial %d: ∂/∂η[%d][%d]: analytic %.10g, central difference %.10g", trial, i/K, i%K, g[i], fd)
			}
		}
	}
}

// quadResponse is f(φ) = λ·ηφ̄ − lse(ηφ̄) − (1/(2N)) φ̄·a for any positive φ.
func quadResponse(s *Softmax, ds *framework.DocState) float64 {
	tg := ds.Target.(*framework.Categorical)
	sc := newEvalScratch(s.C, s.K)
	setA(s.Eta, s.C, s.K, sc.qa, sc.qs)
	bar := make([]float64, s.K)
	for j, n := range ds.Doc.Counts {
		for k, p := range ds.PhiRow(j) {
			bar[k] += n * p / ds.Doc.N
		}
	}
	return evalDocQ(s.Eta, s.C, s.K, docView[float64]{doc: ds.Doc, lam: tg.P, bar: bar}, sc, nil) - docCov(s.Eta, s.C, s.K, ds, sc.qa, sc.qs)
}

// The bound is a bound: on documents of 4 tokens, E[log Σ_l exp(η_l·z̄)]
// computed exactly (all K^N topic assignments under the mean field) is at
// most lse(ηφ̄) + (1/(2N)) φ̄·a, for random η and φ; and the product bound
// of MODEL.md §2 too (both checked, the gap of each logged).
func TestQuadIsABound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const C, K = 3, 3
	worstQ, worstP := math.Inf(1), math.Inf(1)
	for trial := 0; trial < 200; trial++ {
		scale := []float64{0.3, 2, 8}[trial%3]
		s := testQuad(t, C, K, scale, rng)
		ds := randomDocState(rng, K, C, 3, 2)
		for ds.Doc.N != 4 { // 4 tokens: 3 words, one of them twice
			ds = randomDocState(rng, K, C, 3, 2)
		}
		var toks [][]float64
		for j, n := range ds.Doc.Counts {
			for range int(n) {
				toks = append(toks, ds.PhiRow(j))
			}
		}
		exact := 0.0
		z := make([]int, len(toks))
		x := make([]float64, C)
		for {
			pr := 1.0
			for i, k := range z {
				pr *= toks[i][k]
			}
			for l := range x {
				x[l] = 0
				for _, k := range z {
					x[l] += s.Eta[l*K+k] / ds.Doc.N
				}
			}
			exact += pr * special.LogSumExp(x)
			i := 0
			for ; i < len(z); i++ {
				if z[i]++; z[i] < K {
					break
				}
				z[i] = 0
			}
			if i == len(z) {
				break
			}
		}
		tg := ds.Target.(*framework.Categorical)
		lin := 0.0
		for l, lam := range tg.P {
			lin += lam * dot(s.Eta[l*K:(l+1)*K], ds.PhiBar)
		}
		// f = lin − bound, so bound = lin − f.
		q := lin - quadResponse(s, ds)
		p := lin - elboResponse(s, ds)
		worstQ, worstP = math.Min(worstQ, q-exact), math.Min(worstP, p-exact)
		if q < exact-1e-12 {
			t.Errorf("trial %d (η scale %v): quadratic bound %.12g below E[lse] %.12g", trial, scale, q, exact)
		}
		if p < exact-1e-12 {
			t.Errorf("trial %d: product bound %.12g below E[lse] %.12g", trial, p, exact)
		}
	}
	t.Logf("smallest gap: quadratic %.3g, product %.3g", worstQ, worstP)
}

// PhiTerm is the gradient: n_dv ρ_dvk = ∂f/∂φ_dvk (central differences of
// f over unnormalised φ), at the caches Begin sets and after word updates.
func TestQuadPhiTermIsGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 2))
	const C, K = 3, 4
	for trial := 0; trial < 6; trial++ {
		s := testQuad(t, C, K, 3, rng)
		ds := randomDocState(rng, K, C, 5, 4)
		lc := newQLocal(s)
		lc.Begin(ds)
		for j, n := range ds.Doc.Counts {
			rho := make([]float64, K)
			lc.PhiTerm(rho, ds, j)
			row := ds.PhiRow(j)
			for k := range row {
				const h = 1e-6
				o := row[k]
				row[k] = o + h
				fp := quadResponse(s, ds)
				row[k] = o - h
				fm := quadResponse(s, ds)
				row[k] = o
				fd := (fp - fm) / (2 * h)
				if d := math.Abs(n*rho[k] - fd); d > 1e-7*math.Max(1, math.Abs(fd)) {
					t.Errorf("trial %d word %d topic %d: n·ρ %.10g, central difference %.10g", trial, j, k, n*rho[k], fd)
				}
			}
			// move the word, as a sweep would, so the next word sees updated caches
			old := slices.Clone(row)
			logits := make([]float64, K)
			for k := range logits {
				logits[k] = rng.NormFloat64() + rho[k]
			}
			softmaxTo(row, logits)
			lc.WordChanged(ds, j, old)
			ds.UpdatePhiBar()
		}
	}
}

// WordChanged keeps x = ηφ̄_d current after safeguarded updates, and every
// update raises the document's bound as a function of φ_dv; with strong η
// on short documents some raw steps would lower it (so the safeguard is
// exercised), and without the safeguard the check fails.
func TestQuadWordChangedAscent(t *testing.T) {
	for _, guard := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(3, 9))
		const C, K = 3, 4
		pr := &probe{}
		fell := 0
		for trial := 0; trial < 40; trial++ {
			s := testQuad(t, C, K, 20, rng)
			s.probe, s.guard = pr, guard
			ds := randomDocState(rng, K, C, 5, 6)
			lc := newQLocal(s)
			lc.Begin(ds)
			logits, old, a := make([]float64, K), make([]float64, K), make([]float64, K)
			for sweep := 0; sweep < 3; sweep++ {
				for j, n := range ds.Doc.Counts {
					for k := range a {
						a[k] = rng.NormFloat64() - 2
					}
					before := quadWordObjective(s, ds, j, n, a)
					copy(logits, a)
					lc.PhiTerm(logits, ds, j)
					copy(old, ds.PhiRow(j))
					softmaxTo(ds.PhiRow(j), logits)
					lc.WordChanged(ds, j, old)
					after := quadWordObjective(s, ds, j, n, a)
					if after < before-1e-9*math.Abs(before) {
						fell++
						if guard {
							t.Errorf("trial %d: word %d: objective fell %.12g -> %.12g", trial, j, before, after)
						}
					}
					ds.UpdatePhiBar()
				}
			}
			want := newQLocal(s)
			want.Begin(ds)
			for l := range lc.x {
				if d := math.Abs(lc.x[l] - want.x[l]); d > 1e-9*math.Max(1, math.Abs(want.x[l])) {
					t.Errorf("trial %d: cached x[%d] = %.12g, recomputed %.12g", trial, l, lc.x[l], want.x[l])
				}
			}
		}
		t.Logf("safeguard %v: %d word updates; raw steps that would lower the objective %d (worst %.3g); backtracked %d, reverted %d; fell %d",
			guard, pr.words.Load(), pr.decreases.Load(), math.Float64frombits(pr.worst.Load()), pr.backtracked.Load(), pr.reverted.Load(), fell)
		if guard && pr.decreases.Load() == 0 {
			t.Errorf("no raw step lowered the objective: the test does not exercise the safeguard")
		}
		if !guard && fell == 0 {
			t.Errorf("without the safeguard the objective never fell: the check cannot fail")
		}
	}
}

func quadWordObjective(s *Softmax, ds *framework.DocState, j int, n float64, a []float64) float64 {
	e := 0.0
	for k, p := range ds.PhiRow(j) {
		if p > 0 {
			e += n * p * (a[k] - math.Log(p))
		}
	}
	return e + quadResponse(s, ds)
}

// Batch EM under the quadratic bound never lowers the ELBO (1e-8
// relative), on the short-document problem without L2 penalty where an
// unsupervised first sweep of a warm start lowers it: the warm start
// restores λ_d and solves for φ_d (framework.TargetRestorer) instead of
// restoring a stored φ. The ablation without RestoreTarget is logged.
func TestQuadBatchMonotoneShortDocs(t *testing.T) {
	race.SkipLong(t)
	zero := 0.0
	data := harshData(t)
	for _, restore := range []bool{true, false} {
		m, s := newSLDA(t, data, 5, 3, Params{L2: &zero, Bound: "quadratic"}, 2, harshTopics)
		s.probe, s.noRestore = &probe{}, !restore
		elbos := fitBatch(t, m, 40)
		n, worst := decreases(elbos, 1e-8)
		w, fell, bt, rv, wf := probeSummary(s.probe)
		t.Logf("RestoreTarget %v: ELBO %.10g, %d decreases (worst relative change %.3g); φ steps %d, raw steps that would lower the ELBO %d (worst %.3g), backtracked %d, reverted %d",
			restore, elbos[len(elbos)-1], n, worst, w, fell, wf, bt, rv)
		if restore && n > 0 {
			t.Errorf("ELBO decreased (beyond 1e-8 relative) in %d of %d iterations; worst relative change %.3g", n, len(elbos)-1, worst)
		}
		if s.NeedsPhi() || m.PhiBytes() != 0 {
			t.Errorf("under the quadratic bound the model keeps %d bytes of φ (NeedsPhi %v), want none", m.PhiBytes(), s.NeedsPhi())
		}
	}
}

// The planted problem of TestSLDABatchMonotoneAndRecovers under the
// quadratic bound: monotone, and the held-out accuracy within 0.02 of the
// product bound's.
func TestQuadBatchRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("a long recovery test: run without -short")
	}
	f := getMainBatch(t)
	m, s := newSLDA(t, f.data, 5, 3, Params{Bound: "quadratic"}, 2, nil)
	elbos := fitBatch(t, m, 25)
	n, worst := decreases(elbos, 1e-8)
	if n > 0 {
		t.Errorf("ELBO decreased (beyond 1e-8 relative) in %d of %d iterations; worst relative change %.3g", n, len(elbos)-1, worst)
	}
	acc, _ := accuracy(t, m, f.data.test, f.data.testLabels)
	t.Logf("held-out accuracy: quadratic %.3f, product %.3f (planted classifier %.3f, majority %.3f); last M-step %+v",
		acc, f.acc, f.data.bayes, f.data.majority, s.LastSolve())
	if acc < f.acc-0.02 {
		t.Errorf("held-out accuracy %.3f under the quadratic bound, product bound %.3f", acc, f.acc)
	}
}

// The safeguard's backtracking under the quadratic bound takes the
// largest t ∈ {1, 1/2, 1/4, …} whose exact change of the word's bound is
// non-negative: for every backtracked word the accepted point does not
// lower the objective, and the point with twice its t (when t < 1/2)
// does, evaluated exactly. Strong η on documents of 2–3 words with large
// counts make the convex φᵀBφ term (Q, t² in the exact change) matter.
// (Documents of 4 words with counts up to 6, |η| ≈ 20.)
func TestQuadBacktrackExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	const C, K = 3, 4
	backtracked, maximal := 0, 0
	for trial := 0; trial < 2000; trial++ {
		s := testQuad(t, C, K, 20, rng)
		s.probe = &probe{}
		ds := randomDocState(rng, K, C, 4, 6)
		lc := newQLocal(s)
		lc.Begin(ds)
		a := make([]float64, K)
		for j, n := range ds.Doc.Counts {
			for k := range a {
				a[k] = 1*rng.NormFloat64() - 2
			}
			bt, mx := checkWordStep(t, trial, j, ds, lc, s.probe, a, func() float64 { return quadWordObjective(s, ds, j, n, a) })
			backtracked += bt
			maximal += mx
			ds.UpdatePhiBar()
			lc.Begin(ds)
		}
	}
	t.Logf("%d backtracked words, %d of them checked maximal at t < 1/2", backtracked, maximal)
	if backtracked < 20 || maximal < 5 {
		t.Errorf("%d backtracked words (%d with t < 1/2): the test does not exercise the backtracking", backtracked, maximal)
	}
}

// wordStepper is a local step with the safeguarded φ update (the product
// and the quadratic bound's).
type wordStepper interface {
	PhiTerm(dst []float64, d *framework.DocState, j int)
	WordChanged(d *framework.DocState, j int, old []float64)
}

// checkWordStep updates word j's φ as topics.Layer.Sweep does, with a
// standing for E[log θ_d] + E[log β_v] (PhiTerm, the softmax proposal,
// WordChanged), and checks the safeguard against obj, the part of the
// document's bound that depends on φ_dv: the update never lowers it; when
// it backtracked (pr counts it) to t < ½, the step 2t would have lowered
// it (the accepted step is the largest admissible one). It returns 1s for
// a backtracked word and for one so checked.
func checkWordStep(t *testing.T, trial, j int, ds *framework.DocState, lc wordStepper, pr *probe, a []float64, obj func() float64) (backtracked, maximal int) {
	t.Helper()
	K := len(a)
	logits, old, proposal := make([]float64, K), make([]float64, K), make([]float64, K)
	before := obj()
	copy(logits, a)
	lc.PhiTerm(logits, ds, j)
	copy(old, ds.PhiRow(j))
	softmaxTo(proposal, logits)
	copy(ds.PhiRow(j), proposal)
	bt := pr.backtracked.Load()
	lc.WordChanged(ds, j, old)
	row := ds.PhiRow(j)
	if after := obj(); after < before-1e-9*math.Abs(before) {
		t.Fatalf("trial %d word %d: the objective fell %.12g -> %.12g", trial, j, before, after)
	}
	if pr.backtracked.Load() == bt {
		return 0, 0
	}
	// the accepted t, from any coordinate that moved
	tt := 0.0
	for k := range row {
		if d := proposal[k] - old[k]; math.Abs(d) > 1e-9 {
			tt = (row[k] - old[k]) / d
			break
		}
	}
	if !(tt > 0 && tt < 0.5) {
		return 1, 0
	}
	for k := range row {
		row[k] = old[k] + 2*tt*(proposal[k]-old[k])
	}
	twice := obj()
	for k := range row {
		row[k] = old[k] + tt*(proposal[k]-old[k])
	}
	if twice >= before {
		t.Errorf("trial %d word %d: backtracked to t = %g, but t = %g does not lower the objective (%.12g ≥ %.12g): not the largest step", trial, j, tt, 2*tt, twice, before)
		return 1, 0
	}
	return 1, 1
}
