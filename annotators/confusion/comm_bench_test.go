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

// BenchmarkCommunitiesUpdate: 100 annotators of spamCounts with 60
// answers each, C 4, from Init.
func BenchmarkCommunitiesUpdate(b *testing.B) { benchCommunities(b, 100, 4, 60, 0) }

// BenchmarkCommunitiesBig: 300 annotators with 8 answers each, C 6, from
// the state after 3 updates.
func BenchmarkCommunitiesBig(b *testing.B) { benchCommunities(b, 300, 6, 8, 3) }

// BenchmarkCommunitiesStructured*: the same under membership = "structured".
func BenchmarkCommunitiesStructuredUpdate(b *testing.B) {
	benchCommunitiesIn(b, 100, 4, 60, 0, MembershipStructured)
}
func BenchmarkCommunitiesStructuredBig(b *testing.B) {
	benchCommunitiesIn(b, 300, 6, 8, 3, MembershipStructured)
}

// benchCommunities times one batch update of R annotators with n answers
// each (spamCounts) over C classes, after warm updates.
func benchCommunities(b *testing.B, R, C, n, warm int) { benchCommunitiesIn(b, R, C, n, warm, "") }

func benchCommunitiesIn(b *testing.B, R, C, n, warm int, membership string) {
	counts := spamCounts(R, C, n, 1)
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.Membership = InitUniform, PriorCommunities, membership
	m := newModel(b, cfg, R, C, nil)
	s := statsOf(m, counts)
	for range warm {
		if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
}
