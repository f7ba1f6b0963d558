package models

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestFreshEvery: with topics.fresh_every = 3 a batch fit of MA-sLDAc and
// of plain LDA never lowers its bound within a stage; one and two workers
// give the same bounds bit for bit; documents get settled; and in one more
// E-step exactly the settled documents off their turn ((t + d) mod 3 ≠ 0)
// skip the fresh restart, and the bound of that E-step's statistics is at
// least the last one's. With fresh_every = 1 nothing is settled.
func TestFreshEvery(t *testing.T) {
	t.Parallel()
	cr := localStepCrowd(t, "fresh-every")
	lda := &framework.Corpus{Docs: cr.Train.Docs, V: cr.Train.V}
	for _, tc := range []struct {
		name, blocks string
		c            *framework.Corpus
		every        int
	}{
		{"MA-sLDAc", "response \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 3\n}\n", cr.Train, 3},
		{"LDA", "", lda, 3},
		{"MA-sLDAc, every E-step", "response \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 3\n}\n", cr.Train, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var traces [2][]float64
			var run *Run
			for wi, workers := range []int{1, 2} {
				src := fmt.Sprintf("seed = 2\nworkers = %d\nconsensus = 1\nrestarts = 1\ntopics {\n k = 8\n fresh_every = %d\n}\n%sinference \"batch\" {\n max_iters = 12\n tol = 0\n}\n", workers, tc.every, tc.blocks)
				r, err := Build(mustConfig(t, src), nil, tc.c)
				if err != nil {
					t.Fatal(err)
				}
				prev, stage := math.Inf(-1), -1
				if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
					if p.Stage != stage {
						stage, prev = p.Stage, math.Inf(-1)
					}
					if p.ELBO < prev-1e-9*math.Abs(prev) {
						t.Errorf("workers %d: iteration %d (stage %d): bound %.12g after %.12g", workers, p.Iter, p.Stage, p.ELBO, prev)
					}
					prev = p.ELBO
					traces[wi] = append(traces[wi], p.ELBO)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				run = r
			}
			if fmt.Sprint(traces[0]) != fmt.Sprint(traces[1]) {
				t.Errorf("one worker's bounds %v, two workers' %v", traces[0], traces[1])
			}
			m := run.Model
			settled := 0
			for _, s := range m.settled {
				if s {
					settled++
				}
			}
			if tc.every == 1 {
				if m.settled != nil || m.estep != 0 {
					t.Fatalf("fresh_every = 1: %d E-steps counted, settled marks %v", m.estep, m.settled != nil)
				}
				return
			}
			if settled == 0 {
				t.Fatalf("no document settled after %d E-steps", m.estep)
			}
			// One more E-step by hand, as EStep runs it.
			m.estep++
			m.thinning = true
			defer func() { m.thinning = false }()
			want := 0
			for i, s := range m.settled {
				if s && (m.estep+i)%tc.every != 0 {
					want++
				}
			}
			w := m.newWorker(true, m.maxLen)
			ans := m.answers()
			for i := range m.corpus.Docs {
				var a []framework.Answer
				if ans != nil {
					a = ans[i]
				}
				m.trainingStep(w, i, a)
			}
			if w.thinned != want || want == 0 {
				t.Errorf("%d local steps skipped the fresh restart, want %d (the settled documents off their turn, of %d settled)", w.thinned, want, settled)
			}
			t.Logf("%d of %d documents settled after %d E-steps; %d skipped the fresh restart in the next", settled, len(m.settled), m.estep-1, w.thinned)
		})
	}
}

// TestSettledAt: a fresh restart settles its document when it ends within
// 1% of the document's tokens (Σ_k |Δγ_k|, at least 0.01) of the warm
// sweep's γ.
func TestSettledAt(t *testing.T) {
	for _, tc := range []struct {
		gamma, gw []float64
		n         float64
		want      bool
	}{
		{[]float64{50, 50}, []float64{50, 50}, 100, true},
		{[]float64{50.4, 49.6}, []float64{50, 50}, 100, true},  // 0.8 < 1
		{[]float64{50.6, 49.4}, []float64{50, 50}, 100, false}, // 1.2 ≥ 1
		{[]float64{1.004, 0.1}, []float64{1, 0.1}, 1, true},    // 0.004 < 0.01
		{[]float64{1.02, 0.1}, []float64{1, 0.1}, 0.5, false},  // 0.02 ≥ 0.01 (n below 1)
		{[]float64{90, 10}, []float64{10, 90}, 100, false},     // the other optimum
	} {
		if got := settledAt(tc.gamma, tc.gw, tc.n); got != tc.want {
			t.Errorf("settledAt(%v, %v, %v) = %v, want %v", tc.gamma, tc.gw, tc.n, got, tc.want)
		}
	}
}

// TestSettledCleared: a change of phase (the restarts' plain LDA to the
// joint model, SetPhase) and restartTopics forget the settled marks, which
// were earned under another local step.
func TestSettledCleared(t *testing.T) {
	train, _, _ := smallCrowd(t)
	r, err := Build(mustConfig(t, "restarts = 1\nconsensus = 1\ntopics {\n k = 2\n fresh_every = 2\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n"), nil, train)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	for name, change := range map[string]func(){
		"setRestartPhase": func() { m.setRestartPhase(true); m.setRestartPhase(false) },
		"SetPhase":        func() { _ = m.SetPhase(framework.PhaseJoint) },
		"restartTopics":   func() { _ = m.restartTopics(append([]float64(nil), m.Topics.Zeta...)) },
	} {
		m.settled = make([]bool, m.NumDocs())
		for i := range m.settled {
			m.settled[i] = true
		}
		change()
		for i, s := range m.settled {
			if s {
				t.Fatalf("%s: document %d still settled", name, i)
			}
		}
	}
}
