package frameworktest

import (
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// NoiseModel describes an annotator model under test.
type NoiseModel struct {
	// New returns a new, uninitialised annotator model (its factory
	// applied to the parameters under test). The kit calls Init and
	// Accepts.
	New func() (framework.NoiseModel, error)
	// Kind is the target it models: KindCategorical or KindGaussian
	// (ignored when Target is set).
	Kind string
	// Target declares a target type of a plug-in's own (KindCustom);
	// Classes is then Target.Classes.
	Target *TargetType
	// Partner returns the response the end-to-end checks train the
	// annotator model with. Default: FlatResponse (required for a custom
	// Target, which FlatResponse does not know).
	Partner func() (framework.Likelihood, error)
	// Classes is C ≥ 2 for a categorical target (default 3).
	Classes int
	// Natural returns the parameters that Update blends
	// ((1 − ρ)·old + ρ·(prior + S·stats), MODEL.md §5) as one vector.
	// Required unless Stateless.
	Natural func(framework.NoiseModel) []float64
	// Stateless declares an annotator model without global parameters
	// (it implements framework.Parameterless instead of Persister, which
	// models.NewModel requires).
	Stateless bool
	// Seed varies the fixture and the planted problems.
	Seed uint64
	// Fit configures the end-to-end checks.
	Fit Fit
	Checks
}

// TestNoiseModel runs the conformance checks of an annotator model. Unit
// checks, on a fixture of a dozen documents with random targets and 0 to
// 3 answers each from 4 annotators:
//
//   - EvidenceGradient: the evidence (what Evidence adds onto a target
//     holding a random incoming message, as the response's prior message
//     would be) is the gradient of DocELBO, at the target that results, in
//     the target's moments (categorical: ∂/∂λ_l up
//     to a constant common to every class; Gaussian: precision −2∂/∂v and
//     precision × mean ∂/∂m + precision·m), by central differences; the
//     annotator model does not add the target's entropy.
//   - DocELBOSum, Merge, ZeroStep, Scale, Blend, Maximises (Ascends for
//     a framework.Ascender), Persist: see the package documentation.
//
// End to end (Fit), with FlatResponse: BatchMonotone, FullBatchSVI,
// Workers, Recovery (truth inferred from a planted crowd).
func TestNoiseModel(t TB, nm NoiseModel) {
	t.Helper()
	defer recoverFatal()
	if nm.New == nil {
		t.Fatalf("frameworktest.NoiseModel: New is nil")
	}
	newT := func() framework.Target { return newTarget(nm.Kind, nm.Classes) }
	if tt := nm.Target; tt != nil {
		if m := tt.missing(); m != "" {
			t.Fatalf("frameworktest.TargetType %q: %s is nil", tt.Name, m)
		}
		nm.Kind, nm.Classes, newT = KindCustom, tt.Classes, tt.New
	} else if err := checkKind(nm.Kind); err != nil {
		t.Fatalf("%v", err)
	}
	if nm.Kind == KindCategorical && nm.Classes == 0 {
		nm.Classes = 3
	}
	f := newFixture(t, nm.Kind, nm.Target, 3, nm.Classes, nm.Seed, newT)
	c := &component{f: f}
	c.fresh = func(t TB) framework.Global {
		t.Helper()
		m, err := nm.New()
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := m.Init(f.setup); err != nil {
			t.Fatalf("Init: %v", err)
		}
		if err := m.Accepts(newT()); err != nil {
			t.Fatalf("Accepts(%s target): %v", nm.Kind, err)
		}
		return m
	}
	if !nm.Stateless {
		if nm.Natural == nil {
			t.Fatalf("frameworktest.NoiseModel: Natural is nil (set Stateless for a model without parameters)")
		}
		c.natural = func(g framework.Global) []float64 { return nm.Natural(g.(framework.NoiseModel)) }
	}
	c.score = func(t TB, g framework.Global, d *framework.DocState) float64 {
		t.Helper()
		sc, ok := g.(framework.DocScorer)
		if !ok {
			t.Fatalf("%T does not implement framework.DocScorer: local_init = \"best\" would compare the topic terms only, and the kit cannot check its messages", g)
		}
		return sc.DocELBO(d)
	}
	c.message = func(g framework.Global, d *framework.DocState) []float64 {
		msg, _ := noiseMessage(g.(framework.NoiseModel), d, f, nm.Kind, nm.Classes)
		return msg
	}
	nm.run(t, "EvidenceGradient", func(t TB) { checkEvidenceGradient(t, c, nm.Kind, nm.Classes) })
	nm.run(t, "DocELBOSum", c.checkDocELBOSum)
	nm.run(t, "Merge", c.checkMerge)
	nm.run(t, "ExactSums", c.checkExactSums)
	nm.run(t, "ZeroStep", c.checkZeroStep)
	nm.run(t, "Scale", c.checkScale)
	nm.run(t, "Blend", c.checkBlend)
	if ascends(c.fresh(t)) {
		nm.run(t, "Ascends", c.checkAscends)
	} else {
		nm.run(t, "Maximises", c.checkMaximises)
	}
	nm.run(t, "Persist", c.checkPersist)
	e := &endToEnd{kind: nm.Kind, tt: nm.Target, classes: nm.Classes, seed: nm.Seed, fit: nm.Fit.defaults(nm.Kind, true), checks: nm.Checks,
		build: func(t TB) (framework.Likelihood, framework.NoiseModel) {
			m, err := nm.New()
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if nm.Partner == nil {
				if nm.Kind == KindCustom {
					t.Fatalf("frameworktest.NoiseModel: a custom Target needs Partner (the response to train the annotator model with; FlatResponse knows only the framework's targets)")
				}
				return &FlatResponse{Kind: nm.Kind}, m
			}
			l, err := nm.Partner()
			if err != nil {
				t.Fatalf("Partner: %v", err)
			}
			return l, m
		}}
	e.run(t, true)
}

// incoming is the message already on document d's target when the noise
// model's Evidence is called (the response's prior message in a real local
// step), drawn from the document's index so that it is the same at every
// call: a random log-potential per class, or a precision in [0.5, 2.5) and
// a precision × mean in [−2, 2).
func incoming(f *fixture, kind string, C, index int) []float64 {
	rng := rand.New(rand.NewPCG(uint64(index)+1, 0x696e63))
	if f.tt != nil {
		return f.tt.RandomMessage(rng)
	}
	if kind == KindGaussian {
		return []float64{0.5 + 2*rng.Float64(), 4*rng.Float64() - 2}
	}
	m := make([]float64, C)
	for l := range m {
		m[l] = 2*rng.Float64() - 1
	}
	return m
}

// noiseMessage calls Evidence on a fresh target for d that already holds
// incoming(d) and returns the evidence (what Evidence added, in natural
// parameters) and the target after Finalize.
func noiseMessage(n framework.NoiseModel, d *framework.DocState, f *fixture, kind string, C int) ([]float64, framework.Target) {
	ds := *d
	var tg framework.Target
	if f.tt != nil {
		tg = f.tt.New()
	} else {
		tg = newTarget(kind, C)
	}
	tg.Reset()
	in := incoming(f, kind, C, d.Index)
	if f.tt != nil {
		f.tt.SetNatural(tg, in)
	}
	switch x := tg.(type) {
	case *framework.Categorical:
		copy(x.Log, in)
	case *framework.Gaussian:
		x.Prec, x.PrecMean = in[0], in[1]
	}
	ds.Target = tg
	n.Evidence(&ds)
	msg := targetVector(f.tt, tg)
	for i := range msg {
		msg[i] -= in[i]
	}
	tg.Finalize()
	return msg, tg
}

// checkEvidenceGradient: see TestNoiseModel. The evidence is computed onto
// a target that holds an incoming message (as in a local step, where the
// response's prior message comes first) and compared with the gradient of
// DocELBO at the target that results (after Finalize): for an annotator
// model whose evidence does not depend on the incoming message this is
// the gradient at an arbitrary target; one with per-document local
// variables maximised jointly with the target (GLAD's task difficulty)
// must give the gradient at the joint maximiser.
func checkEvidenceGradient(t TB, c *component, kind string, C int) {
	g := c.warm(t)
	answered := 0
	for _, d0 := range c.f.docs {
		msg, at := noiseMessage(g.(framework.NoiseModel), d0, c.f, kind, C)
		if len(d0.Answers) == 0 {
			if maxAbs(msg) != 0 {
				t.Errorf("document %d has no answers but the evidence is %v", d0.Index, msg)
			}
			continue
		}
		answered++
		dd := *d0
		dd.Target = at
		d := &dd
		score := func() float64 { return c.score(t, g, d) }
		if tt := c.f.tt; tt != nil {
			tol := 1e-5 * math.Max(1, maxAbs(msg))
			if gr, i, _ := tt.naturalStationary(d.Target, score, msg, -1, false, 0); gr > tol || gr != gr {
				t.Errorf("document %d: DocELBO − evidence·Moments has derivative %.6g along natural parameter %d at the target that results, want 0: the evidence must be the gradient of the annotators' part of the bound in the target's moments (and the annotator model must not add the target's entropy)", d.Index, gr, i)
			}
			continue
		}
		const h = 1e-6
		switch tg := d.Target.(type) {
		case *framework.Categorical:
			fd := make([]float64, len(tg.P))
			for l := range tg.P {
				x := tg.P[l]
				tg.P[l] = x + h
				up := score()
				tg.P[l] = x - h
				down := score()
				tg.P[l] = x
				fd[l] = (up - down) / (2 * h)
			}
			for l := 1; l < len(fd); l++ {
				if got, want := msg[l]-msg[0], fd[l]-fd[0]; !near(got, want, 1e-6, 1e-6) {
					t.Errorf("document %d: evidence Log[%d] − Log[0] = %.10g, ∂DocELBO/∂λ_%d − ∂DocELBO/∂λ_0 = %.10g at the target that results: the evidence must be the gradient of the annotators' part of the bound in λ (and the annotator model must not add the target's entropy)", d.Index, l, got, l, want)
				}
			}
		case *framework.Gaussian:
			m0, v0 := tg.Mean, tg.Var
			tg.Mean = m0 + h
			up := score()
			tg.Mean = m0 - h
			down := score()
			tg.Mean = m0
			dm := (up - down) / (2 * h)
			tg.Var = v0 + h*v0
			up = score()
			tg.Var = v0 - h*v0
			down = score()
			tg.Var = v0
			dv := (up - down) / (2 * h * v0)
			p := -2 * dv
			q := dm + p*m0
			if !near(msg[0], p, 1e-6, 1e-6) || !near(msg[1], q, 1e-6, 1e-6) {
				t.Errorf("document %d: evidence precision %.10g and precision×mean %.10g; from ∂DocELBO/∂v and ∂/∂m: %.10g and %.10g: the evidence must be the gradient of the annotators' part of the bound in the target's moments (and must not add the target's entropy)", d.Index, msg[0], msg[1], p, q)
			}
		}
	}
	if answered == 0 {
		t.Errorf("no document with answers: the check cannot fail")
	}
}
