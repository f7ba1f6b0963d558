package biasprecision

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit, with the defaults and without priors or anchor
// (MODEL.md §3's estimates); the running statistics and their weight are
// what Update blends.
// sharedRecovery: the kit's recovery crowd has annotators of different
// precisions, which one shared precision cannot tell apart; the truth is
// then near the mean answer's (TestShared checks the update by hand).
const sharedRecovery = "one precision for every annotator cannot beat the mean answer by weighting annotators, which the recovery check demands"

func TestKit(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
		skip map[string]string
	}{
		{"defaults", Defaults(), map[string]string{"Maximises": "the mean anchor fixes the biases' common offset from the statistics (a constraint that depends on them), so Update maximises over a subset of the parameters; unanchored runs the check, TestAnchorMean checks the anchor"}},
		{"unanchored", unanchored(), nil},
		{"shared precision", func() Params { p := unanchored(); p.Precision = Shared; p.BiasPrior = "2"; return p }(), map[string]string{"Recovery": sharedRecovery}},
		{"no bias, shared precision", Params{PriorAnswers: 1, BiasAnchor: AnchorMean, Bias: None, Precision: Shared}, map[string]string{"Recovery": sharedRecovery}},
		{"no bias", Params{PriorAnswers: 1, Bias: None}, nil},
		{"learned prior", func() Params { p := Defaults(); p.Prior = PriorLearned; return p }(), nil},
		{"learned prior, no bias", func() Params { p := Defaults(); p.Prior, p.Bias = PriorLearned, None; return p }(), nil},
		{"learned κ₀, mean anchor", func() Params { p := Defaults(); p.Prior, p.Learn = PriorLearned, LearnBias; return p }(), map[string]string{"Maximises": "the mean anchor is a constraint that depends on the statistics (as for the defaults); TestLearnBiasAnchored checks the constrained maximum by central differences"}},
		{"learned κ₀, unanchored", func() Params { p := unanchored(); p.Prior, p.Learn = PriorLearned, LearnBias; return p }(), nil},
		{"learned precision, mean anchor", func() Params {
			p := Defaults()
			p.Prior, p.Learn, p.BiasPrior = PriorLearned, LearnPrecision, "3"
			return p
		}(), map[string]string{"Maximises": "the mean anchor is a constraint that depends on the statistics (as for the defaults); TestLearnPrecisionAnchored checks the constrained maximum by central differences"}},
		{"learned precision, unanchored", func() Params { p := unanchored(); p.Prior, p.Learn = PriorLearned, LearnPrecision; return p }(), nil},
		{"prior auto, unanchored", func() Params { p := unanchored(); p.Prior = PriorAuto; return p }(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
				New:  func() (framework.NoiseModel, error) { return New(tc.p) },
				Kind: frameworktest.KindGaussian,
				Natural: func(n framework.NoiseModel) []float64 {
					m := n.(*Model)
					if m.run == nil {
						return nil
					}
					return append(slices.Concat(m.run.N, m.run.SY, m.run.SQ), m.runW)
				},
				Checks: frameworktest.Checks{Skip: tc.skip},
			})
		})
	}
}
