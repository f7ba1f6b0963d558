package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// partFake's bound after update n is −1e8 − 100/n (a large part that
// settles fast) − 100·(1 + 1/√n) (a small part that still moves): as a
// framework.ConvergencePart it reports the small part.
type partFake struct {
	evalFake
}

func (f *partFake) small() float64 { return -100 * (1 + 1/math.Sqrt(float64(f.n))) }
func (f *partFake) ELBO(s framework.Stats, st framework.Step) float64 {
	return -1e8 - 100/float64(f.n) + f.small()
}
func (f *partFake) ConvergencePart(s framework.Stats, st framework.Step) (float64, bool) {
	return f.small(), true
}

// TestBatchConvergencePart: a part of the bound that still moves keeps
// batch EM going after the whole bound's relative change is within tol,
// until the part's own relative change is; a resumed run (BatchState
// with PrevPart) stops at the same iteration.
func TestBatchConvergencePart(t *testing.T) {
	// The small part's change 100(1/√(n−1) − 1/√n) ≤ 1e-5·100(1 + 1/√(n−1)):
	// first at n = 1357 (about (1/(2e-5))^(2/3)).
	want := 0
	for n := 2; ; n++ {
		p, c := 100*(1+1/math.Sqrt(float64(n-1))), 100*(1+1/math.Sqrt(float64(n)))
		if math.Abs(c-p) <= 1e-5*p {
			want = n
			break
		}
	}
	for _, tc := range []struct {
		name  string
		model framework.Model
		iters int
	}{
		{"whole bound only", plainModel{&partFake{evalFake: evalFake{docs: 3}}}, 2},
		{"with the part", &partFake{evalFake: evalFake{docs: 3}}, want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := DefaultBatch()
			b.MaxIters = 5000
			res, err := b.Fit(context.Background(), tc.model, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged || res.Iters != tc.iters {
				t.Errorf("converged %v after %d iterations, want %d", res.Converged, res.Iters, tc.iters)
			}
		})
	}
	// Resume at iteration 500 with the state the run handed over.
	b := DefaultBatch()
	b.MaxIters = 5000
	var at BatchState
	f := &partFake{evalFake: evalFake{docs: 3}}
	stop := fmt.Errorf("stop")
	_, err := b.FitFrom(context.Background(), f, nil, BatchState{}, func(s BatchState) error {
		if s.Iter == 500 {
			at = s
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || math.IsNaN(at.PrevPart) || at.PrevPart != f.small() {
		t.Fatalf("after 500: err %v, PrevPart %v, want the part %v", err, at.PrevPart, f.small())
	}
	res, err := b.FitFrom(context.Background(), f, nil, at, nil)
	if err != nil || !res.Converged || res.Iters != want {
		t.Errorf("resumed: converged %v after %d iterations (err %v), want %d", res.Converged, res.Iters, err, want)
	}
}
