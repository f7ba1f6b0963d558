package ordinalshift

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestFirstSVIStep: the running counts are bias-corrected (divided by the
// sum of their blending weights), so a first update at ρ < 1 from Init's
// state fits the same (shift, stretch, precision) as ρ = 1 from the same
// statistics. Dropping the correction fits ρ·S·counts, which weighs the
// prior ρ⁻¹ times too much; the kit's Blend check, on the counts alone,
// cannot see it.
func TestFirstSVIStep(t *testing.T) {
	const R, C = 3, 5
	fresh := func() *Model {
		m, err := New(Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Init(&framework.Setup{Annotators: []string{"a", "b", "c"}, Classes: []string{"1", "2", "3", "4", "5"}}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	rng := rand.New(rand.NewPCG(5, 6))
	s := fresh().NewStats().(*Stats)
	for r := range R {
		for c := range C {
			for l := range C {
				// answers near the true level, shifted by r/2
				d := float64(l-c) - float64(r)/2
				s.N[(r*C+c)*C+l] = 6*math.Exp(-d*d) + rng.Float64()
			}
		}
	}
	full, part := fresh(), fresh()
	if err := full.Update(context.Background(), s, framework.Step{Rho: 1, Scale: 2, Iter: 1}); err != nil {
		t.Fatal(err)
	}
	if err := part.Update(context.Background(), s, framework.Step{Rho: 0.3, Scale: 2, Iter: 1}); err != nil {
		t.Fatal(err)
	}
	for r := range R {
		for i := range 3 {
			if a, b := part.Theta[r][i], full.Theta[r][i]; math.Abs(a-b) > 1e-8*math.Max(1, math.Abs(b)) {
				t.Errorf("annotator %d, parameter %d: %.12g after a first update at ρ = 0.3, %.12g at ρ = 1", r, i, a, b)
			}
		}
	}
}
