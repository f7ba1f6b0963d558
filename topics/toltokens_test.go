package topics

import (
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestLocalTolTokens: a sweep's convergence measure is the mean |Δγ_dk|
// for a document of at most local_tol_tokens tokens (and for every
// document with local_tol_tokens = 0), and that divided by
// N_d/local_tol_tokens for a longer one, so that a document whose counts
// are all multiplied by c converges to the same topic proportions in
// about as many sweeps (issue 27); the φ and γ of the sweep are the same
// whatever the setting.
func TestLocalTolTokens(t *testing.T) {
	l, c := fixture(t, 4)
	long := c.Docs[3]
	long.Counts = append([]float64(nil), long.Counts...)
	long.N = 0
	for j := range long.Counts {
		long.Counts[j] *= 40
		long.N += long.Counts[j]
	}
	if long.N <= 100 || c.Docs[0].N > 100 {
		t.Fatalf("fixture: N %v and %v", long.N, c.Docs[0].N)
	}
	sweep := func(tokens float64, doc *framework.Doc) (change float64, gamma []float64) {
		l.LocalTolTokens = tokens
		ds := framework.NewDocState(l.K, len(doc.Words))
		ds.Bind(0, doc, nil)
		l.Start(ds, nil)
		s := l.NewScratch()
		l.Sweep(ds, nil, s)
		before := append([]float64(nil), ds.Gamma...)
		change = l.Sweep(ds, nil, s)
		mean := 0.0
		for k, g := range ds.Gamma {
			mean += math.Abs(g - before[k])
		}
		mean /= float64(l.K)
		if tokens > 0 && doc.N > tokens {
			mean /= doc.N / tokens
		}
		if change != mean {
			t.Errorf("local_tol_tokens %v, N %v: change %v, want %v", tokens, doc.N, change, mean)
		}
		return change, append([]float64(nil), ds.Gamma...)
	}
	defer func(v float64) { l.LocalTolTokens = v }(l.LocalTolTokens)
	if Defaults().LocalTolTokens != 100 {
		t.Errorf("default local_tol_tokens %v, want 100", Defaults().LocalTolTokens)
	}
	c0, g0 := sweep(0, &long)
	c1, g1 := sweep(100, &long)
	if c1 >= c0 || math.Abs(c1*long.N/100-c0) > 1e-12*c0 {
		t.Errorf("long document: change %v with 100 tokens, %v absolute (N %v)", c1, c0, long.N)
	}
	for k := range g0 {
		if g0[k] != g1[k] {
			t.Errorf("γ_%d differs: %v and %v", k, g0[k], g1[k])
		}
	}
	s0, _ := sweep(0, &c.Docs[0])
	s1, _ := sweep(100, &c.Docs[0])
	if s0 != s1 {
		t.Errorf("short document (N %v): change %v with 100 tokens, %v absolute", c.Docs[0].N, s1, s0)
	}
	if err := (Config{K: 2, Alpha: 1, Tau: 1, LocalIters: 1, LocalTolTokens: -1, Init: "seeded", LocalInit: "best", FreshStart: "lda"}).Validate(); err == nil {
		t.Error("local_tol_tokens = -1 accepted")
	}
}
