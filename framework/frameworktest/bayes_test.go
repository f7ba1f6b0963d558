package frameworktest

import (
	"math"
	"testing"
)

// bayesAccuracy by hand: z̄ = e_1 gives Softmax(ln 3, 0) = (3/4, 1/4), z̄ =
// e_2 gives (1/2, 1/2); the mean of the largest is 5/8.
func TestBayesAccuracyByHand(t *testing.T) {
	eta := [][]float64{{math.Log(3), 0}, {0, 0}}
	if got := bayesAccuracy([][]float64{{1, 0}, {0, 1}}, eta); math.Abs(got-0.625) > 1e-12 {
		t.Errorf("bayesAccuracy = %v, want 0.625", got)
	}
	if got := bayesAccuracy(nil, eta); got != 0 {
		t.Errorf("bayesAccuracy of no documents = %v, want 0", got)
	}
}

// The planted problem's Bayes classifier is at least as good as always
// answering the largest class, in expectation (it is the best classifier
// of the planted model); on the kit's problem it is 0.868 against 0.678.
func TestSupervisedBayes(t *testing.T) {
	p, err := NewSupervised(Supervised{D: 400, Test: 400, V: 100, K: 4, Classes: 3, DocLen: 40, EtaScale: 6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if share := LargestShare(p.Truth, p.TestTruth); !(p.TestBayes > share) || p.TestBayes > 1 {
		t.Errorf("TestBayes %v, want in (largest class %v, 1]", p.TestBayes, share)
	}
}
