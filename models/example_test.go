package models_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

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

// ExampleRun_WarmStart trains LDA by batch EM, saves it, and continues from
// the saved model under SVI: the first SVI epoch starts at the saved bound.
func ExampleRun_WarmStart() {
	c, _, _ := synth.LDA(synth.LDASpec{D: 200, V: 50, K: 2, DocLen: 40, Alpha: 0.1, TopicConc: 0.1}, models.NewRand(7))
	build := func(inference string) (*models.Run, error) {
		cfg, err := models.ParseConfig([]byte("seed = 3\ntopics {\n  k = 2\n}\n"+inference), "example.hcl")
		if err != nil {
			return nil, err
		}
		return models.Build(cfg, nil, c)
	}
	batch, err := build("inference \"batch\" {\n  max_iters = 30\n}\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := batch.Fit(context.Background(), nil); err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "maslda-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := batch.SaveAtomic(filepath.Join(dir, "batch"), nil); err != nil {
		fmt.Println(err)
		return
	}
	svi, err := build("inference \"svi\" {\n  batch_size = 200\n  kappa = 0\n  epochs = 1\n}\n")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := svi.WarmStart(filepath.Join(dir, "batch")); err != nil {
		fmt.Println(err)
		return
	}
	res, err := svi.Fit(context.Background(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("SVI's bound within 0.1%% of the saved model's: %v\n", math.Abs(res.ELBO-batch.Result.ELBO) < 1e-3*math.Abs(batch.Result.ELBO))
	// Output: SVI's bound within 0.1% of the saved model's: true
}
