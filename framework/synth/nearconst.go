package synth

import (
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// NearConstantCrowd is the fixture of the second warm-up's tests (the
// confusion annotators' constant = "almost"): D planted documents (V 60,
// K 3, 60 words, rand.NewPCG(41, 42)) of 3 classes answered by every one
// of four annotators, a0, a1, a3 right with probability 0.8, 0.8, 0.7
// (else another class at random) and a2, with near, class 1 with
// probability 0.9 whatever the class (else 0 or 2: a near-constant
// answerer the exact rule does not mark), else right with probability 0.8
// like a0.
func NearConstantCrowd(D int, near bool) (*framework.Corpus, error) {
	rng := rand.New(rand.NewPCG(41, 42))
	all, pl, err := LDA(LDASpec{D: D, V: 60, K: 3, DocLen: 60, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		return nil, err
	}
	classes := Classes(pl.ZBar, PlantedEta(3, 3, 6, rng), rng)
	byDoc := make([][]framework.Answer, D)
	for d, c := range classes {
		for r, acc := range []float64{0.8, 0.8, 0.8, 0.7} {
			y := c
			if rng.Float64() > acc {
				y = (c + 1 + rng.IntN(2)) % 3
			}
			if r == 2 && near {
				y = 1
				if rng.Float64() < 0.1 {
					y = 2 * rng.IntN(2)
				}
			}
			byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Class: int32(y)})
		}
	}
	return &framework.Corpus{V: 60, Docs: all.Docs, Answers: &framework.Answers{Annotators: []string{"a0", "a1", "a2", "a3"}, Classes: []string{"c0", "c1", "c2"}, ByDoc: byDoc}}, nil
}
