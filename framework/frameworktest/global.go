package frameworktest

import (
	"bytes"
	"context"
	"errors"
	"math"

	"github.com/maslda/maslda/framework"
)

// component is what the checks of statistics and global steps need of a
// Likelihood or a NoiseModel under test.
type component struct {
	f *fixture
	// fresh returns a new instance, initialised over the fixture (and
	// bound to its target kind).
	fresh func(t TB) framework.Global
	// natural returns the parameters that Update blends; nil when the
	// component declares it has none.
	natural func(g framework.Global) []float64
	// score is the component's part of document d's bound (DocScorer).
	score func(t TB, g framework.Global, d *framework.DocState) float64
	// message is the component's message onto a fresh target for d, in
	// natural parameters (categorical: Log; Gaussian: Prec, PrecMean).
	message func(g framework.Global, d *framework.DocState) []float64
	// predict is the component's prediction for d (likelihoods only).
	predict func(g framework.Global, d *framework.DocState) []float64
}

func update(t TB, g framework.Global, s framework.Stats, st framework.Step) {
	t.Helper()
	if err := g.Update(context.Background(), s, st); err != nil {
		t.Fatalf("Update(%+v): %v", st, err)
	}
}

// warm is the state the update checks start from: fresh, then one batch
// update on the second half of the fixture's documents, so that the
// parameters are not those of Init.
func (c *component) warm(t TB) framework.Global {
	t.Helper()
	g := c.fresh(t)
	_, b := c.f.half()
	update(t, g, accumulate(g, b), framework.BatchStep(1))
	return g
}

func (c *component) nat(g framework.Global) []float64 {
	if c.natural == nil {
		return nil
	}
	return c.natural(g)
}

func saveParams(t TB, g framework.Global) []byte {
	t.Helper()
	p, ok := g.(framework.Persister)
	if !ok {
		return nil
	}
	var buf bytes.Buffer
	if err := p.SaveParams(&buf); err != nil {
		t.Fatalf("SaveParams: %v", err)
	}
	return buf.Bytes()
}

// checkDocELBOSum: the per-document part of ELBO(s, st), which st.Scale
// multiplies, is Σ_d DocELBO(d) at the same parameters: ELBO at S = 3
// minus ELBO at S = 1, halved.
func (c *component) checkDocELBOSum(t TB) {
	g := c.warm(t)
	s := accumulate(g, c.f.docs)
	e1 := g.ELBO(s, framework.Step{Rho: 1, Scale: 1, Full: true, Iter: 2})
	e3 := g.ELBO(s, framework.Step{Rho: 1, Scale: 3, Iter: 2})
	sum := 0.0
	for _, d := range c.f.docs {
		sum += c.score(t, g, d)
	}
	per := (e3 - e1) / 2
	if !near(per, sum, 1e-9, 1e-9) || math.IsNaN(per) {
		t.Errorf("(ELBO at S = 3 − ELBO at S = 1)/2 = %.12g but Σ_d DocELBO = %.12g: the per-document terms of ELBO must be those of DocELBO, multiplied by Step.Scale, and the global terms must not be", per, sum)
	}
}

// checkMerge: statistics of three shards merged in order equal those of
// the union (their ELBO at two scales, and the parameters and bound after
// an update from either); Reset empties; merging into empty statistics
// copies.
func (c *component) checkMerge(t TB) {
	g := c.warm(t)
	docs := c.f.docs
	shards := [][]*framework.DocState{docs[:4], docs[4:9], docs[9:]}
	m := accumulate(g, shards[0])
	m.Merge(accumulate(g, shards[1]))
	m.Merge(accumulate(g, shards[2]))
	u := accumulate(g, docs)
	r := accumulate(g, shards[1])
	r.Reset()
	for _, d := range docs {
		g.Accumulate(r, d)
	}
	e := g.NewStats()
	e.Merge(u)
	for _, sc := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: sc, Full: sc == 1, Iter: 2}
		want := g.ELBO(u, st)
		for _, x := range []struct {
			what string
			s    framework.Stats
		}{{"three shards merged", m}, {"statistics Reset, then every document", r}, {"empty statistics merged with the union", e}} {
			if got := g.ELBO(x.s, st); !near(got, want, 1e-12, 1e-12) {
				t.Errorf("S = %v: ELBO of the %s = %.15g, of the union = %.15g", sc, x.what, got, want)
			}
		}
	}
	gm, gu := c.warm(t), c.warm(t)
	ms := accumulate(gm, shards[0])
	ms.Merge(accumulate(gm, shards[1]))
	ms.Merge(accumulate(gm, shards[2]))
	us := accumulate(gu, docs)
	st := framework.BatchStep(2)
	update(t, gm, ms, st)
	update(t, gu, us, st)
	if em, eu := gm.ELBO(ms, st), gu.ELBO(us, st); !near(em, eu, 1e-10, 1e-10) {
		t.Errorf("after an update from the merged statistics the bound is %.15g, from the union's %.15g", em, eu)
	}
	if d := maxDiff(c.nat(gm), c.nat(gu)); d > 1e-9*math.Max(1, maxAbs(c.nat(gu))) {
		t.Errorf("the parameters updated from merged statistics differ from the union's by %.3g", d)
	}
}

// checkZeroStep: Update with ρ = 0 (any S) changes no parameter, saved or
// natural, and not the bound.
func (c *component) checkZeroStep(t TB) {
	g := c.warm(t)
	a, _ := c.f.half()
	s := accumulate(g, a)
	st := framework.Step{Rho: 0, Scale: 2.5, Iter: 2}
	n0, p0, e0 := c.nat(g), saveParams(t, g), g.ELBO(s, st)
	update(t, g, s, st)
	if n := c.nat(g); maxDiff(n, n0) != 0 {
		t.Errorf("ρ = 0 changed the natural parameters by up to %.3g", maxDiff(n, n0))
	}
	if p := saveParams(t, g); !bytes.Equal(p, p0) {
		t.Errorf("ρ = 0 changed the saved parameters")
	}
	if e := g.ELBO(s, st); e != e0 {
		t.Errorf("ρ = 0 changed the bound from %.15g to %.15g", e0, e)
	}
}

// checkScale: an update with scale S = 3 equals one from three copies of
// the statistics merged, with S = 1 (MODEL.md §5: prior + S·stats), in
// the natural parameters and the bound; and S = 3 differs from S = 1.
func (c *component) checkScale(t TB) {
	if c.natural == nil {
		t.Logf("no parameters")
		return
	}
	a, _ := c.f.half()
	st3 := framework.Step{Rho: 1, Scale: 3, Iter: 2}
	st1 := framework.Step{Rho: 1, Scale: 1, Iter: 2}
	g3 := c.warm(t)
	s := accumulate(g3, a)
	update(t, g3, s, st3)
	gc := c.warm(t)
	copies := accumulate(gc, a)
	copies.Merge(accumulate(gc, a))
	copies.Merge(accumulate(gc, a))
	update(t, gc, copies, st1)
	g1 := c.warm(t)
	s1 := accumulate(g1, a)
	update(t, g1, s1, st1)
	n3, nc, n1 := c.natural(g3), c.natural(gc), c.natural(g1)
	scale := math.Max(1, maxAbs(nc))
	if d := maxDiff(n3, nc); d > 1e-7*scale {
		t.Errorf("an update with S = 3 and one from three copies of the statistics with S = 1 differ by %.3g in the natural parameters (of magnitude %.3g): S must multiply the statistics", d, scale)
	}
	if e3, ec := g3.ELBO(s, st3), gc.ELBO(copies, st1); !near(e3, ec, 1e-8, 1e-8) {
		t.Errorf("the bound after an update with S = 3 is %.12g, after one from three copies with S = 1 %.12g", e3, ec)
	}
	if d := maxDiff(n3, n1); !(d > 1e-6*scale) {
		t.Errorf("updates with S = 3 and S = 1 give the same natural parameters (difference %.3g): the check cannot tell whether S is used", d)
	}
}

// checkBlend: at 0 < ρ < 1 with S ≠ 1 the natural parameters are
// (1 − ρ)·old + ρ·new, new those of the update with ρ = 1 and the same S
// from the same state (MODEL.md §5).
func (c *component) checkBlend(t TB) {
	if c.natural == nil {
		t.Logf("no parameters")
		return
	}
	const rho, S = 0.3, 2.5
	a, _ := c.f.half()
	g1 := c.warm(t)
	old := c.natural(g1)
	update(t, g1, accumulate(g1, a), framework.Step{Rho: 1, Scale: S, Iter: 2})
	full := c.natural(g1)
	gr := c.warm(t)
	update(t, gr, accumulate(gr, a), framework.Step{Rho: rho, Scale: S, Iter: 2})
	got := c.natural(gr)
	if len(got) != len(old) || len(full) != len(old) {
		t.Fatalf("natural parameters of %d, %d and %d values", len(old), len(full), len(got))
	}
	scale := math.Max(1, maxAbs(full))
	if d := maxDiff(old, full); !(d > 1e-6*scale) {
		t.Fatalf("the update with ρ = 1 moved the natural parameters by %.3g only: the check cannot tell a blend", d)
	}
	for i := range got {
		want := (1-rho)*old[i] + rho*full[i]
		if !near(got[i], want, 1e-9, 1e-12*scale) {
			t.Errorf("natural parameter %d after ρ = %v, S = %v: %.12g, want (1−ρ)·%.12g + ρ·%.12g = %.12g", i, rho, S, got[i], old[i], full[i], want)
			return
		}
	}
}

// checkMaximises: the update with ρ = 1 maximises the component's part of
// the bound for its statistics (S = 1 and S = 2.5): the bound at every
// other point tried — the parameters of updates from other documents, and
// blends toward them — is not higher.
func (c *component) checkMaximises(t TB) {
	if c.natural == nil {
		t.Logf("no parameters")
		return
	}
	a, _ := c.f.half()
	docs := c.f.docs
	for _, S := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: S, Full: true, Iter: 3}
		g := c.warm(t)
		s := accumulate(g, a)
		update(t, g, s, st)
		best := g.ELBO(s, st)
		tol := 1e-7 * math.Max(1, math.Abs(best))
		lower := 0
		tried := 0
		for i := 0; i < 4; i++ {
			other := docs[(3*i)%len(docs):]
			if len(other) > 6 {
				other = other[:6]
			}
			for _, rho := range []float64{0, 0.5, 0.9} {
				h := c.fresh(t)
				update(t, h, accumulate(h, other), framework.BatchStep(1))
				if rho > 0 {
					update(t, h, accumulate(h, a), framework.Step{Rho: rho, Scale: S, Full: true, Iter: 2})
				}
				e := h.ELBO(accumulate(h, a), st)
				tried++
				if e > best+tol {
					t.Errorf("S = %v: the bound at the update is %.12g, but %.12g at the parameters of an update from other documents blended toward it with ρ = %v: Update must maximise the component's part of the bound (prior + S·statistics)", S, best, e, rho)
				} else if e < best-tol {
					lower++
				}
			}
		}
		if lower == 0 {
			t.Errorf("S = %v: none of %d other points has a lower bound than the update: the check cannot fail", S, tried)
		}
	}
}

// ascends reports whether g declares an update that only ascends
// (framework.Ascender).
func ascends(g framework.Global) bool {
	a, ok := g.(framework.Ascender)
	return ok && a.Ascends()
}

// checkAscends replaces checkMaximises for a framework.Ascender: for S = 1
// and 2.5, from Init's parameters, from warm ones and from those of
// updates on other documents, an update with ρ = 1 does not lower the
// component's part of the bound for its statistics, nor does a second
// update after it; and at least one update raises it (or the check could
// not fail).
func (c *component) checkAscends(t TB) {
	if c.natural == nil {
		t.Logf("no parameters")
		return
	}
	a, _ := c.f.half()
	docs := c.f.docs
	starts := []struct {
		name string
		new  func() framework.Global
	}{
		{"Init's parameters", func() framework.Global { return c.fresh(t) }},
		{"warm parameters", func() framework.Global { return c.warm(t) }},
	}
	for i := range 3 {
		other := docs[(3*i)%len(docs):]
		if len(other) > 6 {
			other = other[:6]
		}
		starts = append(starts, struct {
			name string
			new  func() framework.Global
		}{"the parameters of an update from other documents", func() framework.Global {
			h := c.fresh(t)
			update(t, h, accumulate(h, other), framework.BatchStep(1))
			return h
		}})
	}
	rose := 0
	for _, S := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: S, Full: true, Iter: 3}
		for _, s0 := range starts {
			g := s0.new()
			s := accumulate(g, a)
			prev := g.ELBO(s, st)
			for k := range 2 {
				update(t, g, s, st)
				e := g.ELBO(s, st)
				if e < prev-1e-9*math.Max(1, math.Abs(prev)) {
					t.Errorf("S = %v, from %s: update %d lowered the bound from %.12g to %.12g: an Ascender's Update must not lower its part of the bound", S, s0.name, k+1, prev, e)
				}
				if e > prev+1e-9*math.Max(1, math.Abs(prev)) {
					rose++
				}
				prev = e
			}
		}
	}
	if rose == 0 {
		t.Errorf("no update raised the bound: the check cannot fail")
	}
}

// checkPersist: SaveParams then LoadParams into a fresh instance restores
// the parameters exactly (the saved bytes, every document's score and
// message, the bound, the predictions); garbage is refused with
// framework.ErrBadInput.
func (c *component) checkPersist(t TB) {
	if c.natural == nil {
		t.Logf("no parameters to save")
		return
	}
	g := c.warm(t)
	p, ok := g.(framework.Persister)
	if !ok {
		t.Fatalf("%T does not implement framework.Persister: a saved model would predict with the parameters of Init (declare a component without parameters with Stateless)", g)
	}
	saved := saveParams(t, g)
	h := c.fresh(t)
	before := saveParams(t, h)
	if err := h.(framework.Persister).LoadParams(bytes.NewReader(saved)); err != nil {
		t.Fatalf("LoadParams(SaveParams()): %v", err)
	}
	if again := saveParams(t, h); !bytes.Equal(again, saved) {
		t.Errorf("SaveParams after LoadParams differs from what was loaded")
	}
	if bytes.Equal(before, saved) {
		t.Errorf("the parameters after an update save as those of Init: the round trip cannot be told from none")
	}
	for _, d := range c.f.docs {
		if a, b := c.score(t, g, d), c.score(t, h, d); a != b {
			t.Errorf("document %d: DocELBO %.15g before saving, %.15g after loading", d.Index, a, b)
		}
		if a, b := c.message(g, d), c.message(h, d); maxDiff(a, b) != 0 {
			t.Errorf("document %d: message %v before saving, %v after loading", d.Index, a, b)
		}
		if c.predict != nil {
			if a, b := c.predict(g, d), c.predict(h, d); maxDiff(a, b) != 0 {
				t.Errorf("document %d: prediction %v before saving, %v after loading", d.Index, a, b)
			}
		}
	}
	st := framework.BatchStep(2)
	if a, b := g.ELBO(accumulate(g, c.f.docs), st), h.ELBO(accumulate(h, c.f.docs), st); a != b {
		t.Errorf("bound %.15g before saving, %.15g after loading", a, b)
	}
	if err := c.fresh(t).(framework.Persister).LoadParams(bytes.NewReader([]byte("not parameters\n"))); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("LoadParams of garbage: %v, want an error wrapping framework.ErrBadInput", err)
	}
	_ = p
}

// targetVector is a target's natural parameters as a vector (tt: the
// custom target type, nil for the framework's).
func targetVector(tt *TargetType, tg framework.Target) []float64 {
	if tt != nil {
		return tt.Natural(tg)
	}
	switch t := tg.(type) {
	case *framework.Categorical:
		return append([]float64(nil), t.Log...)
	case *framework.Gaussian:
		return []float64{t.Prec, t.PrecMean}
	}
	return nil
}

// momentVector is a finalised target's moments as a vector.
func momentVector(tt *TargetType, tg framework.Target) []float64 {
	if tt != nil {
		return tt.Moments(tg)
	}
	switch t := tg.(type) {
	case *framework.Categorical:
		return append([]float64(nil), t.P...)
	case *framework.Gaussian:
		return []float64{t.Mean, t.Var}
	}
	return nil
}
