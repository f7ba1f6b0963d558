package confusion_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
)

// Dawid–Skene truth inference with no documents (MODEL.md §6): simulated
// answers from MODEL.md §7-style annotators, then batch EM alternating the
// evidence message (with a flat class prior) and the ξ update.
func Example() {
	rng := rand.New(rand.NewPCG(7, 7))
	const D, C = 3000, 4
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
	}
	pis, _ := confusion.FromAccuracies([]float64{0.8, 0.6, 0.45, 0.4, 0.35}, C)
	byDoc, _ := confusion.Sample(truth, pis, 3, rng)
	answers := &framework.Answers{Annotators: []string{"ann", "bob", "cat", "dan", "eve"}, Classes: []string{"w", "x", "y", "z"}, ByDoc: byDoc}

	m, _ := confusion.NewModel(confusion.Defaults()) // ω = 1, diagonal 2, uniform start
	if err := m.Init(&framework.Setup{Annotators: answers.Annotators, Classes: answers.Classes,
		Corpus: &framework.Corpus{Docs: make([]framework.Doc, D), V: 1, Answers: answers}}); err != nil {
		fmt.Println(err)
		return
	}
	ds := &framework.DocState{Target: framework.NewCategorical(C)}
	stats := m.NewStats()
	correct := 0
	for it := 1; it <= 100; it++ {
		stats.Reset()
		correct = 0
		for d, as := range byDoc {
			ds.Answers = as
			ds.Target.Reset() // a flat class prior: no prior message
			m.Evidence(ds)
			ds.Target.Finalize()
			m.Accumulate(stats, ds)
			if ds.Target.(*framework.Categorical).Argmax() == truth[d] {
				correct++
			}
		}
		if err := m.Update(context.Background(), stats, framework.BatchStep(it)); err != nil {
			fmt.Println(err)
			return
		}
	}
	mv, mvCorrect := make([]float64, C), 0.0
	for d, as := range byDoc {
		confusion.MajorityVote(mv, as)
		mvCorrect += mv[truth[d]]
	}
	fmt.Printf("majority vote %.2f, Dawid–Skene %.2f\n", mvCorrect/D, float64(correct)/D)
	for r, name := range answers.Annotators {
		fmt.Printf("%s: %d answers, estimated accuracy %.2f (planted %.2f)\n", name, m.Answers(r), m.Accuracy(r), pis[r][0][0])
	}
	// Output:
	// majority vote 0.60, Dawid–Skene 0.68
	// ann: 1826 answers, estimated accuracy 0.76 (planted 0.80)
	// bob: 1788 answers, estimated accuracy 0.58 (planted 0.60)
	// cat: 1778 answers, estimated accuracy 0.47 (planted 0.45)
	// dan: 1827 answers, estimated accuracy 0.40 (planted 0.40)
	// eve: 1781 answers, estimated accuracy 0.36 (planted 0.35)
}
