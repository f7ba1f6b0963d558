package confusion

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// TestCrowdLabelsFixedPoint: crowdLabels ends at a fixed point of the
// Bayesian Dawid–Skene coordinate ascent it documents, recomputed here
// from its definition: q(π^r_c) = Dir(prior + Σ_d q_dc [y_dr = ·]),
// q(p) = Dir(1 + Σ_d q_d), q_dc ∝ exp(E[log p_c] + Σ_r E[log π^r_{c,y_dr}]).
// Init with init_labels = "crowd" then counts those labels: ξ = prior +
// s·Σ_d q_dc [y_dr = l].
func TestCrowdLabelsFixedPoint(t *testing.T) {
	const R, C, D = 6, 3, 300
	rng := rand.New(rand.NewPCG(4, 25))
	acc := []float64{0.9, 0.8, 0.7, 0.6, 0.2, 0.35} // two below chance-ish
	byDoc := make([][]framework.Answer, D)
	for d := range byDoc {
		c := rng.IntN(C)
		for r := range R {
			if rng.Float64() < 0.5 {
				continue
			}
			y := c
			if rng.Float64() > acc[r] {
				y = (c + 1 + rng.IntN(C-1)) % C
			}
			byDoc[d] = append(byDoc[d], ans(r, y))
		}
	}
	cfg := Defaults()
	cfg.InitLabels = InitLabelsCrowd
	cfg.InitStrength = 0.5
	m := newModel(t, cfg, R, C, byDoc)
	q := m.crowdLabels(byDoc)
	xi := make([][][]float64, R)
	for r := range xi {
		xi[r] = make([][]float64, C)
		for c := range xi[r] {
			xi[r][c] = make([]float64, C)
			for l := range xi[r][c] {
				xi[r][c][l] = m.prior(c, l)
			}
		}
	}
	alpha := []float64{1, 1, 1}
	want := cloneXi(xi)
	for d, as := range byDoc {
		if len(as) == 0 {
			if q[d] != nil {
				t.Fatalf("document %d has no answers but labels %v", d, q[d])
			}
			continue
		}
		for c, p := range q[d] {
			alpha[c] += p
			for _, a := range as {
				xi[a.Annotator][c][a.Class] += p
				want[a.Annotator][c][a.Class] += cfg.InitStrength * p
			}
		}
	}
	sa := alpha[0] + alpha[1] + alpha[2]
	worst := 0.0
	for d, as := range byDoc {
		if len(as) == 0 {
			continue
		}
		lp := make([]float64, C)
		for c := range lp {
			lp[c] = mathext.Digamma(alpha[c]) - mathext.Digamma(sa)
			for _, a := range as {
				row := xi[a.Annotator][c]
				lp[c] += mathext.Digamma(row[a.Class]) - mathext.Digamma(row[0]+row[1]+row[2])
			}
		}
		top := slices.Max(lp)
		z := 0.0
		for c := range lp {
			lp[c] = math.Exp(lp[c] - top)
			z += lp[c]
		}
		for c := range lp {
			worst = max(worst, math.Abs(lp[c]/z-q[d][c]))
		}
	}
	if worst > 1e-5 {
		t.Errorf("crowdLabels is not a fixed point: an E-step moves q by %g", worst)
	}
	checkXi(t, m, want, 1e-12)
}

// TestCrowdLabelsBeatMajority: with adversarial annotators (each answers
// the next class) the crowd labels recover what majority vote gets wrong.
func TestCrowdLabelsBeatMajority(t *testing.T) {
	const R, C, D = 7, 3, 400
	rng := rand.New(rand.NewPCG(5, 25))
	truth := make([]int, D)
	byDoc := make([][]framework.Answer, D)
	for d := range byDoc {
		c := rng.IntN(C)
		truth[d] = c
		for r := range R {
			y := c
			switch {
			case r >= 4: // adversaries
				if rng.Float64() < 0.9 {
					y = (c + 1) % C
				}
			case rng.Float64() > 0.7:
				y = (c + 1 + rng.IntN(C-1)) % C
			}
			byDoc[d] = append(byDoc[d], ans(r, y))
		}
	}
	cfg := Defaults()
	m := newModel(t, cfg, R, C, byDoc)
	q := m.crowdLabels(byDoc)
	mv := make([]float64, C)
	rightQ, rightMV := 0.0, 0.0
	for d, as := range byDoc {
		if argmaxOf(q[d]) == truth[d] {
			rightQ++
		}
		MajorityVote(mv, as)
		rightMV += mv[truth[d]]
	}
	t.Logf("crowd labels %.3f, majority vote %.3f", rightQ/D, rightMV/D)
	if rightQ/D < 0.95 || rightMV/D > 0.8 {
		t.Errorf("crowd labels %.3f (want ≥ 0.95), majority vote %.3f (want ≤ 0.8: the adversaries should fool it)", rightQ/D, rightMV/D)
	}
}

// TestCrowdLabelsOneAnswer: with at most one answer per document the
// answers say nothing about the annotators, and init_labels = "crowd"
// starts exactly where "majority" does.
func TestCrowdLabelsOneAnswer(t *testing.T) {
	byDoc := [][]framework.Answer{{ans(0, 0)}, {ans(1, 2)}, {}, {ans(2, 1)}, {ans(0, 2)}}
	maj := newModel(t, Defaults(), 3, 3, byDoc)
	cfg := Defaults()
	cfg.InitLabels = InitLabelsCrowd
	crowd := newModel(t, cfg, 3, 3, byDoc)
	if diff := cmp.Diff(maj.xi, crowd.xi); diff != "" {
		t.Errorf("one answer per document: crowd start differs from the majority start:\n%s", diff)
	}
}

func cloneXi(xi [][][]float64) [][][]float64 {
	out := make([][][]float64, len(xi))
	for r := range xi {
		out[r] = make([][]float64, len(xi[r]))
		for c := range xi[r] {
			out[r][c] = slices.Clone(xi[r][c])
		}
	}
	return out
}

func argmaxOf(p []float64) int {
	best := 0
	for i, x := range p {
		if x > p[best] {
			best = i
		}
	}
	return best
}

// TestLogPredictive: log Σ_c λ_c ξ^r_{c,y}/Σ_l ξ^r_{c,l} by hand, the
// point estimate's π̂ = (ξ − 1)/Σ(ξ − 1), and NaN outside the model.
func TestLogPredictive(t *testing.T) {
	xi := [][][]float64{{{3, 1}, {2, 6}}, {{1, 1}, {1, 1}}}
	for _, est := range []string{EstimateVariational, EstimatePoint} {
		cfg := Defaults()
		cfg.Estimate, cfg.Init = est, InitUniform
		m := newModel(t, cfg, 2, 2, nil)
		if err := m.SetXi(cloneXi(xi)); err != nil {
			t.Fatal(err)
		}
		lam := catTarget(0.3, 0.7)
		want := math.Log(0.3*1.0/4 + 0.7*6.0/8) // annotator 0 answers class 1
		if est == EstimatePoint {
			want = math.Log(0.3*0/2 + 0.7*5.0/6)
		}
		if got := m.LogPredictive(lam, ans(0, 1)); math.Abs(got-want) > 1e-6 {
			t.Errorf("%s: LogPredictive = %v, want %v", est, got, want)
		}
		for _, bad := range []framework.Answer{ans(2, 0), ans(0, 2), {Annotator: -1}} {
			if got := m.LogPredictive(lam, bad); !math.IsNaN(got) {
				t.Errorf("%s: answer %+v outside the model: %v, want NaN", est, bad, got)
			}
		}
		if got := m.LogPredictive(catTarget(0.2, 0.3, 0.5), ans(0, 1)); !math.IsNaN(got) {
			t.Errorf("%s: three-class target: %v, want NaN", est, got)
		}
		// With a lapse δ = 0.2: log Σ_c λ_c (0.8·E[π_{c,y}] + 0.2/2).
		cfg.Lapse = 0.2
		m = newModel(t, cfg, 2, 2, nil)
		if err := m.SetXi(cloneXi(xi)); err != nil {
			t.Fatal(err)
		}
		want = math.Log(0.8*math.Exp(want) + 0.1)
		if got := m.LogPredictive(lam, ans(0, 1)); math.Abs(got-want) > 1e-6 {
			t.Errorf("%s, lapse 0.2: LogPredictive = %v, want %v", est, got, want)
		}
	}
}
