package confusion_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
)

// gaussianTarget is the flat response with a Gaussian target: a response
// the confusion model cannot be bound to.
type gaussianTarget struct{ flat }

func (gaussianTarget) NewTarget() framework.Target { return &framework.Gaussian{} }

// registry holds the test responses, the confusion model and batch EM.
func registry() *framework.Registry {
	reg := framework.NewRegistry()
	reg.RegisterLikelihood("flat", func(framework.Params) (framework.Likelihood, error) { return &flat{}, nil })
	reg.RegisterLikelihood("gaussian-target", func(framework.Params) (framework.Likelihood, error) { return &gaussianTarget{}, nil })
	reg.RegisterNoise("confusion", confusion.New)
	reg.RegisterSchedule("batch", func(p framework.Params) (framework.Schedule, error) {
		b := optim.DefaultBatch()
		if err := p.Decode(&b); err != nil {
			return nil, err
		}
		return &b, b.Validate()
	})
	return reg
}

const hclConfig = `
seed = 3
workers = 2
topics {
  k = 3
}
response "flat" {}
annotators "confusion" {
  omega         = 0.5
  diagonal      = 2
  init          = "uniform"
  init_strength = 0.25
}
inference "batch" {
  max_iters = 5
}
`

// TestConfigSaveLoad: the HCL block reaches Config, a trained model is
// saved and rebuilt through the registry with the same ξ and report.
func TestConfigSaveLoad(t *testing.T) {
	reg := registry()
	c, _, _ := crowdCorpus(t, 41, 200, 3, 2, crowdAccuracies)
	cfg, err := models.ParseConfig([]byte(hclConfig), "run.hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, reg, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Model.Noise.(*confusion.Model).Config(); got != (confusion.Config{Omega: 0.5, Diagonal: 2, Init: confusion.InitUniform, InitStrength: 0.25, Estimate: confusion.EstimateVariational, StartIters: 8, StartUpdates: 40, StartLabels: confusion.StartOthers, InitLabels: confusion.InitLabelsMajority, Prior: confusion.PriorFixed, Communities: 3, Constant: confusion.ConstantIgnore, Relabel: confusion.RelabelAgreement}) {
		t.Errorf("decoded %+v", got)
	}
	if _, err := run.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	noise := run.Model.Noise.(*confusion.Model) // after Fit: restarts keep the best candidate's model
	dir := filepath.Join(t.TempDir(), "model")
	if err := run.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	saved, err := models.Load(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	back := saved.Model.Noise.(*confusion.Model)
	for r := 0; r < noise.NumAnnotators(); r++ {
		if !slices.EqualFunc(noise.Xi(r), back.Xi(r), slices.Equal) || noise.Answers(r) != back.Answers(r) {
			t.Fatalf("annotator %d: saved %v (%d answers), loaded %v (%d)", r, noise.Xi(r), noise.Answers(r), back.Xi(r), back.Answers(r))
		}
	}
	h1, r1, _ := noise.Report()
	h2, r2, _ := back.Report()
	if !slices.Equal(h1, h2) || !slices.EqualFunc(r1, r2, slices.Equal) {
		t.Errorf("reports differ after save/load")
	}
}

func TestConfigErrors(t *testing.T) {
	reg := registry()
	c, _, _ := crowdCorpus(t, 42, 50, 3, 2, crowdAccuracies)
	for _, tc := range []struct {
		block string
		want  error
		msg   string
	}{
		{`response "flat" {}
annotators "confusion" {
  omegaa = 1
}`, framework.ErrBadInput, "omega"},
		{`response "flat" {}
annotators "confusion" {
  init = "random"
}`, framework.ErrBadInput, "majority, uniform"},
		{`response "flat" {}
annotators "confusion" {
  omega = -1
}`, framework.ErrBadInput, "annotators.omega"},
		{`response "gaussian-target" {}
annotators "confusion" {}`, framework.ErrIncompatible, "categorical target"},
	} {
		cfg, err := models.ParseConfig([]byte("topics {\n  k = 2\n}\n"+tc.block), "bad.hcl")
		if err != nil {
			t.Fatal(err)
		}
		_, err = models.Build(cfg, reg, c)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s:\nerr %v, want %v mentioning %q", tc.block, err, tc.want, tc.msg)
		}
	}
}
