package softmax

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// cvData draws n documents with K-topic proportions φ̄ (Dirichlet(0.3)) and
// targets: the one-hot argmax of η*φ̄ (text that decides the class) when
// informative, otherwise a class drawn regardless of φ̄.
func cvData(rng *rand.Rand, n, C, K int, informative bool) []cvTarget {
	eta := make([]float64, C*K)
	for i := range eta {
		eta[i] = 4 * rng.NormFloat64()
	}
	out := make([]cvTarget, n)
	for d := range out {
		bar := make([]float64, K)
		s := 0.0
		for k := range bar {
			bar[k] = rng.ExpFloat64() * rng.ExpFloat64() // heavy-tailed, then normalised
			s += bar[k]
		}
		for k := range bar {
			bar[k] /= s
		}
		q := make([]float64, C)
		c := rng.IntN(C)
		if informative {
			best := math.Inf(-1)
			for l := 0; l < C; l++ {
				if a := dot(eta[l*K:(l+1)*K], bar); a > best {
					best, c = a, l
				}
			}
		}
		q[c] = 1
		out[d] = cvTarget{bar: bar, q: q}
	}
	return out
}

// Text that decides the class gets a weak penalty; text unrelated to the
// class gets the grid's strongest (the text's say taken away).
func TestChooseTextL2(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const C, K, n = 3, 6, 400
	tu, ok, err := chooseTextL2(context.Background(), cvData(rng, n, C, K, true), C, K, 1.0/n, 5)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if tu.Chosen > 1 {
		t.Errorf("informative text: chose text_l2 %v (losses %v), want ≤ 1", tu.Chosen, tu.Loss)
	}
	tu, ok, err = chooseTextL2(context.Background(), cvData(rng, n, C, K, false), C, K, 1.0/n, 5)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if tu.Chosen < 100 {
		t.Errorf("text unrelated to the class: chose text_l2 %v (losses %v), want ≥ 100", tu.Chosen, tu.Loss)
	}
	if _, ok, _ := chooseTextL2(context.Background(), cvData(rng, 9, C, K, true), C, K, 1, 5); ok {
		t.Error("9 documents, 5 folds: want no choice")
	}
}

// cvLoss's gradient by central differences.
func TestCVLossGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const C, K = 3, 4
	data := cvData(rng, 20, C, K, true)
	for i := range data {
		data[i].q = []float64{0.2, 0.5, 0.3}
	}
	eta := make([]float64, C*K)
	for i := range eta {
		eta[i] = rng.NormFloat64()
	}
	g := make([]float64, C*K)
	cvLoss(eta, C, K, data, g)
	const h = 1e-6
	for i := range eta {
		fd, _, _ := centralDiff(func(x []float64) float64 { return cvLoss(x, C, K, data, nil) }, eta, i, h)
		if math.Abs(fd-g[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂η[%d]: %v, central difference %v", i, g[i], fd)
		}
	}
}
