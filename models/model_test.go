package models

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

func plantedCorpus(t testing.TB, seed uint64, d, v, k int) (*framework.Corpus, *synth.Planted) {
	t.Helper()
	c, pl, err := synth.LDA(synth.LDASpec{D: d, V: v, K: k, DocLen: 80, Alpha: 0.2, TopicConc: 0.05}, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return c, pl
}

func newLDA(t testing.TB, c *framework.Corpus, k int, seed uint64, workers int) *Model {
	t.Helper()
	cfg := topics.Defaults()
	cfg.K = k
	cfg.Alpha = 0.2
	cfg.Tau = 0.05
	l, err := topics.New(cfg, c.V)
	if err != nil {
		t.Fatal(err)
	}
	l.Init(c, rand.New(rand.NewPCG(seed, 2)))
	m, err := NewModel(l, nil, nil, c, workers)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// matchTV returns, for the best one-to-one matching of estimated to planted
// topics, the largest total-variation distance among matched pairs.
func matchTV(est, planted [][]float64) float64 {
	K := len(planted)
	tv := make([][]float64, K)
	for i := range tv {
		tv[i] = make([]float64, K)
		for j := range tv[i] {
			s := 0.0
			for v := range planted[j] {
				s += math.Abs(est[i][v] - planted[j][v])
			}
			tv[i][j] = s / 2
		}
	}
	best := math.Inf(1)
	perm := make([]int, K)
	used := make([]bool, K)
	var rec func(i int, worst float64)
	rec = func(i int, worst float64) {
		if worst >= best {
			return
		}
		if i == K {
			best = worst
			return
		}
		for j := 0; j < K; j++ {
			if !used[j] {
				used[j] = true
				perm[i] = j
				rec(i+1, math.Max(worst, tv[i][j]))
				used[j] = false
			}
		}
	}
	rec(0, 0)
	return best
}

func TestPlantedRecoveryBatch(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	c, pl := plantedCorpus(t, 1, 600, 300, 5)
	m := newLDA(t, c, 5, 3, 2)
	var elbos []float64
	b := optim.DefaultBatch()
	b.MaxIters = 60
	b.Tol = 1e-7
	res, err := b.Fit(context.Background(), m, nil, func(p framework.Progress) error {
		elbos = append(elbos, p.ELBO)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(elbos); i++ {
		if elbos[i] < elbos[i-1]-1e-9*math.Abs(elbos[i-1]) {
			t.Errorf("ELBO decreased at iteration %d: %v -> %v", i+1, elbos[i-1], elbos[i])
		}
	}
	tv := matchTV(m.Topics.Beta(), pl.Beta)
	t.Logf("iters %d ELBO %.6g worst matched TV %.3f", res.Iters, res.ELBO, tv)
	if tv > 0.15 {
		t.Errorf("worst matched topic TV distance %.3f > 0.15", tv)
	}
}

func TestPlantedRecoverySVI(t *testing.T) {
	t.Parallel()
	c, pl := plantedCorpus(t, 1, 600, 300, 5)
	m := newLDA(t, c, 5, 3, 2)
	s := optim.DefaultSVI()
	s.BatchSize = 100
	s.Epochs = 30
	s.Tol = 0
	res, err := s.Fit(context.Background(), m, rand.New(rand.NewPCG(9, 9)), nil)
	if err != nil {
		t.Fatal(err)
	}
	tv := matchTV(m.Topics.Beta(), pl.Beta)
	t.Logf("updates %d ELBO %.6g worst matched TV %.3f", res.Iters, res.ELBO, tv)
	if tv > 0.15 {
		t.Errorf("worst matched topic TV distance %.3f > 0.15", tv)
	}
}
