package optim_test

import (
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/optim"
)

// The schedules against the conformance kit. ρ_t is written here from
// MODEL.md §5, (t + delay)^(−κ), not taken from SVI.Rho.
func TestKit(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sched   framework.Schedule
		rho     func(t int) float64
		updates int
	}{
		{"batch", &optim.Batch{MaxIters: 5}, nil, 5},
		// 10 documents in mini-batches of 4: the last of every epoch has 2.
		{"svi", &optim.SVI{BatchSize: 4, Kappa: 0.6, Delay: 2.5, Epochs: 3}, func(t int) float64 { return math.Pow(float64(t)+2.5, -0.6) }, 9},
		{"svi full batch", &optim.SVI{BatchSize: 50, Kappa: 0.7, Delay: 1, Epochs: 2}, func(t int) float64 { return math.Pow(float64(t)+1, -0.7) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frameworktest.TestSchedule(t, frameworktest.Schedule{
				New:     func() (framework.Schedule, error) { return tc.sched, nil },
				Docs:    10,
				Rho:     tc.rho,
				Updates: tc.updates,
			})
		})
	}
}
