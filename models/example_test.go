package models_test

import (
	"context"
	"fmt"

	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/optim" // registers the schedules
)

// Example trains plain LDA on a generated corpus and predicts the topic
// proportions of its first document.
func Example() {
	c, _, _ := synth.LDA(synth.LDASpec{D: 200, V: 50, K: 2, DocLen: 40, Alpha: 0.1, TopicConc: 0.1}, models.NewRand(7))
	cfg, err := models.ParseConfig([]byte(`
seed = 3
topics {
  k = 2
}
inference "batch" {
  max_iters = 30
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
	res, err := run.Fit(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := run.Model.Predict(context.Background(), c)
	fmt.Printf("converged: %v, θ of document 0 sums to %.3f\n", res.Converged, pred[0].Theta[0]+pred[0].Theta[1])
	// Output: converged: true, θ of document 0 sums to 1.000
}
