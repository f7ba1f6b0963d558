package softmax

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The M-step's objective and gradient, and the preconditioner's records,
// are the same bits on any number of goroutines (SetWorkers,
// framework.Parallel), under both bounds, on more documents than one chunk
// holds: few chunks a goroutine (the goroutines share the documents,
// docsThenChunks) and many (they share the chunks).
func TestDataIndependentOfWorkers(t *testing.T) {
	const C, K = 3, 7
	for _, tc := range []struct {
		quad bool
		D    int
	}{{false, 5*chunkSize + 3}, {false, 20*chunkSize + 5}, {false, 2*chunkSize - 1}, {true, 5*chunkSize + 3}} {
		quad := tc.quad
		rng := rand.New(rand.NewPCG(9, 9))
		var s *Softmax
		if quad {
			s = testQuad(t, C, K, 1, rng)
		} else {
			s = testSoftmax(t, C, K, 1, rng)
		}
		recs := randomRecs(rng, tc.D, 9, K, C)
		var cov []float64
		if quad {
			cov = make([]float64, K*K)
			for i := range cov {
				cov[i] = rng.Float64()
			}
		}
		type out struct {
			V       float64
			Grad    []float64
			U, P, N []float64 // the preconditioner's records (product bound)
		}
		var want out
		for _, n := range []int{1, 2, 3, 8} {
			s.SetWorkers(n)
			if got := s.goroutines(); got != n {
				t.Fatalf("SetWorkers(%d): %d goroutines", n, got)
			}
			g := make([]float64, C*K)
			var hs *hessRecs
			if !quad {
				hs = newHessRecs(len(recs), C, K)
			}
			got := out{V: s.dataHess(s.Eta, recs, cov, g, hs), Grad: g}
			if hs != nil {
				got.U, got.P, got.N = hs.u, hs.p, hs.n
			}
			if n == 1 {
				want = got
				continue
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("quadratic %v, %d documents, %d goroutines against 1 (-1 +%d):\n%s", quad, tc.D, n, n, d)
			}
		}
	}
}
