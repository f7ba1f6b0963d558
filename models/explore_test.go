package models

import (
	"context"
	"github.com/maslda/maslda/framework"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// TestExploreInit compares the local and global initialisations on a planted
// corpus (docs/design.md, "Initialisation"). It only reports; run it with
// MASLDA_EXPLORE=1 go test ./models -run ExploreInit -v
func TestExploreInit(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	c, pl := plantedCorpus(t, 1, 600, 300, 5)
	for _, li := range []string{"best", "fresh", "warm"} {
		for _, init := range []string{"seeded", "random"} {
			for seed := uint64(1); seed <= 6; seed++ {
				cfg := topics.Defaults()
				cfg.K, cfg.Alpha, cfg.Tau, cfg.Init, cfg.LocalInit = 5, 0.2, 0.05, init, li
				l, _ := topics.New(cfg, c.V)
				l.Init(c, rand.New(rand.NewPCG(seed, 2)))
				m, _ := NewModel(l, nil, nil, c, 2)
				b := optim.DefaultBatch()
				b.MaxIters = 200
				b.Tol = 1e-7
				dec := 0
				prev := math.Inf(-1)
				res, _ := b.Fit(context.Background(), m, nil, func(p framework.Progress) error {
					if p.ELBO < prev {
						dec++
					}
					prev = p.ELBO
					return nil
				})
				t.Logf("%s dec %d %s seed %d iters %d ELBO %.6g TV %.3f", li, dec, init, seed, res.Iters, res.ELBO, matchTV(m.Topics.Beta(), pl.Beta))
			}
		}
	}
}
