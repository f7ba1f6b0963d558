package gaussian

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestFixedFeatures: NewLinReg is the regression on point features. Its
// statistics hold Σ_d φ̄_d φ̄_dᵀ (not E[z̄z̄ᵀ]), its ELBO is the sum of its
// DocELBOs with (η·φ̄)² as the second moment, it adds no supervision term
// and leaves the local cache alone, it says FixedFeatures, and its name is
// in its messages and saved format; New's response says the opposite.
func TestFixedFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	g, err := New(Params{Sigma2: 1})
	if err != nil {
		t.Fatal(err)
	}
	if g.FixedFeatures() {
		t.Error("New: FixedFeatures() = true, want false")
	}
	p := Params{Sigma2: 0.7, L2: 0.2, Intercept: true}
	r, err := NewLinReg(p)
	if err != nil {
		t.Fatal(err)
	}
	if !r.FixedFeatures() {
		t.Error("NewLinReg: FixedFeatures() = false, want true")
	}
	if err := r.Init(&framework.Setup{K: 3}); err != nil {
		t.Fatal(err)
	}
	copy(r.Eta, []float64{1.5, -0.5, 2})
	r.B = 0.25
	s := r.NewStats().(*Stats)
	sum := 0.0
	loc := r.NewLocal()
	zz := make([]float64, 9)
	for i := 0; i < 12; i++ {
		d := randDoc(rng, 3, 1+rng.IntN(4), rng.NormFloat64(), 0.3)
		loc.Begin(d)
		dst := []float64{7, 8, 9}
		loc.PhiTerm(dst, d, 0)
		if dst[0] != 7 || dst[1] != 8 || dst[2] != 9 {
			t.Fatalf("PhiTerm changed dst to %v; fixed features add nothing", dst)
		}
		r.Accumulate(s, d)
		// Σ φ̄φ̄ᵀ on the upper triangle.
		for a := 0; a < 3; a++ {
			for b := a; b < 3; b++ {
				zz[a*3+b] += d.PhiBar[a] * d.PhiBar[b]
			}
		}
		sum += r.DocELBO(d)
		// Point features: the document's residual uses (η·φ̄)².
		m, v := d.Target.(*framework.Gaussian).Mean, d.Target.(*framework.Gaussian).Var
		ep := dot(r.Eta, d.PhiBar) + r.B
		want := -0.5*math.Log(2*math.Pi*r.Sigma2) - ((m-ep)*(m-ep)+v)/(2*r.Sigma2) + 0.5*math.Log(2*math.Pi*math.E*v)
		if got := r.DocELBO(d); !near(got, want, 1e-13, 1e-13) {
			t.Errorf("doc %d: DocELBO = %.15g, want %.15g", i, got, want)
		}
	}
	for i, x := range zz {
		if !near(s.ZZ[i], x, 1e-14, 1e-15) {
			t.Errorf("ZZ[%d] = %.15g, Σ φ̄φ̄ᵀ = %.15g", i, s.ZZ[i], x)
		}
	}
	pen := 0.2 * dot(r.Eta, r.Eta) / (2 * 0.7)
	if got := r.ELBO(s, framework.BatchStep(1)); !near(got, sum-pen, 1e-12, 1e-10) {
		t.Errorf("ELBO(stats) = %.12g, Σ DocELBO − penalty = %.12g", got, sum-pen)
	}
	if _, err := NewLinReg(Params{Sigma2: 0}); err == nil || !strings.Contains(err.Error(), "response linreg: sigma2 = 0") {
		t.Errorf("NewLinReg with σ² = 0: err = %v, want one naming response linreg", err)
	}
	var buf strings.Builder
	if err := r.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"maslda-linreg"`) {
		t.Errorf("saved parameters %s: want format maslda-linreg", buf.String())
	}
	if err := g.Init(&framework.Setup{K: 3}); err != nil {
		t.Fatal(err)
	}
	if err := g.LoadParams(strings.NewReader(buf.String())); err == nil {
		t.Error("the gaussian response loaded linreg's parameters; want a format error")
	}
}

// TestDefaultRidgeBoundsAnUnusedTopic: a topic that almost no training
// document uses has an undetermined coefficient without a ridge: here one
// document of 201 gives it 1% of its words and has an outlying target, and
// the unpenalised M-step lets the topic explain that outlier with a large
// coefficient (the movie-review SVI run of the package documentation had
// −16.5), which a test document using the topic inherits. The default
// ridge keeps it small while the used topics' coefficients move by less
// than 0.5%.
func TestDefaultRidgeBoundsAnUnusedTopic(t *testing.T) {
	fit := func(p Params) []float64 {
		rng := rand.New(rand.NewPCG(31, 32))
		r := newResp(t, p, 3, []float64{0, 0, 0}, 0)
		s := r.NewStats().(*Stats)
		for i := 0; i <= 200; i++ {
			d := randDoc(rng, 3, 1+rng.IntN(6), 0, 0.01)
			share := 0.0
			if i == 200 {
				share = 0.01
			}
			for j := range d.Doc.Counts {
				row := d.PhiRow(j)
				z := row[0] + row[1]
				row[0], row[1], row[2] = (1-share)*row[0]/z, (1-share)*row[1]/z, share
			}
			d.UpdatePhiBar()
			m := d.PhiBar[0] + 2*d.PhiBar[1] + 0.1*rng.NormFloat64()
			if i == 200 {
				m = 5 // the outlier the unused topic can explain
			}
			d.Target.(*framework.Gaussian).Mean = m
			r.Accumulate(s, d)
		}
		if err := r.Update(t.Context(), s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		return r.Eta
	}
	noRidge := fit(Params{Sigma2: 1})
	def := fit(Defaults())
	t.Logf("η without ridge %v, with the default %v", noRidge, def)
	if math.Abs(noRidge[2]) < 10 {
		t.Fatalf("without a ridge the unused topic's η = %v: want |η| ≥ 10, the test's premise", noRidge[2])
	}
	if math.Abs(def[2]) > math.Abs(noRidge[2])/4 {
		t.Errorf("default ridge: unused topic's η = %v, want at most a quarter of the unpenalised %v", def[2], noRidge[2])
	}
	for k := 0; k < 2; k++ {
		if math.Abs(def[k]-noRidge[k]) > 5e-3*math.Abs(noRidge[k]) {
			t.Errorf("default ridge: used topic's η[%d] = %v, want within 0.5%% of the unpenalised %v", k, def[k], noRidge[k])
		}
	}
}
