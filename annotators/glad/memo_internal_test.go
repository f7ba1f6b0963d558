package glad

import (
	"context"
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestELBOMemo: after a batch Update, ELBO returns the objective Update
// reached, which equals the objective re-profiled from μ_b (every b_d
// from its prior mean) to rounding; asked again with the same statistics
// it returns the same value; with the same buffer refilled with other
// probabilities, or another scale, it is recomputed (issue 27: the memo
// must never return a stale value).
func TestELBOMemo(t *testing.T) {
	m := freshModel(t, 8, 3)
	s := randomStats(m, 8, 300, 1)
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	step := framework.BatchStep(1)
	got := m.ELBO(s, step)
	cold := m.objective(s, m.Ability, step.Scale)
	if math.Abs(got-cold) > 1e-12*math.Abs(cold) {
		t.Errorf("ELBO after Update %v, re-profiled objective %v", got, cold)
	}
	if again := m.ELBO(s, step); again != got {
		t.Errorf("ELBO asked again: %v, first %v", again, got)
	}
	for i := range s.P {
		s.P[i] = 1 - s.P[i] // the same buffer, other contents
	}
	if v, want := m.ELBO(s, step), m.objective(s, m.Ability, step.Scale); v != want {
		t.Errorf("ELBO of refilled statistics %v, want %v", v, want)
	}
	half := framework.Step{Rho: 1, Scale: 2.5}
	if v, want := m.ELBO(s, half), m.objective(s, m.Ability, 2.5); v != want {
		t.Errorf("ELBO at S = 2.5: %v, want %v", v, want)
	}
	m.Ability[0] += 0.25
	if v, want := m.ELBO(s, half), m.objective(s, m.Ability, 2.5); v != want {
		t.Errorf("ELBO after the abilities changed: %v, want %v", v, want)
	}
}

// TestMaximise1DPlateau: near its maximum a smooth function's values are
// equal to rounding, and maximise1D must stop there at the maximiser (it
// used to wander on the plateau, halving and accepting moves of 1e-10
// whose values compared equal or higher by chance: up to hundreds of
// evaluations).
func TestMaximise1DPlateau(t *testing.T) {
	for _, c := range []struct{ x0, top, scale float64 }{{1, 0.19145282652681678, 2.07}, {1, 0.6337111334435207, 1.43}, {-3, 2.5, 0.01}, {4, -1.25, 50}} {
		evals := 0
		f := func(x float64) (v, d1, d2 float64) {
			evals++
			u := x - c.top
			// −9.37 − s·u²/2 − u⁴/4: values of order 10 as the profiles',
			// with a rounding error of a few ulps that depends on x (as a
			// sum over the answers has).
			noise := float64(math.Float64bits(x)*0x9E3779B97F4A7C15>>40) / (1 << 24) * 8e-15
			return -9.3678644191366462 - c.scale*u*u/2 - u*u*u*u/4 + noise, -c.scale*u - u*u*u, -c.scale - 3*u*u
		}
		x, _ := maximise1D(f, c.x0, -30, 30, 2)
		if math.Abs(x-c.top) > 1e-8*math.Max(1, math.Abs(c.top)) {
			t.Errorf("start %v: maximiser %v, want %v", c.x0, x, c.top)
		}
		if evals > 16 { // 5, 4, 15, 6 here; 5, 21, 19, 6 before issue 27
			t.Errorf("start %v: %d evaluations", c.x0, evals)
		}
	}
}
