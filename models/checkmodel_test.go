package models

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian"
)

// pickySchedule needs something no model has: its Fit must never run.
type pickySchedule struct{ fitted *bool }

func (p pickySchedule) Fit(context.Context, framework.Model, *rand.Rand, framework.Observer) (*framework.Result, error) {
	*p.fitted = true
	return &framework.Result{}, nil
}

func (pickySchedule) CheckModel(framework.Model) error {
	return errors.New("needs a model with wings: " + framework.ErrIncompatible.Error())
}

// TestBuildChecksSchedule: Build asks a schedule that implements
// framework.ModelChecker about the assembled model and reports its refusal
// at the inference block, before any training.
func TestBuildChecksSchedule(t *testing.T) {
	t.Parallel()
	fitted := false
	reg := framework.NewRegistry()
	reg.RegisterLikelihood(gaussian.Name, func(p framework.Params) (framework.Likelihood, error) {
		return framework.Default.Likelihood(gaussian.Name, p)
	})
	reg.RegisterNoise(biasprecision.Name, func(p framework.Params) (framework.NoiseModel, error) {
		return framework.Default.Noise(biasprecision.Name, p)
	})
	reg.RegisterSchedule("picky", func(framework.Params) (framework.Schedule, error) { return pickySchedule{&fitted}, nil })
	cfg := mustConfig(t, twoStageTopics+`response "gaussian" {}
annotators "bias-precision" {}
inference "picky" {}
`)
	_, err := Build(cfg, reg, smallRegCorpus(t))
	if err == nil || !strings.Contains(err.Error(), "needs a model with wings") || !strings.Contains(err.Error(), "test.hcl:") || !strings.Contains(err.Error(), `inference "picky"`) {
		t.Errorf("Build = %v, want the schedule's refusal at test.hcl's inference block", err)
	}
	if fitted {
		t.Errorf("the schedule was fitted")
	}
}
