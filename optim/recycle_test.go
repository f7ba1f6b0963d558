package optim

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

// recStats are statistics that know whether they were handed back.
type recStats struct {
	id       int
	recycled bool
}

func (s *recStats) Merge(framework.Stats) {}
func (s *recStats) Reset()                {}

// recycleFake is partFake (whose convergence reads the statistics) as a
// framework.StatsRecycler: it records the calls, and any use of
// statistics after they were handed back.
type recycleFake struct {
	partFake
	next  int
	log   []string
	after []int // the statistics used after they were handed back
}

func (f *recycleFake) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	f.next++
	f.log = append(f.log, "E")
	return &recStats{id: f.next}, nil
}
func (f *recycleFake) use(s framework.Stats) {
	if r := s.(*recStats); r.recycled {
		f.after = append(f.after, r.id)
	}
}
func (f *recycleFake) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	f.use(s)
	f.log = append(f.log, "M")
	return f.partFake.Update(ctx, s, st)
}
func (f *recycleFake) ELBO(s framework.Stats, st framework.Step) float64 {
	f.use(s)
	return f.partFake.ELBO(s, st)
}
func (f *recycleFake) ConvergencePart(s framework.Stats, st framework.Step) (float64, bool) {
	f.use(s)
	return f.partFake.ConvergencePart(s, st)
}
func (f *recycleFake) RecycleStats(s framework.Stats) {
	r := s.(*recStats)
	if r.recycled {
		f.after = append(f.after, r.id)
	}
	r.recycled = true
	f.log = append(f.log, "R")
}

// TestBatchRecyclesStats: batch EM hands every E-step's statistics back
// once (framework.StatsRecycler), after its last use, the converged
// iteration's included.
func TestBatchRecyclesStats(t *testing.T) {
	f := &recycleFake{partFake: partFake{evalFake{docs: 3}}}
	b := DefaultBatch()
	b.MaxIters = 4
	b.Tol = 0
	res, err := b.Fit(context.Background(), f, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"E", "M", "R", "E", "M", "R", "E", "M", "R", "E", "M", "R"}
	if d := cmp.Diff(want, f.log); d != "" || res.Iters != 4 {
		t.Errorf("calls after %d iterations (-want +got):\n%s", res.Iters, d)
	}
	if f.after != nil {
		t.Errorf("statistics %v used after they were handed back", f.after)
	}
	// Stopped by convergence: the last statistics are handed back too.
	f = &recycleFake{partFake: partFake{evalFake{docs: 3}}}
	b = DefaultBatch()
	b.MaxIters = 5000
	if res, err = b.Fit(context.Background(), f, nil, nil); err != nil || !res.Converged {
		t.Fatalf("converged %v, %v", res.Converged, err)
	}
	if n := len(f.log); n != 3*res.Iters || f.log[n-1] != "R" || f.after != nil {
		t.Errorf("%d calls over %d iterations (last %q), used after handed back: %v", n, res.Iters, f.log[n-1], f.after)
	}
}
