package biasprecision

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maslda/maslda/framework"
)

// PaperBias and PaperPrec are the five simulated annotators of the paper's
// regression experiments (MODEL.md §7): (bias, precision) = (0.1, 10),
// (−0.3, 3), (−2.5, 10), (0.1, 0.5), (1, 0.25).
var (
	PaperBias = []float64{0.1, -0.3, -2.5, 0.1, 1}
	PaperPrec = []float64{10, 3, 10, 0.5, 0.25}
)

// Sample simulates numeric answers (MODEL.md §7): for every document d,
// perDoc annotators drawn without replacement (every annotator when perDoc
// ≤ 0 or perDoc ≥ len(bias)) answer y_dr = truth[d] + bias[r] + ε,
// ε ~ N(0, 1/prec[r]). The result has one slice per document, sorted by
// annotator, with Answer.Class = −1 and Answer.Value = y_dr; annotator r is
// framework.Answers.Workers[r] of the caller's answer set. It panics if
// bias and prec differ in length or a precision is not a positive finite
// number (programmer errors, as math/rand does).
func Sample(truth []float64, bias, prec []float64, perDoc int, rng *rand.Rand) [][]framework.Answer {
	R := len(bias)
	if len(prec) != R {
		panic("biasprecision.Sample: bias and prec differ in length")
	}
	for _, p := range prec {
		if !(p > 0) || math.IsInf(p, 0) {
			panic("biasprecision.Sample: precisions must be positive and finite")
		}
	}
	if perDoc <= 0 || perDoc > R {
		perDoc = R
	}
	sd := make([]float64, R)
	for r, p := range prec {
		sd[r] = 1 / math.Sqrt(p)
	}
	perm := make([]int, R)
	for r := range perm {
		perm[r] = r
	}
	out := make([][]framework.Answer, len(truth))
	for d, x := range truth {
		who := perm
		if perDoc < R {
			// Partial Fisher–Yates: the first perDoc entries are a uniform
			// draw without replacement.
			for i := 0; i < perDoc; i++ {
				j := i + rng.IntN(R-i)
				perm[i], perm[j] = perm[j], perm[i]
			}
			who = slices.Clone(perm[:perDoc])
			slices.Sort(who)
		}
		as := make([]framework.Answer, len(who))
		for i, r := range who {
			as[i] = framework.Answer{Annotator: int32(r), Class: -1, Value: x + bias[r] + sd[r]*rng.NormFloat64()}
		}
		out[d] = as
	}
	return out
}
