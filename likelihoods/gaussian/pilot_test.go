package gaussian

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestExactPilot: the exact pilot (Params.ExactIters). Before EndPilot the
// weight in use is 1 and σ² is estimated; EndPilot holds σ² at its estimate
// σ̂² and sets the weight to w₂ = w·σ̂²/σ₀² (at least 1), after which the
// M-step leaves σ² alone, PilotIters is 0 and η, b are back at Init's. w₂ times the supervision
// term at σ̂² equals w times the term at σ² = σ₀² for every word (the
// φ update of the weighted stage is that of a fit with σ² fixed at σ₀²).
// Without a pilot (w = 1, σ² fixed, exact_iters = 0, fixed features)
// PilotIters is 0, Start changes nothing and the weight is the configured
// one.
func TestExactPilot(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	K, L := 4, 7
	eta := []float64{0.3, -1.2, 2.5, 0.7}
	p := Params{Sigma2: 2.5, EstimateSigma2: true, L2: 0.01, Weight: 100, ExactIters: 3, Intercept: true}
	r := newResp(t, p, K, eta, 0.4)
	if r.Sigma0 != 2.5 || r.SupervisionWeight() != 1 || r.PilotIters() != 3 {
		t.Fatalf("before the start: σ₀² %v, weight %v, PilotIters %d; want 2.5, 1, 3", r.Sigma0, r.SupervisionWeight(), r.PilotIters())
	}
	st, docs := accumulated(t, r, rng, 40)
	if err := r.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	s2 := r.Sigma2
	if s2 == 2.5 {
		t.Fatal("σ² not estimated in the exact pilot")
	}
	// PilotDone: from the second M-step on, when σ² moved by at most
	// exact_tol (relative); never with exact_tol 0.
	if r.PilotDone() {
		t.Error("PilotDone after one M-step")
	}
	if err := r.Update(context.Background(), st, framework.BatchStep(2)); err != nil { // the same statistics: σ² stays
		t.Fatal(err)
	}
	if r.PilotDone() || r.Sigma2 != s2 {
		t.Errorf("exact_tol 0: PilotDone %v (σ² %v → %v)", r.PilotDone(), s2, r.Sigma2)
	}
	r.Config.ExactTol = 1e-9
	if !r.PilotDone() {
		t.Error("exact_tol 1e-9, σ² unchanged: not PilotDone")
	}
	// The reference: the supervision term at σ² = σ₀² times w.
	ref := make([][]float64, L)
	r.Sigma2 = r.Sigma0
	ds := randDoc(rng, K, L, 1.3, 0.2)
	for j := range ref {
		l := r.NewLocal()
		l.Begin(ds)
		ref[j] = make([]float64, K)
		l.PhiTerm(ref[j], ds, j)
	}
	r.Sigma2 = s2
	etaM, bM := append([]float64(nil), r.Eta...), r.B
	if err := r.EndPilot(); err != nil {
		t.Fatal(err)
	}
	w2 := 100 * s2 / 2.5
	if !equal(r.Eta, r.eta0) || r.B != r.b0 || bM == r.b0 {
		t.Errorf("after the pilot: η %v, b %v; want Init's %v, %v", r.Eta, r.B, r.eta0, r.b0)
	}
	copy(r.Eta, etaM) // the supervision terms below compare at the M-step's η
	r.B = bM
	if !r.Held || !near(r.SupervisionWeight(), max(1, w2), 1e-15, 0) || r.PilotIters() != 0 || r.PilotDone() {
		t.Fatalf("after the start: held %v, weight %v (want %v), PilotIters %d", r.Held, r.SupervisionWeight(), max(1, w2), r.PilotIters())
	}
	if !(w2 > 1) {
		t.Fatalf("w₂ = %v: the fixture should give a weight above 1", w2)
	}
	{
		for j := range ref {
			l := r.NewLocal()
			l.Begin(ds)
			got := make([]float64, K)
			l.PhiTerm(got, ds, j)
			for k := range got {
				if a, b := r.SupervisionWeight()*got[k], 100*ref[j][k]; !near(a, b, 1e-12, 1e-14) {
					t.Fatalf("word %d topic %d: w₂·ρ(σ̂²) = %v, w·ρ(σ₀²) = %v", j, k, a, b)
				}
			}
		}
	}
	st2 := r.NewStats()
	for _, d := range docs {
		d.Target.(*framework.Gaussian).Mean += 0.7 // other residuals: an estimate would move
		r.Accumulate(st2, d)
	}
	if err := r.Update(context.Background(), st2, framework.BatchStep(3)); err != nil {
		t.Fatal(err)
	}
	if r.Sigma2 != s2 {
		t.Errorf("σ² moved after the start: %v → %v", s2, r.Sigma2)
	}
	if err := r.EndPilot(); err != nil || r.SupervisionWeight() != max(1, w2) {
		t.Errorf("a second EndPilot changed the weight to %v (err %v)", r.SupervisionWeight(), err)
	}
	// The held state survives SaveParams/LoadParams; a saved model from
	// before the start (or without a stage) loads unheld.
	var buf bytes.Buffer
	if err := r.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	q := newResp(t, p, K, nil, 0)
	if err := q.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if !q.Held || q.SupervisionWeight() != r.SupervisionWeight() || q.PilotIters() != 0 || q.Sigma2 != s2 {
		t.Errorf("loaded: held %v, weight %v, PilotIters %d, σ² %v; want true, %v, 0, %v", q.Held, q.SupervisionWeight(), q.PilotIters(), q.Sigma2, r.SupervisionWeight(), s2)
	}
	bad := strings.Replace(buf.String(), `"weight": `, `"weight": -`, 1)
	if err := q.LoadParams(strings.NewReader(bad)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("held with a negative weight: err = %v, want ErrBadInput", err)
	}
	u := newResp(t, p, K, eta, 0.4)
	buf.Reset()
	if err := u.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "held") || strings.Contains(buf.String(), "weight") {
		t.Errorf("saved before the start: %s", buf.String())
	}
	for name, p := range map[string]Params{
		"w = 1":            {Sigma2: 1, EstimateSigma2: true, Weight: 1, ExactIters: 3},
		"σ² fixed":         {Sigma2: 1, Weight: 100, ExactIters: 3},
		"exact_iters = 0":  {Sigma2: 1, EstimateSigma2: true, Weight: 100, ExactTol: 0.01},
		"weight 0 (w = 1)": {Sigma2: 1, EstimateSigma2: true, ExactIters: 3},
	} {
		r := newResp(t, p, K, eta, 0)
		want := max(1, p.Weight)
		if r.PilotIters() != 0 || r.SupervisionWeight() != want {
			t.Errorf("%s: PilotIters %d, weight %v; want 0, %v", name, r.PilotIters(), r.SupervisionWeight(), want)
		}
		if err := r.EndPilot(); err != nil || r.Held || r.SupervisionWeight() != want {
			t.Errorf("%s: Start: held %v, weight %v, err %v", name, r.Held, r.SupervisionWeight(), err)
		}
	}
	lr, err := NewLinReg(Params{Sigma2: 1, EstimateSigma2: true, Weight: 100, ExactIters: 3})
	if err != nil {
		t.Fatal(err)
	}
	if lr.PilotIters() != 0 || lr.SupervisionWeight() != 1 {
		t.Errorf("linreg: PilotIters %d, weight %v", lr.PilotIters(), lr.SupervisionWeight())
	}
	for _, p := range []Params{{Sigma2: 1, ExactIters: -1}, {Sigma2: 1, ExactTol: -1}, {Sigma2: 1, ExactTol: math.NaN()}, {Sigma2: 1, ExactTol: math.Inf(1)}} {
		if _, err := New(p); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%+v: err = %v, want ErrBadInput", p, err)
		}
	}
}
