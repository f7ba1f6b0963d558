package optim

import (
	"errors"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestCheckModel: each schedule says what it needs of a model before any
// training (framework.ModelChecker): two-stage a Phased model, SVI with
// eval_every > 0 an Evaluator; batch, and SVI without eval_every, need
// nothing more.
func TestCheckModel(t *testing.T) {
	var (
		_ framework.ModelChecker = (*SVI)(nil)
		_ framework.ModelChecker = (*TwoStage)(nil)
	)
	if _, ok := any(&Batch{}).(framework.ModelChecker); ok {
		t.Errorf("batch EM needs nothing beyond framework.Model but claims a check")
	}
	for _, tc := range []struct {
		name string
		s    framework.ModelChecker
		m    framework.Model
		ok   bool
	}{
		{"two-stage, phases", &TwoStage{}, newPhasedFake(), true},
		{"two-stage, no phases", &TwoStage{}, plainFake{}, false},
		{"svi eval_every 1, Evaluator", &SVI{EvalEvery: 1}, &evalFake{docs: 3}, true},
		{"svi eval_every 1, no Evaluator", &SVI{EvalEvery: 1}, plainModel{}, false},
		{"svi eval_every 0, no Evaluator", &SVI{}, plainModel{}, true},
	} {
		err := tc.s.CheckModel(tc.m)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, framework.ErrIncompatible) {
			t.Errorf("%s: %v, want ErrIncompatible", tc.name, err)
		}
	}
}
