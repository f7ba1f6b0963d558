package valueprior

import (
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit. The value prior ignores the documents, so held-out
// prediction is the prior mean, the baseline itself.
func TestKit(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New: func() (framework.Likelihood, error) { return New(Params{}) },
		Natural: func(l framework.Likelihood) []float64 {
			r := l.(*Response)
			return append(append([]float64(nil), r.run[:]...), r.runW)
		},
		Checks: frameworktest.Checks{Skip: map[string]string{
			"Recovery": "the value prior ignores the documents: it predicts the mean value, the baseline itself",
		}},
	})
}
