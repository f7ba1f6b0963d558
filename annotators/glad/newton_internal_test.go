package glad

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/framework"
)

// freshModel is a GLAD model with default parameters over R annotators
// and C classes.
func freshModel(t *testing.T, R, C int) *Model {
	t.Helper()
	n, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := n.(*Model)
	ann, cls := make([]string, R), make([]string, C)
	for i := range ann {
		ann[i] = strconv.Itoa(i)
	}
	for i := range cls {
		cls[i] = strconv.Itoa(i)
	}
	if err := m.Init(&framework.Setup{Annotators: ann, Classes: cls}); err != nil {
		t.Fatal(err)
	}
	return m
}

// randomStats draws D tasks answered by 1 to 5 of R annotators: the first
// 4 usually right, the last 2 usually wrong (probabilities p that the
// answer is right, as the E-step leaves them).
func randomStats(m *Model, R, D int, seed uint64) *Stats {
	rng := rand.New(rand.NewPCG(seed, 6))
	s := m.NewStats().(*Stats)
	for range D {
		for _, r := range rng.Perm(R)[:1+rng.IntN(5)] {
			s.R = append(s.R, int32(r))
			p := rng.Float64()
			if r < 4 {
				p = 0.6 + 0.4*p
			} else if r >= R-2 {
				p = 0.3 * p
			}
			s.P = append(s.P, p)
		}
		s.Off = append(s.Off, int32(len(s.R)))
	}
	return s
}

// TestNewtonDerivatives: the gradient and Hessian that Update's Newton
// step assembles (the Hessian through the implicit function b_d(a)) equal
// central differences of the profiled objective Φ (gradient) and of the
// assembled gradient (Hessian), at S = 2.5 and random abilities.
func TestNewtonDerivatives(t *testing.T) {
	const R, D, C, S = 8, 120, 3, 2.5
	m := freshModel(t, R, C)
	s := randomStats(m, R, D, 11)
	rng := rand.New(rand.NewPCG(2, 3))
	a := make([]float64, R)
	for r := range a {
		a[r] = 2*rng.Float64() - 0.5
	}
	byR, start, docOf := s.byAnnotator(R)
	nw := newNewton(R, D)
	grad := func(x []float64) ([]float64, [][]float64) {
		bs, eb := make([]float64, D), make([]float64, D)
		for i := range bs {
			bs[i] = m.params.LogBetaMean
		}
		m.objectiveFrom(s, x, S, bs, eb)
		nw.assemble(m, s, S, x, bs, eb, byR, start, docOf)
		g, h := make([]float64, R), make([][]float64, R)
		for r := range R {
			g[r] = nw.g.AtVec(r)
			h[r] = make([]float64, R)
			for c := range R {
				h[r][c] = nw.h.At(r, c)
			}
		}
		return g, h
	}
	g, h := grad(a)
	// Steps: 1e-5 for the gradient; 1e-3 for the Hessian, whose
	// differences of assembled gradients carry the profiles' tolerance
	// (about 1e-9 in b_d) divided by the step.
	const hg, hh = 1e-5, 1e-3
	for r := range R {
		up, down := append([]float64(nil), a...), append([]float64(nil), a...)
		up[r] += hg
		down[r] -= hg
		fd := (m.objective(s, up, S) - m.objective(s, down, S)) / (2 * hg)
		if math.Abs(fd-g[r]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂Φ/∂a_%d = %.10g assembled, %.10g by differences", r, g[r], fd)
		}
		up[r], down[r] = a[r]+hh, a[r]-hh
		gu, _ := grad(up)
		gd, _ := grad(down)
		for c := range R {
			fd := (gu[c] - gd[c]) / (2 * hh)
			if math.Abs(fd-h[c][r]) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂²Φ/∂a_%d∂a_%d = %.10g assembled, %.10g by differences", c, r, h[c][r], fd)
			}
		}
	}
}

// TestNewtonEqualsCoordinateAscent: Update's Newton steps on the profiled
// objective reach the maximiser that rounds of coordinate ascent alone
// reach (abilities within 1e-7, the objective within 1e-9 relative), with
// random answers from 12 annotators on 300 tasks, C = 3, S = 1 and 2.5,
// in fewer steps.
func TestNewtonEqualsCoordinateAscent(t *testing.T) {
	const R, D, C = 12, 300, 3
	s := randomStats(freshModel(t, R, C), R, D, 5)
	for _, S := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: S, Full: S == 1, Iter: 1}
		nm := freshModel(t, R, C)
		if err := nm.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		saved := newtonMaxAnnotators
		newtonMaxAnnotators = 0
		cm := freshModel(t, R, C)
		err := cm.Update(context.Background(), s, st)
		newtonMaxAnnotators = saved
		if err != nil {
			t.Fatal(err)
		}
		for r := range R {
			if math.Abs(nm.Ability[r]-cm.Ability[r]) > 1e-7 {
				t.Errorf("S = %v: ability %d: Newton %.10f, coordinate ascent %.10f", S, r, nm.Ability[r], cm.Ability[r])
			}
		}
		t.Logf("S = %v: %d steps (%d Newton) against %d rounds of coordinate ascent", S, nm.steps, nm.newtonSteps, cm.steps)
		if nm.newtonSteps == 0 || nm.steps >= cm.steps {
			t.Errorf("S = %v: %d steps, %d of them Newton's, against %d rounds: the Newton steps are not taken or do not help", S, nm.steps, nm.newtonSteps, cm.steps)
		}
		en, ec := nm.ELBO(s, st), cm.ELBO(s, st)
		if math.Abs(en-ec) > 1e-9*math.Abs(ec) {
			t.Errorf("S = %v: objective %.12g (Newton) against %.12g", S, en, ec)
		}
	}
}

// TestNoAnnotators: a model with no annotators updates without a Newton
// system (a 0×0 matrix would panic in gonum).
func TestNoAnnotators(t *testing.T) {
	m := freshModel(t, 0, 2)
	if err := m.Update(context.Background(), m.NewStats(), framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
}

// TestInitRefuses: Init without a setup, or with fewer than 2 classes, is
// an error wrapping framework.ErrIncompatible, not a panic.
func TestInitRefuses(t *testing.T) {
	for _, s := range []*framework.Setup{nil, {Classes: []string{"only"}}} {
		m := &Model{}
		if err := m.Init(s); !errors.Is(err, framework.ErrIncompatible) {
			t.Errorf("Init(%v): %v, want ErrIncompatible", s, err)
		}
	}
}

// TestLocalDerivatives: the first and second derivatives in b that the
// 1-D maximisers use — answerTerms (the profile of DocELBO and the
// M-step) and jointAt (Evidence's log-sum-exp objective) — equal central
// differences of the values, over abilities of both signs, C = 3, a
// random incoming message.
func TestLocalDerivatives(t *testing.T) {
	m := freshModel(t, 3, 3)
	copy(m.Ability, []float64{2, 0.3, -1.2})
	answers := []framework.Answer{{Annotator: 0, Class: 1}, {Annotator: 1, Class: 1}, {Annotator: 2, Class: 0}}
	base := []float64{0.4, -0.3, 1.1}
	js := newJoint(3)
	const h = 1e-5
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }
	for _, b := range []float64{-2, -0.3, 0.5, 1, 2.2} {
		for _, a := range []float64{2, 0.3, -1.2} {
			for _, p := range []float64{0.05, 0.5, 0.9} {
				_, d1, d2 := m.answerTerms(a, math.Exp(b), p)
				vu, d1u, _ := m.answerTerms(a, math.Exp(b+h), p)
				vd, d1d, _ := m.answerTerms(a, math.Exp(b-h), p)
				if !near(d1, (vu-vd)/(2*h)) || !near(d2, (d1u-d1d)/(2*h)) {
					t.Errorf("answerTerms(a %v, b %v, p %v): derivatives %.9g, %.9g; by differences %.9g, %.9g", a, b, p, d1, d2, (vu-vd)/(2*h), (d1u-d1d)/(2*h))
				}
			}
		}
		_, d1, d2 := m.jointAt(answers, base, b, js)
		vu, d1u, _ := m.jointAt(answers, base, b+h, js)
		vd, d1d, _ := m.jointAt(answers, base, b-h, js)
		if !near(d1, (vu-vd)/(2*h)) || !near(d2, (d1u-d1d)/(2*h)) {
			t.Errorf("jointAt(b %v): derivatives %.9g, %.9g; by differences %.9g, %.9g", b, d1, d2, (vu-vd)/(2*h), (d1u-d1d)/(2*h))
		}
	}
}
