package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// ExampleChoose picks, by the held-out answers criterion, between
// confusion annotators that learn and ones held near a flat matrix by a
// strong prior, then trains the chosen candidate on every answer.
func ExampleChoose() {
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc, spec.K = 200, 0, 20, 3, 3
	spec.Accuracies = []float64{0.9, 0.8, 0.7, 0.3, 0.25}
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := models.ParseConfig([]byte(`
model   = "ma-sldac"
workers = 1
topics { k = 3 }
inference "batch" { max_iters = 30 }
select {
  share = 0.2
  candidate "learn" {}
  candidate "flat" {
    annotators "confusion" {
      omega    = 1000
      diagonal = 0
      init     = "uniform"
    }
  }
}
`), "select.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	ch, err := models.Choose(ctx, cfg, nil, cr.Train, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := models.Build(ch.Config, nil, cr.Train)
	if err == nil {
		err = ch.Start(run)
	}
	if err == nil {
		_, err = run.Fit(ctx, nil)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("chosen:", ch.Chosen, "scored on", ch.Answers > 0)
	// Output: chosen: learn scored on true
}
