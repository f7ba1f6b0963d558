package biasprecision

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/stat/distuv"
)

// SimulateParams are the simulated annotators of an `annotators
// "bias-precision" {}` block of `maslda simulate` (framework.Sampler): one
// bias and one precision per annotator, who answers y = x + b_r +
// N(0, 1/p_r) (Sample), e.g. the paper's
//
//	bias      = [0.1, -0.3, -2.5, 0.1, 1]
//	precision = [10, 3, 10, 0.5, 0.25]
//
// or count annotators drawn from the Normal–Gamma prior of prior =
// "learned": p_r ~ Gamma(shape, rate), b_r | p_r ~ N(0, 1/(kappa p_r))
// (kappa 0 or absent: every b_r = 0), drawn at the first Sample:
//
//	count = 100
//	shape = 2      # the precisions' Gamma: mean shape/rate
//	rate  = 0.5
//	kappa = 4      # biases' spread: sd 1/√(kappa p_r)
type SimulateParams struct {
	Bias      []float64 `hcl:"bias,optional"`
	Precision []float64 `hcl:"precision,optional"`
	Count     int       `hcl:"count,optional"`
	Shape     float64   `hcl:"shape,optional"`
	Rate      float64   `hcl:"rate,optional"`
	Kappa     float64   `hcl:"kappa,optional"`
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
	if sp.Count != 0 || sp.Shape != 0 || sp.Rate != 0 || sp.Kappa != 0 {
		fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		switch {
		case sp.Bias != nil || sp.Precision != nil:
			return nil, fmt.Errorf("%w: give bias and precision lists, or count, shape, rate (and kappa), not both", framework.ErrBadInput)
		case sp.Count < 1:
			return nil, fmt.Errorf("%w: count = %d, want the number of annotators (≥ 1)", framework.ErrBadInput, sp.Count)
		case !(sp.Shape > 0) || !fin(sp.Shape) || !(sp.Rate > 0) || !fin(sp.Rate):
			return nil, fmt.Errorf("%w: shape = %v, rate = %v: the precisions' Gamma needs both finite and > 0", framework.ErrBadInput, sp.Shape, sp.Rate)
		case !(sp.Kappa >= 0) || !fin(sp.Kappa):
			return nil, fmt.Errorf("%w: kappa = %v, want a finite number ≥ 0 (0: no biases)", framework.ErrBadInput, sp.Kappa)
		}
		return &simulation{truth: truth.Value, prior: &sp}, nil
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
	prior             *SimulateParams // draw count annotators from the prior at the first Sample
}

func (s *simulation) Annotators() int {
	if s.prior != nil {
		return s.prior.Count
	}
	return len(s.bias)
}

func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	if p := s.prior; p != nil && s.prec == nil {
		g := distuv.Gamma{Alpha: p.Shape, Beta: p.Rate, Src: rng}
		s.bias, s.prec = make([]float64, p.Count), make([]float64, p.Count)
		for r := range s.prec {
			s.prec[r] = max(g.Rand(), 1e-300)
			if p.Kappa > 0 {
				s.bias[r] = rng.NormFloat64() / math.Sqrt(p.Kappa*s.prec[r])
			}
		}
	}
	return Sample(s.truth, s.bias, s.prec, perDoc, rng), nil
}
