package models

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"iter"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// topics.fresh_start = "lda": batch EM stays monotone within each stage
// (local_init "best" keeps the warm sweep when the restart loses), the
// trace does not depend on the number of workers, and a fresh local step
// ends at a fixed point of the supervised sweeps (one more sweep moves γ
// by less than local_tol), not at plain LDA's, for both softmax bounds.
func TestFreshStartLDA(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	race.SkipLong(t)
	for _, bound := range []string{"product", "quadratic"} {
		t.Run(bound, func(t *testing.T) {
			src := strings.Replace(evalCrowd, "topics {", "topics {\n  fresh_start = \"lda\"", 1)
			src = strings.Replace(src, `response "softmax" {}`, `response "softmax" { bound = "`+bound+`" }`, 1) +
				"inference \"batch\" {\n max_iters = 12\n min_iters = 12\n}\n"
			trace := func(workers int) (*Run, []framework.Progress) {
				cfg := mustConfig(t, src)
				cfg.Workers = workers
				r, err := Build(cfg, nil, crowdTrain(t))
				if err != nil {
					t.Fatal(err)
				}
				var tr []framework.Progress
				if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
					if p.Restart > 0 || p.Fit > 0 { // the restarts' candidates (plain LDA), the other seeds' fits (consensus)
						return nil
					}
					p.Elapsed = 0
					tr = append(tr, p)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				return r, tr
			}
			r, tr := trace(2)
			for i := 1; i < len(tr); i++ {
				a, b := tr[i-1], tr[i]
				if a.Stage == b.Stage && b.ELBO < a.ELBO-1e-8*math.Abs(a.ELBO) {
					t.Errorf("iteration %d: the bound fell from %.12g to %.12g", i+1, a.ELBO, b.ELBO)
				}
			}
			if _, one := trace(1); !slices.Equal(one, tr) {
				t.Errorf("the trace with 1 worker differs from that with 2")
			}
			m := r.Model
			w := m.newWorker(false, m.maxLen)
			worst := 0.0
			for range boundDocs(m, w) {
				m.infer(w, nil)
				m.updateTarget(w)
				worst = math.Max(worst, m.Topics.SweepWeighted(w.ds, w.local, m.weight, w.scr))
			}
			t.Logf("largest mean |Δγ| of one more supervised sweep after a fresh local step: %.3g (local_tol %g)", worst, m.Topics.LocalTol)
			if worst >= m.Topics.LocalTol {
				t.Errorf("one more supervised sweep after a fresh local step moves γ by %.3g (mean |Δγ|), want < local_tol %g: the local step did not end at a fixed point of the supervised sweeps", worst, m.Topics.LocalTol)
			}
		})
	}
}

// The fresh start's sweeps with the response's per-document term
// (framework.PhiDocTerm: both softmax bounds, the Gaussian) leave fewer exact supervised
// sweeps to run than plain LDA's sweeps alone: counted over every
// document of a trained model, to the same convergence test.
func TestFreshStartDocTerm(t *testing.T) {
	for _, bound := range []string{"product", "quadratic", "gaussian"} {
		src := strings.Replace(evalCrowd, `response "softmax" {}`, `response "softmax" { bound = "`+bound+`" }`, 1)
		corpus := crowdTrain(t)
		if bound == "gaussian" { // MA-sLDAr
			src = twoStageTopics + "response \"gaussian\" {}\nannotators \"bias-precision\" {}\n"
			corpus = smallRegCorpus(t)
		}
		src += "inference \"batch\" {\n max_iters = 8\n min_iters = 8\n}\n"
		m := fittedModel(t, src, corpus)
		w := m.newWorker(false, m.maxLen)
		if _, ok := w.local.(framework.PhiDocTerm); !ok {
			t.Fatalf("%s: the response's local step has no DocTerm", bound)
		}
		exact := func(off bool) (sweeps, docs int) {
			defer func(v bool) { docTermOff = v }(docTermOff)
			docTermOff = off
			for range boundDocs(m, w) {
				m.firstPhi(w, nil)
				for it := 1; it <= m.Topics.LocalIters; it++ {
					m.updateTarget(w)
					sweeps++
					if m.Topics.SweepWeighted(w.ds, w.local, m.weight, w.scr) < m.Topics.LocalTol {
						break
					}
				}
				docs++
			}
			return sweeps, docs
		}
		with, docs := exact(false)
		without, _ := exact(true)
		t.Logf("%s bound: exact supervised sweeps per document after the fresh start: %.2f with the per-document term, %.2f without", bound, float64(with)/float64(docs), float64(without)/float64(docs))
		if with >= without {
			t.Errorf("%s bound: %d exact sweeps with the per-document term, %d without: the term does not bring the start nearer", bound, with, without)
		}
	}
}

// The unsupervised first half of a supervised fresh start is plain LDA's
// fresh local step (topics.Layer.Infer from scratch), bit for bit, under
// both fresh_accel settings: the supervised model's fresh restarts are
// accelerated as plain LDA's are.
func TestFreshStartAccel(t *testing.T) {
	defer func(v bool) { docTermOff = v }(docTermOff)
	docTermOff = true
	for _, accel := range []string{"squarem", "none"} {
		src := strings.Replace(evalCrowd, "topics {", "topics {\n  fresh_accel = \""+accel+"\"", 1) +
			"inference \"batch\" {\n max_iters = 3\n min_iters = 3\n}\n"
		m := fittedModel(t, src, crowdTrain(t))
		w := m.newWorker(false, m.maxLen)
		for i := range boundDocs(m, w) {
			m.firstPhi(w, nil)
			got := slices.Clone(w.ds.Gamma)
			m.Topics.Infer(w.ds, nil, w.scr)
			if !slices.Equal(got, w.ds.Gamma) {
				t.Errorf("%s, doc %d: the fresh start's plain half ends at γ %v, plain LDA's fresh local step at %v", accel, i, got, w.ds.Gamma)
				break
			}
		}
	}
}

// boundDocs binds each training document with words, in order, to w's
// state (its answers with it) and yields its index.
func boundDocs(m *Model, w *worker) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range m.corpus.Docs {
			doc := &m.corpus.Docs[i]
			if doc.Len() == 0 {
				continue
			}
			w.ds.Bind(i, doc, m.answers()[i])
			if !yield(i) {
				return
			}
		}
	}
}

// fittedModel builds the run of src on corpus, fits it and returns its
// model.
func fittedModel(t *testing.T, src string, corpus *framework.Corpus) *Model {
	t.Helper()
	r, err := Build(mustConfig(t, src), nil, corpus)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return r.Model
}
