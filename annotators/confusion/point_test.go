package confusion

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

func pointConfig(omega, diagonal float64) Config {
	cfg := Defaults()
	cfg.Estimate, cfg.Omega, cfg.Diagonal = EstimatePoint, omega, diagonal
	return cfg
}

// TestPointFixture: one batch update from λ set by hand gives the MAP
// estimates π̂ ∝ ω − 1 + diagonal·[c = l] + counts, computed by hand.
func TestPointFixture(t *testing.T) {
	m := newModel(t, pointConfig(1, 0.5), 3, 2, fixtureAnswers)
	lams := [][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.5, 0.5}, {0.7, 0.3}}
	s := m.NewStats()
	for d, as := range fixtureAnswers {
		m.Accumulate(s, docState(as, lams[d]))
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// Counts as in TestFixtureUpdate; numerators ξ − 1 = diagonal·I + counts:
	// a0: [[0.5 + 1.6, 0.2], [0.4, 0.5 + 0.8]] → [[2.1/2.3, 0.2/2.3], [0.4/1.7, 1.3/1.7]]
	// a1: [[0.5 + 1.1, 0], [0.9, 0.5]]: the empty entry gets pointFloor.
	want := [][][]float64{
		{{2.1 / 2.3, 0.2 / 2.3}, {0.4 / 1.7, 1.3 / 1.7}},
		{{1.6 / (1.6 + pointFloor), pointFloor / (1.6 + pointFloor)}, {0.9 / 1.4, 0.5 / 1.4}},
		{{1.7 / 2.6, 0.9 / 2.6}, {0.8 / 1.4, 0.6 / 1.4}},
	}
	for r := range want {
		got := m.Mean(r)
		for c := range want[r] {
			for l := range want[r][c] {
				if !near(got[c][l], want[r][c][l], 1e-12) {
					t.Errorf("π̂^%d_{%d,%d} = %v, want %v", r, c, l, got[c][l], want[r][c][l])
				}
				if e := m.ElogPi(r, c, l); !near(e, math.Log(want[r][c][l]), 1e-12) {
					t.Errorf("log π̂^%d_{%d,%d} = %v, want %v", r, c, l, e, math.Log(want[r][c][l]))
				}
			}
		}
	}
	// The prior term is Σ_{r,c} log Dir(π̂^r_c | α): with C = 2, α = (1.5, 1)
	// (row 0) and (1, 1.5) (row 1), log Dir = log Γ(2.5)/(Γ(1.5)Γ(1)) + 0.5·log π̂_diag.
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	norm := lg(2.5) - lg(1.5)
	wantKL := 0.0
	for r := range want {
		for c := range want[r] {
			wantKL += norm + 0.5*math.Log(want[r][c][c])
		}
	}
	if !near(m.GlobalELBO(), wantKL, 1e-12) {
		t.Errorf("log prior %v, want %v", m.GlobalELBO(), wantKL)
	}
}

// TestPointUpdateMaximises: the point update maximises the MAP objective
// Σ counts·log π + log p(π | α), checked by finite differences in ξ (every
// single-entry perturbation of ξ changes π̂ and must lower the objective).
func TestPointUpdateMaximises(t *testing.T) {
	for _, scale := range []float64{1, 3} {
		rng := rand.New(rand.NewPCG(5, 6))
		const R, C = 3, 3
		m := newModel(t, pointConfig(1.4, 0.8), R, C, nil)
		s := m.NewStats()
		for range 10 {
			as := []framework.Answer{ans(rng.IntN(R), rng.IntN(C)), ans(rng.IntN(R), rng.IntN(C))}
			m.Accumulate(s, docState(as, randSimplex(rng, C)))
		}
		step := framework.Step{Rho: 1, Scale: scale, Full: scale == 1, Iter: 1}
		if err := m.Update(context.Background(), s, step); err != nil {
			t.Fatal(err)
		}
		best := make([][][]float64, R)
		for r := range best {
			best[r] = m.Xi(r)
		}
		l0 := m.ELBO(s, step)
		const h = 1e-4
		for r := range best {
			for c := range best[r] {
				for l := range best[r][c] {
					x := best[r][c][l]
					var lv [2]float64
					for i, d := range []float64{h, -h} {
						best[r][c][l] = x + d
						if err := m.SetXi(best); err != nil {
							t.Fatal(err)
						}
						lv[i] = m.ELBO(s, step)
					}
					best[r][c][l] = x
					if g := (lv[0] - lv[1]) / (2 * h); math.Abs(g) > 1e-6 || lv[0] >= l0 || lv[1] >= l0 {
						t.Errorf("S = %v, ξ^%d_{%d,%d}: ∂L/∂ξ = %.3g, L(±h) − L = %.3g, %.3g; want a maximum", scale, r, c, l, g, lv[0]-l0, lv[1]-l0)
					}
				}
			}
		}
	}
}

// TestPointDawidSkene: Dawid–Skene's EM (point estimates, flat class prior)
// never lowers its objective, stays finite with empty cells and beats
// majority vote on annotators of different quality.
func TestPointDawidSkene(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	pis, err := FromAccuracies([]float64{0.85, 0.6, 0.4, 0.35, 0.3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]int, 1500)
	for d := range truth {
		truth[d] = rng.IntN(3)
	}
	byDoc, err := Sample(truth, pis, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pointConfig(1, 0)
	cfg.Init = InitMajority
	m := newModel(t, cfg, 5, 3, byDoc)
	trace, lams := ds(t, m, byDoc, 60)
	checkMonotone(t, trace)
	allFinite(t, m)
	right, mv := 0, 0
	votes := make([]float64, 3)
	for d, lam := range lams {
		if argmax(lam) == truth[d] {
			right++
		}
		if MajorityVote(votes, byDoc[d]) && argmax(votes) == truth[d] {
			mv++
		}
	}
	t.Logf("Dawid–Skene point EM: inferred %.3f, majority vote %.3f", float64(right)/1500, float64(mv)/1500)
	if right < mv+45 {
		t.Errorf("inferred %d/1500 right, majority vote %d: want 45 more", right, mv)
	}
}

func argmax(x []float64) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}

// TestPointConfig: a MAP estimate needs ω ≥ 1; unknown estimates are listed.
func TestPointConfig(t *testing.T) {
	if err := pointConfig(0.5, 0).Validate(); err == nil {
		t.Error("ω = 0.5 with estimate = point accepted")
	}
	cfg := Defaults()
	cfg.Estimate = "mle"
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "point, variational") {
		t.Errorf("estimate = mle: %v, want an error listing point, variational", err)
	}
}
