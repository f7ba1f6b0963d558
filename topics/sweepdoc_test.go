package topics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// SweepDoc with a per-document term ρ̄ and weight w is the supervised
// sweep with ρ_dv = ρ̄ for every word (a linear term, under which the
// words' φ updates are independent given E[log θ_d]): the same φ, γ_d,
// E[log θ_d] and φ̄_d, and the same mean |Δγ|.
func TestSweepDocIsSweepWithConstantTerm(t *testing.T) {
	l, c := fixture(t, 4)
	rng := rand.New(rand.NewPCG(8, 9))
	K := l.K
	s1, s2 := l.NewScratch(), l.NewScratch()
	// The last documents are strongly supervised (w = 100, |w·term| up
	// to about 800): exp overflows and SweepDoc takes its log-space path,
	// which must carry the term too.
	for i := range 14 {
		doc := &c.Docs[i]
		term := make([]float64, K)
		for k := range term {
			term[k] = 2 * rng.NormFloat64()
		}
		rho := make([][]float64, doc.Len())
		for j := range rho {
			rho[j] = term
		}
		w := 0.5 + 3*rng.Float64()
		if i >= 10 {
			w = 100
			term[0], term[1] = 8, -8
		}
		a, b := framework.NewDocState(K, doc.Len()), framework.NewDocState(K, doc.Len())
		a.Bind(i, doc, nil)
		b.Bind(i, doc, nil)
		l.Start(a, nil)
		l.Start(b, nil)
		l.Sweep(a, nil, s1) // a common, non-uniform E[log θ]
		l.Sweep(b, nil, s2)
		ca := l.SweepDoc(a, term, w, s1)
		cb := l.SweepWeighted(b, linearSup{rho}, w, s2)
		for _, p := range []struct {
			name string
			x, y []float64
		}{{"φ", a.Phi, b.Phi}, {"γ", a.Gamma, b.Gamma}, {"E[log θ]", a.ElogTheta, b.ElogTheta}, {"φ̄", a.PhiBar, b.PhiBar}} {
			for k := range p.x {
				if math.Abs(p.x[k]-p.y[k]) > 1e-12*(1+math.Abs(p.y[k])) {
					t.Fatalf("document %d, w %.3g: SweepDoc's %s[%d] = %.15g, the supervised sweep's %.15g", i, w, p.name, k, p.x[k], p.y[k])
				}
			}
		}
		if math.Abs(ca-cb) > 1e-12*(1+cb) {
			t.Errorf("document %d: mean |Δγ| %.15g against %.15g", i, ca, cb)
		}
	}
}
