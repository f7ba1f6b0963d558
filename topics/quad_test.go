package topics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSolveQuadraticIsMaximiser: solveQuadratic's p maximises
// g(p) = Σ_k p_k (a_k − log p_k) − c (u·p)² over the simplex: it is the
// stationary point p ∝ exp(a − 2c(u·p)u), and no random point of the
// simplex nor small step away from it scores higher (g is strictly concave,
// so the stationary point is the maximiser).
func TestSolveQuadraticIsMaximiser(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := func(p, a, u []float64, c float64) float64 {
		s, t := 0.0, 0.0
		for k, x := range p {
			if x > 0 {
				s += x * (a[k] - math.Log(x))
			}
			t += x * u[k]
		}
		return s - c*t*t
	}
	for trial := 0; trial < 200; trial++ {
		K := 2 + rng.IntN(20)
		a, u := make([]float64, K), make([]float64, K)
		for k := range a {
			a[k] = 3 * rng.NormFloat64()
			u[k] = 2 * rng.NormFloat64()
		}
		c := math.Pow(10, -2+6*rng.Float64())
		p, tmp := make([]float64, K), make([]float64, K)
		solveQuadratic(p, a, c, u, u[rng.IntN(K)], tmp)
		tt := dot(u, p)
		logit := make([]float64, K)
		for k := range logit {
			logit[k] = a[k] - 2*c*tt*u[k]
		}
		q := make([]float64, K)
		softmaxInto(q, logit)
		for k := range p {
			if math.Abs(p[k]-q[k]) > 1e-9 {
				t.Fatalf("trial %d (K %d, c %g): p[%d] = %v, stationary point %v", trial, K, c, k, p[k], q[k])
			}
		}
		best := g(p, a, u, c)
		for i := 0; i < 50; i++ {
			r := make([]float64, K)
			s := 0.0
			for k := range r {
				r[k] = p[k] * math.Exp(0.05*rng.NormFloat64())
				if i%2 == 1 {
					r[k] = rng.ExpFloat64()
				}
				s += r[k]
			}
			for k := range r {
				r[k] /= s
			}
			if v := g(r, a, u, c); v > best+1e-9*math.Max(1, math.Abs(best)) {
				t.Fatalf("trial %d (K %d, c %g): a point scores %v > the solution's %v", trial, K, c, v, best)
			}
		}
	}
}
