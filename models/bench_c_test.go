package models

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/topics"
)

// crowdBench is benchCorpus with MA-sLDAc's answers: C = 4 classes drawn
// from a planted η on the planted topic proportions, and one answer per
// document from MODEL.md §7's five annotators (the 20 Newsgroups setting).
var crowdBench = sync.OnceValues(func() (*framework.Corpus, error) {
	rng := rand.New(rand.NewPCG(2026, 1))
	c, pl, err := synth.LDA(benchSpec(), rng)
	if err != nil {
		return nil, err
	}
	const C = 4
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(C, benchK, 6, rng), rng)
	pis, err := confusion.FromAccuracies([]float64{0.737, 0.468, 0.284, 0.278, 0.260}, C)
	if err != nil {
		return nil, err
	}
	byDoc, err := confusion.Sample(classes, pis, 1, rng)
	if err != nil {
		return nil, err
	}
	names := []string{"c0", "c1", "c2", "c3"}
	workers := make([]string, len(pis))
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	c.Answers = &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}
	return c, nil
})

// BenchmarkMASLDAcIteration measures one batch EM iteration of MA-sLDAc
// (softmax response, confusion annotators, K = 50, C = 4) against plain LDA
// on the same 20 Newsgroups-sized corpus, with 1 and 2 workers, after one
// untimed warm-up iteration from the same seeded start (the default
// local_init = "best"). tokens/s is the corpus's tokens over the seconds of
// an iteration (E-step + M-step; the ELBO evaluation is excluded); the
// ratio of LDA's to MA-sLDAc's is the per-token cost of the supervision
// (docs/performance.md):
//
//	go test ./models -run '^$' -bench MASLDAcIteration -benchtime 3x -timeout 60m
func BenchmarkMASLDAcIteration(b *testing.B) {
	for _, model := range []string{"lda", "ma-sldac"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("model=%s/workers=%d", model, workers), func(b *testing.B) {
				c, err := crowdBench()
				if err != nil {
					b.Fatal(err)
				}
				cfg := topics.Defaults()
				cfg.K = benchK
				l, err := topics.New(cfg, c.V)
				if err != nil {
					b.Fatal(err)
				}
				rng := NewRand(7)
				l.Init(c, rng)
				var (
					resp  framework.Likelihood
					noise framework.NoiseModel
				)
				corpus := &framework.Corpus{Docs: c.Docs, V: c.V}
				if model == "ma-sldac" {
					corpus = c
					setup := &framework.Setup{K: benchK, V: c.V, Corpus: c, Rand: rng, Classes: c.Answers.Classes, Annotators: c.Answers.Annotators}
					resp, err = softmax.New(nil)
					if err == nil {
						err = resp.Init(setup)
					}
					if err == nil {
						noise, err = confusion.New(nil)
					}
					if err == nil {
						err = noise.Init(setup)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				m, err := NewModel(l, resp, noise, corpus, workers)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				all := allDocs(len(c.Docs))
				step := func(it int) {
					s, err := m.EStep(ctx, all)
					if err != nil {
						b.Fatal(err)
					}
					if err := m.Update(ctx, s, framework.BatchStep(it)); err != nil {
						b.Fatal(err)
					}
				}
				step(1) // warm-up: every document gets its stored γ (and φ)
				tokens, _ := corpusTokens(c)
				run0, wait0, haveSched := schedTimes()
				start := time.Now()
				it := 1
				b.ResetTimer()
				for b.Loop() {
					it++
					step(it)
				}
				n := float64(b.N)
				sec := b.Elapsed().Seconds()
				b.ReportMetric(n*tokens/sec, "tokens/s")
				b.ReportMetric(n*float64(len(c.Docs))/sec, "docs/s")
				if run1, wait1, ok := schedTimes(); ok && haveSched {
					b.ReportMetric((wait1-wait0).Seconds()/n, "rundelay-s/op")
					b.ReportMetric((run1-run0).Seconds()/time.Since(start).Seconds(), "cpu-cores")
				}
			})
		}
	}
}
