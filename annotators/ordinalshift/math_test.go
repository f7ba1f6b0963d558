package ordinalshift

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
)

// interval's value against the naive difference of logistic CDFs, and its
// gradient and Hessian against central differences.
func TestIntervalDerivatives(t *testing.T) {
	const h = 1e-5
	for _, tc := range []struct {
		x, y       float64
		hasX, hasY bool
	}{
		{1.2, -0.3, true, true}, {0.01, -0.01, true, true}, {7, 4, true, true}, {-4, -9, true, true},
		{2.5, 0, true, false}, {-3, 0, true, false}, {0, 1.5, false, true}, {0, -6, false, true},
	} {
		f := func(x, y float64) float64 { l, _, _, _, _, _ := interval(x, y, tc.hasX, tc.hasY); return l }
		l, lx, ly, lxx, lyy, lxy := interval(tc.x, tc.y, tc.hasX, tc.hasY)
		hi, lo := 1.0, 0.0
		if tc.hasX {
			hi = sigmoid(tc.x)
		}
		if tc.hasY {
			lo = sigmoid(tc.y)
		}
		if want := math.Log(hi - lo); math.Abs(l-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%+v: ℓ = %.15g, naive %.15g", tc, l, want)
		}
		d := func(a, b float64) float64 { return (a - b) / (2 * h) }
		x, y := tc.x, tc.y
		got := []float64{lx, ly, lxx, lyy, lxy}
		want := []float64{
			d(f(x+h, y), f(x-h, y)),
			d(f(x, y+h), f(x, y-h)),
			(f(x+h, y) - 2*f(x, y) + f(x-h, y)) / (h * h),
			(f(x, y+h) - 2*f(x, y) + f(x, y-h)) / (h * h),
			(f(x+h, y+h) - f(x+h, y-h) - f(x-h, y+h) + f(x-h, y-h)) / (4 * h * h),
		}
		if !tc.hasX {
			want[0], want[2], want[4] = 0, 0, 0
		}
		if !tc.hasY {
			want[1], want[3], want[4] = 0, 0, 0
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateApprox(1e-4, 1e-4)); diff != "" {
			t.Errorf("%+v: (ℓ_x, ℓ_y, ℓ_xx, ℓ_yy, ℓ_xy) (−central differences +closed form):\n%s", tc, diff)
		}
	}
}

// Every row p(· | c) sums to 1, and the gradient and Hessian of the M-step
// objective agree with central differences.
func TestObjectiveDerivatives(t *testing.T) {
	const C = 5
	th := [3]float64{2.5, 4, -1.2}
	for c := range C {
		s := 0.0
		for l := range C {
			s += math.Exp(logProb(th, c, l, C, 0, nil, nil))
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("row %d sums to %.15g", c, s)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	w := make([]float64, C*C)
	for i := range w {
		w[i] = 3 * rng.Float64()
	}
	g, hs := make([]float64, 3), make([]float64, 9)
	objective(th, w, C, g, hs)
	const h = 1e-5
	gi, hi := make([]float64, 3), make([]float64, 9)
	for i := range 3 {
		up, down := th, th
		up[i] += h
		down[i] -= h
		fd := (objective(up, w, C, nil, nil) - objective(down, w, C, nil, nil)) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂θ_%d = %.10g, central differences %.10g", i, g[i], fd)
		}
		objective(up, w, C, gi, hi)
		gu := append([]float64(nil), gi...)
		objective(down, w, C, gi, hi)
		for j := range 3 {
			if fd := (gu[j] - gi[j]) / (2 * h); math.Abs(fd-hs[i*3+j]) > 1e-5*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂²/∂θ_%d∂θ_%d = %.10g, central differences of the gradient %.10g", i, j, hs[i*3+j], fd)
			}
		}
	}
}

// fit reaches the stationary point: the gradient vanishes, and the answer
// frequencies of a large simulated crowd with the truth known give back
// the planted annotators (the M-step is consistent with Sample).
func TestFitRecoversSampledAnnotators(t *testing.T) {
	const C, D = 5, 20000
	rng := rand.New(rand.NewPCG(9, 9))
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
	}
	ann := plantedAnnotators()
	answers := Sample(truth, C, ann, 0, rng)
	m, err := New(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	workers := []string{"a", "b", "c", "d", "e"}
	if err := m.Init(&framework.Setup{Classes: []string{"1", "2", "3", "4", "5"}, Annotators: workers}); err != nil {
		t.Fatal(err)
	}
	s := m.NewStats()
	for d, as := range answers {
		tg := framework.NewCategorical(C)
		tg.Log[truth[d]] = 100
		tg.Finalize()
		m.Accumulate(s, &framework.DocState{Answers: as, Target: tg})
	}
	if err := m.Update(t.Context(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	got := m.Annotators()
	if diff := cmp.Diff(ann, got, cmpopts.EquateApprox(0.08, 0.06)); diff != "" {
		t.Errorf("annotators fitted on the true levels (−planted +fitted):\n%s", diff)
	}
	for r := range ann {
		g, h := make([]float64, 3), make([]float64, 9)
		w := make([]float64, C*C)
		for i := range w {
			w[i] = m.run.N[r*C*C+i]/m.runW + m.prior[i]
		}
		objective(m.Theta[r], w, C, g, h)
		for _, x := range g {
			if math.Abs(x) > 1e-8*D {
				t.Errorf("annotator %d: gradient %v at the M-step's point", r, g)
				break
			}
		}
		t.Logf("annotator %d: planted %+v, fitted %+v", r, ann[r], got[r])
	}
}
