package median

import (
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

func TestMedian(t *testing.T) {
	ans := func(v ...float64) []framework.Answer {
		var as []framework.Answer
		for _, x := range v {
			as = append(as, framework.Answer{Class: -1, Value: x})
		}
		return as
	}
	for _, tc := range []struct {
		in   []framework.Answer
		want float64
	}{{ans(3), 3}, {ans(5, 1, 9), 5}, {ans(4, 1, 10, 2), 3}, {ans(-1, -1, 100), -1}} {
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is a number")
	}
}

// The conformance kit on a Gaussian target; the median is fixed.
func TestKit(t *testing.T) {
	frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
		New:       func() (framework.NoiseModel, error) { return New(Params{}) },
		Kind:      frameworktest.KindGaussian,
		Stateless: true,
		Checks: frameworktest.Checks{Skip: map[string]string{
			"Recovery": "the median by construction (TestMedian, cli's TestAggregateNumeric)",
		}},
	})
}
