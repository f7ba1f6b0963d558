package softmax

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
)

// testRegistry has the softmax response, the perfect annotator and the
// batch schedule.
func testRegistry() *framework.Registry {
	reg := framework.NewRegistry()
	reg.RegisterLikelihood("softmax", New)
	reg.RegisterNoise("perfect", newPerfect)
	reg.RegisterSchedule("batch", func(p framework.Params) (framework.Schedule, error) {
		b := optim.DefaultBatch()
		if err := p.Decode(&b); err != nil {
			return nil, err
		}
		return &b, b.Validate()
	})
	return reg
}

const sldaConfig = `
seed = 3
workers = 2
topics {
  k = 4
  alpha = 0.2
  tau = 0.05
}
response "softmax" {
  l2 = 0.01
  max_iters = 30
  svi_iters = 3
}
annotators "perfect" {}
inference "batch" {
  max_iters = 5
  tol = 0
}
`

// Test 5: a model configured in HCL, built through a registry, trained,
// saved and loaded back predicts exactly as before (η through Persister).
func TestBuildSaveLoadRoundTrip(t *testing.T) {
	data := newSLDAData(t, 8, 120, 40, 100, 4, 3, 40, 10, nil)
	reg := testRegistry()
	cfg, err := models.ParseConfig([]byte(sldaConfig), "slda.hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, reg, data.train)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	s := run.Model.Response.(*Softmax)
	if s.Mu != 0.01 || s.maxIters != 30 || s.sviIters != 3 {
		t.Errorf("parameters from the configuration: μ %v max_iters %d svi_iters %d", s.Mu, s.maxIters, s.sviIters)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := run.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	saved, err := models.Load(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	ls := saved.Model.Response.(*Softmax)
	for i := range s.Eta {
		if s.Eta[i] != ls.Eta[i] {
			t.Fatalf("η saved %v, loaded %v", s.Eta, ls.Eta)
		}
	}
	p1, err := run.Model.Predict(context.Background(), data.test)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := saved.Model.Predict(context.Background(), data.test)
	if err != nil {
		t.Fatal(err)
	}
	for d := range p1 {
		a, b := p1[d].Target.(*framework.Categorical).P, p2[d].Target.(*framework.Categorical).P
		for l := range a {
			if a[l] != b[l] {
				t.Fatalf("document %d: predicted %v before saving, %v after loading", d, a, b)
			}
		}
	}
}

func initSoftmax(t *testing.T, C, K int) *Softmax {
	t.Helper()
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(&framework.Setup{K: K, Classes: make([]string, C)}); err != nil {
		t.Fatal(err)
	}
	return r.(*Softmax)
}

// Test 5: SaveParams/LoadParams, and LoadParams' errors.
func TestPersister(t *testing.T) {
	s := initSoftmax(t, 3, 2)
	copy(s.Eta, []float64{1, -2, 3.5, 0, -1e-300, 7})
	good, r := roundTrip(t, s)
	for i := range s.Eta {
		if s.Eta[i] != r.Eta[i] {
			t.Fatalf("loaded %v, saved %v", r.Eta, s.Eta)
		}
	}
	nan := append([]byte(nil), good...)
	copy(nan[len(nan)-8:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // NaN
	for _, c := range []struct {
		name string
		into *Softmax
		data []byte
		want string
	}{
		{"other dimensions", initSoftmax(t, 2, 2), good, "η is 3×2 (classes × topics) but the model has 2 classes and 2 topics"},
		{"bad header", initSoftmax(t, 3, 2), []byte("MASLDAz1xxxxxxxxxxxxxxxx"), "bad header"},
		{"empty", initSoftmax(t, 3, 2), nil, "bad header"},
		{"truncated", initSoftmax(t, 3, 2), good[:len(good)-3], "truncated η"},
		{"trailing data", initSoftmax(t, 3, 2), append(append([]byte(nil), good...), 1), "unexpected data after η"},
		{"NaN", initSoftmax(t, 3, 2), nan, "η[2][1] = NaN"},
	} {
		err := c.into.LoadParams(bytes.NewReader(c.data))
		if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrBadInput mentioning %q", c.name, err, c.want)
		}
	}
	var fresh Softmax
	if err := fresh.LoadParams(bytes.NewReader(good)); !errors.Is(err, framework.ErrNotTrained) {
		t.Errorf("LoadParams before Init: %v", err)
	}
}

// Test 5: bad parameters and setups give clear errors wrapping ErrBadInput.
func TestBadParams(t *testing.T) {
	neg, inf := -0.5, math.Inf(1)
	for _, c := range []struct {
		name string
		p    framework.Params
		want string
	}{
		{"l2 < 0", framework.ParamsFunc(func(into any) error { into.(*Params).L2 = &neg; return nil }), "softmax l2 = -0.5, want a finite number ≥ 0"},
		{"l2 infinite", framework.ParamsFunc(func(into any) error { into.(*Params).L2 = &inf; return nil }), "softmax l2 = +Inf"},
		{"max_iters < 0", framework.ParamsFunc(func(into any) error { into.(*Params).MaxIters = -1; return nil }), "softmax max_iters = -1"},
		{"svi_iters < 0", framework.ParamsFunc(func(into any) error { into.(*Params).SVIIters = -2; return nil }), "softmax svi_iters = -2"},
		{"grad_tol < 0", framework.ParamsFunc(func(into any) error { into.(*Params).GradTol = -1e-5; return nil }), "softmax grad_tol = -1e-05, want a finite number > 0"},
		{"grad_tol NaN", framework.ParamsFunc(func(into any) error { into.(*Params).GradTol = math.NaN(); return nil }), "softmax grad_tol = NaN"},
		{"unknown bound", framework.ParamsFunc(func(into any) error { into.(*Params).Bound = "jensen"; return nil }), `softmax bound = "jensen"; valid: product, quadratic`},
		{"decoder error", framework.ParamsFunc(func(any) error { return errors.New(`unknown key "l3"`) }), `unknown key "l3"`},
	} {
		_, err := New(c.p)
		if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrBadInput mentioning %q", c.name, err, c.want)
		}
	}
	// Real HCL decoding through models.ParseConfig and a registry: an
	// unknown key lists the valid ones; a negative l2 is refused.
	reg := testRegistry()
	for _, c := range []struct{ block, want string }{
		{`response "softmax" { l3 = 1 }`, "Valid: bound, gain_tol, grad_tol, l2, max_iters, mstep, precondition, svi_iters"},
		{"response \"softmax\" {\n  l2 = -1\n}", "softmax l2 = -1"},
		{"response \"softmax\" {\n  max_iters = \"many\"\n}", "a number is required"},
	} {
		cfg, err := models.ParseConfig([]byte(c.block), "bad.hcl")
		if err != nil {
			t.Fatal(err)
		}
		_, err = reg.Likelihood(cfg.Response.Name, cfg.Response.Params)
		if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrBadInput mentioning %q", c.block, err, c.want)
		}
	}
	// Init refuses a setup without (enough) classes.
	for _, c := range []struct {
		classes []string
		k       int
		want    string
	}{
		{nil, 3, "the softmax response needs class names: give answers"},
		{[]string{"only"}, 3, `needs at least 2 classes, got 1 ("only")`},
		{[]string{"a", "b"}, 0, "0 topics"},
	} {
		r, err := New(nil)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Init(&framework.Setup{K: c.k, Classes: c.classes})
		if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Init(classes %q, k %d): error %v, want ErrBadInput mentioning %q", c.classes, c.k, err, c.want)
		}
	}
	// Defaults: μ = 1/D, 50 and 5 iterations, gradient tolerance 1e-5.
	r, _ := New(nil)
	c := &framework.Corpus{V: 3, Docs: make([]framework.Doc, 8)}
	if err := r.Init(&framework.Setup{K: 2, Classes: []string{"a", "b"}, Corpus: c}); err != nil {
		t.Fatal(err)
	}
	if s := r.(*Softmax); s.Mu != 1.0/8 || s.maxIters != DefaultMaxIters || s.sviIters != DefaultSVIIters || s.gradTol != 1e-5 {
		t.Errorf("defaults: μ %v max_iters %d svi_iters %d grad_tol %v", s.Mu, s.maxIters, s.sviIters, s.gradTol)
	}
}

// TestMStepParams: mstep = "mm" needs the quadratic bound and l2 > 0;
// other values are refused with the valid ones.
func TestMStepParams(t *testing.T) {
	zero := 0.0
	for _, tc := range []struct {
		name string
		p    Params
		want string
	}{
		{"unknown", Params{MStep: "newton"}, `softmax mstep = "newton"; valid: lbfgs, mm`},
		{"product bound", Params{MStep: "mm"}, `softmax mstep = "mm" needs bound = "quadratic"`},
		{"no penalty", Params{MStep: "mm", Bound: "quadratic", L2: &zero}, `softmax mstep = "mm" needs l2 > 0`},
	} {
		err := tc.p.Validate()
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrBadInput mentioning %q", tc.name, err, tc.want)
		}
	}
	if err := (Params{MStep: "mm", Bound: "quadratic"}).Validate(); err != nil {
		t.Errorf("mm with the quadratic bound: %v", err)
	}
}

// A chosen text_l2 is saved after η (MASLDAs2) and read back; a
// truncated or negative one is a clear error, never a panic.
func TestPersisterTunedTextL2(t *testing.T) {
	s := initSoftmax(t, 3, 2)
	copy(s.Eta, []float64{1, -2, 3.5, 0, 1, 7})
	s.MuText, s.tuned = 10, true
	good, r := roundTrip(t, s)
	if r.MuText != 10 || !r.tuned {
		t.Errorf("loaded text_l2 %v (tuned %v), want 10", r.MuText, r.tuned)
	}
	neg := append([]byte(nil), good...)
	binary.LittleEndian.PutUint64(neg[len(neg)-8:], math.Float64bits(-1))
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)-3], "text_l2 missing after η"},
		{"negative", neg, "text_l2 = -1"},
	} {
		err := initSoftmax(t, 3, 2).LoadParams(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// roundTrip saves s's parameters and loads them into a fresh softmax of
// 3 classes and 2 topics; it returns the saved bytes and the loaded model.
func roundTrip(t *testing.T, s *Softmax) ([]byte, *Softmax) {
	t.Helper()
	var buf bytes.Buffer
	if err := s.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	r := initSoftmax(t, 3, 2)
	if err := r.LoadParams(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	return good, r
}
