package softmax

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The split penalty: with μ_t = μ it is μ‖η‖² bit for bit; otherwise it is
// μ_t Σ_l ‖η_l − η̄_l1‖² + μ Σ_l K η̄_l², whose sum with μ_t = μ is μ‖η‖²,
// and adding one constant to a row changes only the means' part.
func TestPenaltySplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const C, K = 4, 5
	eta := make([]float64, C*K)
	for i := range eta {
		eta[i] = rng.NormFloat64() * 2
	}
	sq := 0.0
	for _, e := range eta {
		sq += e * e
	}
	s := &Softmax{C: C, K: K, Mu: 0.7, MuText: 0.7}
	g := make([]float64, C*K)
	if got := s.penalty(eta, g); got != 0.7*sq {
		t.Errorf("μ_t = μ: penalty %v, want μ‖η‖² = %v", got, 0.7*sq)
	}
	for i, e := range eta {
		if g[i] != 0.7*e {
			t.Fatalf("μ_t = μ: gradient[%d] %v, want %v", i, g[i], 0.7*e)
		}
	}
	// The split form at μ_t = μ, computed by the general branch.
	s2 := &Softmax{C: C, K: K, Mu: 0.7, MuText: 0.7 * (1 + 1e-15)}
	if got := s2.penalty(eta, nil); math.Abs(got-0.7*sq) > 1e-12*sq {
		t.Errorf("the split form at μ_t ≈ μ: %v, want %v", got, 0.7*sq)
	}
	// A constant added to row 2 moves only the means' part.
	s3 := &Softmax{C: C, K: K, Mu: 0.01, MuText: 5}
	before := s3.penalty(eta, nil)
	shifted := append([]float64(nil), eta...)
	m := 0.0
	for k := 0; k < K; k++ {
		m += eta[2*K+k] / K
	}
	for k := 0; k < K; k++ {
		shifted[2*K+k] += 1.5
	}
	want := before + 0.01*K*((m+1.5)*(m+1.5)-m*m)
	if got := s3.penalty(shifted, nil); math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Errorf("a row shifted by 1.5: penalty %v, want %v", got, want)
	}
	// The half-gradient by central differences.
	g3 := make([]float64, C*K)
	s3.penalty(eta, g3)
	const h = 1e-6
	for i := range eta {
		fd, _, _ := centralDiff(func(x []float64) float64 { return s3.penalty(x, nil) / 2 }, eta, i, h)
		if math.Abs(fd-g3[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂η[%d]: %v, central difference %v", i, g3[i], fd)
		}
	}
}

// The MM step returns the maximiser of the minoriser Q: at its point
// every partial derivative of Q vanishes (central differences) and no
// nearby point is higher, with μ_t = μ and with μ_t ≠ μ.
func TestMMStepMaximisesQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const C, K = 3, 4
	for _, mt := range []float64{0.2, 0.2, 4, 0.01} {
		st := &mmStats{C: C, K: K, G: make([]float64, C*K), X: make([]float64, K*K), Cov: make([]float64, K*K), Eta0: make([]float64, C*K)}
		for i := range st.G {
			st.G[i] = rng.NormFloat64()
			st.Eta0[i] = rng.NormFloat64()
		}
		// X and S: sums of φ̄φ̄ᵀ and of a covariance, positive semi-definite.
		for d := 0; d < 6; d++ {
			v := make([]float64, K)
			for k := range v {
				v[k] = rng.Float64()
			}
			for i := range K {
				for k := range K {
					st.X[i*K+k] += v[i] * v[k]
					if i == k {
						st.Cov[i*K+k] += 0.1 * v[i]
					}
				}
			}
		}
		s := &Softmax{C: C, K: K, Mu: 0.2, MuText: mt, Eta: make([]float64, C*K)}
		const scale = 1.7
		best, err := s.solveMM(st, scale)
		if err != nil {
			t.Fatal(err)
		}
		q := func(x []float64) float64 { return s.qValue(st, scale, x, st.Eta0) }
		q0 := q(best)
		const h = 1e-5
		for i := range best {
			fd, qp, qm := centralDiff(q, best, i, h)
			if math.Abs(fd) > 1e-6 {
				t.Errorf("μ_t %v: ∂Q/∂η[%d] = %v at the MM step's point, want 0", mt, i, fd)
			}
			if qp > q0 || qm > q0 {
				t.Errorf("μ_t %v: a point beside the MM step's is higher (coordinate %d)", mt, i)
			}
		}
	}
}
