package ordinalshift

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maslda/maslda/framework"
)

// Sample simulates ordinal answers from the model (doc.go): for every
// document d, perDoc annotators drawn without replacement (every annotator
// when perDoc ≤ 0 or perDoc ≥ len(ann)) perceive x = s_r·m_c + t_r +
// ε/a_r, c = truth[d] ∈ [0, C), ε standard logistic, and answer the level
// l with κ_{l−1} < x ≤ κ_l. The result has one slice per document, sorted
// by annotator, with Answer.Class = l and Answer.Value = float64(l);
// annotator r is framework.Answers.Workers[r] of the caller's answer set.
// It panics when C < 2, a truth is outside [0, C) or a precision is not a
// positive finite number (programmer errors, as math/rand does).
func Sample(truth []int, C int, ann []Annotator, perDoc int, rng *rand.Rand) [][]framework.Answer {
	if C < 2 {
		panic("ordinalshift.Sample: fewer than 2 levels")
	}
	R := len(ann)
	for _, a := range ann {
		if !(a.Precision > 0) || math.IsInf(a.Precision, 0) {
			panic("ordinalshift.Sample: precisions must be positive and finite")
		}
	}
	if perDoc <= 0 || perDoc > R {
		perDoc = R
	}
	perm := make([]int, R)
	for r := range perm {
		perm[r] = r
	}
	out := make([][]framework.Answer, len(truth))
	for d, c := range truth {
		if c < 0 || c >= C {
			panic("ordinalshift.Sample: a true level outside [0, C)")
		}
		who := perm
		if perDoc < R {
			for i := 0; i < perDoc; i++ { // partial Fisher–Yates
				j := i + rng.IntN(R-i)
				perm[i], perm[j] = perm[j], perm[i]
			}
			who = slices.Clone(perm[:perDoc])
			slices.Sort(who)
		}
		as := make([]framework.Answer, len(who))
		for i, r := range who {
			a := ann[r]
			u := rng.Float64()
			for u == 0 {
				u = rng.Float64()
			}
			x := a.Stretch*position(c, C) + a.Shift + math.Log(u/(1-u))/a.Precision
			l := 0
			for l < C-1 && x > cut(l, C) {
				l++
			}
			as[i] = framework.Answer{Annotator: int32(r), Class: int32(l), Value: float64(l)}
		}
		out[d] = as
	}
	return out
}
