package beamtrain

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestMeasureOverhead measures one batch iteration of plain LDA (K 20,
// V 2,000, 100 tokens per document, one worker in process) in process and
// on prism with shards of 32 and 1,000 documents: the median of the
// iterations after the first. It runs only with MASLDA_BEAM_MEASURE=D
// (the number of documents), for docs/scale.md:
//
//	cd beam && MASLDA_BEAM_MEASURE=10000 go test -run TestMeasureOverhead -v -count=1 ./beamtrain
func TestMeasureOverhead(t *testing.T) {
	D, _ := strconv.Atoi(os.Getenv("MASLDA_BEAM_MEASURE"))
	if D <= 0 {
		t.Skip("set MASLDA_BEAM_MEASURE=D to measure (docs/scale.md)")
	}
	const iters = 4
	c, _, err := synth.LDA(synth.LDASpec{D: D, V: 2000, K: 20, DocLen: 100, Alpha: 0.1, TopicConc: 0.05}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	build := func() *models.Run {
		cfg, err := models.ParseConfig([]byte("seed = 1\nworkers = 1\ntopics {\n  k = 20\n}\n"), "m.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	median := func(d []time.Duration) time.Duration {
		s := append([]time.Duration(nil), d[1:]...)
		for i := range s {
			for j := i + 1; j < len(s); j++ {
				if s[j] < s[i] {
					s[i], s[j] = s[j], s[i]
				}
			}
		}
		return s[len(s)/2]
	}
	r := build()
	all := make([]int, D)
	for i := range all {
		all[i] = i
	}
	var inproc []time.Duration
	for it := 1; it <= iters; it++ {
		t0 := time.Now()
		s, err := r.Model.EStep(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Model.Update(context.Background(), s, framework.BatchStep(it)); err != nil {
			t.Fatal(err)
		}
		inproc = append(inproc, time.Since(t0))
	}
	t.Logf("D = %d: in process (1 worker): %v per iteration (%v)", D, median(inproc), inproc)
	for _, size := range []int{32, 1000} {
		var times []time.Duration
		last := time.Now()
		start := time.Now()
		_, err := Train(context.Background(), build(), Options{Dir: t.TempDir(), ShardSize: size, MaxIters: iters, Run: prismRun,
			Progress: func(int, float64) error {
				times = append(times, time.Since(last))
				last = time.Now()
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		m := median(times)
		t.Logf("D = %d: prism, shards of %d: %v per iteration (%v; total with writing the shards %v); overhead %v (%.2fx)",
			D, size, m, times, time.Since(start), m-median(inproc), float64(m)/float64(median(inproc)))
	}
}
