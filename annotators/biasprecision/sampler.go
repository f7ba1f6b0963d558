package biasprecision

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// SimulateParams are the simulated annotators of an `annotators
// "bias-precision" {}` block of `maslda simulate` (framework.Sampler): one
// bias and one precision per annotator, who answers y = x + b_r +
// N(0, 1/p_r) (Sample), e.g. the paper's
//
//	bias      = [0.1, -0.3, -2.5, 0.1, 1]
//	precision = [10, 3, 10, 0.5, 0.25]
type SimulateParams struct {
	Bias      []float64 `hcl:"bias"`
	Precision []float64 `hcl:"precision"`
}

// SampleKind is "gaussian": the annotators answer a number.
func (m *Model) SampleKind() string { return "gaussian" }

// Simulate decodes SimulateParams: as many biases as precisions, each
// precision positive and finite.
func (m *Model) Simulate(p framework.Params, truth *framework.Truth) (framework.Simulation, error) {
	var sp SimulateParams
	if err := p.Decode(&sp); err != nil {
		return nil, err
	}
	if len(sp.Bias) != len(sp.Precision) || len(sp.Bias) == 0 {
		return nil, fmt.Errorf("%w: %d biases but %d precisions (one of each per annotator, at least one annotator)", framework.ErrBadInput, len(sp.Bias), len(sp.Precision))
	}
	for _, x := range sp.Precision {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: precision %v, want positive finite numbers", framework.ErrBadInput, x)
		}
	}
	for _, x := range sp.Bias {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: bias %v, want finite numbers", framework.ErrBadInput, x)
		}
	}
	return &simulation{truth: truth.Value, bias: sp.Bias, prec: sp.Precision}, nil
}

type simulation struct {
	truth, bias, prec []float64
}

func (s *simulation) Annotators() int { return len(s.bias) }

func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	return Sample(s.truth, s.bias, s.prec, perDoc, rng), nil
}
