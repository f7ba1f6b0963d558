package biasprecision

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
)

// gammaObjective is Σ_r E[log Gamma(p_r | a, b)] / R₊ given s1 = mean
// E[p_r], s2 = mean E[log p_r].
func gammaObjective(a, b, s1, s2 float64) float64 {
	lg, _ := math.Lgamma(a)
	return a*math.Log(b) - lg + (a-1)*s2 - b*s1
}

// TestGammaStep: gammaStep is the maximiser of the Gamma part of the bound
// over β₀ ≥ floor and a₀ within hyperA: no point of a fine grid around it
// (and on the floor) is higher, and off the floor both derivatives vanish.
func TestGammaStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		// s2 ≤ ln s1 (Jensen): draw the gap c ≥ 0 over several decades.
		s1 := math.Exp(rng.NormFloat64() * 2)
		c := math.Exp(rng.NormFloat64()*3 - 2)
		s2 := math.Log(s1) - c
		floor := math.Exp(rng.NormFloat64() * 2)
		a, b := gammaStep(s1, s2, floor)
		if !(a >= hyperA[0] && a <= hyperA[1] && b >= floor) {
			t.Fatalf("case %d: a₀ %v, β₀ %v (floor %v)", i, a, b, floor)
		}
		best := gammaObjective(a, b, s1, s2)
		for _, da := range []float64{-1e-3, -1e-5, 0, 1e-5, 1e-3} {
			for _, db := range []float64{-1e-3, -1e-5, 0, 1e-5, 1e-3} {
				a2, b2 := a*math.Exp(da), max(b*math.Exp(db), floor)
				if a2 < hyperA[0] || a2 > hyperA[1] {
					continue
				}
				if e := gammaObjective(a2, b2, s1, s2); e > best+1e-12*math.Abs(best)+1e-14 {
					t.Fatalf("case %d (s1 %v, c %v, floor %v): (%v, %v) gives %v, above gammaStep's (%v, %v) %v", i, s1, c, floor, a2, b2, e, a, b, best)
				}
			}
		}
		if b > floor && a < hyperA[1] {
			ga := math.Log(b) - special.Digamma(a) + s2
			gb := a/b - s1
			if math.Abs(ga) > 1e-8*math.Max(1, math.Abs(math.Log(b))) || math.Abs(gb) > 1e-8*s1 {
				t.Errorf("case %d: gradient (%v, %v) off the floor", i, ga, gb)
			}
		}
	}
}

// TestLearnPrecisionAnchored: learn = "precision" under the mean anchor
// holds κ₀ at bias_prior's, keeps the anchor, never lowers the bound over
// 300 updates, and ends where the bound is stationary in log a₀ and
// log β₀ (by central differences; on the floor of β₀ the bound falls
// towards it) and in each posterior's κ_r, a_r, β_r, and μ_r up to the
// anchor's multiplier.
func TestLearnPrecisionAnchored(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		const R = 12
		n, sy, sq := crowdStats(R, seed)
		n[3], sy[3], sq[3] = 0, 0, 0
		p := Defaults()
		p.Prior, p.Learn, p.BiasPrior = PriorLearned, LearnPrecision, "3"
		m := modelOf(t, R, p)
		st := &Stats{N: n, SY: sy, SQ: sq}
		anchoredRun(t, m, st, fmt.Sprint("seed ", seed))
		l := m.learn
		if l.k0 != 3 {
			t.Fatalf("seed %d: κ₀ moved to %v", seed, l.k0)
		}
		if l.kap[3] != l.k0 || l.shape[3] != l.a0 || l.rate[3] != l.b0 {
			t.Errorf("seed %d: the annotator without answers is not at the prior", seed)
		}
		d := func(get func() float64, put func(float64)) float64 { return elboDiff(m, st, get, put) }
		ga := d(func() float64 { return l.a0 }, func(v float64) { l.a0 = v }) * l.a0
		gb := d(func() float64 { return l.b0 }, func(v float64) { l.b0 = v }) * l.b0
		if math.Abs(ga) > 1e-4 || l.b0 > hyperB[0]*m.S0 && math.Abs(gb) > 1e-4 || gb > 1e-4 {
			t.Errorf("seed %d: ∂ELBO/∂log a₀ = %v, ∂/∂log β₀ = %v at a₀ %v, β₀ %v (floor %v)", seed, ga, gb, l.a0, l.b0, hyperB[0]*m.S0)
		}
		posteriorsStationary(t, m, st, fmt.Sprint("seed ", seed))
	}
}

// TestLearnPrecisionPools: annotators alike in precision, with a few
// answers each, get a large learned a₀ (their precisions pooled), a crowd
// whose precisions spread by a factor of 100 a small one.
func TestLearnPrecisionPools(t *testing.T) {
	a0 := func(spread float64) float64 {
		const R = 40
		rng := rand.New(rand.NewPCG(9, 10))
		n, sy, sq := make([]float64, R), make([]float64, R), make([]float64, R)
		for r := range R {
			sd := math.Exp(spread * (float64(r)/R - 0.5))
			n[r] = 3
			for range 3 {
				e := sd * rng.NormFloat64()
				sy[r] += e
				sq[r] += e * e
			}
		}
		p := Defaults()
		p.Prior, p.Learn, p.BiasPrior = PriorLearned, LearnPrecision, "3"
		m := modelOf(t, R, p)
		for range 200 {
			if err := m.Update(context.Background(), &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
		}
		return m.learn.a0
	}
	alike, spread := a0(0), a0(math.Log(100))
	t.Logf("learned a₀: alike %v, spread %v", alike, spread)
	if !(alike > 20 && spread < 3 && alike > 10*spread) {
		t.Errorf("learned a₀: %v for alike annotators, %v for precisions spread 100-fold", alike, spread)
	}
}

// TestLearnPrecisionConfig: "precision" is a valid learn and named in the
// error for an invalid one; with bias_prior = "auto" κ₀ is AutoKappa's.
func TestLearnPrecisionConfig(t *testing.T) {
	p := Defaults()
	p.Prior, p.Learn = PriorLearned, "precisions"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "precision (a₀, β₀ alone)") {
		t.Errorf("learn = precisions: %v", err)
	}
	by := make([][]framework.Answer, 4)
	for d := range by {
		by[d] = []framework.Answer{ans(0, float64(d)), ans(1, float64(d)+0.5)}
	}
	p.Learn = LearnPrecision
	m := newModel(t, p, numeric([]string{"a", "b"}, by))
	if m.learn.k0 != AutoBiasPrior || !m.learn.gammaOnly {
		t.Errorf("4 answers each: κ₀ %v (want %v), gammaOnly %v", m.learn.k0, float64(AutoBiasPrior), m.learn.gammaOnly)
	}
}

// TestLearnPrecisionUnanchored: without the anchor learn = "precision" is
// learnHyper's type-II maximum likelihood with κ₀ held: κ₀ stays at
// bias_prior's while a₀ and β₀ move, and no nearby (a₀, β₀) has a higher
// Σ_r log Z_r.
func TestLearnPrecisionUnanchored(t *testing.T) {
	const R = 12
	n, sy, sq := crowdStats(R, 2)
	p := unanchored()
	p.Prior, p.Learn, p.BiasPrior = PriorLearned, LearnPrecision, "3"
	m := modelOf(t, R, p)
	a0, b0 := m.learn.a0, m.learn.b0
	for range 5 {
		if err := m.Update(context.Background(), &Stats{N: n, SY: sy, SQ: sq}, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
	}
	l := m.learn
	if l.k0 != 3 || (l.a0 == a0 && l.b0 == b0) {
		t.Fatalf("κ₀ %v (want 3 held), a₀ %v → %v, β₀ %v → %v", l.k0, a0, l.a0, b0, l.b0)
	}
	best := logZ(l.k0, l.a0, l.b0, n, sy, sq, true)
	for _, da := range []float64{-1e-3, 0, 1e-3} {
		for _, db := range []float64{-1e-3, 0, 1e-3} {
			if e := logZ(l.k0, l.a0*math.Exp(da), max(l.b0*math.Exp(db), hyperB[0]*m.S0), n, sy, sq, true); e > best+1e-9*math.Abs(best) {
				t.Errorf("(a₀, β₀) scaled by (%v, %v): Σ log Z %v above %v", math.Exp(da), math.Exp(db), e, best)
			}
		}
	}
}
