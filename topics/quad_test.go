package topics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
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
		p, tmp, ref := make([]float64, K), make([]float64, K), make([]float64, K)
		solveQuadratic(p, a, c, u, u[rng.IntN(K)], tmp, ref, false)
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

// quadSup is a supervision term with an exact quadratic part
// (framework.PhiQuadratic): word j adds ρ_jk = x_j·u_k + h_k and returns
// (c_j, u).
type quadSup struct {
	x, c []float64
	u, h []float64
}

func (q *quadSup) Begin(*framework.DocState)      {}
func (q *quadSup) TargetTerm(*framework.DocState) {}
func (q *quadSup) PhiTerm(dst []float64, d *framework.DocState, j int) {
	c, u := q.PhiTermQuad(dst, d, j)
	t := dot(u, d.PhiRow(j))
	for k := range dst {
		dst[k] -= 2 * c * t * u[k]
	}
}
func (q *quadSup) WordChanged(*framework.DocState, int, []float64) {}
func (q *quadSup) PhiTermQuad(dst []float64, d *framework.DocState, j int) (float64, []float64) {
	for k := range dst {
		dst[k] += q.x[j]*q.u[k] + q.h[k]
	}
	return q.c[j], q.u
}

// affineSup is quadSup as a framework.PhiQuadraticAffine (base h, s_j =
// x_j); QuadMoved checks the moments it is given against the row.
type affineSup struct {
	*quadSup
	t     *testing.T
	moved int
}

func (a *affineSup) QuadBase(dst []float64, d *framework.DocState) []float64 {
	copy(dst, a.h)
	return a.u
}
func (a *affineSup) QuadWord(d *framework.DocState, j int, t float64) (float64, float64) {
	if want := dot(a.u, d.PhiRow(j)); math.Abs(t-want) > 1e-13*(1+math.Abs(want)) {
		a.t.Fatalf("QuadWord(%d): t = %v, u·φ = %v", j, t, want)
	}
	return a.x[j], a.c[j]
}
func (a *affineSup) QuadMoved(d *framework.DocState, j int, t0, q0, t1, q1 float64) {
	a.moved++
	row := d.PhiRow(j)
	wq := 0.0
	for k, p := range row {
		wq += p * a.u[k] * a.u[k]
	}
	if wt := dot(a.u, row); math.Abs(t1-wt) > 1e-13*(1+math.Abs(wt)) || math.Abs(q1-wq) > 1e-13*(1+wq) {
		a.t.Fatalf("QuadMoved(%d): t1, q1 = %v, %v; the row's %v, %v", j, t1, q1, wt, wq)
	}
}

// TestSweepQuadIsExact: every word's φ after a supervised sweep with an
// exact quadratic part is the stationary point softmax(a − 2w·c·t·u),
// t = u·φ, a = E[log θ] + E[log β_v] + w·ρ, whether the words' supervised
// exponents are close to each other (one set of exponentials for the
// sweep, the rest Taylor polynomials), far apart (exponentials word by
// word), or so negative that the products underflow (log space), or
// when u is constant (no Newton step); and words with c = 0 get
// softmax(a).
func TestSweepQuadIsExact(t *testing.T) {
	l, c := fixture(t, 6)
	s := l.NewScratch()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name          string
		spread, shift float64
		weight        float64
		flat          bool // u constant: no Newton step
		opposed       bool // base and s·u large and opposed: sweepAffine's factors underflow (log space)
	}{{"close", 1e-6, 0, 1, false, false}, {"close, w = 50", 1e-7, 0, 50, false, false}, {"far", 1, 0, 1, false, false}, {"far, w = 3", 0.5, 0, 3, false, false},
		{"underflow", 1e-6, -800, 1, false, false}, {"u constant", 1e-6, 0, 2, true, false}, {"opposed", 1e-6, 0, 1, false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range c.Docs[:8] {
				doc := &c.Docs[i]
				ds := framework.NewDocState(l.K, doc.Len())
				ds.Bind(i, doc, nil)
				l.Start(ds, nil)
				l.Sweep(ds, nil, s)
				q := &quadSup{u: make([]float64, l.K), h: make([]float64, l.K)}
				for k := range q.u {
					q.u[k] = rng.NormFloat64()
					if tc.flat {
						q.u[k] = 0.7
					}
					q.h[k] = 0.3*rng.NormFloat64() + tc.shift
				}
				x0 := rng.NormFloat64()
				if tc.opposed {
					for k := range q.u {
						q.u[k], q.h[k] = 1+0.1*q.u[k], -350+q.h[k]
					}
					q.u[0], q.h[0] = -1, 350
					x0 = 400
				}
				for j := range doc.Words {
					q.x = append(q.x, x0+tc.spread*rng.NormFloat64())
					cj := 0.0
					if j%3 != 0 {
						cj = math.Pow(10, -3+4*rng.Float64())
					}
					q.c = append(q.c, cj)
				}
				phi0 := append([]float64(nil), ds.Phi...)
				l.sweepPhi(ds, q, tc.weight, s) // E[log θ] and γ as they were
				check(t, l, ds, q, i, tc.weight)
				quadPhi, quadLogs := append([]float64(nil), ds.Phi...), append([]float64(nil), ds.Logs.C...)
				// The same sweep by sweepAffine: the same maximisers.
				copy(ds.Phi, phi0)
				as := &affineSup{quadSup: q, t: t}
				l.sweepPhi(ds, as, tc.weight, s)
				if as.moved != len(doc.Words) {
					t.Fatalf("doc %d: QuadMoved called %d times for %d words", i, as.moved, len(doc.Words))
				}
				check(t, l, ds, q, i, tc.weight)
				for k, p := range ds.Phi {
					if math.Abs(p-quadPhi[k]) > 1e-12 {
						t.Fatalf("doc %d: sweepAffine's φ[%d] = %v, sweepQuad's %v", i, k, p, quadPhi[k])
					}
				}
				for j, c := range ds.Logs.C {
					if math.Abs(c-quadLogs[j]) > 1e-11*(1+math.Abs(c)) {
						t.Fatalf("doc %d word %d: sweepAffine's PhiLogs c = %v, sweepQuad's %v", i, j, c, quadLogs[j])
					}
				}
			}
		})
	}
}

// check is TestSweepQuadIsExact's test of one document after a sweep.
func check(t *testing.T, l *Layer, ds *framework.DocState, q *quadSup, i int, weight float64) {
	t.Helper()
	// DocELBO from the sweep's normalisers (softmaxRowLogs).
	if want := l.thetaELBO(ds.Gamma, ds.ElogTheta) + l.wordsWithLogs(ds); !ds.Logs.Valid || math.Abs(l.DocELBO(ds)-want) > 1e-12*math.Abs(want) {
		t.Errorf("doc %d: Logs valid %v, DocELBO %v, with logarithms %v", i, ds.Logs.Valid, l.DocELBO(ds), want)
	}
	for j, w := range ds.Doc.Words {
		row := ds.PhiRow(j)
		tt := dot(q.u, row)
		logit, want := make([]float64, l.K), make([]float64, l.K)
		for k := range logit {
			rho := q.x[j]*q.u[k] + q.h[k]
			logit[k] = ds.ElogTheta[k] + l.ElogBeta[int(w)*l.K+k] + weight*rho - 2*weight*q.c[j]*tt*q.u[k]
		}
		softmaxInto(want, logit)
		for k, p := range row {
			// The root t is found to 1e-14 (solveQuadratic), which moves
			// the logits by up to 2w·c·|u|·1e-14.
			if math.Abs(p-want[k]) > 1e-13*max(1, 2*weight*q.c[j]*10) {
				t.Fatalf("doc %d word %d (c %g): φ_%d = %v, stationary point %v", i, j, q.c[j], k, p, want[k])
			}
		}
	}
}

// TestSweepAffineTaylor: sweepAffine's evaluations away from their
// reference λ (the degree-2 polynomial up to |Δλ|·max|u| = 1e-6, degree 4
// up to taylorMax) give every word's φ to within 1e-14 of the exact softmax,
// relative to each component: words with c = 0 (one evaluation, λ = w·s)
// whose s moves from the first word's by 1e-9 to 1e-3 over max|u|.
func TestSweepAffineTaylor(t *testing.T) {
	l, c := fixture(t, 6)
	s := l.NewScratch()
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range c.Docs[:6] {
		doc := &c.Docs[i]
		L := len(doc.Words)
		if L < 8 {
			continue
		}
		ds := framework.NewDocState(l.K, L)
		ds.Bind(i, doc, nil)
		l.Start(ds, nil)
		l.Sweep(ds, nil, s)
		q := &quadSup{u: make([]float64, l.K), h: make([]float64, l.K), c: make([]float64, L)}
		scale := 0.0
		for k := range q.u {
			q.u[k], q.h[k] = rng.NormFloat64(), rng.NormFloat64()
			scale = max(scale, math.Abs(q.u[k]))
		}
		x0 := 2 * rng.NormFloat64()
		for j := range L {
			q.x = append(q.x, x0)
			if j > 0 { // |Δλ|·scale from 1e-9 to 1e-3, alternating in sign
				d := math.Pow(10, -9+6*float64(j-1)/float64(L-2)) / scale
				if j%2 == 0 {
					d = -d
				}
				q.x[j] += d
			}
		}
		const w = 1.5
		l.sweepPhi(ds, &affineSup{quadSup: q, t: t}, w, s)
		for j, v := range doc.Words {
			logit, want := make([]float64, l.K), make([]float64, l.K)
			for k := range logit {
				logit[k] = ds.ElogTheta[k] + l.ElogBeta[int(v)*l.K+k] + w*(q.x[j]*q.u[k]+q.h[k])
			}
			softmaxInto(want, logit)
			for k, p := range ds.PhiRow(j) {
				if math.Abs(p-want[k]) > 1e-14*want[k] {
					t.Fatalf("doc %d word %d (|Δλ|·max|u| %.1e): φ_%d = %.17g, softmax %.17g (relative error %.1e)", i, j, w*math.Abs(q.x[j]-x0)*scale, k, p, want[k], math.Abs(p-want[k])/want[k])
				}
			}
		}
	}
}
