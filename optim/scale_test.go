package optim

import (
	"context"
	"testing"

	"github.com/maslda/maslda/framework"
)

// scaledFake's bound after update n is −1e8 (a constant part) plus a
// moving part −100 − 100/n; as a framework.ConvergenceScaler it reports
// the moving part's magnitude when scale is set.
type scaledFake struct {
	evalFake
	scale bool
}

func (f *scaledFake) moving() float64 { return -100 - 100/float64(f.n) }
func (f *scaledFake) ELBO(s framework.Stats, st framework.Step) float64 {
	return -1e8 + f.moving()
}
func (f *scaledFake) ConvergenceScale(s framework.Stats, st framework.Step) (float64, bool) {
	if !f.scale {
		return 0, false
	}
	return -f.moving(), true
}

// TestBatchConvergenceScale: a huge constant in the bound no longer stops
// batch EM at once when the model reports the scale of the moving part.
func TestBatchConvergenceScale(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model framework.Model
		iters int
	}{
		// |ΔL| = 100/(n(n−1)) against 1e-5·1e8 = 1000: converged at 2.
		{"whole bound", &scaledFake{evalFake: evalFake{docs: 3}}, 2},
		{"not a scaler", plainModel{&scaledFake{evalFake: evalFake{docs: 3}}}, 2},
		// 100/(n(n−1)) ≤ 1e-5·(100 + 100/(n−1)) first at n = 317.
		{"moving part", &scaledFake{evalFake: evalFake{docs: 3}, scale: true}, 317},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := DefaultBatch()
			b.MaxIters = 1000
			res, err := b.Fit(context.Background(), tc.model, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged || res.Iters != tc.iters {
				t.Errorf("converged %v after %d iterations, want %d", res.Converged, res.Iters, tc.iters)
			}
		})
	}
}
