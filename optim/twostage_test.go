package optim

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// phasedFake is a framework.Phased model whose ELBO after update n of a
// phase is base(phase) − 1/n: it converges, and every call is recorded.
type phasedFake struct {
	phase    framework.Phase
	n        map[framework.Phase]int
	calls    []string
	setErr   map[framework.Phase]error
	docs     int
	estepErr error
}

type fakeStats struct{}

func (fakeStats) Merge(framework.Stats) {}
func (fakeStats) Reset()                {}

func newPhasedFake() *phasedFake {
	return &phasedFake{n: map[framework.Phase]int{}, setErr: map[framework.Phase]error{}, docs: 3}
}

func (f *phasedFake) NumDocs() int { return f.docs }
func (f *phasedFake) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	f.calls = append(f.calls, "E:"+f.phase.String())
	return fakeStats{}, f.estepErr
}
func (f *phasedFake) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	f.n[f.phase]++
	f.calls = append(f.calls, "M:"+f.phase.String())
	return nil
}
func (f *phasedFake) ELBO(s framework.Stats, st framework.Step) float64 {
	base := map[framework.Phase]float64{framework.PhaseTopics: -1000, framework.PhaseResponse: -10}[f.phase]
	return base - 1/float64(f.n[f.phase])
}
func (f *phasedFake) SetPhase(p framework.Phase) error {
	f.calls = append(f.calls, "set:"+p.String())
	if err := f.setErr[p]; err != nil {
		return err
	}
	f.phase = p
	return nil
}
func (f *phasedFake) Phase() framework.Phase { return f.phase }

// plainFake is a framework.Model without phases.
type plainFake struct{ framework.Model }

func TestTwoStageFit(t *testing.T) {
	s := TwoStage{TopicsIters: 3, TopicsTol: 0, ResponseIters: 2, ResponseTol: 0, MinIters: 2}
	f := newPhasedFake()
	var got []framework.Progress
	res, err := s.Fit(context.Background(), f, nil, func(p framework.Progress) error {
		p.Elapsed = 0
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []framework.Progress{
		{Iter: 1, Epoch: 1, Rho: 1, ELBO: -1001, FullELBO: -1001, Docs: 3, Stage: 1},
		{Iter: 2, Epoch: 2, Rho: 1, ELBO: -1000.5, FullELBO: -1000.5, Docs: 3, Stage: 1},
		{Iter: 3, Epoch: 3, Rho: 1, ELBO: -1000 - 1.0/3, FullELBO: -1000 - 1.0/3, Docs: 3, Stage: 1},
		{Iter: 4, Epoch: 4, Rho: 1, ELBO: -11, FullELBO: -11, Docs: 3, Stage: 2},
		{Iter: 5, Epoch: 5, Rho: 1, ELBO: -10.5, FullELBO: -10.5, Docs: 3, Stage: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	wantCalls := []string{"set:topics", "E:topics", "M:topics", "E:topics", "M:topics", "E:topics", "M:topics",
		"set:response", "E:response", "M:response", "E:response", "M:response"}
	if diff := cmp.Diff(wantCalls, f.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if res.Iters != 5 || res.Epochs != 5 || res.ELBO != -10.5 || res.Converged {
		t.Errorf("result %+v, want 5 iterations, ELBO −10.5, not converged (tol 0)", res)
	}
	if f.Phase() != framework.PhaseResponse {
		t.Errorf("model left in phase %v, want response", f.Phase())
	}
	if n := s.MaxUpdates(100); n != 5 {
		t.Errorf("MaxUpdates = %d, want 5", n)
	}
}

func TestTwoStageConverges(t *testing.T) {
	// From update n−1 to n the ELBO base − 1/n changes by 1/(n(n−1)); tol
	// 1e-4 relative stops stage 1 (base −1000) at n = 4 (1/12 ≤
	// 1e-4·1000.33, while 1/6 > 1e-4·1000.5) and stage 2 (base −10) at
	// n = 33 (1/1056 ≤ 1e-4·10.031, while 1/992 > 1e-4·10.032).
	s := TwoStage{TopicsIters: 100, TopicsTol: 1e-4, ResponseIters: 100, ResponseTol: 1e-4, MinIters: 2}
	f := newPhasedFake()
	stages := map[int]int{}
	res, err := s.Fit(context.Background(), f, nil, func(p framework.Progress) error { stages[p.Stage]++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int]int{1: 4, 2: 33}, stages); diff != "" || !res.Converged || res.Iters != 37 {
		t.Errorf("updates per stage (-want +got):\n%s\nresult %+v", diff, res)
	}
}

func TestTwoStageErrors(t *testing.T) {
	ctx := context.Background()
	s := DefaultTwoStage()
	if _, err := s.Fit(ctx, plainFake{newPhasedFake()}, nil, nil); !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "framework.Phased") {
		t.Errorf("Fit on a model without phases: %v, want ErrIncompatible naming framework.Phased", err)
	}
	f := newPhasedFake()
	f.setErr[framework.PhaseResponse] = framework.ErrIncompatible
	if _, err := s.Fit(ctx, f, nil, nil); !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "stage 2") {
		t.Errorf("SetPhase(response) failing: %v, want the error wrapped with the stage", err)
	}
	f = newPhasedFake()
	stop := errors.New("stop")
	if _, err := s.Fit(ctx, f, nil, func(p framework.Progress) error {
		if p.Stage == 2 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Errorf("observer error: %v, want it returned", err)
	}
	f = newPhasedFake()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	f.estepErr = cctx.Err()
	if _, err := s.Fit(cctx, f, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

func TestTwoStageParams(t *testing.T) {
	def := DefaultTwoStage()
	b := DefaultBatch()
	if def.TopicsIters != b.MaxIters || def.ResponseIters != b.MaxIters || def.TopicsTol != b.Tol || def.ResponseTol != b.Tol || def.MinIters != b.MinIters {
		t.Errorf("defaults %+v, want each stage as batch's %+v", def, b)
	}
	tests := []struct {
		name string
		mod  func(*TwoStage)
		want string // "" = valid
	}{
		{"defaults", func(*TwoStage) {}, ""},
		{"tol 0", func(s *TwoStage) { s.TopicsTol, s.ResponseTol = 0, 0 }, ""},
		{"topics_iters", func(s *TwoStage) { s.TopicsIters = 0 }, "inference.topics_iters = 0"},
		{"response_iters", func(s *TwoStage) { s.ResponseIters = -1 }, "inference.response_iters = -1"},
		{"topics_tol", func(s *TwoStage) { s.TopicsTol = -1 }, "inference.topics_tol = -1"},
		{"response_tol NaN", func(s *TwoStage) { s.ResponseTol = math.NaN() }, "inference.response_tol = NaN"},
		{"min_iters", func(s *TwoStage) { s.MinIters = -2 }, "inference.min_iters = -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultTwoStage()
			tc.mod(&s)
			err := s.Validate()
			if tc.want == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, framework.ErrBadInput) || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
	// Registered, and decoded through the block.
	sched, err := framework.Default.Schedule(TwoStageName, framework.ParamsFunc(func(into any) error {
		into.(*TwoStage).ResponseIters = 7
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := sched.(*TwoStage)
	if !ok || ts.ResponseIters != 7 || ts.TopicsIters != def.TopicsIters {
		t.Errorf("registered schedule %#v, want two-stage with response_iters 7 and default topics_iters", sched)
	}
	if _, ok := sched.(framework.PhasedSchedule); !ok || ts.FirstPhase() != framework.PhaseTopics {
		t.Error("two-stage is not a framework.PhasedSchedule starting in the topics phase")
	}
}
