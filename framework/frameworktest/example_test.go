package frameworktest_test

import (
	"fmt"
	"math"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/optim"
)

// A Recorder shows what a check reports: here SVI's documented step size
// (t + delay)^(−κ) is checked against a wrong formula, without the delay.
func ExampleTestSchedule() {
	var rec frameworktest.Recorder
	frameworktest.TestSchedule(&rec, frameworktest.Schedule{
		New: func() (framework.Schedule, error) {
			return &optim.SVI{BatchSize: 5, Kappa: 0.5, Delay: 3, Epochs: 1}, nil
		},
		Docs: 10,
		Rho:  func(t int) float64 { return math.Pow(float64(t), -0.5) },
	})
	fmt.Println(rec.Errors()[0])
	// Output: Steps: update 1: ρ = 0.5, want 1
}
