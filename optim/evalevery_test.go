package optim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// evalFake is a framework.Model and framework.Evaluator: the ELBO estimate
// after update n is base − 1/n (it converges), EvalELBO returns 1000 + n
// and takes pause; the calls are recorded.
type evalFake struct {
	docs    int
	base    float64
	n       int
	calls   []string
	pause   time.Duration
	evalErr error
}

func (f *evalFake) NumDocs() int { return f.docs }
func (f *evalFake) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	f.calls = append(f.calls, "E")
	return fakeStats{}, nil
}
func (f *evalFake) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	f.n++
	f.calls = append(f.calls, "M")
	return nil
}
func (f *evalFake) ELBO(s framework.Stats, st framework.Step) float64 { return f.base - 1/float64(f.n) }
func (f *evalFake) EvalELBO(ctx context.Context) (float64, error) {
	f.calls = append(f.calls, "eval")
	time.Sleep(f.pause)
	return 1000 + float64(f.n), f.evalErr
}

// plainModel is a framework.Model that is not a framework.Evaluator.
type plainModel struct{ framework.Model }

// TestSVIEvalEvery: which updates carry Progress.FullELBO (the last of every
// eval_every-th epoch and of the run's last epoch, by convergence or by the
// epoch limit), and that the evaluations change nothing else.
func TestSVIEvalEvery(t *testing.T) {
	// 10 documents in mini-batches of 3: 4 updates per epoch.
	tests := []struct {
		name      string
		every     int
		epochs    int
		tol       float64
		base      float64
		wantEvals []int // updates whose FullELBO is set
		wantConv  bool
	}{
		{"never", 0, 5, 0, -10, nil, false},
		{"every epoch", 1, 3, 0, -10, []int{4, 8, 12}, false},
		{"every 2nd and the last", 2, 5, 0, -10, []int{8, 16, 20}, false},
		{"every 4th beyond the run: the last only", 4, 3, 0, -10, []int{12}, false},
		// Epoch e's mean estimate is −1000 − (1/4)Σ_{n=4e−3}^{4e} 1/n;
		// its relative change falls below 3e-6 at epoch 11 (not a multiple
		// of 3): evaluations after epochs 3, 6, 9 and 11.
		{"every 3rd and at convergence", 3, 100, 3e-6, -1000, []int{12, 24, 36, 44}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := SVI{BatchSize: 3, Kappa: 0.6, Delay: 1, Epochs: tc.epochs, MinEpochs: 2, Tol: tc.tol, EvalEvery: tc.every}
			f := &evalFake{docs: 10, base: tc.base}
			var got []framework.Progress
			res, err := s.Fit(context.Background(), f, rand.New(rand.NewPCG(1, 2)), func(p framework.Progress) error {
				got = append(got, p)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Converged != tc.wantConv {
				t.Fatalf("converged = %v, want %v", res.Converged, tc.wantConv)
			}
			want := tc.wantEvals
			var evals []int
			for _, p := range got {
				if !math.IsNaN(p.FullELBO) {
					evals = append(evals, p.Iter)
					if want := 1000 + float64(p.Iter); p.FullELBO != want {
						t.Errorf("update %d: FullELBO %v, want %v (evaluated at that update's globals)", p.Iter, p.FullELBO, want)
					}
				}
			}
			if diff := cmp.Diff(want, evals); diff != "" {
				t.Errorf("updates with FullELBO (-want +got):\n%s", diff)
			}
			// The schedule otherwise runs as without evaluations.
			s0 := s
			s0.EvalEvery = 0
			f0 := &evalFake{docs: 10, base: tc.base}
			var got0 []framework.Progress
			res0, err := s0.Fit(context.Background(), f0, rand.New(rand.NewPCG(1, 2)), func(p framework.Progress) error {
				got0 = append(got0, p)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			strip := func(ps []framework.Progress) []framework.Progress {
				out := make([]framework.Progress, len(ps))
				for i, p := range ps {
					p.Elapsed, p.FullELBO = 0, 0
					out[i] = p
				}
				return out
			}
			if diff := cmp.Diff(strip(got0), strip(got)); diff != "" {
				t.Errorf("progress with eval_every %d differs from without (-0 +%d):\n%s", tc.every, tc.every, diff)
			}
			if res.Iters != res0.Iters || res.Epochs != res0.Epochs || res.ELBO != res0.ELBO || res.Converged != res0.Converged {
				t.Errorf("result %+v, without evaluations %+v", res, res0)
			}
			var calls []string
			for _, c := range f.calls {
				if c != "eval" {
					calls = append(calls, c)
				}
			}
			if diff := cmp.Diff(f0.calls, calls); diff != "" {
				t.Errorf("E/M calls differ from without evaluations (-0 +%d):\n%s", tc.every, diff)
			}
			if n := len(f.calls) - len(calls); n != len(want) {
				t.Errorf("%d EvalELBO calls, want %d", n, len(want))
			}
		})
	}
}

// TestSVIEvalTimeExcluded: the time spent in EvalELBO counts neither in
// Progress.Elapsed nor in Result.Elapsed.
func TestSVIEvalTimeExcluded(t *testing.T) {
	const pause = 100 * time.Millisecond
	s := SVI{BatchSize: 5, Kappa: 0.6, Delay: 1, Epochs: 3, MinEpochs: 2, Tol: 0, EvalEvery: 1}
	f := &evalFake{docs: 10, base: -10, pause: pause}
	var last time.Duration
	t0 := time.Now()
	res, err := s.Fit(context.Background(), f, rand.New(rand.NewPCG(1, 2)), func(p framework.Progress) error {
		last = p.Elapsed
		return nil
	})
	wall := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	// Three evaluations of at least pause each: the training time is at
	// most the wall time less 3·pause (counting them would make it about
	// the wall time).
	if limit := wall - 3*pause; res.Elapsed > limit || last > limit {
		t.Errorf("Result.Elapsed %v, last Progress.Elapsed %v; wall time %v with 3 evaluations of %v: want both ≤ %v", res.Elapsed, last, wall, pause, limit)
	}
	if last != res.Elapsed {
		t.Errorf("last Progress.Elapsed %v ≠ Result.Elapsed %v", last, res.Elapsed)
	}
}

func TestSVIEvalEveryErrors(t *testing.T) {
	ctx := context.Background()
	s := DefaultSVI()
	s.EvalEvery = 2
	_, err := s.Fit(ctx, plainModel{&evalFake{docs: 10, base: -10}}, rand.New(rand.NewPCG(1, 2)), nil)
	if !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "eval_every = 2") || !strings.Contains(err.Error(), "framework.Evaluator") {
		t.Errorf("eval_every on a model without Evaluator: %v, want ErrIncompatible naming eval_every and framework.Evaluator", err)
	}
	// Without evaluations the same model trains.
	s.EvalEvery = 0
	s.Epochs = 1
	if _, err := s.Fit(ctx, plainModel{&evalFake{docs: 10, base: -10}}, rand.New(rand.NewPCG(1, 2)), nil); err != nil {
		t.Errorf("eval_every 0 on a model without Evaluator: %v", err)
	}
	// An evaluation's error stops the run, wrapped.
	boom := errors.New("boom")
	s.EvalEvery, s.Epochs = 1, 3
	f := &evalFake{docs: 10, base: -10, evalErr: boom}
	if _, err := s.Fit(ctx, f, rand.New(rand.NewPCG(1, 2)), nil); !errors.Is(err, boom) || !strings.Contains(err.Error(), "epoch 1") {
		t.Errorf("EvalELBO failing: %v, want boom wrapped with the epoch", err)
	}
}

func TestSVIEvalEveryParams(t *testing.T) {
	tests := []struct {
		every int
		want  string // "" = valid
	}{
		{0, ""},
		{1, ""},
		{7, ""},
		{-1, "inference.eval_every = -1, want ≥ 0"},
	}
	for _, tc := range tests {
		s := DefaultSVI()
		s.EvalEvery = tc.every
		err := s.Validate()
		if tc.want == "" {
			if err != nil {
				t.Errorf("eval_every %d: Validate() = %v, want nil", tc.every, err)
			}
			continue
		}
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval_every %d: Validate() = %v, want ErrBadInput containing %q", tc.every, err, tc.want)
		}
	}
	if d := DefaultSVI(); d.EvalEvery != 0 {
		t.Errorf("default eval_every %d, want 0 (never)", d.EvalEvery)
	}
	// Registered, decoded through the block.
	sched, err := framework.Default.Schedule("svi", framework.ParamsFunc(func(into any) error {
		into.(*SVI).EvalEvery = 3
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := sched.(*SVI); !ok || s.EvalEvery != 3 {
		t.Errorf("registered schedule %#v, want svi with eval_every 3", sched)
	}
	if _, err := framework.Default.Schedule("svi", framework.ParamsFunc(func(into any) error {
		into.(*SVI).EvalEvery = -2
		return nil
	})); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "eval_every") {
		t.Errorf("registered svi with eval_every −2: %v, want ErrBadInput", err)
	}
}

// TestBatchFullELBO: batch EM reports FullELBO = ELBO at every update.
func TestBatchFullELBO(t *testing.T) {
	b := Batch{MaxIters: 4, MinIters: 2, Tol: 0}
	f := &evalFake{docs: 3, base: -10}
	n := 0
	if _, err := b.Fit(context.Background(), f, nil, func(p framework.Progress) error {
		n++
		if p.FullELBO != p.ELBO {
			t.Errorf("update %d: FullELBO %v, ELBO %v; want equal", p.Iter, p.FullELBO, p.ELBO)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("%d updates, want 4", n)
	}
	for _, c := range f.calls {
		if c == "eval" {
			t.Error("batch EM called EvalELBO")
		}
	}
}
