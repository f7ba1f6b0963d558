package biasprecision_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	_ "github.com/maslda/maslda/likelihoods/gaussian" // registers "gaussian"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/optim" // registers the schedules
)

// Example simulates the paper's five annotators (MODEL.md §7) on a planted
// corpus, trains MA-sLDAr and reports what it learnt about them. The
// biases come out shifted by a common offset, which the data cannot
// identify (package documentation); their differences and the precisions
// are recovered.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	c, planted, _ := synth.LDA(synth.LDASpec{D: 400, V: 100, K: 3, DocLen: 60, Alpha: 0.2, TopicConc: 0.05}, rng)
	truth := make([]float64, len(c.Docs))
	for d, z := range planted.ZBar {
		truth[d] = 1*z[0] + 3*z[1] + 5*z[2] + 0.3*rng.NormFloat64()
	}
	c.Answers = &framework.Answers{
		Annotators: []string{"a1", "a2", "a3", "a4", "a5"},
		ByDoc:      biasprecision.Sample(truth, biasprecision.PaperBias, biasprecision.PaperPrec, 0, rng),
	}
	cfg, err := models.ParseConfig([]byte(`
seed = 1
topics {
  k = 3
  alpha = 0.2
  tau = 0.05
}
response "gaussian" {}
annotators "bias-precision" {}
inference "batch" {
  max_iters = 40
}
`), "example.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := models.Build(cfg, nil, c)
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := run.Fit(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	bp := run.Model.Noise.(*biasprecision.Model)
	for r, name := range bp.Workers {
		fmt.Printf("%s: bias − bias of a1 %5.1f (planted %5.1f), precision %4.2g (planted %4.2g)\n", name,
			bp.Bias[r]-bp.Bias[0], biasprecision.PaperBias[r]-biasprecision.PaperBias[0], bp.Prec[r], biasprecision.PaperPrec[r])
	}
	// Output:
	// a1: bias − bias of a1   0.0 (planted   0.0), precision  9.7 (planted   10)
	// a2: bias − bias of a1  -0.4 (planted  -0.4), precision  3.1 (planted    3)
	// a3: bias − bias of a1  -2.6 (planted  -2.6), precision  8.5 (planted   10)
	// a4: bias − bias of a1   0.0 (planted   0.0), precision 0.49 (planted  0.5)
	// a5: bias − bias of a1   0.9 (planted   0.9), precision 0.25 (planted 0.25)
}

// ExampleAutoKappa: bias_prior = "auto" gives a zero bias the weight of 3
// answers when the annotators who answered average fewer than 5 answers
// each; annotators without an answer do not count.
func ExampleAutoKappa() {
	fmt.Println(biasprecision.AutoKappa([]int{1, 2, 9, 0, 0})) // 12 answers from 3 annotators
	fmt.Println(biasprecision.AutoKappa([]int{4, 6, 5}))       // 15 from 3
	// Output:
	// 3
	// 0
}
