package gaussian

import (
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// natural is what Update blends (MODEL.md §5): the running statistics and
// their weight, from which η, b and σ² are solved.
func natural(l framework.Likelihood) []float64 {
	r := l.(*Response)
	if r.run == nil {
		return nil
	}
	s := r.run
	out := append(append(append([]float64(nil), s.ZZ...), s.PhiM...), s.PhiSum...)
	return append(out, s.M, s.MM, s.Docs, s.Entropy, r.runW)
}

// The conformance kit, for the defaults, with an intercept and σ²
// estimated, and for linreg (fixed features: the two-stage schedule).
func TestKit(t *testing.T) {
	for _, tc := range []struct {
		name string
		new  func() (*Response, error)
	}{
		{"defaults", func() (*Response, error) { return New(Defaults()) }},
		{"intercept and σ² estimated", func() (*Response, error) {
			p := Defaults()
			p.Intercept, p.EstimateSigma2, p.Sigma2, p.Weight = true, true, 0.5, 1
			return New(p)
		}},
		{"linreg", func() (*Response, error) { return NewLinReg(LinRegDefaults()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.TestLikelihood(t, frameworktest.Likelihood{
				New:     func() (framework.Likelihood, error) { return tc.new() },
				Natural: natural,
			})
		})
	}
}
