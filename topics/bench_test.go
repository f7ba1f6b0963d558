package topics_test

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/topics"
)

// Benchmark shape: one 20 Newsgroups-like document against K = 50 topics
// over V = 20000 words. See docs/performance.md.
const (
	benchK      = 50
	benchV      = 20000
	benchUnique = 120 // target unique words of the benchmarked document
)

var sweepBench struct {
	once   sync.Once
	corpus *framework.Corpus
	doc    *framework.Doc
	err    error
}

// sweepBenchData generates (once, only when a benchmark asks for it) a small
// planted corpus with the same spec as the models benchmark, and picks the
// document whose number of unique words is closest to benchUnique.
func sweepBenchData(b *testing.B) (*framework.Corpus, *framework.Doc) {
	b.Helper()
	sweepBench.once.Do(func() {
		spec := synth.LDASpec{D: 500, V: benchV, K: benchK, DocLen: 122, Alpha: 0.1, TopicConc: 0.05}
		c, _, err := synth.LDA(spec, rand.New(rand.NewPCG(20, 1)))
		if err != nil {
			sweepBench.err = err
			return
		}
		best := 0
		for i := range c.Docs {
			if abs(c.Docs[i].Len()-benchUnique) < abs(c.Docs[best].Len()-benchUnique) {
				best = i
			}
		}
		sweepBench.corpus, sweepBench.doc = c, &c.Docs[best]
	})
	if sweepBench.err != nil {
		b.Fatal(sweepBench.err)
	}
	return sweepBench.corpus, sweepBench.doc
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// BenchmarkSweep measures the per-document E-step of plain LDA: one op is
// layer.Infer (fresh start, sweeps until mean |Δγ| < LocalTol) on a document
// of ~120 unique words, K = 50, V = 20000, with SQUAREM (fresh_accel
// "squarem", the default) and with plain sweeps ("none").
func BenchmarkSweep(b *testing.B) {
	c, doc := sweepBenchData(b)
	for _, accel := range []string{"squarem", "none"} {
		b.Run("accel="+accel, func(b *testing.B) {
			cfg := topics.Defaults()
			cfg.K, cfg.FreshAccel = benchK, accel
			l, err := topics.New(cfg, benchV)
			if err != nil {
				b.Fatal(err)
			}
			l.Init(c, rand.New(rand.NewPCG(20, 2)))
			ds := framework.NewDocState(cfg.K, doc.Len())
			ds.Bind(0, doc, nil)
			scr := l.NewScratch()
			b.ReportAllocs()
			b.ResetTimer()
			sweeps := 0
			for b.Loop() {
				sweeps += l.Infer(ds, nil, scr)
			}
			b.StopTimer()
			sec := b.Elapsed().Seconds()
			n := float64(b.N)
			b.ReportMetric(float64(doc.Len()), "words/doc")
			b.ReportMetric(doc.N, "tokens/doc")
			b.ReportMetric(float64(sweeps)/n, "sweeps/op")
			b.ReportMetric(n*doc.N/sec, "tokens/s")
			b.ReportMetric(float64(sweeps)*doc.N/sec, "token-sweeps/s")
			b.ReportMetric(sec*1e9/float64(sweeps), "ns/sweep")
		})
	}
}
