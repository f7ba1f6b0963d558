package models

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework/synth"
)

// TestWarmStateNormalisers: when local_init = "best" goes on from the warm
// sweep's saved state (the fresh restart lost), the document's cached
// normalisers (framework.PhiLogs) come back with that state's φ, so the
// topic layer's DocELBO from them equals DocELBO with a logarithm per word
// and topic, and such a document never ends without them (a converged
// warm state is not swept again). The test checks every document of one
// more E-step after a fit, and that some of them took that path.
func TestWarmStateNormalisers(t *testing.T) {
	t.Parallel()
	cr := localStepCrowd(t, "warm-logs")
	cfg := mustConfig(t, "model = \"ma-sldac\"\nseed = 1\nworkers = 1\nconsensus = 1\nrestarts = 1\ntopics {\n k = 12\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n")
	r, err := Build(cfg, nil, cr.Train)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	m := r.Model
	w := m.newWorker(true, m.maxLen)
	ans := m.answers()
	worst := 0.0
	for i := range m.corpus.Docs {
		before := w.kept
		m.trainingStep(w, i, ans[i])
		if !w.ds.Logs.Valid {
			if w.kept > before {
				t.Fatalf("document %d went on from the warm sweep's state and ended without its normalisers (DocELBO then takes K logarithms a word)", i)
			}
			continue
		}
		got := m.Topics.DocELBO(w.ds)
		w.ds.PhiChanged()
		want := m.Topics.DocELBO(w.ds)
		if d := math.Abs(got-want) / (1 + math.Abs(want)); d > worst {
			worst = d
		}
		if !(math.Abs(got-want) <= 1e-9*(1+math.Abs(want))) {
			t.Fatalf("document %d: DocELBO from the cached normalisers %v, with logarithms %v", i, got, want)
		}
	}
	if w.kept == 0 {
		t.Fatalf("no local step went on from the warm sweep's state: the test does not exercise it")
	}
	t.Logf("worst relative difference %.3g", worst)
	t.Logf("%d of %d local steps went on from the warm sweep's state", w.kept, len(m.corpus.Docs))
}

// localStepCrowd is the planted crowd of the local step's internal tests
// (TestWarmStateNormalisers, TestFreshEvery): 150 documents of 80 words,
// K 6, C 3, one answer a document from the paper's five annotators.
func localStepCrowd(t *testing.T, name string) *synth.Crowd {
	t.Helper()
	spec := synth.CrowdSpec{Name: name, D: 150, V: 300, K: 6, C: 3, DocLen: 80, Alpha: 0.5, TopicConc: 0.05, EtaScale: 4,
		Labels: synth.LabelsSampled, Wrong: synth.WrongAsymmetric, WrongConc: 1, Accuracies: synth.PaperAccuracies, PerDoc: 1}
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	return cr
}
