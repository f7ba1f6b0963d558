package frameworktest

import (
	"math"

	"github.com/maslda/maslda/framework"
)

// Likelihood describes a response under test.
type Likelihood struct {
	// New returns a new, uninitialised response (its factory applied to
	// the parameters under test). The kit calls Init.
	New func() (framework.Likelihood, error)
	// Classes is C ≥ 2 for a categorical target; 0 for a Gaussian one
	// (or a custom one: see Target).
	Classes int
	// Target declares a target type of the response's own (KindCustom);
	// nil for the framework's two. Classes is then Target.Classes.
	Target *TargetType
	// Partner returns the annotator model the end-to-end checks train
	// the response with. Default: Clamped (required for a custom Target,
	// which Clamped does not know).
	Partner func() (framework.NoiseModel, error)
	// K is the number of topics of the unit checks (default 3).
	K int
	// Natural returns the parameters that Update blends
	// ((1 − ρ)·old + ρ·(prior + S·stats), MODEL.md §5) as one vector: η
	// for a response fitted by optimisation, the running statistics for
	// one that blends statistics. Required unless Stateless.
	Natural func(framework.Likelihood) []float64
	// Stateless declares a response without global parameters (it
	// implements framework.Parameterless instead of Persister, which
	// models.NewModel requires; the update checks are skipped).
	Stateless bool
	// Seed varies the fixture and the planted problems (0 is a seed).
	Seed uint64
	// Fit configures the end-to-end checks.
	Fit Fit
	Checks
}

// TestLikelihood runs the conformance checks of a response. Unit checks,
// on a fixture of a dozen documents with random local states (K topics,
// 4 annotators):
//
//   - PhiGradient: n_dv·ρ_dvk (PhiTerm after Begin) = ∂DocELBO/∂φ_dvk by
//     central differences; PhiTermQuad agrees with PhiTerm; a response
//     with fixed features or one that ignores the documents adds 0.
//   - WordCaches: after WordChanged (and, for a framework.PhiQuadraticAffine,
//     QuadMoved) for changed φ rows, PhiTerm equals that of a fresh Begin.
//     PhiGradient also checks that the affine form's base + s·u and c are
//     PhiTermQuad's.
//   - DocTerm (a local implementing framework.PhiDocTerm): on a document
//     whose words all have φ̄_d, DocTerm before any Begin equals every
//     word's PhiTerm up to a constant per word, and TargetTerm without
//     Begin gives the message it gives after Begin.
//   - TargetStationary: the target update (Reset, Begin, TargetTerm, a
//     random evidence message, Finalize) is a stationary point, and a
//     maximum, of DocELBO plus the evidence's term: the prior message is
//     the gradient of the response's part in the target's moments, and the
//     response adds the target's entropy.
//   - DocELBOSum, Merge, ZeroStep, Scale, Blend, Maximises (Ascends for a
//     framework.Ascender), Persist: see
//     the package documentation.
//
// End to end (Fit): BatchMonotone, FullBatchSVI, Workers, Recovery.
func TestLikelihood(t TB, lk Likelihood) {
	t.Helper()
	defer recoverFatal()
	if lk.New == nil {
		t.Fatalf("frameworktest.Likelihood: New is nil")
	}
	if lk.K == 0 {
		lk.K = 3
	}
	kind := KindGaussian
	if lk.Classes > 0 {
		kind = KindCategorical
	}
	newT := func() framework.Target { return newTarget(kind, lk.Classes) }
	if tt := lk.Target; tt != nil {
		if m := tt.missing(); m != "" {
			t.Fatalf("frameworktest.TargetType %q: %s is nil", tt.Name, m)
		}
		kind, lk.Classes, newT = KindCustom, tt.Classes, tt.New
	}
	probe, err := lk.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	var f *fixture
	f = newFixture(t, kind, lk.Target, lk.K, lk.Classes, lk.Seed, newT)
	if err := probe.Init(f.setup); err != nil {
		t.Fatalf("Init: %v", err)
	}
	if kind == KindCustom {
		if got, want := probe.NewTarget(), newT(); !sameType(got, want) {
			t.Fatalf("NewTarget is %T but the declared target type %q makes %T", got, lk.Target.Name, want)
		}
	} else if got := kindOf(t, probe.NewTarget()); got != kind {
		t.Fatalf("NewTarget is %s but Classes = %d says %s", got, lk.Classes, kind)
	}
	fixed := isFixed(probe)
	free := ignoresDocs(probe)
	c := &component{f: f}
	c.fresh = func(t TB) framework.Global {
		t.Helper()
		l, err := lk.New()
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := l.Init(f.setup); err != nil {
			t.Fatalf("Init: %v", err)
		}
		return l
	}
	if !lk.Stateless {
		if lk.Natural == nil {
			t.Fatalf("frameworktest.Likelihood: Natural is nil (set Stateless for a response without parameters)")
		}
		c.natural = func(g framework.Global) []float64 { return lk.Natural(g.(framework.Likelihood)) }
	}
	c.score = func(t TB, g framework.Global, d *framework.DocState) float64 {
		t.Helper()
		return likScore(t, g.(framework.Likelihood), d)
	}
	c.message = func(g framework.Global, d *framework.DocState) []float64 {
		l := g.(framework.Likelihood)
		ds := *d
		ds.Target = l.NewTarget()
		lc := l.NewLocal()
		lc.Begin(&ds)
		ds.Target.Reset()
		lc.TargetTerm(&ds)
		return targetVector(f.tt, ds.Target)
	}
	c.predict = func(g framework.Global, d *framework.DocState) []float64 {
		ds := *d
		ds.Target = g.(framework.Likelihood).NewTarget()
		g.(framework.Likelihood).Predict(&ds)
		return momentVector(f.tt, ds.Target)
	}
	lk.run(t, "PhiGradient", func(t TB) { checkPhiGradient(t, c, fixed || free) })
	lk.run(t, "WordCaches", func(t TB) { checkWordCaches(t, c) })
	lk.run(t, "DocTerm", func(t TB) { checkDocTerm(t, c) })
	lk.run(t, "TargetStationary", func(t TB) { checkTargetStationary(t, c) })
	lk.run(t, "DocELBOSum", c.checkDocELBOSum)
	lk.run(t, "Merge", c.checkMerge)
	lk.run(t, "ExactSums", c.checkExactSums)
	lk.run(t, "ZeroStep", c.checkZeroStep)
	lk.run(t, "Scale", c.checkScale)
	lk.run(t, "Blend", c.checkBlend)
	if ascends(c.fresh(t)) {
		lk.run(t, "Ascends", c.checkAscends)
	} else {
		lk.run(t, "Maximises", c.checkMaximises)
	}
	lk.run(t, "Persist", c.checkPersist)
	e := &endToEnd{kind: kind, tt: lk.Target, classes: lk.Classes, seed: lk.Seed, fit: lk.Fit.defaults(kind, false), fixed: fixed, checks: lk.Checks,
		build: func(t TB) (framework.Likelihood, framework.NoiseModel) {
			l, err := lk.New()
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if lk.Partner == nil {
				if kind == KindCustom {
					t.Fatalf("frameworktest.Likelihood: a custom Target needs Partner (the annotator model to train the response with; Clamped knows only the framework's targets)")
				}
				return l, &Clamped{}
			}
			n, err := lk.Partner()
			if err != nil {
				t.Fatalf("Partner: %v", err)
			}
			return l, n
		}}
	e.run(t, false)
}

func isFixed(l framework.Likelihood) bool {
	ff, ok := l.(framework.FixedFeatures)
	return ok && ff.FixedFeatures()
}

func ignoresDocs(l framework.Likelihood) bool {
	df, ok := l.(framework.DocumentFree)
	return ok && df.IgnoresDocuments()
}

// likScore is the response's part of d's bound: the DocScorer of a fresh
// local after Begin (looked up first, as the model does), else the
// response's.
func likScore(t TB, l framework.Likelihood, d *framework.DocState) float64 {
	t.Helper()
	lc := l.NewLocal()
	if sc, ok := lc.(framework.DocScorer); ok {
		lc.Begin(d)
		return sc.DocELBO(d)
	}
	if sc, ok := l.(framework.DocScorer); ok {
		return sc.DocELBO(d)
	}
	t.Fatalf("%T implements framework.DocScorer neither on itself nor on its local: local_init = \"best\" would compare the topic terms only, and the kit cannot check its messages", l)
	return 0
}

// checkPhiGradient: see TestLikelihood.
func checkPhiGradient(t TB, c *component, zero bool) {
	l := c.warm(t).(framework.Likelihood)
	K := c.f.K
	worst, largest := 0.0, 0.0
	for _, d := range c.f.docs {
		lc := l.NewLocal()
		lc.Begin(d)
		for j, n := range d.Doc.Counts {
			rho := make([]float64, K)
			lc.PhiTerm(rho, d, j)
			if q, ok := lc.(framework.PhiQuadratic); ok {
				r2 := make([]float64, K)
				cq, u := q.PhiTermQuad(r2, d, j)
				if u == nil && cq == 0 {
					u = make([]float64, K)
				}
				if len(u) != K {
					t.Fatalf("document %d word %d: PhiTermQuad returned u of %d values for %d topics", d.Index, j, len(u), K)
				}
				tu := 0.0
				for k, p := range d.PhiRow(j) {
					tu += u[k] * p
				}
				for k := range r2 {
					if want := r2[k] - 2*cq*tu*u[k]; !near(rho[k], want, 1e-9, 1e-12) {
						t.Errorf("document %d word %d topic %d: PhiTerm %.12g, PhiTermQuad's ρ − 2c(u·φ)u = %.12g", d.Index, j, k, rho[k], want)
					}
				}
				if a, ok := lc.(framework.PhiQuadraticAffine); ok {
					base := make([]float64, K)
					ua := a.QuadBase(base, d)
					if ua == nil && cq == 0 {
						ua = make([]float64, K)
					}
					sv, ca := a.QuadWord(d, j, tu)
					if !near(ca, cq, 1e-9, 1e-15) {
						t.Errorf("document %d word %d: QuadWord's c = %.12g, PhiTermQuad's %.12g", d.Index, j, ca, cq)
					}
					for k := range r2 {
						if want := base[k] + sv*ua[k]; ua[k] != u[k] || !near(r2[k], want, 1e-9, 1e-12) {
							t.Errorf("document %d word %d topic %d: PhiTermQuad's ρ = %.12g, QuadBase + QuadWord's s·u = %.12g (u %v, PhiTermQuad's %v)", d.Index, j, k, r2[k], want, ua[k], u[k])
						}
					}
				}
			}
			if zero {
				if maxAbs(rho) != 0 {
					t.Errorf("document %d word %d: PhiTerm adds %v; a response with fixed features or that ignores the documents must add nothing", d.Index, j, rho)
				}
				continue
			}
			row := d.PhiRow(j)
			for k := range rho {
				const h = 1e-6
				x := row[k]
				row[k] = x + h
				d.UpdatePhiBar()
				up := likScore(t, l, d)
				row[k] = x - h
				d.UpdatePhiBar()
				down := likScore(t, l, d)
				row[k] = x
				d.UpdatePhiBar()
				fd := (up - down) / (2 * h)
				largest = math.Max(largest, math.Abs(fd))
				worst = math.Max(worst, math.Abs(n*rho[k]-fd)/math.Max(1, math.Abs(fd)))
				if !near(n*rho[k], fd, 1e-5, 1e-6) {
					t.Errorf("document %d word %d topic %d: n_dv·ρ_dvk = %.10g but ∂DocELBO/∂φ_dvk = %.10g (central differences): PhiTerm must be the gradient of the document's bound, divided by the word's count", d.Index, j, k, n*rho[k], fd)
				}
			}
		}
	}
	if !zero && largest < 1e-6 {
		t.Errorf("the largest ∂DocELBO/∂φ is %.3g: the fixture does not exercise the supervision term", largest)
	}
	t.Logf("largest |∂DocELBO/∂φ| %.3g, worst relative error %.3g", largest, worst)
}

// checkDocTerm: see TestLikelihood.
func checkDocTerm(t TB, c *component) {
	l := c.warm(t).(framework.Likelihood)
	if _, ok := l.NewLocal().(framework.PhiDocTerm); !ok {
		t.Logf("the local step has no DocTerm (framework.PhiDocTerm)")
		return
	}
	K := c.f.K
	checked := 0
	for _, d := range c.f.docs {
		if d.Doc.Len() == 0 {
			continue
		}
		restore := savePhi(d)
		defer restore() // also after a Fatalf: later checks use the same documents
		bar := append([]float64(nil), d.PhiBar...)
		for j := range d.Doc.Words {
			copy(d.PhiRow(j), bar)
		}
		d.UpdatePhiBar()
		lc := l.NewLocal()
		got := make([]float64, K)
		lc.(framework.PhiDocTerm).DocTerm(got, d)
		message := func(begin bool) []float64 {
			ds := *d
			ds.Target = l.NewTarget()
			m := l.NewLocal()
			if begin {
				m.Begin(&ds)
			}
			ds.Target.Reset()
			m.TargetTerm(&ds)
			return targetVector(c.f.tt, ds.Target)
		}
		if before, after := message(false), message(true); maxDiff(before, after) > 1e-12*math.Max(1, maxAbs(after)) {
			t.Errorf("document %d: TargetTerm without Begin gives %v, after Begin %v: a response with DocTerm must not need Begin's caches for its prior message", d.Index, before, after)
		}
		lc.Begin(d)
		for j := range d.Doc.Words {
			want := make([]float64, K)
			lc.PhiTerm(want, d, j)
			lo, hi := math.Inf(1), math.Inf(-1)
			for k := range want {
				x := got[k] - want[k]
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			if hi-lo > 1e-9*math.Max(1, maxAbs(want)) {
				t.Errorf("document %d word %d, every word at φ̄_d: DocTerm %v, PhiTerm %v (they differ by more than a constant): DocTerm must be PhiTerm with every φ_dv replaced by φ̄_d", d.Index, j, got, want)
			}
		}
		restore()
		checked++
	}
	t.Logf("DocTerm checked on %d documents", checked)
}

// savePhi copies d's φ and returns a function that puts it back (and
// recomputes φ̄_d).
func savePhi(d *framework.DocState) (restore func()) {
	saved := append([]float64(nil), d.Phi...)
	return func() {
		copy(d.Phi, saved)
		d.UpdatePhiBar()
	}
}

// checkWordCaches: see TestLikelihood.
func checkWordCaches(t TB, c *component) {
	l := c.warm(t).(framework.Likelihood)
	K := c.f.K
	rng := c.f.rng
	for _, d := range c.f.docs {
		if d.Doc.Len() == 0 {
			continue
		}
		restore := savePhi(d)
		defer restore() // also after a Fatalf: later checks use the same documents
		lc := l.NewLocal()
		lc.Begin(d)
		old := make([]float64, K)
		for sweep := 0; sweep < 2; sweep++ {
			for j := range d.Doc.Words {
				row := d.PhiRow(j)
				copy(old, row)
				randomRow(row, rng)
				if a, ok := lc.(framework.PhiQuadraticAffine); ok && sweep == 1 {
					// The second sweep moves the caches by QuadMoved, as
					// the topic layer's affine sweep does.
					u := a.QuadBase(make([]float64, K), d)
					if u == nil {
						u = make([]float64, K)
					}
					var t0, q0, t1, q1 float64
					for k := range row {
						t0 += old[k] * u[k]
						q0 += old[k] * u[k] * u[k]
						t1 += row[k] * u[k]
						q1 += row[k] * u[k] * u[k]
					}
					a.QuadMoved(d, j, t0, q0, t1, q1)
				} else {
					lc.WordChanged(d, j, old)
				}
				fresh := l.NewLocal()
				fresh.Begin(d)
				for i := range d.Doc.Words {
					a, b := make([]float64, K), make([]float64, K)
					lc.PhiTerm(a, d, i)
					fresh.PhiTerm(b, d, i)
					if d := maxDiff(a, b); d > 1e-9*math.Max(1, maxAbs(b)) {
						t.Fatalf("after WordChanged of word %d (sweep %d), PhiTerm of word %d is %v, after a fresh Begin %v: WordChanged must keep the caches exact", j, sweep, i, a, b)
					}
				}
			}
		}
		restore()
	}
}

// checkTargetStationary: see TestLikelihood.
func checkTargetStationary(t TB, c *component) {
	l := c.warm(t).(framework.Likelihood)
	rng := c.f.rng
	for _, d := range c.f.docs {
		saved := d.Target
		d.Target = l.NewTarget()
		lc := l.NewLocal()
		lc.Begin(d)
		d.Target.Reset()
		lc.TargetTerm(d)
		if tt := c.f.tt; tt != nil {
			e := tt.RandomMessage(rng)
			x := tt.Natural(d.Target)
			for i := range x {
				x[i] += e[i]
			}
			tt.set(d.Target, x)
			score := func() float64 { return likScore(t, l, d) }
			tol := 1e-6 * math.Max(1, math.Abs(score()))
			if g, at, raised := tt.naturalStationary(d.Target, score, e, 1, true, 1e-9*math.Max(1, math.Abs(score()))); g > tol || g != g || raised {
				t.Errorf("document %d: at the target update, the bound plus the evidence's term has derivative %.6g along natural parameter %d (raised by a step: %v), want 0 and a maximum: the prior message must be the gradient of the response's part of the bound in the target's moments, and the response must add the target's entropy", d.Index, g, at, raised)
			}
			d.Target = saved
			continue
		}
		var evid func() float64
		switch tg := d.Target.(type) {
		case *framework.Categorical:
			e := make([]float64, len(tg.Log))
			for i := range e {
				e[i] = 2 * rng.NormFloat64()
				tg.Log[i] += e[i]
			}
			evid = func() float64 {
				s := 0.0
				for i, p := range tg.P {
					s += e[i] * p
				}
				return s
			}
		case *framework.Gaussian:
			p := 0.5 + rng.Float64()
			q := 2 * p * rng.NormFloat64()
			tg.Prec += p
			tg.PrecMean += q
			evid = func() float64 { return q*tg.Mean - p/2*(tg.Mean*tg.Mean+tg.Var) }
		}
		d.Target.Finalize()
		F := func() float64 { return likScore(t, l, d) + evid() }
		base := F()
		tol := 1e-6 * math.Max(1, math.Abs(base))
		check := func(what string, set func(h float64), h float64) {
			set(h)
			up := F()
			set(-h)
			down := F()
			set(0)
			if g := (up - down) / (2 * h); math.Abs(g) > tol || math.IsNaN(g) {
				t.Errorf("document %d: the bound's derivative along %s is %.6g at the target update, want 0: the prior message must be the gradient of the response's part of the bound in the target's moments, and the response must add the target's entropy", d.Index, what, g)
			}
			for _, x := range []float64{up, down} {
				if x > base+1e-9*math.Max(1, math.Abs(base)) {
					t.Errorf("document %d: moving %s raises the bound from %.12g to %.12g: the target update is not its maximiser", d.Index, what, base, x)
				}
			}
		}
		switch tg := d.Target.(type) {
		case *framework.Categorical:
			log0 := append([]float64(nil), tg.Log...)
			for i := range tg.Log {
				check("log λ_"+itoa(i), func(h float64) {
					copy(tg.Log, log0)
					tg.Log[i] += h
					tg.Finalize()
				}, 1e-5)
			}
		case *framework.Gaussian:
			m0, v0 := tg.Mean, tg.Var
			check("the mean", func(h float64) { tg.Mean = m0 + h*math.Max(1, math.Abs(m0)) }, 1e-5)
			check("the variance", func(h float64) { tg.Var = v0 * (1 + h) }, 1e-5)
		}
		d.Target = saved
	}
}
