package models

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestFreshExactUnsettled: with topics.fresh_exact = "unsettled" (the
// ma-sldac preset's) batch EM of MA-sLDAc never lowers its bound within a
// stage and gives the same bounds with one and two workers, and they
// differ from "always"'s (the option does something). In one more E-step
// of the trained model some fresh restarts are confirmed by their cheap
// half, and on every document whose cheap half ends at the warm sweep's γ
// the full fresh restart, run as "always" runs it, ends there too: the
// exact sweeps skipped would have found nothing else. Those are the
// restarts the shipped local step confirmed, and it ends where the warm
// sweep continued does, bit for bit.
func TestFreshExactUnsettled(t *testing.T) {
	t.Parallel()
	cr := localStepCrowd(t, "fresh-exact")
	fit := func(exact string, workers int) (*Run, []float64) {
		src := fmt.Sprintf("seed = 2\nworkers = %d\nconsensus = 1\nrestarts = 1\ntopics {\n k = 8\n fresh_exact = %q\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 12\n tol = 0\n}\n", workers, exact)
		r, err := Build(mustConfig(t, src), nil, cr.Train)
		if err != nil {
			t.Fatal(err)
		}
		var trace []float64
		prev, stage := math.Inf(-1), -1
		if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
			if p.Stage != stage {
				stage, prev = p.Stage, math.Inf(-1)
			}
			if p.ELBO < prev-1e-9*math.Abs(prev) {
				t.Errorf("%s, workers %d: iteration %d (stage %d): bound %.12g after %.12g", exact, workers, p.Iter, p.Stage, p.ELBO, prev)
			}
			prev = p.ELBO
			trace = append(trace, p.ELBO)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return r, trace
	}
	run, one := fit("unsettled", 1)
	if _, two := fit("unsettled", 2); fmt.Sprint(one) != fmt.Sprint(two) {
		t.Errorf("one worker's bounds %v, two workers' %v", one, two)
	}
	if _, always := fit("always", 1); fmt.Sprint(one) == fmt.Sprint(always) {
		t.Errorf("fresh_exact = \"unsettled\" gives \"always\"'s bounds %v: no fresh restart was confirmed", one)
	}

	// One more E-step by hand: each document's shipped local step (its
	// γ, and whether it confirmed the fresh restart), then the fresh
	// restart in two halves, then, where confirmed, the warm sweep
	// continued by hand, which must be the shipped local step's state.
	m := run.Model
	ans := m.answers()
	w := m.newWorker(true, m.maxLen)
	K := m.Topics.K
	confirmed, cheap, missed := 0, 0, 0
	for i := range m.corpus.Docs {
		doc := &m.corpus.Docs[i]
		warm := m.gamma[i*K : (i+1)*K]
		before := w.confirmed
		m.trainingStep(w, i, ans[i])
		shipped := append([]float64(nil), w.ds.Gamma...)
		isConfirmed := w.confirmed > before
		if isConfirmed {
			confirmed++
		}

		w.ds.Bind(i, doc, ans[i])
		change, restored := m.sweepOnce(w, warm)
		if !restored {
			continue
		}
		gw := append([]float64(nil), w.ds.Gamma...)
		w.phiW = append(w.phiW[:0], w.ds.Phi...)
		w.logsW.CopyFrom(&w.ds.Logs)
		m.firstPhi(w, nil)
		atWarm := settledAt(w.ds.Gamma, gw, doc.N)
		if atWarm != isConfirmed {
			t.Errorf("document %d: cheap half at the warm sweep's γ %v, confirmed by the shipped local step %v", i, atWarm, isConfirmed)
		}
		if !atWarm {
			continue
		}
		cheap++
		m.resumeWarm(w, gw, change)
		if fmt.Sprint(w.ds.Gamma) != fmt.Sprint(shipped) {
			t.Errorf("document %d: the shipped local step ends at γ %v, the warm sweep continued at %v", i, shipped, w.ds.Gamma)
		}
		w.ds.Bind(i, doc, ans[i])
		m.sweepOnce(w, warm)
		m.firstPhi(w, nil)
		m.inferFrom(w, 1, math.Inf(1))
		if !settledAt(w.ds.Gamma, gw, doc.N) {
			missed++
			t.Errorf("document %d: the fresh restart's cheap half ends at the warm sweep's γ, its exact sweeps at %v, away from %v", i, w.ds.Gamma, gw)
		}
	}
	if confirmed == 0 {
		t.Fatalf("no fresh restart of %d confirmed by its cheap half", len(m.corpus.Docs))
	}
	t.Logf("%d of %d fresh restarts confirmed; %d of their cheap halves' exact sweeps left the warm sweep's γ", confirmed, len(m.corpus.Docs), missed)
}

// TestFreshExactMiniBatches: a mini-batch's E-step never skips a fresh
// restart's exact half, even under local_init = "best": SVI at 0 < ρ < 1
// with S = D/|B| ≠ 1 gives the same bounds and topics bit for bit with
// fresh_exact "unsettled" as with "always".
func TestFreshExactMiniBatches(t *testing.T) {
	t.Parallel()
	cr := localStepCrowd(t, "fresh-exact-svi")
	fit := func(exact string) ([]float64, []float64) {
		src := fmt.Sprintf("seed = 3\nworkers = 2\ntopics {\n k = 6\n local_init = \"best\"\n fresh_exact = %q\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n start_updates = 4\n}\ninference \"svi\" {\n batch_size = 40\n epochs = 4\n tol = 0\n}\n", exact)
		r, err := Build(mustConfig(t, src), nil, cr.Train)
		if err != nil {
			t.Fatal(err)
		}
		var trace []float64
		if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
			if p.Rho >= 1 {
				t.Fatalf("update %d: ρ = %v, want mini-batch steps with ρ < 1", p.Iter, p.Rho)
			}
			trace = append(trace, p.ELBO)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return trace, append([]float64(nil), r.Model.Topics.Zeta...)
	}
	ea, za := fit("always")
	eu, zu := fit("unsettled")
	if fmt.Sprint(ea) != fmt.Sprint(eu) {
		t.Errorf("SVI bounds with fresh_exact \"unsettled\" %v, with \"always\" %v", eu, ea)
	}
	if fmt.Sprint(za) != fmt.Sprint(zu) {
		t.Error("SVI topics with fresh_exact \"unsettled\" differ from \"always\"'s")
	}
	if len(ea) < 8 {
		t.Errorf("%d SVI updates, want at least 8", len(ea))
	}
}
