package mace_test

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/annotators/mace"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// MACE passes the conformance kit. Update blends the running statistics
// (A, B) and their weight: its natural parameters (Running).
func TestKit(t *testing.T) {
	for _, C := range []int{2, 3} {
		frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
			New:     func() (framework.NoiseModel, error) { return mace.New(mace.Defaults()) },
			Kind:    frameworktest.KindCategorical,
			Classes: C,
			Natural: func(n framework.NoiseModel) []float64 {
				a, b, w := n.(*mace.Model).Running()
				return append(slices.Concat(a, b), w)
			},
		})
	}
}
