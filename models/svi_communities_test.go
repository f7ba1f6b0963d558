package models_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// TestSVICommunitiesOnceAnEpoch: MA-sLDAc with communities of annotators
// under SVI with mini-batches (45 of 200 documents: 5 updates an epoch,
// the last of 20), end to end through the schedule. The memberships the
// confusion annotators report hold within an epoch and change at the
// update that ends it (optim.SVI's Step.EpochEnd reaching
// confusion.Model.updateMini: docs/design.md, "Communities of
// annotators"); one and two E-step workers give the same bits.
func TestSVICommunitiesOnceAnEpoch(t *testing.T) {
	t.Parallel()
	acc := []float64{0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4, 0.35, 0.3, 0.3, 0.25}
	cd := plantedCrowd(t, 5, 200, 300, 4, 3, 2, acc)
	type point struct {
		iter  int
		elbo  float64
		comms []float64
	}
	run := func(workers int) []point {
		src := fmt.Sprintf("seed = 1\nworkers = %d\nrestarts = 1\ntopics {\n  k = 4\n}\nresponse \"softmax\" {}\n"+
			"annotators \"confusion\" {\n  prior = \"communities\"\n}\n"+
			"inference \"svi\" {\n  batch_size = 45\n  epochs = 3\n  tol = 0\n}\n", workers)
		cfg, err := models.ParseConfig([]byte(src), "svi.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, cd.train)
		if err != nil {
			t.Fatal(err)
		}
		comms := func() []float64 {
			m := r.Model.Noise.(*confusion.Model)
			return slices.Concat(slices.Concat(m.Memberships()...), m.CommunityWeights())
		}
		var tr []point
		prev := comms()
		if _, err := r.Fit(t.Context(), func(p framework.Progress) error {
			if p.Restart != 0 {
				return nil
			}
			c := comms()
			end := p.Iter%5 == 0
			if moved := !slices.Equal(c, prev); moved != end {
				t.Errorf("workers %d, update %d (epoch %d): the communities moved: %v; want them to move exactly at an epoch's last update", workers, p.Iter, p.Epoch, moved)
			}
			prev = c
			tr = append(tr, point{p.Iter, p.ELBO, c})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(tr) != 15 {
			t.Fatalf("workers %d: %d updates, want 15", workers, len(tr))
		}
		return tr
	}
	one, two := run(1), run(2)
	for i := range one {
		if one[i].elbo != two[i].elbo || !slices.Equal(one[i].comms, two[i].comms) {
			t.Fatalf("update %d: one worker and two differ (bound %.15g and %.15g)", one[i].iter, one[i].elbo, two[i].elbo)
		}
	}
}
