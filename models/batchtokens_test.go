package models

import (
	"errors"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// TestBatchTokens checks that Build sizes SVI's mini-batches from the
// corpus's tokens (inference "svi" { batch_tokens }): 10 documents of 4
// tokens (N = 40) and batch_tokens = 8 make mini-batches of round(8·10/40)
// = 2 documents, 5 updates an epoch; a run built without its documents
// refuses batch_tokens.
func TestBatchTokens(t *testing.T) {
	t.Parallel()
	c := &framework.Corpus{V: 3}
	for range 10 {
		c.Docs = append(c.Docs, framework.Doc{Words: []int32{0, 2}, Counts: []float64{1, 3}, N: 4})
	}
	cfg := mustConfig(t, "seed = 1\ntopics {\n  k = 2\n  init = \"random\"\n}\ninference \"svi\" {\n  batch_size = 7\n  batch_tokens = 8\n}\n")
	r, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Schedule.(*optim.SVI)
	if s.BatchSize != 2 || s.UpdatesPerEpoch(10) != 5 {
		t.Errorf("batch_size %d, %d updates an epoch; want 2 and 5", s.BatchSize, s.UpdatesPerEpoch(10))
	}
	docs := 0
	if _, err := r.Fit(t.Context(), func(p framework.Progress) error {
		if p.Epoch == 1 {
			if p.Docs != 2 {
				t.Errorf("update %d: %d documents, want 2", p.Iter, p.Docs)
			}
			docs += p.Docs
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if docs != 10 {
		t.Errorf("epoch 1 visited %d documents, want 10", docs)
	}
	_, err = BuildGlobals(cfg, nil, CorpusInfo{Docs: 10, V: 3})
	if !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "batch_tokens") {
		t.Errorf("BuildGlobals = %v, want a refusal of batch_tokens", err)
	}
}
