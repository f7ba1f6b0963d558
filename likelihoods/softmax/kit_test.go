package softmax

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit: messages are gradients, statistics merge, the
// update maximises, blends and scales as MODEL.md §5 says, save/load,
// monotone batch EM, full-batch SVI = batch, workers, a planted sLDA
// problem (with the kit's clamped annotator).
func TestKit(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New:     func() (framework.Likelihood, error) { return New(nil) },
		Classes: 3,
		Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Softmax).Eta) },
	})
}

// The kit with the quadratic bound's MM M-step (mstep = "mm", mm.go):
// fixed-size statistics (ExactSums), an update that ascends (Ascender)
// rather than maximises.
func TestKitMM(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New: func() (framework.Likelihood, error) {
			return New(framework.ParamsFunc(func(into any) error {
				p := into.(*Params)
				p.Bound, p.MStep = "quadratic", "mm"
				return nil
			}))
		},
		Classes: 3,
		Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Softmax).Eta) },
	})
}
