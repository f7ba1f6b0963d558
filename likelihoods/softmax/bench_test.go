package softmax

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// BenchmarkData measures one evaluation of the M-step's data term and its
// gradient (data: evalDoc over every document, on GOMAXPROCS goroutines)
// under both bounds, on 200 random documents of 60 distinct words (counts
// 1–3) with φ stored in float32, as the product bound's M-step reads it:
//
//	go test ./likelihoods/softmax -run '^$' -bench Data -count 5
func BenchmarkData(b *testing.B) {
	for _, shape := range []struct{ K, C int }{{20, 4}, {50, 10}} {
		for _, quad := range []bool{false, true} {
			name := fmt.Sprintf("K=%d/C=%d/bound=product", shape.K, shape.C)
			if quad {
				name = fmt.Sprintf("K=%d/C=%d/bound=quadratic", shape.K, shape.C)
			}
			b.Run(name, func(b *testing.B) {
				rng := rand.New(rand.NewPCG(3, 5))
				var s *Softmax
				if quad {
					s = testQuad(b, shape.C, shape.K, 0.5, rng)
				} else {
					s = testSoftmax(b, shape.C, shape.K, 0.5, rng)
				}
				recs := randomRecs(rng, 200, 60, shape.K, shape.C)
				var cov []float64
				if quad {
					cov = make([]float64, shape.K*shape.K)
				}
				grad := make([]float64, shape.C*shape.K)
				for b.Loop() {
					s.data(s.Eta, recs, cov, grad)
				}
			})
		}
	}
}

// randomRecs returns D random documents of L words as the M-step reads
// them (φ in float32).
func randomRecs(rng *rand.Rand, D, L, K, C int) []docView[float32] {
	recs := make([]docView[float32], D)
	for d := range recs {
		ds := randomDocState(rng, K, C, L, 3)
		phi := make([]float32, len(ds.Phi))
		for i, p := range ds.Phi {
			phi[i] = float32(p)
		}
		recs[d] = docView[float32]{doc: ds.Doc, phi: phi, lam: ds.Target.(*framework.Categorical).P, bar: ds.PhiBar}
	}
	return recs
}
