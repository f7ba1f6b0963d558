package confusion

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
)

// polya is learnPrior's f for row c: Σ_r log DirMult(n_rc | α).
func polya(alpha []float64, counts []float64, R, C, c int) float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	s := 0.0
	for _, a := range alpha {
		s += a
	}
	f := 0.0
	for r := range R {
		row := counts[(r*C+c)*C:][:C]
		N := 0.0
		for l, x := range row {
			N += x
			f += lg(alpha[l]+x) - lg(alpha[l])
		}
		if N > 0 {
			f += lg(s) - lg(s+N)
		}
	}
	return f
}

// overdispersed draws R annotators' counts of C answers for one true class
// from rows that differ (a Dirichlet around a mean), so that the type-II
// maximum is finite.
func overdispersed(R, C int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	counts := make([]float64, R*C*C)
	for r := range R {
		for c := range C {
			row := make([]float64, C)
			z := 0.0
			for l := range row {
				row[l] = -math.Log(rng.Float64()) * (1 + 4*float64(btoi(l == c))) * (0.3 + rng.Float64())
				z += row[l]
			}
			n := 5 + rng.IntN(40)
			for range n {
				u, acc := rng.Float64()*z, 0.0
				for l, x := range row {
					acc += x
					if u < acc {
						counts[(r*C+c)*C+l]++
						break
					}
				}
			}
		}
	}
	return counts
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestLearnPriorMaximises: α̂ of learnPrior is a stationary point of the
// type-II likelihood f (its gradient, by central differences, vanishes)
// and beats nearby points; the cap holds the precision of annotators that
// all confuse alike at maxPriorPrecision with their pooled mean.
func TestLearnPriorMaximises(t *testing.T) {
	const R, C = 30, 3
	cfg := Defaults()
	cfg.Prior, cfg.Init = PriorLearned, InitUniform
	m := newModel(t, cfg, R, C, nil)
	counts := overdispersed(R, C, 1)
	hat := m.learnPrior(counts, 1)
	for c := range C {
		a := hat[c*C:][:C]
		f0 := polya(a, counts, R, C, c)
		for l := range a {
			h := 1e-5 * a[l]
			up, dn := append([]float64(nil), a...), append([]float64(nil), a...)
			up[l] += h
			dn[l] -= h
			g := (polya(up, counts, R, C, c) - polya(dn, counts, R, C, c)) / (2 * h)
			if math.Abs(g)*a[l] > 1e-4*math.Max(1, math.Abs(f0)) {
				t.Errorf("row %d: ∂f/∂α_%d = %g at α̂ = %v: not a stationary point", c, l, g, a)
			}
			for _, s := range []float64{0.9, 1.1} {
				b := append([]float64(nil), a...)
				b[l] *= s
				if polya(b, counts, R, C, c) > f0+1e-9 {
					t.Errorf("row %d: f(α̂) = %v below f = %v after scaling α_%d by %v", c, f0, polya(b, counts, R, C, c), l, s)
				}
			}
		}
	}
	// Identical annotators: no overdispersion, the cap binds.
	same := make([]float64, R*C*C)
	for r := range R {
		for c := range C {
			for l := range C {
				same[(r*C+c)*C+l] = float64(1 + 3*btoi(l == c))
			}
		}
	}
	hat = m.learnPrior(same, 1)
	for c := range C {
		a := hat[c*C:][:C]
		if s := sumOf(a); math.Abs(s-maxPriorPrecision) > 1e-6*maxPriorPrecision {
			t.Errorf("identical annotators, row %d: precision %v, want the cap %v", c, s, maxPriorPrecision)
		}
		if got := a[c] / sumOf(a); math.Abs(got-4.0/6) > 1e-3 {
			t.Errorf("identical annotators, row %d: mean diagonal %v, want the pooled 4/6", c, got)
		}
	}
}

// TestLearnedPriorPersist: a learned prior is saved with ξ and restored;
// a file without one is refused by a model that learns it, and a file
// with one by a model whose prior is fixed.
func TestLearnedPriorPersist(t *testing.T) {
	cfg := Defaults()
	cfg.Prior, cfg.Init = PriorLearned, InitMajority
	m := newModel(t, cfg, 3, 2, fixtureAnswers)
	st := m.NewStats()
	for d, as := range fixtureAnswers {
		ds := &framework.DocState{Index: d, Answers: as, Target: catTarget(0.7, 0.3)}
		m.Accumulate(st, ds)
	}
	if err := m.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	m2 := newModel(t, cfg, 3, 2, nil)
	if err := m2.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Prior(), m2.Prior(), cmpopts.EquateApprox(0, 1e-15)); diff != "" || cmp.Equal(m.Prior(), newModel(t, cfg, 3, 2, nil).Prior()) {
		t.Errorf("learned prior not restored (or never learned):\n%s", diff)
	}
	fixed := newModel(t, Defaults(), 3, 2, nil)
	if err := fixed.LoadParams(strings.NewReader(saved)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("a learned prior into a fixed-prior model: %v, want ErrBadInput", err)
	}
	var plain bytes.Buffer
	if err := newModel(t, Defaults(), 3, 2, fixtureAnswers).SaveParams(&plain); err != nil {
		t.Fatal(err)
	}
	if err := m2.LoadParams(&plain); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("no prior into a model that learns it: %v, want ErrBadInput", err)
	}
	bad := cfg
	bad.Estimate = EstimatePoint
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior = learned with estimate = point: %v, want ErrBadInput", err)
	}
}
