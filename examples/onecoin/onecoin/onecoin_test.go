package onecoin_test

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/examples/onecoin/onecoin"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The one-coin model passes the conformance kit. Update blends the
// running statistics (c_r, n_r) and their weight: those are its natural
// parameters (Running).
func TestKit(t *testing.T) {
	frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
		New:  func() (framework.NoiseModel, error) { return onecoin.New(nil) },
		Kind: frameworktest.KindCategorical,
		Natural: func(n framework.NoiseModel) []float64 {
			c, num, w := n.(*onecoin.Model).Running()
			return append(slices.Concat(c, num), w)
		},
	})
}
