package framework

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestStepCheck(t *testing.T) {
	for _, tc := range []struct {
		step Step
		ok   bool
	}{
		{BatchStep(1), true},
		{Step{Rho: 0, Scale: 0}, true},
		{Step{Rho: 0.3, Scale: 12.5}, true},
		{Step{Rho: -0.1, Scale: 1}, false},
		{Step{Rho: 1.1, Scale: 1}, false},
		{Step{Rho: math.NaN(), Scale: 1}, false},
		{Step{Rho: 1, Scale: -1}, false},
		{Step{Rho: 1, Scale: math.Inf(1)}, false},
		{Step{Rho: 1, Scale: math.NaN()}, false},
	} {
		err := tc.step.Check("response x")
		if (err == nil) != tc.ok {
			t.Errorf("%+v: Check = %v, want ok %v", tc.step, err, tc.ok)
		}
		if err != nil && (!errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "response x: step ρ")) {
			t.Errorf("%+v: error %q, want ErrBadInput naming the component", tc.step, err)
		}
	}
}

func TestDocSumsMerge(t *testing.T) {
	a, b := &DocSums{Docs: 2, Sum: -3.5}, &DocSums{Docs: 1, Sum: -1}
	a.Merge(b)
	if *a != (DocSums{Docs: 3, Sum: -4.5}) {
		t.Errorf("Merge = %+v, want {3 -4.5}", *a)
	}
	a.Reset()
	if *a != (DocSums{}) {
		t.Errorf("Reset = %+v", *a)
	}
}
