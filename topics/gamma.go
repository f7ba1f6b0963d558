package topics

import (
	"math"
	"math/rand/v2"
)

// initGamma draws Gamma(α, rate β) variates for α > 1 exactly as gonum's
// distuv.Gamma{Alpha: α, Beta: β, Src: rng}.Rand does (Marsaglia and
// Tsang's method, the same expressions, the same random numbers taken
// from rng in the same order), so Init's topics keep their bits; without
// Rand's per-call wrapping of the source (an allocation) and square root,
// which made Init's V·K draws, one random stream on one goroutine, the
// serial part of Build on a large vocabulary (docs/performance.md,
// "MA-sLDAr on long documents and two workers").
type initGamma struct {
	d, c, b float64
}

func newInitGamma(alpha, beta float64) initGamma {
	d := alpha - 1.0/3
	return initGamma{d: d, c: 1 / (3 * math.Sqrt(d)), b: beta}
}

func (g initGamma) rand(rng *rand.Rand) float64 {
	const m = 1.0
	d, c, b := g.d, g.c, g.b
	for {
		x := rng.NormFloat64()
		v := 1 + x*c
		if v <= 0.0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1.0-0.0331*(x*x)*(x*x) {
			return m * d * v / b
		}
		if math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return m * d * v / b
		}
	}
}
