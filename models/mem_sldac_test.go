package models

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// TestMemorySLDAc measures the peak memory of one batch MA-sLDAc iteration
// (softmax + confusion, K 50, 4 classes, one answer per document) on a
// generated corpus of MASLDA_MEM_SLDAC documents of 120 distinct words
// each (V 20,000), with the softmax bound MASLDA_MEM_BOUND ("product", the
// default, or "quadratic") and MASLDA_MEM_LOCAL_ITERS local sweeps (default
// 2: memory does not depend on them, time does). It reports the process's
// peak resident set (VmHWM) and the peak of live heap objects; run one
// size per process (docs/performance.md, "Memory of MA-sLDAc"):
//
//	go test -c -o /tmp/models.test ./models
//	MASLDA_MEM_SLDAC=100000 MASLDA_MEM_BOUND=quadratic /tmp/models.test -test.run TestMemorySLDAc -test.v -test.timeout 0
func TestMemorySLDAc(t *testing.T) {
	D, err := strconv.Atoi(os.Getenv("MASLDA_MEM_SLDAC"))
	if err != nil || D < 1 {
		t.Skip("set MASLDA_MEM_SLDAC=<documents> to run the MA-sLDAc memory measurement")
	}
	bound := os.Getenv("MASLDA_MEM_BOUND")
	if bound == "" {
		bound = "product"
	}
	iters := 2
	if s := os.Getenv("MASLDA_MEM_LOCAL_ITERS"); s != "" {
		if iters, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	const (
		V, K, C, L = 20000, 50, 4, 120
		mb         = 1 << 20
	)
	t0 := time.Now()
	c := memCorpus(D, V, K, C, L)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("corpus: %d documents × %d distinct words, generated in %v; live heap %.1f MB, VmHWM so far %.1f MB",
		D, L, time.Since(t0).Round(time.Millisecond), float64(ms.HeapAlloc)/mb, float64(vmHWM(t))/mb)

	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				done <- peak
				return
			case <-tick.C:
			}
		}
	}()
	cfg := topics.Defaults()
	cfg.K, cfg.LocalIters = K, iters
	l, err := topics.New(cfg, V)
	if err != nil {
		t.Fatal(err)
	}
	rng := NewRand(7)
	l.Init(c, rng)
	resp, err := softmax.New(framework.ParamsFunc(func(into any) error { into.(*softmax.Params).Bound = bound; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	noise, err := confusion.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	setup := &framework.Setup{K: K, V: V, Corpus: c, Rand: rng, Classes: c.Answers.Classes, Annotators: c.Answers.Annotators}
	if err := resp.Init(setup); err != nil {
		t.Fatal(err)
	}
	if err := noise.Init(setup); err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(l, resp, noise, c, runtime.NumCPU())
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	res, err := (&optim.Batch{MaxIters: 1, MinIters: 1, Tol: 0}).Fit(context.Background(), m, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	peak := <-done
	t.Logf("bound %s, %d local sweeps: one iteration in %v (ELBO %.6g); peak live heap %.1f MB; peak resident set (VmHWM) %.1f MB",
		bound, iters, time.Since(t1).Round(time.Millisecond), res.ELBO, float64(peak)/mb, float64(vmHWM(t))/mb)
}

// memCorpus generates D documents of L distinct words: document d draws
// its words from topic block t = d mod K of the vocabulary (V/K words)
// with probability 0.8, otherwise uniformly; counts 1–3; the class is t
// mod C; one answer from MODEL.md §7's five annotators.
func memCorpus(D, V, K, C, L int) *framework.Corpus {
	rng := rand.New(rand.NewPCG(2026, 24))
	c := &framework.Corpus{V: V, Docs: make([]framework.Doc, D)}
	byDoc := make([][]framework.Answer, D)
	acc := []float64{0.737, 0.468, 0.284, 0.278, 0.260}
	block := V / K
	seen := make(map[int32]bool, L)
	for d := range c.Docs {
		doc := &c.Docs[d]
		doc.ID = strconv.Itoa(d)
		doc.Words, doc.Counts = make([]int32, 0, L), make([]float64, 0, L)
		clear(seen)
		t := d % K
		for len(doc.Words) < L {
			w := int32(rng.IntN(V))
			if rng.Float64() < 0.8 {
				w = int32(t*block + rng.IntN(block))
			}
			if seen[w] {
				continue
			}
			seen[w] = true
			n := float64(1 + rng.IntN(3))
			doc.Words = append(doc.Words, w)
			doc.Counts = append(doc.Counts, n)
			doc.N += n
		}
		truth := t % C
		r := rng.IntN(len(acc))
		ans := truth
		if rng.Float64() >= acc[r] {
			ans = (truth + 1 + rng.IntN(C-1)) % C
		}
		byDoc[d] = []framework.Answer{{Annotator: int32(r), Class: int32(ans), Value: float64(ans)}}
	}
	workers := make([]string, len(acc))
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	classes := make([]string, C)
	for i := range classes {
		classes[i] = fmt.Sprintf("c%d", i)
	}
	c.Answers = &framework.Answers{Annotators: workers, Classes: classes, ByDoc: byDoc}
	return c
}

// vmHWM is the process's peak resident set size in bytes (Linux; 0
// elsewhere).
func vmHWM(t *testing.T) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	return 0
}
