package softmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

// DocTerm (framework.PhiDocTerm) is PhiTerm with every φ_dv replaced by
// φ̄_d: on a document whose words all have the same φ row, it equals every
// word's PhiTerm up to a constant per word (which the φ update's
// normalisation removes), under both bounds. On a document with different
// rows it differs (the test would not see a DocTerm that ignored the
// words' spread otherwise, so it checks that too), and it reads no cache
// of Begin.
func TestDocTermIsPhiTermAtPhiBar(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	const C, K = 3, 5
	for _, quad := range []bool{false, true} {
		for trial := 0; trial < 20; trial++ {
			var s *Softmax
			if quad {
				s = testQuad(t, C, K, 3, rng)
			} else {
				s = testSoftmax(t, C, K, 3, rng)
			}
			ds := randomDocState(rng, K, C, 6, 4)
			same := make([]float64, K)
			synth.Dirichlet(same, 0.7, rng)
			for j := range ds.Doc.Counts {
				copy(ds.PhiRow(j), same)
			}
			ds.UpdatePhiBar()
			lcl := s.NewLocal()
			dt := lcl.(framework.PhiDocTerm)
			got := make([]float64, K)
			dt.DocTerm(got, ds) // before any Begin
			lcl.Begin(ds)
			for j := range ds.Doc.Counts {
				want := make([]float64, K)
				lcl.PhiTerm(want, ds, j)
				if d := spreadOfDiff(got, want); d > 1e-12*(1+maxAbs(want)) {
					t.Errorf("quadratic %v, trial %d, word %d: DocTerm %v, PhiTerm %v (differ by %.3g beyond a constant)", quad, trial, j, got, want, d)
				}
			}
			// Different rows: PhiTerm varies from word to word, and DocTerm
			// is none of them.
			ds = randomDocState(rng, K, C, 6, 4)
			dt.DocTerm(got, ds)
			lcl.Begin(ds)
			far := 0.0
			for j := range ds.Doc.Counts {
				want := make([]float64, K)
				lcl.PhiTerm(want, ds, j)
				far = math.Max(far, spreadOfDiff(got, want))
			}
			if far < 1e-6 {
				t.Errorf("quadratic %v, trial %d: DocTerm matches PhiTerm on a document with different rows (%.3g)", quad, trial, far)
			}
		}
	}
}

// spreadOfDiff is max_k (a_k − b_k) − min_k (a_k − b_k): zero when a and
// b differ by a constant.
func spreadOfDiff(a, b []float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for k := range a {
		d := a[k] - b[k]
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return hi - lo
}
