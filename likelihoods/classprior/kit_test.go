package classprior

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit, for both estimates. The class prior ignores the
// documents, so held-out prediction is always the most probable class.
func TestKit(t *testing.T) {
	for _, est := range []string{Variational, Point} {
		t.Run(est, func(t *testing.T) {
			frameworktest.TestLikelihood(t, frameworktest.Likelihood{
				New: func() (framework.Likelihood, error) {
					p := Defaults()
					p.Estimate = est
					return New(p)
				},
				Classes: 3,
				Natural: func(l framework.Likelihood) []float64 {
					r := l.(*Response)
					if r.point() {
						return append(slices.Clone(r.run), r.runW)
					}
					return slices.Clone(r.Zeta)
				},
				Checks: frameworktest.Checks{Skip: map[string]string{
					"Recovery": "the class prior ignores the documents: it predicts the most frequent class, the baseline itself",
				}},
			})
		})
	}
}
