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
func TestKit(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
		skip map[string]string
	}{
		{"defaults", Defaults(), map[string]string{"Maximises": "the mean anchor fixes the biases' common offset from the statistics (a constraint that depends on them), so Update maximises over a subset of the parameters; unanchored runs the check, TestAnchorMean checks the anchor"}},
		{"unanchored", unanchored(), nil},
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
