package ordinal

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/framework/synth"
)

// natural is what Update blends: η and the cut points.
func natural(l framework.Likelihood) []float64 {
	r := l.(*Response)
	return slices.Concat(r.Eta, r.Cuts)
}

// plantedOrdinal is a planted supervised problem whose levels follow the
// ordered logit (MODEL.md §1's LDA corpus, a planted η with entries
// N(0, etaScale²), cut points at the score's quantiles so that the levels
// are about equally frequent), with one exact answer per training
// document ("truth").
func plantedOrdinal(D, test, K, C int, docLen, etaScale float64, seed uint64) (*frameworktest.Planted, []float64, []float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6f7264))
	all, pl, err := synth.LDA(synth.LDASpec{D: D + test, V: 100, K: K, DocLen: docLen, Alpha: 0.2, TopicConc: 0.05}, rng)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("planted: %w", err)
	}
	eta := synth.PlantedEta(1, K, etaScale, rng)[0]
	scores := make([]float64, len(pl.ZBar))
	for d, z := range pl.ZBar {
		scores[d] = dot(eta, z)
	}
	sorted := slices.Sorted(slices.Values(scores))
	cuts := make([]float64, C-1)
	for c := range cuts {
		cuts[c] = sorted[(c+1)*len(sorted)/C]
	}
	levels := Sample(pl.ZBar, eta, cuts, rng)
	p := &frameworktest.Planted{Kind: frameworktest.KindCategorical}
	for l := 0; l < C; l++ {
		p.Classes = append(p.Classes, strconv.Itoa(l+1))
	}
	truth := make([]float64, len(levels))
	for d, c := range levels {
		truth[d] = float64(c)
	}
	byDoc := make([][]framework.Answer, D)
	for d := range byDoc {
		byDoc[d] = []framework.Answer{{Annotator: 0, Class: int32(levels[d]), Value: truth[d]}}
	}
	p.Train = &framework.Corpus{V: 100, Docs: all.Docs[:D], Answers: &framework.Answers{Annotators: []string{"truth"}, Classes: p.Classes, ByDoc: byDoc}}
	p.Test = &framework.Corpus{V: 100, Docs: all.Docs[D:]}
	p.Truth, p.TestTruth = truth[:D], truth[D:]
	return p, eta, cuts, nil
}

// The conformance kit, with the defaults, on ordinal planted problems of
// 4 levels (and the kit's own fixture for the unit checks), and with 2
// levels (the end levels only).
func TestKit(t *testing.T) {
	for _, C := range []int{4, 2} {
		t.Run(strconv.Itoa(C)+" levels", func(t *testing.T) {
			frameworktest.TestLikelihood(t, frameworktest.Likelihood{
				New:     func() (framework.Likelihood, error) { return New(Defaults()) },
				Classes: C,
				Natural: natural,
				Fit: frameworktest.Fit{
					Problem: func(seed uint64) (*frameworktest.Planted, error) {
						p, _, _, err := plantedOrdinal(120, 0, 4, C, 40, 8, seed)
						return p, err
					},
					Recovery: func(seed uint64) (*frameworktest.Planted, error) {
						p, _, _, err := plantedOrdinal(400, 400, 4, C, 40, 8, seed)
						return p, err
					},
				},
			})
		})
	}
}
