package confusion

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// spamCounts: R annotators judged against true labels, 5 of 10 good, 3 of
// 10 answering class 0 always, 2 of 10 uniform; n answers each.
func spamCounts(R, C, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	counts := make([]float64, R*C*C)
	for r := range R {
		kind := r % 10
		for range n {
			c := rng.IntN(C)
			var l int
			switch {
			case kind < 5:
				l = c
				if rng.Float64() > 0.75 {
					l = rng.IntN(C)
				}
			case kind < 8:
				l = 0
			default:
				l = rng.IntN(C)
			}
			counts[(r*C+c)*C+l]++
		}
	}
	return counts
}

func BenchmarkCommunitiesUpdate(b *testing.B) {
	const R, C = 100, 4
	counts := spamCounts(R, C, 60, 1)
	cfg := Defaults()
	cfg.Init, cfg.Prior = InitUniform, PriorCommunities
	m := newModel(b, cfg, R, C, nil)
	s := statsOf(m, counts)
	b.ResetTimer()
	for range b.N {
		if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCommunitiesBig: 300 annotators with 8 answers per true class, C 6,
// from the state after 3 updates.
func BenchmarkCommunitiesBig(b *testing.B) {
	const R, C = 300, 6
	counts := spamCounts(R, C, 8, 1)
	cfg := Defaults()
	cfg.Init, cfg.Prior = InitUniform, PriorCommunities
	m := newModel(b, cfg, R, C, nil)
	s := statsOf(m, counts)
	for range 3 {
		m.Update(context.Background(), s, framework.BatchStep(1))
	}
	b.ResetTimer()
	for range b.N {
		if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
}
