package softmax

import (
	"math/rand/v2"
	"testing"
)

// TestPermuteClasses: row c of η becomes row perm[c]; what is not a
// permutation of the classes is refused and leaves η as it was.
func TestPermuteClasses(t *testing.T) {
	s := testSoftmax(t, 3, 2, 1, rand.New(rand.NewPCG(3, 4)))
	eta := append([]float64(nil), s.Eta...)
	perm := []int{2, 0, 1}
	if err := s.PermuteClasses(perm); err != nil {
		t.Fatal(err)
	}
	for c, to := range perm {
		for k := range 2 {
			if got, want := s.Eta[to*2+k], eta[c*2+k]; got != want {
				t.Errorf("η[%d][%d] = %v, want the fit's η[%d][%d] %v", to, k, got, c, k, want)
			}
		}
	}
	now := append([]float64(nil), s.Eta...)
	for _, p := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, -1}} {
		if err := s.PermuteClasses(p); err == nil {
			t.Errorf("PermuteClasses(%v) accepted", p)
		}
	}
	for i := range now {
		if s.Eta[i] != now[i] {
			t.Fatalf("a refused permutation changed η: %v, was %v", s.Eta, now)
		}
	}
}
