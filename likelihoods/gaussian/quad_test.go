package gaussian

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestPhiTermQuad: the exact form's parts are those of DocELBO in φ_dv:
// PhiTerm = ρ − 2c(η·φ_dv)η at the current φ (the linearisation), and
// DocELBO restricted to φ_dv equals n_dv(ρ·φ_dv − c(η·φ_dv)²) up to a
// constant, checked by moving φ_dv to random points of the simplex.
func TestPhiTermQuad(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	K, L := 4, 6
	eta := []float64{0.3, -1.2, 2.5, 0.7}
	for _, p := range []Params{{Sigma2: 0.7, EstimateSigma2: true, L2: 0.01, Weight: 1}, {Sigma2: 0.01, L2: 0.01, Weight: 1, Intercept: true}} {
		r := newResp(t, p, K, eta, 0.4)
		ds := randDoc(rng, K, L, 1.3, 0.2)
		for j := 0; j < L; j++ {
			l := r.NewLocal().(*Local)
			l.Begin(ds)
			lin := make([]float64, K)
			l.PhiTerm(lin, ds, j)
			rho := make([]float64, K)
			c, u := l.PhiTermQuad(rho, ds, j)
			a := dot(u, ds.PhiRow(j))
			for k := range lin {
				if want := rho[k] - 2*c*a*u[k]; !near(lin[k], want, 1e-12, 1e-12) {
					t.Fatalf("word %d: PhiTerm[%d] = %v, ρ − 2c·t·η = %v", j, k, lin[k], want)
				}
			}
			n := ds.Doc.Counts[j]
			if want := (n - 1) / (2 * ds.Doc.N * ds.Doc.N * r.Sigma2); !near(c, want, 1e-12, 0) {
				t.Fatalf("word %d: c = %v, want %v", j, c, want)
			}
			// DocELBO(φ_dv = x) − n(ρ·x − c(η·x)²) does not depend on x.
			old := append([]float64(nil), ds.PhiRow(j)...)
			ref := math.NaN()
			for trial := 0; trial < 5; trial++ {
				row := ds.PhiRow(j)
				s := 0.0
				for k := range row {
					row[k] = rng.ExpFloat64()
					s += row[k]
				}
				for k := range row {
					row[k] /= s
				}
				ds.UpdatePhiBar()
				x := dot(u, row)
				val := r.DocELBO(ds) - n*(dot(rho, row)-c*x*x)
				if trial == 0 {
					ref = val
				} else if !near(val, ref, 1e-10, 1e-10) {
					t.Fatalf("word %d: DocELBO − n(ρ·φ − c(η·φ)²) = %v, then %v: not a constant", j, ref, val)
				}
			}
			copy(ds.PhiRow(j), old)
			ds.UpdatePhiBar()
		}
	}
	_ = framework.ErrBadInput
}

// The affine form (framework.PhiQuadraticAffine) is PhiTermQuad's: base +
// s·u equals ρ and QuadWord's c its c, for every word; QuadMoved moves
// η·s_d as WordChanged does. Fixed features: base 0, no u, s = c = 0.
func TestQuadAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 6))
	K, L := 4, 6
	eta := []float64{0.3, -1.2, 2.5, 0.7}
	for _, p := range []Params{{Sigma2: 0.7, EstimateSigma2: true, L2: 0.01, Weight: 1}, {Sigma2: 0.01, L2: 0.01, Weight: 1, Intercept: true}} {
		r := newResp(t, p, K, eta, 0.4)
		var _ framework.PhiQuadraticAffine = r.NewLocal().(*Local)
		ds := randDoc(rng, K, L, 1.3, 0.2)
		l := r.NewLocal().(*Local)
		l.Begin(ds)
		base := make([]float64, K)
		u := l.QuadBase(base, ds)
		for j := 0; j < L; j++ {
			rho := make([]float64, K)
			cq, uq := l.PhiTermQuad(rho, ds, j)
			s, c := l.QuadWord(ds, j, dot(u, ds.PhiRow(j)))
			if !near(c, cq, 1e-14, 0) {
				t.Fatalf("word %d: QuadWord's c = %v, PhiTermQuad's %v", j, c, cq)
			}
			for k := range rho {
				if uq[k] != u[k] || !near(base[k]+s*u[k], rho[k], 1e-12, 1e-12) {
					t.Fatalf("word %d: base + s·u = %v at %d, ρ = %v", j, base[k]+s*u[k], k, rho[k])
				}
			}
			row := ds.PhiRow(j)
			old := append([]float64(nil), row...)
			for k := range row {
				row[k] = old[(k+1)%K]
			}
			a := *l
			a.QuadMoved(ds, j, dot(u, old), 0, dot(u, row), 0)
			l.WordChanged(ds, j, old)
			if !near(a.es, l.es, 1e-13, 1e-13) {
				t.Fatalf("word %d: QuadMoved gives η·s %v, WordChanged %v", j, a.es, l.es)
			}
		}
	}
	r := newResp(t, Params{Sigma2: 0.7, L2: 0.01, Weight: 1}, K, eta, 0.4)
	r.fixed = true
	l := r.NewLocal().(*Local)
	ds := randDoc(rng, K, L, 1.3, 0.2)
	base := []float64{1, 2, 3, 4}
	if u := l.QuadBase(base, ds); u != nil || base[0] != 0 || base[3] != 0 {
		t.Fatalf("fixed features: QuadBase gives u %v, base %v", u, base)
	}
	if s, c := l.QuadWord(ds, 0, 0.5); s != 0 || c != 0 {
		t.Fatalf("fixed features: QuadWord = %v, %v", s, c)
	}
}
