package beamtrain

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestMeasureOverhead measures one batch iteration of plain LDA (K 20,
// V 2,000, 100 tokens per document) in process (as many workers as
// GOMAXPROCS, and up to 100,000 documents one worker) and on prism with shards of 32 (up to 100,000
// documents) and 1,000 documents, the driver as maslda-beam's: the
// corpus written to an LDA-C file, streamed into shards (ShardLDAC), the
// run built without its documents (models.BuildGlobals). It reports the
// median of the iterations after the first. It runs only with
// MASLDA_BEAM_MEASURE=D (the number of documents), for docs/scale.md;
// MASLDA_BEAM_ITERS sets the iterations (default 4):
//
//	cd beam && MASLDA_BEAM_MEASURE=10000 go test -run TestMeasureOverhead -v -count=1 -timeout 0 ./beamtrain
func TestMeasureOverhead(t *testing.T) {
	D, _ := strconv.Atoi(os.Getenv("MASLDA_BEAM_MEASURE"))
	if D <= 0 {
		t.Skip("set MASLDA_BEAM_MEASURE=D to measure (docs/scale.md)")
	}
	iters, _ := strconv.Atoi(os.Getenv("MASLDA_BEAM_ITERS"))
	if iters < 2 {
		iters = 4
	}
	c, _, err := synth.LDA(synth.LDASpec{D: D, V: 2000, K: 20, DocLen: 100, Alpha: 0.1, TopicConc: 0.05}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	src := func(workers int) []byte {
		return fmt.Appendf(nil, "seed = 1\nworkers = %d\ntopics {\n  k = 20\n}\n", workers)
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d[1:])
		slices.Sort(s)
		return s[len(s)/2]
	}
	ctx := context.Background()
	base := map[int]time.Duration{}
	counts := []int{1, runtime.GOMAXPROCS(0)}
	if D > 100_000 {
		counts = counts[1:] // one worker would take as long again
	}
	for _, workers := range counts {
		if _, done := base[workers]; done {
			continue
		}
		cfg, err := models.ParseConfig(src(workers), "m.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, D)
		for i := range all {
			all[i] = i
		}
		var inproc []time.Duration
		for it := 1; it <= iters; it++ {
			t0 := time.Now()
			s, err := r.Model.EStep(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Model.Update(ctx, s, framework.BatchStep(it)); err != nil {
				t.Fatal(err)
			}
			inproc = append(inproc, time.Since(t0))
		}
		base[workers] = median(inproc)
		t.Logf("D = %d: in process (%d workers): %v per iteration (%v)", D, workers, base[workers], inproc)
	}
	ldac := filepath.Join(t.TempDir(), "docs.ldac")
	var buf bytes.Buffer
	if err := corpus.WriteLDAC(&buf, c.Docs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ldac, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	V := c.V
	sizes := []int{32, 1000}
	if D > 100_000 {
		sizes = []int{1000}
	}
	for _, size := range sizes {
		dir := t.TempDir()
		start := time.Now()
		l, err := ShardLDAC(ctx, ldac, 0, dir, size)
		if err != nil {
			t.Fatal(err)
		}
		sharding := time.Since(start)
		cfg, err := models.ParseConfig(src(1), "m.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.BuildGlobals(cfg, nil, models.CorpusInfo{Docs: l.Docs, V: V, Fetch: l.Fetch})
		if err != nil {
			t.Fatal(err)
		}
		var times []time.Duration
		last := time.Now()
		bundles := filepath.Join(t.TempDir(), "bundles")
		if _, err := Train(ctx, r, Options{Dir: dir, Layout: l, MaxIters: iters, Run: prismRun, BundleLog: bundles,
			Progress: func(int, float64) error {
				times = append(times, time.Since(last))
				last = time.Now()
				return nil
			}}); err != nil {
			t.Fatal(err)
		}
		m := median(times)
		ratio := func(w int) string {
			if b, ok := base[w]; ok {
				return fmt.Sprintf("%.2fx in process with %d workers", float64(m)/float64(b), w)
			}
			return "-"
		}
		t.Logf("D = %d: prism, shards of %d: %v per iteration (%v; sharding %v; total %v); %s, %s; %d bundles of the E-step in %d iterations",
			D, size, m, times, sharding, time.Since(start), ratio(1), ratio(runtime.GOMAXPROCS(0)), len(readBundleLog(t, bundles)), iters)
	}
}
