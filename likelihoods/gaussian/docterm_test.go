package gaussian

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// DocTerm (framework.PhiDocTerm) is PhiTerm with every φ_dv replaced by
// φ̄_d: on a document whose words all have the same row it equals every
// word's PhiTerm (before Begin, so it reads no cache); on one with
// different rows it matches none of them; fixed features get 0.
func TestDocTermIsPhiTermAtPhiBar(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	const K = 5
	for trial := 0; trial < 20; trial++ {
		eta := make([]float64, K)
		for k := range eta {
			eta[k] = 3 * rng.NormFloat64()
		}
		r := newResp(t, Params{}, K, eta, rng.NormFloat64())
		r.Sigma2 = 0.1 + rng.Float64()
		ds := randDoc(rng, K, 6, rng.NormFloat64(), 0.3)
		for j := 1; j < len(ds.Doc.Counts); j++ {
			copy(ds.PhiRow(j), ds.PhiRow(0))
		}
		ds.UpdatePhiBar()
		lc := r.NewLocal()
		got := make([]float64, K)
		lc.(framework.PhiDocTerm).DocTerm(got, ds)
		lc.Begin(ds)
		for j := range ds.Doc.Counts {
			want := make([]float64, K)
			lc.PhiTerm(want, ds, j)
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-12*(1+math.Abs(want[k])) {
					t.Fatalf("trial %d word %d: DocTerm %v, PhiTerm %v", trial, j, got, want)
				}
			}
		}
		ds = randDoc(rng, K, 6, rng.NormFloat64(), 0.3)
		lc.(framework.PhiDocTerm).DocTerm(got, ds)
		lc.Begin(ds)
		far := 0.0
		for j := range ds.Doc.Counts {
			want := make([]float64, K)
			lc.PhiTerm(want, ds, j)
			for k := range want {
				far = math.Max(far, math.Abs(got[k]-want[k]))
			}
		}
		if far < 1e-6 {
			t.Errorf("trial %d: DocTerm matches PhiTerm on a document with different rows", trial)
		}
	}
	fixed := newResp(t, Params{}, K, []float64{1, 2, 3, 4, 5}, 0)
	fixed.fixed = true
	got := []float64{1, 1, 1, 1, 1}
	fixed.NewLocal().(framework.PhiDocTerm).DocTerm(got, randDoc(rng, K, 3, 0, 1))
	for _, v := range got {
		if v != 0 {
			t.Errorf("fixed features: DocTerm %v, want 0", got)
			break
		}
	}
}
