package models

import (
	"context"
	"fmt"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

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

// TestExploreRestarts measures restarts on the demo's corpus (docs/design.md,
// "Initialisation"): MASLDA_EXPLORE=1 go test ./models -run ExploreRestarts -v
func TestExploreRestarts(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	c, pl, _ := synth.LDA(synth.LDASpec{D: 2000, V: 1000, K: 10, DocLen: 120, Alpha: 0.1, TopicConc: 0.05}, rand.New(rand.NewPCG(7, 1)))
	for _, restarts := range []int{1, 4, 8} {
		for seed := uint64(1); seed <= 5; seed++ {
			cfg, _ := ParseConfig(fmt.Appendf(nil, "seed = %d\nrestarts = %d\ntopics {\nk = 10\nalpha = 0.1\ntau = 0.05\n}\n", seed, restarts), "x.hcl")
			r, _ := Build(cfg, nil, c)
			start := time.Now()
			res, err := r.Fit(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("restarts %d seed %d iters %3d ELBO %.7g worstTV %.3f  %.1fs  candidates %.7g", restarts, seed, res.Iters, res.ELBO, matchTV(r.Model.Topics.Beta(), pl.Beta), time.Since(start).Seconds(), r.RestartELBOs)
		}
	}
}
