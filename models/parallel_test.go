package models

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/topics"
)

// countedSoftmax records what the model tells it through framework.Parallel.
type countedSoftmax struct {
	*softmax.Softmax
	got []int
}

func (c *countedSoftmax) SetWorkers(n int) {
	c.got = append(c.got, n)
	c.Softmax.SetWorkers(n)
}

// The model passes its number of workers to a component whose update is
// parallel (framework.Parallel), at construction and on SetWorkers, so that
// workers = 1 means one core in the M-step too.
func TestModelSetsComponentWorkers(t *testing.T) {
	t.Parallel()
	l, err := topics.New(topics.Defaults(), 10)
	if err != nil {
		t.Fatal(err)
	}
	r, err := softmax.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	resp := &countedSoftmax{Softmax: r.(*softmax.Softmax)}
	noise, err := confusion.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var _ framework.Parallel = resp
	m, err := NewModel(l, resp, noise, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.SetWorkers(3)
	if len(resp.got) != 2 || resp.got[0] != 1 || resp.got[1] != 3 {
		t.Errorf("SetWorkers calls %v, want [1 3]", resp.got)
	}
}

// The exact E-step keeps its workers' sums from one pass to the next and
// merges and rounds them on the workers (ExactSums.MergeRound): on a
// vocabulary large enough for that to run on several goroutines (K·V =
// 160,000 numbers), E-steps of every document and of parts of the corpus,
// with updates between them and a change of the number of workers, give
// the same bits for 1, 2 and 3 workers.
func TestExactPassLargeAcrossWorkers(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 27, 120, 40000, 4)
	all := make([]int, len(c.Docs))
	for i := range all {
		all[i] = i
	}
	ctx := context.Background()
	run := func(workers int) (elbos, zeta []float64) {
		m := newLDA(t, c, 4, 3, workers)
		for it, docs := range [][]int{all, all[:50], all, all[70:], all} {
			if it == 3 {
				m.SetWorkers(workers + 1)
			}
			s, err := m.EStep(ctx, docs)
			if err != nil {
				t.Fatal(err)
			}
			st := framework.BatchStep(it + 1)
			if err := m.Update(ctx, s, st); err != nil {
				t.Fatal(err)
			}
			elbos = append(elbos, m.ELBO(s, st))
		}
		return elbos, append([]float64(nil), m.Topics.Zeta...)
	}
	e1, z1 := run(1)
	for _, w := range []int{2, 3} {
		ew, zw := run(w)
		if !cmp.Equal(e1, ew) {
			t.Errorf("%d workers: bounds %v, 1 worker %v", w, ew, e1)
		}
		if !cmp.Equal(z1, zw) {
			t.Errorf("%d workers: ζ differs from 1 worker's", w)
		}
	}
}

// The exact E-step keeps at most one buffer per worker: lowering the
// number of workers releases the others at the next pass, and Run.Fit
// releases them all.
func TestExactBuffersPerWorker(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 28, 200, 60, 3)
	all := make([]int, len(c.Docs))
	for i := range all {
		all[i] = i
	}
	m := newLDA(t, c, 3, 1, 4)
	if _, err := m.EStep(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	if n := len(m.exactBufs); n < 1 || n > 4 {
		t.Fatalf("4 workers: %d buffers kept", n)
	}
	m.SetWorkers(1)
	if _, err := m.EStep(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	if n := len(m.exactBufs); n != 1 {
		t.Errorf("1 worker: %d buffers kept, want 1", n)
	}
	cfg := mustConfig(t, "topics {\nk = 3\n}\ninference \"batch\" {\nmax_iters = 2\n}")
	cfg.Workers = 2
	r, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Model.exactBufs); n != 0 {
		t.Errorf("after Fit: %d buffers kept, want 0", n)
	}
}
