package softmax

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit: messages are gradients, statistics merge, the
// update ascends (the generalised M-step of gain_tol; TestKitFullSolve:
// maximises), blends and scales as MODEL.md §5 says, save/load,
// monotone batch EM, full-batch SVI = batch, workers, a planted sLDA
// problem (with the kit's clamped annotator).
func TestKit(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New:     func() (framework.Likelihood, error) { return New(nil) },
		Classes: 3,
		Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Softmax).Eta) },
	})
}

// The kit with M-steps solved to grad_tol (gain_tol = 0): the update
// maximises (Maximises), where the default's generalised M-step only
// ascends (Ascender).
func TestKitFullSolve(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New: func() (framework.Likelihood, error) {
			return New(framework.ParamsFunc(func(into any) error {
				zero := 0.0
				into.(*Params).GainTol = &zero
				return nil
			}))
		},
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

// textL2 returns a factory whose block sets text_l2 (and bound and mstep
// when non-empty).
func textL2(v float64, bound, mstep string) func() (framework.Likelihood, error) {
	return func() (framework.Likelihood, error) {
		return New(framework.ParamsFunc(func(into any) error {
			p := into.(*Params)
			p.TextL2, p.Bound, p.MStep = &v, bound, mstep
			return nil
		}))
	}
}

// The kit with a penalty on the text's say apart from the classes' base
// rates (text_l2 ≠ l2), under L-BFGS and under the MM step.
func TestKitTextL2(t *testing.T) {
	for _, c := range []struct{ name, bound, mstep string }{{"lbfgs", "", ""}, {"mm", "quadratic", "mm"}} {
		t.Run(c.name, func(t *testing.T) {
			frameworktest.TestLikelihood(t, frameworktest.Likelihood{
				New:     textL2(3, c.bound, c.mstep),
				Classes: 3,
				Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Softmax).Eta) },
			})
		})
	}
}
