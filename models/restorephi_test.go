package models

import (
	"context"
	"math"
	"testing"
)

// TestRestoredPhiGamma: a warm start that restores a document's stored φ
// (phiWarm) sets γ = α + Σ_v n_dv φ_dv from it, which is the γ the
// previous E-step ended with (up to the store's float32 rounding) — with
// the counts: documents of this corpus repeat words, so γ without them
// (α + Σ_v φ_dv) would be far off.
func TestRestoredPhiGamma(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	cfg := mustConfig(t, "seed = 3\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 2\n tol = 0\n}\n")
	r, err := Build(cfg, nil, train)
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	if !m.phiWarm {
		t.Skip("this configuration does not store φ for warm starts")
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	K := m.Topics.K
	repeated := 0
	for d := range min(20, len(train.Docs)) {
		doc := &train.Docs[d]
		for _, n := range doc.Counts {
			if n > 1 {
				repeated++
			}
		}
		prev := append([]float64(nil), m.gamma[d*K:(d+1)*K]...)
		w := m.newWorker(false, doc.Len())
		w.ds.Bind(d, doc, nil)
		if !m.firstPhi(w, prev) {
			t.Fatalf("document %d: φ not restored", d)
		}
		for k, g := range w.ds.Gamma {
			if math.Abs(g-prev[k]) > 1e-5*prev[k] {
				t.Errorf("document %d: γ_%d = %.8g after restoring φ, the previous E-step's %.8g", d, k, g, prev[k])
			}
		}
	}
	if repeated == 0 {
		t.Fatal("no document repeats a word: γ without the counts would pass")
	}
}
