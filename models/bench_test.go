package models

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// A 20 Newsgroups-sized planted corpus: D = 11000 documents over V = 20000
// words, ~120 unique words per document, fitted with K = 50 topics. With
// TopicConc = 0.05 the planted topics spread over ~1000 words each, so almost
// every token of a document is a distinct word: DocLen = 122 gives a mean of
// ≈120 unique words (and ≈122 tokens) per document. See docs/performance.md.
const (
	benchD      = 11000
	benchV      = 20000
	benchK      = 50
	benchDocLen = 122
)

func benchSpec() synth.LDASpec {
	return synth.LDASpec{D: benchD, V: benchV, K: benchK, DocLen: benchDocLen, Alpha: 0.1, TopicConc: 0.05}
}

func benchTopicsConfig(localInit string) topics.Config {
	cfg := topics.Defaults()
	cfg.K = benchK
	cfg.LocalInit = localInit
	return cfg
}

// benchCorpus generates the corpus once per process (only when a benchmark
// or the gated memory test asks for it: never during plain `go test`).
var benchCorpus = sync.OnceValues(func() (*framework.Corpus, error) {
	c, _, err := synth.LDA(benchSpec(), rand.New(rand.NewPCG(2026, 1)))
	return c, err
})

// benchWarm is the state after the first (warm-up) batch iteration: ζ and
// every document's stored γ. The first iteration is the same for every
// local_init policy (no document has a stored γ yet) and, the shards being
// fixed, for every number of workers, so all the variants start from it.
var benchWarm struct {
	once  sync.Once
	zeta  []float64
	gamma []float64
	err   error
}

func benchWarmState(b testing.TB) (*framework.Corpus, []float64, []float64) {
	b.Helper()
	c, err := benchCorpus()
	if err != nil {
		b.Fatal(err)
	}
	benchWarm.once.Do(func() {
		l, err := topics.New(benchTopicsConfig("fresh"), c.V)
		if err != nil {
			benchWarm.err = err
			return
		}
		l.Init(c, NewRand(7))
		m, err := NewModel(l, nil, nil, c, 0)
		if err != nil {
			benchWarm.err = err
			return
		}
		ctx := context.Background()
		s, err := m.EStep(ctx, allDocs(len(c.Docs)))
		if err == nil {
			err = m.Update(ctx, s, framework.BatchStep(1))
		}
		benchWarm.zeta = append([]float64(nil), l.Zeta...)
		benchWarm.gamma = append([]float64(nil), m.gamma...)
		benchWarm.err = err
	})
	if benchWarm.err != nil {
		b.Fatal(benchWarm.err)
	}
	return c, benchWarm.zeta, benchWarm.gamma
}

func allDocs(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

func corpusTokens(c *framework.Corpus) (tokens float64, unique int) {
	for i := range c.Docs {
		tokens += c.Docs[i].N
		unique += c.Docs[i].Len()
	}
	return tokens, unique
}

// newBenchModel rebuilds a plain-LDA model in the post-warm-up state.
func newBenchModel(b testing.TB, localInit string, workers int) *Model {
	b.Helper()
	c, zeta, gamma := benchWarmState(b)
	l, err := topics.New(benchTopicsConfig(localInit), c.V)
	if err != nil {
		b.Fatal(err)
	}
	copy(l.Zeta, zeta)
	l.Refresh()
	m, err := NewModel(l, nil, nil, c, workers)
	if err != nil {
		b.Fatal(err)
	}
	copy(m.gamma, gamma)
	for i := range m.seen {
		m.seen[i] = true
	}
	return m
}

// BenchmarkEStepIteration measures one batch iteration (EStep over every
// document, then Update) after a warm-up iteration, for both local_init
// policies and 1 and 2 workers. The per-worker results are bit-identical (the
// shards are fixed), so the workers=2 / workers=1 ratio is pure parallel
// efficiency. The ELBO evaluation that optim.Batch runs after each Update is
// timed separately (elbo-s/op) and excluded from ns/op.
func BenchmarkEStepIteration(b *testing.B) {
	for _, policy := range []string{"best", "fresh"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("init=%s/workers=%d", policy, workers), func(b *testing.B) {
				m := newBenchModel(b, policy, workers)
				c := m.Corpus()
				tokens, _ := corpusTokens(c)
				all := allDocs(len(c.Docs))
				ctx := context.Background()
				var estep, update, elbo time.Duration
				it := 1
				run0, wait0, haveSched := schedTimes()
				start := time.Now()
				b.ReportAllocs()
				for b.Loop() {
					it++
					t0 := time.Now()
					s, err := m.EStep(ctx, all)
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					st := framework.BatchStep(it)
					if err := m.Update(ctx, s, st); err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					estep += t1.Sub(t0)
					update += t2.Sub(t1)
					b.StopTimer()
					t3 := time.Now()
					_ = m.ELBO(s, st)
					elbo += time.Since(t3)
					b.StartTimer()
				}
				n := float64(b.N)
				sec := b.Elapsed().Seconds()
				b.ReportMetric(n*tokens/sec, "tokens/s")
				b.ReportMetric(n*float64(len(c.Docs))/sec, "docs/s")
				b.ReportMetric(estep.Seconds()/n, "estep-s/op")
				b.ReportMetric(update.Seconds()/n, "update-s/op")
				b.ReportMetric(elbo.Seconds()/n, "elbo-s/op")
				if run1, wait1, ok := schedTimes(); ok && haveSched {
					wall := time.Since(start) // including the ELBO evaluations
					b.ReportMetric((wait1-wait0).Seconds()/n, "rundelay-s/op")
					b.ReportMetric((run1-run0).Seconds()/wall.Seconds(), "cpu-cores")
				}
			})
		}
	}
}

// schedTimes sums, over this process's threads, the time spent running on a
// CPU and the time spent runnable but waiting for one (Linux
// /proc/self/task/*/schedstat, first two fields); ok is false elsewhere. On a
// shared machine the growth of the second during a benchmark (rundelay-s/op)
// shows how much other processes took from it; the first over the wall time
// (cpu-cores) shows how busy the workers were (idle = waiting for the ordered
// merge, the serial Update, or the end of the E-step).
func schedTimes() (run, wait time.Duration, ok bool) {
	files, _ := filepath.Glob("/proc/self/task/*/schedstat")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var r, w int64
		if _, err := fmt.Sscan(string(b), &r, &w); err == nil {
			run += time.Duration(r)
			wait += time.Duration(w)
			ok = true
		}
	}
	return run, wait, ok
}

// TestMemoryBatch (run only with MASLDA_MEM=1; MASLDA_MEM_WORKERS sets the
// pool, default all cores) trains 3 batch iterations on the 20NG-sized
// corpus and logs the heap figures next to the theoretical minimum. Run the
// compiled test binary under /usr/bin/time -v for the peak RSS (see
// docs/performance.md).
func TestMemoryBatch(t *testing.T) {
	if os.Getenv("MASLDA_MEM") != "1" {
		t.Skip("set MASLDA_MEM=1 to run the memory measurement")
	}
	workers := runtime.NumCPU()
	if s := os.Getenv("MASLDA_MEM_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		workers = n
	}
	const mb = 1 << 20
	var ms runtime.MemStats
	report := func(what string) {
		runtime.ReadMemStats(&ms)
		t.Logf("%-28s HeapAlloc %6.1f MB  HeapInuse %6.1f MB  HeapSys %6.1f MB  Sys %6.1f MB  TotalAlloc %7.1f MB  NumGC %d",
			what, float64(ms.HeapAlloc)/mb, float64(ms.HeapInuse)/mb, float64(ms.HeapSys)/mb, float64(ms.Sys)/mb, float64(ms.TotalAlloc)/mb, ms.NumGC)
	}

	c, err := benchCorpus()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	report("corpus generated (after GC)")
	corpusLive := ms.HeapAlloc
	tokens, unique := corpusTokens(c)

	// Sample the peak of live heap objects and of the runtime's total mapped
	// memory while training.
	stop := make(chan struct{})
	done := make(chan [2]uint64)
	go func() {
		samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
		var peak [2]uint64
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(samples)
			for i, s := range samples {
				peak[i] = max(peak[i], s.Value.Uint64())
			}
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()

	l, err := topics.New(benchTopicsConfig("best"), c.V)
	if err != nil {
		t.Fatal(err)
	}
	l.Init(c, NewRand(7))
	m, err := NewModel(l, nil, nil, c, workers)
	if err != nil {
		t.Fatal(err)
	}
	report("model built")
	totalBefore := ms.TotalAlloc
	sched := optim.Batch{MaxIters: 3, MinIters: 3, Tol: 0}
	start := time.Now()
	res, err := sched.Fit(context.Background(), m, nil, func(p framework.Progress) error {
		report(fmt.Sprintf("iteration %d (%.1fs)", p.Iter, p.Elapsed.Seconds()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	close(stop)
	peak := <-done
	report("after 3 iterations")
	trainAlloc := ms.TotalAlloc - totalBefore

	V, K, D := l.V, l.K, len(c.Docs)
	globals := 3 * V * K * 8
	stats := V * K * 8
	gamma := D * K * 8
	// The corpus proper: word ids (int32) and counts (float64) per unique
	// word, plus each Doc's header and ID string.
	corpusMin := unique*(4+8) + D*(72+5)
	theory := globals + (workers+1)*stats + gamma + corpusMin
	t.Logf("workers %d, %d docs, %d unique words (%.1f/doc), %.0f tokens (%.1f/doc), 3 iterations in %v, ELBO %.6g",
		workers, D, unique, float64(unique)/float64(D), tokens, tokens/float64(D), elapsed.Round(time.Millisecond), res.ELBO)
	t.Logf("theoretical minimum: globals ζ,E[log β],exp(E[log β]) %.1f MB + stats (%d workers + total) %d × %.1f MB + stored γ %.1f MB + corpus ≈%.1f MB = %.1f MB",
		float64(globals)/mb, workers, workers+1, float64(stats)/mb, float64(gamma)/mb, float64(corpusMin)/mb, float64(theory)/mb)
	t.Logf("corpus live heap after generation %.1f MB", float64(corpusLive)/mb)
	t.Logf("peak live heap objects %.1f MB, peak runtime-mapped memory %.1f MB (%.2f× the minimum)",
		float64(peak[0])/mb, float64(peak[1])/mb, float64(peak[1])/float64(theory))
	t.Logf("allocated by the 3 iterations (after the model was built): %.1f MB (%.1f MB per iteration; fresh statistics for the total and each worker, %.1f MB each)",
		float64(trainAlloc)/mb, float64(trainAlloc)/mb/3, float64(stats+V)/mb)
}
