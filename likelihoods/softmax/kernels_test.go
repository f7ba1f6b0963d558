package softmax

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// dotsC and axpyC give the bits of one loop per class (a dot in k order,
// G_l += (n/dts_l)·row), for every number of classes: the blocks of four
// and the remainder (the finite-difference tests use C < 4 and do not
// reach the blocks).
func TestKernelsPerClass(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	for C := 1; C <= 9; C++ {
		const K = 7
		row, h := make([]float64, K), make([]float64, C*K)
		for k := range row {
			row[k] = rng.Float64()
		}
		for i := range h {
			h[i] = rng.Float64()
		}
		want := make([]float64, C)
		for l := range want {
			for k, p := range row {
				want[l] += p * h[l*K+k]
			}
		}
		got := make([]float64, C)
		dotsC(got, row, h)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("C = %d: dotsC differs from a dot per class (-want +got):\n%s", C, d)
		}
		G, wantG := make([]float64, C*K), make([]float64, C*K)
		for i := range G {
			G[i] = rng.Float64()
			wantG[i] = G[i]
		}
		const n = 3
		for l := range C {
			c := n / want[l]
			for k, p := range row {
				wantG[l*K+k] += c * p
			}
		}
		axpyC(G, want, n, row)
		if d := cmp.Diff(wantG, G); d != "" {
			t.Errorf("C = %d: axpyC differs from a loop per class (-want +got):\n%s", C, d)
		}
	}
}
