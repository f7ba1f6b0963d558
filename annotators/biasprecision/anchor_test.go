package biasprecision

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestAnchorMean: with bias_anchor = "mean" the update keeps Σ_r n_r b_r = 0,
// its biases satisfy the Lagrange condition of the constrained maximum at
// the precisions they were computed with (∂L/∂b_r = μ n_r, one μ for all r)
// with every constraint-preserving perturbation lowering the bound, and
// repeated updates never lower the bound.
func TestAnchorMean(t *testing.T) {
	for _, base := range []Params{{PriorAnswers: 1}, {PriorAnswers: 3, PriorVar: 0.7, BiasPrior: "2"}} {
		p := base
		p.BiasAnchor = AnchorMean
		rng := rand.New(rand.NewPCG(4, 2))
		docs := randomDocs(rng, 5, 80)
		byDoc := make([][]framework.Answer, len(docs))
		for i, d := range docs {
			byDoc[i] = d.Answers
		}
		m := newModel(t, p, numeric([]string{"a", "b", "c", "d", "e"}, byDoc))
		m.Prec = []float64{3, 0.5, 1, 6, 2}
		s := m.NewStats()
		for _, d := range docs {
			m.Accumulate(s, d)
		}
		st := framework.BatchStep(1)
		p0 := append([]float64(nil), m.Prec...)
		if err := m.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		st2 := s.(*Stats)
		sum := 0.0
		for r, b := range m.Bias {
			sum += st2.N[r] * b
		}
		if math.Abs(sum) > 1e-12 {
			t.Errorf("%+v: Σ n_r b_r = %g, want 0", base, sum)
		}
		// The b-step at the precisions it used.
		pNew := append([]float64(nil), m.Prec...)
		copy(m.Prec, p0)
		best := m.ELBO(s, st)
		var ratio []float64
		for r := range m.Bias {
			x0 := m.Bias[r]
			h := 1e-6
			m.Bias[r] = x0 + h
			up := m.ELBO(s, st)
			m.Bias[r] = x0 - h
			down := m.ELBO(s, st)
			m.Bias[r] = x0
			ratio = append(ratio, (up-down)/(2*h)/st2.N[r])
		}
		for r := 1; r < len(ratio); r++ {
			if !near(ratio[r], ratio[0], 1e-5, 1e-7) {
				t.Errorf("%+v: ∂L/∂b_r / n_r = %v: not one multiplier", base, ratio)
				break
			}
		}
		for i := range m.Bias {
			for j := range m.Bias {
				if i == j {
					continue
				}
				d := 0.01
				m.Bias[i] += d / st2.N[i]
				m.Bias[j] -= d / st2.N[j]
				if e := m.ELBO(s, st); e >= best {
					t.Errorf("%+v: moving offset between %d and %d raised the bound %v ≥ %v", base, i, j, e, best)
				}
				m.Bias[i] -= d / st2.N[i]
				m.Bias[j] += d / st2.N[j]
			}
		}
		copy(m.Prec, pNew)
		// Repeated updates on the same statistics: a monotone trace.
		prev := m.ELBO(s, st)
		for it := 2; it <= 20; it++ {
			if err := m.Update(context.Background(), s, framework.BatchStep(it)); err != nil {
				t.Fatal(err)
			}
			e := m.ELBO(s, st)
			if e < prev-1e-10*math.Abs(prev) {
				t.Errorf("%+v: bound fell from %v to %v at update %d", base, prev, e, it)
			}
			prev = e
		}
	}
}

func TestAnchorInvalid(t *testing.T) {
	p := fixedDefaults()
	p.BiasAnchor = "median"
	if _, err := New(p); err == nil {
		t.Error("bias_anchor = median accepted")
	}
}
