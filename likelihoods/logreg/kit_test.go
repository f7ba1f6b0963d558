package logreg

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit (fixed features: the end-to-end checks run the
// two-stage schedule).
func TestKit(t *testing.T) {
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New:     func() (framework.Likelihood, error) { return New(Defaults()) },
		Classes: 3,
		Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(*Response).Eta) },
	})
}
