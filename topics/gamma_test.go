package topics

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestInitGammaIsGonums: initGamma's draws are distuv.Gamma.Rand's (for
// α > 1: at α = 1 gonum takes an exponential instead), bit for bit, and leave the random stream where Rand leaves it (Init's
// shape 100 and rate 100, and shapes where the second acceptance test
// and the rejection of v ≤ 0 happen more often).
func TestInitGammaIsGonums(t *testing.T) {
	for _, p := range [][2]float64{{100, 100}, {1.5, 0.3}, {3, 2}, {1000, 7}} {
		a := rand.New(rand.NewPCG(11, 12))
		b := rand.New(rand.NewPCG(11, 12))
		want := distuv.Gamma{Alpha: p[0], Beta: p[1], Src: a}
		got := newInitGamma(p[0], p[1])
		for i := range 200000 {
			w, g := want.Rand(), got.rand(b)
			if math.Float64bits(w) != math.Float64bits(g) {
				t.Fatalf("α %v β %v draw %d: %v, gonum %v", p[0], p[1], i, g, w)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("α %v β %v: the streams part after the draws", p[0], p[1])
		}
	}
}

func BenchmarkInitGamma(b *testing.B) {
	b.Run("gonum", func(b *testing.B) {
		g := distuv.Gamma{Alpha: 100, Beta: 100, Src: rand.New(rand.NewPCG(1, 2))}
		for b.Loop() {
			g.Rand()
		}
	})
	b.Run("initGamma", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(1, 2))
		g := newInitGamma(100, 100)
		for b.Loop() {
			g.rand(rng)
		}
	})
}
