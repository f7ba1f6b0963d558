package models_test

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/models"
)

// text_l2_folds: the softmax chooses text_l2 by cross-validation at the
// annotators' classifier start (framework.Tuner), the bound is monotone
// within each stage, and the saved model keeps the choice.
func TestTextL2Folds(t *testing.T) {
	t.Parallel()
	cd := plantedCrowd(t, 3, 300, 300, 6, 3, 2, []float64{0.8, 0.6, 0.5, 0.4})
	cfg, err := models.ParseConfig([]byte("restarts = 1\nconsensus = 1\ntopics {\n k = 6\n}\nresponse \"softmax\" {\n text_l2_folds = 5\n}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 200\n}\n"), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, cd.train)
	if err != nil {
		t.Fatal(err)
	}
	var elbos []float64
	var stages []int
	res, err := r.Fit(context.Background(), func(p framework.Progress) error {
		elbos, stages = append(elbos, p.ELBO), append(stages, p.Stage)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d iterations, converged %v, stages %v", res.Iters, res.Converged, stages)
	for i := 1; i < len(elbos); i++ {
		if stages[i] == stages[i-1] && elbos[i] < elbos[i-1]-1e-8*math.Abs(elbos[i-1]) {
			t.Errorf("ELBO decreased within stage %d at iteration %d: %v → %v", stages[i], i+1, elbos[i-1], elbos[i])
		}
	}
	s := r.Model.Response.(*softmax.Softmax)
	tu := s.LastTune()
	t.Logf("text_l2 chosen %v over %d documents; grid %v, losses %v", tu.Chosen, tu.Docs, tu.Grid, tu.Loss)
	if tu.Docs < 250 || !slices.Contains(tu.Grid, tu.Chosen) || s.MuText != tu.Chosen {
		t.Fatalf("Tune: %+v, μ_t %v: want a choice from the grid over the ≥ 250 documents with answers", tu, s.MuText)
	}
	// Text that decides the class (planted η of scale 6, 100-word documents):
	// a weak penalty.
	if tu.Chosen > 1 {
		t.Errorf("chose text_l2 %v, want ≤ 1 on text that decides the class", tu.Chosen)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	saved, err := models.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Model.Response.(*softmax.Softmax).MuText; got != tu.Chosen {
		t.Errorf("loaded text_l2 %v, want the chosen %v", got, tu.Chosen)
	}
}

// The default: text_l2_folds 5 (a choice happens without being asked for),
// 0 turns it off, and the MM step has none.
func TestTextL2FoldsDefault(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	race.SkipLong(t)
	cd := plantedCrowd(t, 3, 200, 300, 6, 3, 2, []float64{0.8, 0.6, 0.5, 0.4})
	for _, c := range []struct {
		block string
		tuned bool
	}{
		{"response \"softmax\" {}\n", true},
		{"response \"softmax\" {\n text_l2_folds = 0\n}\n", false},
		{"response \"softmax\" {\n bound = \"quadratic\"\n mstep = \"mm\"\n}\n", false},
	} {
		cfg, err := models.ParseConfig([]byte("restarts = 1\nconsensus = 1\ntopics {\n k = 6\n}\n"+c.block+"annotators \"confusion\" {\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 300\n}\n"), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, cd.train)
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Fit(context.Background(), nil)
		if err != nil || !res.Converged {
			t.Fatalf("%q: %v, converged %v", c.block, err, res != nil && res.Converged)
		}
		if got := r.Model.Response.(*softmax.Softmax).LastTune().Docs > 0; got != c.tuned {
			t.Errorf("%q: a choice made %v, want %v", c.block, got, c.tuned)
		}
	}
}
