package glad_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/maslda/maslda/annotators/glad"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// GLAD on crowd answers alone (the `glad` preset: one topic, the class
// prior): 600 tasks of varied difficulty, 5 answers each from 8
// annotators of abilities 3 down to −1.5. GLAD weighs each answer by
// σ(a_r β_d) and finds the two adversaries (negative abilities).
func Example() {
	truth, answers, _ := plantedGLAD(1, 600)
	corpus := &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(truth)), Answers: answers}
	for d := range corpus.Docs {
		corpus.Docs[d].ID = strconv.Itoa(d)
	}
	cfg, err := models.ParseConfig([]byte("model = \"glad\"\n"), "glad.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := models.Build(cfg, nil, corpus)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := run.Fit(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	right := 0
	for d := range truth {
		if run.Model.Target(d).(*framework.Categorical).Argmax() == truth[d] {
			right++
		}
	}
	fmt.Printf("majority vote %.2f, GLAD %.2f\n", majority(answers, truth), float64(right)/float64(len(truth)))
	for r, a := range run.Model.Noise.(*glad.Model).Ability {
		if a < 0 {
			fmt.Printf("annotator %s: ability %.1f\n", answers.Annotators[r], a)
		}
	}
	// Output:
	// majority vote 0.86, GLAD 0.94
	// annotator r6: ability -0.8
	// annotator r7: ability -1.0
}
