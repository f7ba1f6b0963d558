package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/likelihoods/gaussian"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/topics"
)

// The shape of the C++ comparison corpus of docs/performance.md (1,407
// documents of 20 Newsgroups, about 108 tokens and 60 unique words each,
// V ≈ 12,000, K = 20, 4 classes, one simulated answer per document), planted.
const (
	compD      = 1400
	compV      = 12000
	compK      = 20
	compDocLen = 108
)

// compCorpus is the planted corpus with both kinds of answers: 4 classes
// from a planted η with one answer per document from MODEL.md §7's five
// annotators (for MA-sLDAc), and numeric targets with every one of five
// biased annotators answering (for MA-sLDAr).
var compCorpus = sync.OnceValues(func() (compCorpora, error) {
	cls, reg, err := makeCompCorpus()
	return compCorpora{cls, reg}, err
})

type compCorpora struct{ cls, reg *framework.Corpus }

func makeCompCorpus() (cls, reg *framework.Corpus, err error) {
	rng := rand.New(rand.NewPCG(2026, 15))
	c, pl, err := synth.LDA(synth.LDASpec{D: compD, V: compV, K: compK, DocLen: compDocLen, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		return nil, nil, err
	}
	const C = 4
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(C, compK, 6, rng), rng)
	pis, err := confusion.FromAccuracies([]float64{0.737, 0.468, 0.284, 0.278, 0.260}, C)
	if err != nil {
		return nil, nil, err
	}
	byDoc, err := confusion.Sample(classes, pis, 1, rng)
	if err != nil {
		return nil, nil, err
	}
	workers := make([]string, len(pis))
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	cls = &framework.Corpus{Docs: c.Docs, V: c.V, Answers: &framework.Answers{Annotators: workers, Classes: []string{"c0", "c1", "c2", "c3"}, ByDoc: byDoc}}
	eta := make([]float64, compK)
	for k := range eta {
		eta[k] = rng.NormFloat64()
	}
	x := synth.Targets(pl.ZBar, eta, 0.01, rng)
	bias := []float64{0.1, -0.3, -2.5, 0.1, 1}
	prec := []float64{10, 3, 10, 0.5, 0.25}
	num := make([][]framework.Answer, len(x))
	for d, v := range x {
		for r := range bias {
			num[d] = append(num[d], framework.Answer{Annotator: int32(r), Class: -1, Value: v + bias[r] + rng.NormFloat64()/math.Sqrt(prec[r])})
		}
	}
	reg = &framework.Corpus{Docs: c.Docs, V: c.V, Answers: &framework.Answers{Annotators: workers, ByDoc: num}}
	return cls, reg, nil
}

// BenchmarkComposition measures one batch EM iteration per composition of
// the model (plain LDA; MA-sLDAc: softmax + confusion, with the product
// bound and with bound = "quadratic"; a suffix -sup sets topics.fresh_start
// = "supervised", the default before 2026-11-26; MA-sLDAr: gaussian +
// bias-precision, defaults) on compCorpus, after one untimed warm-up
// iteration from the same seeded start, reporting the E-step's and the
// M-step's seconds separately (the ELBO evaluation is excluded), and (Linux)
// the process's CPU seconds per iteration and the time its threads waited
// for a CPU, the figures to compare on a shared machine:
//
//	go test ./models -run '^$' -bench Composition -benchtime 3x -count 5
func BenchmarkComposition(b *testing.B) {
	for _, model := range []string{"lda", "ma-sldac", "ma-sldac-quad", "ma-sldac-sup", "ma-sldac-quad-sup", "ma-sldar", "ma-sldar-sup"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("model=%s/workers=%d", model, workers), func(b *testing.B) {
				cc, err := compCorpus()
				if err != nil {
					b.Fatal(err)
				}
				cls, reg := cc.cls, cc.reg
				cfg := topics.Defaults()
				cfg.K = compK
				model := model
				if strings.HasSuffix(model, "-sup") { // topics.fresh_start = "supervised"
					cfg.FreshStart = "supervised"
					model = strings.TrimSuffix(model, "-sup")
				}
				l, err := topics.New(cfg, compV)
				if err != nil {
					b.Fatal(err)
				}
				rng := NewRand(7)
				l.Init(cls, rng)
				var (
					resp  framework.Likelihood
					noise framework.NoiseModel
				)
				corpus := &framework.Corpus{Docs: cls.Docs, V: cls.V}
				switch model {
				case "ma-sldac", "ma-sldac-quad":
					corpus = cls
					var p framework.Params
					if model == "ma-sldac-quad" {
						p = framework.ParamsFunc(func(into any) error { into.(*softmax.Params).Bound = "quadratic"; return nil })
					}
					resp, err = softmax.New(p)
					if err == nil {
						noise, err = confusion.New(nil)
					}
				case "ma-sldar":
					corpus = reg
					resp, err = gaussian.New(gaussian.Params{})
					if err == nil {
						noise, err = biasprecision.New(biasprecision.Params{})
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				if resp != nil {
					setup := &framework.Setup{K: compK, V: compV, Corpus: corpus, Rand: rng, Classes: corpus.Answers.Classes, Annotators: corpus.Answers.Annotators}
					if err := resp.Init(setup); err != nil {
						b.Fatal(err)
					}
					if err := noise.Init(setup); err != nil {
						b.Fatal(err)
					}
				}
				m, err := NewModel(l, resp, noise, corpus, workers)
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				all := allDocs(len(corpus.Docs))
				var eTime, mTime time.Duration
				step := func(it int) {
					t0 := time.Now()
					s, err := m.EStep(ctx, all)
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if err := m.Update(ctx, s, framework.BatchStep(it)); err != nil {
						b.Fatal(err)
					}
					eTime += t1.Sub(t0)
					mTime += time.Since(t1)
				}
				step(1)
				eTime, mTime = 0, 0
				it := 1
				run0, wait0, haveSched := schedTimes()
				b.ResetTimer()
				for b.Loop() {
					it++
					step(it)
				}
				n := float64(b.N)
				b.ReportMetric(eTime.Seconds()/n, "estep-s/op")
				b.ReportMetric(mTime.Seconds()/n, "mstep-s/op")
				if run1, wait1, ok := schedTimes(); ok && haveSched {
					// CPU seconds of the whole process (all threads): the
					// measure to compare on a shared machine.
					b.ReportMetric((run1-run0).Seconds()/n, "cpu-s/op")
					b.ReportMetric((wait1-wait0).Seconds()/n, "rundelay-s/op")
				}
			})
		}
	}
}
