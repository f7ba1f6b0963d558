package softmax

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBacktrackExact: the product bound's safeguard backtracks to the
// largest admissible step: for every backtracked word the accepted point
// φ_t = old + t(new − old) does not lower the word's objective, and twice
// the step (t < ½) does (so the step was not over-halved). A gain not
// multiplied by n_dv over-halves steps and accepts small descents; the
// check of TestQuadBacktrackExact for the quadratic bound, here for the
// product bound (issue 29).
func TestBacktrackExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	const C, K = 3, 4
	backtracked, maximal := 0, 0
	for trial := 0; trial < 300; trial++ {
		s := testSoftmax(t, C, K, 20, rng)
		s.probe, s.guard = &probe{}, true
		ds := randomDocState(rng, K, C, 5, 6)
		lc := newLocal(s)
		lc.Begin(ds)
		logits, old, a := make([]float64, K), make([]float64, K), make([]float64, K)
		for j, n := range ds.Doc.Counts {
			for k := range a {
				a[k] = rng.NormFloat64() - 2
			}
			before := wordObjective(s, ds, j, n, a)
			copy(logits, a)
			lc.PhiTerm(logits, ds, j)
			copy(old, ds.PhiRow(j))
			proposal := make([]float64, K)
			softmaxTo(proposal, logits)
			copy(ds.PhiRow(j), proposal)
			bt := s.probe.backtracked.Load()
			lc.WordChanged(ds, j, old)
			row := ds.PhiRow(j)
			after := wordObjective(s, ds, j, n, a)
			if after < before-1e-9*math.Abs(before) {
				t.Fatalf("trial %d word %d: the objective fell %.12g -> %.12g", trial, j, before, after)
			}
			if s.probe.backtracked.Load() > bt {
				backtracked++
				tt := 0.0
				for k := range row {
					if d := proposal[k] - old[k]; math.Abs(d) > 1e-9 {
						tt = (row[k] - old[k]) / d
						break
					}
				}
				if tt > 0 && tt < 0.5 {
					for k := range row {
						row[k] = old[k] + 2*tt*(proposal[k]-old[k])
					}
					if twice := wordObjective(s, ds, j, n, a); twice < before {
						maximal++
					} else {
						t.Errorf("trial %d word %d: backtracked to t = %g, but t = %g does not lower the objective (%.12g ≥ %.12g): not the largest step", trial, j, tt, 2*tt, twice, before)
					}
					for k := range row {
						row[k] = old[k] + tt*(proposal[k]-old[k])
					}
				}
			}
			ds.UpdatePhiBar()
			lc.Begin(ds) // fresh caches for the next word's check
		}
	}
	if backtracked == 0 || maximal == 0 {
		t.Errorf("%d backtracked words, %d with t < ½ checked: the test does not exercise the backtracking", backtracked, maximal)
	}
}
