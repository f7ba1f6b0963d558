package softmax

import (
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
		a := make([]float64, K)
		for j, n := range ds.Doc.Counts {
			for k := range a {
				a[k] = rng.NormFloat64() - 2
			}
			bt, mx := checkWordStep(t, trial, j, ds, lc, s.probe, a, func() float64 { return wordObjective(s, ds, j, n, a) })
			backtracked += bt
			maximal += mx
			ds.UpdatePhiBar()
			lc.Begin(ds) // fresh caches for the next word's check
		}
	}
	if backtracked == 0 || maximal == 0 {
		t.Errorf("%d backtracked words, %d with t < ½ checked: the test does not exercise the backtracking", backtracked, maximal)
	}
}
