package frameworktest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maslda/maslda/framework"
)

// Schedule describes an inference schedule under test.
type Schedule struct {
	// New returns the schedule with the settings under test. They must
	// make it run to its maximum number of updates (a tolerance of 0).
	New func() (framework.Schedule, error)
	// Docs is the number of documents of the fake model (default 10).
	Docs int
	// Rho is the step size the schedule must use at update t (from 1), as
	// documented (MODEL.md §5: (t + delay)^(−κ)); nil means 1 (batch).
	// Write it from the documentation, not by calling the schedule.
	Rho func(t int) float64
	// Updates is the number of updates the settings make (0: not checked).
	Updates int
	Checks
}

// TestSchedule drives the schedule on a fake model that records every
// call, and checks (one check, "Steps"):
//
//   - every E-step is over distinct documents in increasing order, and is
//     followed by one Update and one ELBO of its statistics;
//   - Step.Iter counts updates from 1; Step.Rho is Rho(Iter), in (0, 1];
//     Step.Scale is D/|B| for the mini-batch B actually used (a short last
//     mini-batch included); Step.Full is |B| = D; Step.EpochEnd is set
//     exactly at the updates that end a pass over the corpus;
//   - every document is visited once per pass over the corpus;
//   - one Progress per update, with its Iter, Rho, Docs and ELBO;
//   - the same random source gives the same run.
func TestSchedule(t TB, sc Schedule) {
	t.Helper()
	defer recoverFatal()
	if sc.Docs == 0 {
		sc.Docs = 10
	}
	sc.run(t, "Steps", func(t TB) {
		a := runFake(t, sc)
		b := runFake(t, sc)
		if !slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) }) {
			t.Errorf("two runs with the same random source visit different mini-batches")
		}
	})
}

type fakeStats struct{ docs []int }

func (s *fakeStats) Merge(o framework.Stats) { s.docs = append(s.docs, o.(*fakeStats).docs...) }
func (s *fakeStats) Reset()                  { s.docs = nil }

// fakeModel records the schedule's calls; its bound rises slowly.
type fakeModel struct {
	t       TB
	D       int
	batches [][]int
	steps   []framework.Step
	pending *fakeStats
	updated bool
	elbos   []float64
}

func (m *fakeModel) NumDocs() int { return m.D }

func (m *fakeModel) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	if m.pending != nil {
		m.t.Errorf("E-step %d before the previous one's Update and ELBO", len(m.batches)+1)
	}
	for i, d := range docs {
		if d < 0 || d >= m.D || (i > 0 && d <= docs[i-1]) {
			m.t.Fatalf("E-step %d over documents %v: want distinct indices in [0, %d), increasing", len(m.batches)+1, docs, m.D)
		}
	}
	m.batches = append(m.batches, slices.Clone(docs))
	m.pending = &fakeStats{docs: slices.Clone(docs)}
	m.updated = false
	return m.pending, ctx.Err()
}

func (m *fakeModel) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	if s != m.pending || m.updated {
		m.t.Errorf("Update %d: not the statistics of the E-step just run, or a second Update of them", len(m.steps)+1)
	}
	m.updated = true
	m.steps = append(m.steps, st)
	return ctx.Err()
}

func (m *fakeModel) ELBO(s framework.Stats, st framework.Step) float64 {
	if s != m.pending || !m.updated {
		m.t.Errorf("ELBO %d: not after the Update of the E-step just run", len(m.elbos)+1)
	}
	m.pending = nil
	e := -100 - 100/float64(len(m.steps))
	m.elbos = append(m.elbos, e)
	return e
}

// runFake runs the schedule once on a fake model, checks the run and
// returns its mini-batches.
func runFake(t TB, sc Schedule) [][]int {
	t.Helper()
	s, err := sc.New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	m := &fakeModel{t: t, D: sc.Docs}
	var prog []framework.Progress
	res, err := s.Fit(context.Background(), m, rand.New(rand.NewPCG(3, 4)), func(p framework.Progress) error {
		prog = append(prog, p)
		return nil
	})
	if err != nil {
		t.Fatalf("Fit: %v", err)
	}
	n := len(m.steps)
	if sc.Updates > 0 && n != sc.Updates {
		t.Errorf("%d updates, want %d", n, sc.Updates)
	}
	if len(m.batches) != n || len(m.elbos) != n {
		t.Errorf("%d E-steps, %d updates, %d bounds", len(m.batches), n, len(m.elbos))
	}
	if res == nil || res.Iters != n {
		t.Errorf("Result %+v after %d updates", res, n)
	}
	visits := make([]int, sc.Docs)
	for i, st := range m.steps {
		it := i + 1
		B := len(m.batches[i])
		if st.Iter != it {
			t.Errorf("update %d: Step.Iter = %d", it, st.Iter)
		}
		want := 1.0
		if sc.Rho != nil {
			want = sc.Rho(it)
		}
		if !(st.Rho > 0 && st.Rho <= 1) || !near(st.Rho, want, 1e-12, 0) {
			t.Errorf("update %d: ρ = %.15g, want %.15g", it, st.Rho, want)
		}
		if wantS := float64(sc.Docs) / float64(B); st.Scale != wantS {
			t.Errorf("update %d on %d of %d documents: S = %v, want D/|B| = %v", it, B, sc.Docs, st.Scale, wantS)
		}
		if st.Full != (B == sc.Docs) {
			t.Errorf("update %d on %d of %d documents: Full = %v", it, B, sc.Docs, st.Full)
		}
		for _, d := range m.batches[i] {
			visits[d]++
		}
		// At the end of every pass each document has been visited equally often.
		done := 0
		for _, b := range m.batches[:it] {
			done += len(b)
		}
		if st.EpochEnd != (done%sc.Docs == 0) {
			t.Errorf("update %d, after %d document visits of %d documents: EpochEnd = %v, want it exactly at the end of a pass", it, done, sc.Docs, st.EpochEnd)
		}
		if done%sc.Docs == 0 {
			for d, v := range visits {
				if v != done/sc.Docs {
					t.Errorf("after %d passes document %d was visited %d times", done/sc.Docs, d, v)
					break
				}
			}
		}
	}
	if len(prog) != n {
		t.Errorf("%d Progress reports for %d updates", len(prog), n)
	}
	for i := range min(len(prog), n) {
		p, st := prog[i], m.steps[i]
		if p.Iter != st.Iter || p.Rho != st.Rho || p.Docs != len(m.batches[i]) || p.ELBO != m.elbos[i] || math.IsNaN(p.ELBO) {
			t.Errorf("Progress %d = {Iter %d, Rho %v, Docs %d, ELBO %v}; the update was {Iter %d, Rho %v, %d documents, ELBO %v}", i+1, p.Iter, p.Rho, p.Docs, p.ELBO, st.Iter, st.Rho, len(m.batches[i]), m.elbos[i])
		}
	}
	return m.batches
}
