package softmax

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The M-step's objective and gradient are the same bits on any number of
// goroutines (SetWorkers, framework.Parallel), under both bounds, on more
// documents than one chunk holds.
func TestDataIndependentOfWorkers(t *testing.T) {
	const C, K = 3, 7
	for _, quad := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(9, 9))
		var s *Softmax
		if quad {
			s = testQuad(t, C, K, 1, rng)
		} else {
			s = testSoftmax(t, C, K, 1, rng)
		}
		recs := randomRecs(rng, 5*chunkSize+3, 9, K, C)
		var cov []float64
		if quad {
			cov = make([]float64, K*K)
			for i := range cov {
				cov[i] = rng.Float64()
			}
		}
		type out struct {
			V    float64
			Grad []float64
		}
		var want out
		for _, n := range []int{1, 2, 3, 8} {
			s.SetWorkers(n)
			if got := s.goroutines(); got != n {
				t.Fatalf("SetWorkers(%d): %d goroutines", n, got)
			}
			g := make([]float64, C*K)
			got := out{s.data(s.Eta, recs, cov, g), g}
			if n == 1 {
				want = got
				continue
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("quadratic %v, %d goroutines against 1 (-1 +%d):\n%s", quad, n, n, d)
			}
		}
	}
}
