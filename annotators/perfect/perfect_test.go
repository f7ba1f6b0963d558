package perfect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
)

func cat(classes ...int32) []framework.Answer {
	out := make([]framework.Answer, len(classes))
	for i, c := range classes {
		out[i] = framework.Answer{Annotator: int32(i), Class: c, Value: float64(c)}
	}
	return out
}

func num(values ...float64) []framework.Answer {
	out := make([]framework.Answer, len(values))
	for i, v := range values {
		out[i] = framework.Answer{Annotator: int32(i), Class: -1, Value: v}
	}
	return out
}

func newModel(t *testing.T, p Params, s *framework.Setup) *Model {
	t.Helper()
	m, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMajorityWeights(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []framework.Answer
		want    []float64
		ok      bool
	}{
		{"no answers", nil, []float64{0, 0, 0, 0}, false},
		{"one answer", cat(2), []float64{0, 0, 1, 0}, true},
		{"majority", cat(1, 3, 1), []float64{0, 1, 0, 0}, true},
		{"two-way tie", cat(0, 3, 3, 0, 2), []float64{0.5, 0, 0, 0.5}, true},
		{"three-way tie", cat(2, 0, 1), []float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 0}, true},
		{"out-of-range class ignored", cat(7, 1), []float64{0, 1, 0, 0}, true},
		{"only out-of-range classes", cat(7, -1), []float64{0, 0, 0, 0}, false},
	} {
		got := []float64{9, 9, 9, 9}
		ok := MajorityWeights(got, tc.answers)
		if ok != tc.ok || !cmp.Equal(got, tc.want, cmpopts.EquateApprox(0, 1e-15)) {
			t.Errorf("%s: MajorityWeights = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestEvidenceCategorical: the target is clamped to a single majority class
// whatever the prior message; a tie keeps the response's preferences among
// the tied classes only; no answers leave the prior message alone. DocELBO
// is Σ_l λ_l log w_l.
func TestEvidenceCategorical(t *testing.T) {
	m := newModel(t, Defaults(), &framework.Setup{Classes: []string{"a", "b", "c"}})
	if err := m.Accepts(framework.NewCategorical(3)); err != nil {
		t.Fatal(err)
	}
	prior := []float64{4, -1, 0.5} // η_l·φ̄_d, strongly for class a
	softmax := func(idx ...int) []float64 {
		out := make([]float64, 3)
		s := 0.0
		for _, l := range idx {
			out[l] = math.Exp(prior[l])
			s += out[l]
		}
		for l := range out {
			out[l] /= s
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		answers []framework.Answer
		want    []float64
		elbo    float64
	}{
		{"single majority against the prior", cat(1, 1, 2), []float64{0, 1, 0}, 0},
		{"one answer", cat(2), []float64{0, 0, 1}, 0},
		{"tie b/c", cat(1, 2), softmax(1, 2), -math.Log(2)},
		{"three-way tie", cat(0, 1, 2), softmax(0, 1, 2), -math.Log(3)},
		{"no answers", nil, softmax(0, 1, 2), 0},
	} {
		d := &framework.DocState{Answers: tc.answers, Target: framework.NewCategorical(3)}
		tg := d.Target.(*framework.Categorical)
		copy(tg.Log, prior)
		m.Evidence(d)
		tg.Finalize()
		if !cmp.Equal(tg.P, tc.want, cmpopts.EquateApprox(0, 1e-15)) {
			t.Errorf("%s: λ = %v, want %v", tc.name, tg.P, tc.want)
		}
		if got := m.DocELBO(d); math.Abs(got-tc.elbo) > 1e-15 {
			t.Errorf("%s: DocELBO = %v, want %v", tc.name, got, tc.elbo)
		}
		if h := tg.Entropy(); math.IsNaN(h) || h < 0 {
			t.Errorf("%s: entropy of the clamped target %v", tc.name, h)
		}
	}
	// A q that puts mass outside the majority is infinitely bad.
	d := &framework.DocState{Answers: cat(1), Target: framework.NewCategorical(3)}
	tg := d.Target.(*framework.Categorical)
	tg.Finalize() // uniform
	if got := m.DocELBO(d); !math.IsInf(got, -1) {
		t.Errorf("DocELBO of a uniform q against a single majority = %v, want -Inf", got)
	}
}

// gaussianELBO is the part of a document's bound that depends on q(x) =
// N(mean, v) with a prior message N(mu, σ²) (the Gaussian response's terms
// in x, MODEL.md §4) plus the perfect annotator's DocELBO.
func gaussianELBO(m *Model, answers []framework.Answer, mu, sigma2, mean, v float64) float64 {
	d := &framework.DocState{Answers: answers, Target: &framework.Gaussian{Mean: mean, Var: v}}
	return -(mean*mean+v-2*mean*mu)/(2*sigma2) + 0.5*math.Log(2*math.Pi*math.E*v) + m.DocELBO(d)
}

// TestEvidenceGaussianIsStationary: the q(x) = N(m, v) that Finalize makes
// from the prior message and the perfect annotator's evidence is a
// stationary point (the maximiser: the function is concave) of the bound
// in (m, v), checked by central differences with an explicit precision;
// and the mean sits within (ηφ̄ − ȳ)/(σ²P + 1) of the mean answer.
func TestEvidenceGaussianIsStationary(t *testing.T) {
	const P = 50.0
	m := newModel(t, Params{Aggregate: Mean, Precision: P}, &framework.Setup{})
	if err := m.Accepts(&framework.Gaussian{}); err != nil {
		t.Fatal(err)
	}
	answers := num(1, 2.5, 4)
	mu, sigma2 := 0.3, 0.7
	d := &framework.DocState{Answers: answers, Target: &framework.Gaussian{}}
	tg := d.Target.(*framework.Gaussian)
	tg.Prec, tg.PrecMean = 1/sigma2, mu/sigma2
	m.Evidence(d)
	tg.Finalize()
	ybar := 2.5
	if want := (mu - ybar) / (sigma2*P + 1); math.Abs(tg.Mean-ybar-want) > 1e-13 {
		t.Errorf("m − ȳ = %v, want %v", tg.Mean-ybar, want)
	}
	if want := 1 / (1/sigma2 + P); math.Abs(tg.Var-want) > 1e-15 {
		t.Errorf("v = %v, want %v", tg.Var, want)
	}
	const h = 1e-6
	dm := (gaussianELBO(m, answers, mu, sigma2, tg.Mean+h, tg.Var) - gaussianELBO(m, answers, mu, sigma2, tg.Mean-h, tg.Var)) / (2 * h)
	dv := (gaussianELBO(m, answers, mu, sigma2, tg.Mean, tg.Var+h*tg.Var) - gaussianELBO(m, answers, mu, sigma2, tg.Mean, tg.Var-h*tg.Var)) / (2 * h * tg.Var)
	if math.Abs(dm) > 1e-6 || math.Abs(dv*tg.Var) > 1e-6 {
		t.Errorf("gradient at the Finalize'd q: ∂/∂m = %v, ∂/∂v = %v, want 0", dm, dv)
	}
	// No answers: no message.
	d = &framework.DocState{Target: &framework.Gaussian{Prec: 2, PrecMean: 3}}
	m.Evidence(d)
	if tg := d.Target.(*framework.Gaussian); tg.Prec != 2 || tg.PrecMean != 3 || m.DocELBO(d) != 0 {
		t.Errorf("no answers: message added (%v, %v) or DocELBO %v", tg.Prec, tg.PrecMean, m.DocELBO(d))
	}
}

// TestAutomaticPrecision: P = 1e8/s², s² the variance of the answered
// documents' mean answers; m_d − ȳ_d = (η·φ̄_d − ȳ_d)/(σ²P + 1).
func TestAutomaticPrecision(t *testing.T) {
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 4), Answers: &framework.Answers{
		Annotators: []string{"a", "b"},
		ByDoc:      [][]framework.Answer{num(1, 3), nil, num(5), num(8, 10)},
	}}
	m := newModel(t, Defaults(), &framework.Setup{Annotators: c.Answers.Annotators, Corpus: c})
	// Mean answers 2, 5, 9: variance (sample) 37/3·... = ((2−16/3)² + (5−16/3)² + (9−16/3)²)/2.
	mu := 16.0 / 3
	s2 := ((2-mu)*(2-mu) + (5-mu)*(5-mu) + (9-mu)*(9-mu)) / 2
	if got, want := m.Precision(), RelPrecision/s2; math.Abs(got-want) > 1e-6*want {
		t.Errorf("P = %v, want %v", got, want)
	}
	if m.Aggregate() != Mean {
		t.Errorf("aggregate %q, want %q from numeric answers", m.Aggregate(), Mean)
	}
	d := &framework.DocState{Answers: c.Answers.ByDoc[3], Target: &framework.Gaussian{Prec: 1, PrecMean: -20}}
	m.Evidence(d)
	d.Target.Finalize()
	// m − ȳ = (η·φ̄ − ȳ)/(σ²P + 1) with the prior message N(−20, 1): −29·s²/1e8.
	if got, want := d.Target.(*framework.Gaussian).Mean-9, -29/(m.Precision()+1); math.Abs(got-want) > 1e-9*math.Abs(want) || math.Abs(got) > 4e-6 {
		t.Errorf("m − ȳ = %v, want %v", got, want)
	}
	// A single answered document (no spread): P = 1e8.
	c.Answers.ByDoc = [][]framework.Answer{nil, num(4), nil, nil}
	if m := newModel(t, Defaults(), &framework.Setup{Corpus: c}); m.Precision() != RelPrecision {
		t.Errorf("P = %v without spread, want %v", m.Precision(), RelPrecision)
	}
}

func TestStatsAndELBO(t *testing.T) {
	m := newModel(t, Params{Precision: 4}, &framework.Setup{})
	if err := m.Accepts(&framework.Gaussian{}); err != nil {
		t.Fatal(err)
	}
	docs := []*framework.DocState{
		{Answers: num(1, 2), Target: &framework.Gaussian{Mean: 1.2, Var: 0.1}},
		{Answers: nil, Target: &framework.Gaussian{Mean: 7, Var: 3}},
		{Answers: num(-3), Target: &framework.Gaussian{Mean: -2.5, Var: 0.2}},
	}
	a, b, all := m.NewStats(), m.NewStats(), m.NewStats()
	want := 0.0
	for i, d := range docs {
		want += m.DocELBO(d)
		m.Accumulate(all, d)
		if i == 0 {
			m.Accumulate(a, d)
		} else {
			m.Accumulate(b, d)
		}
	}
	a.Merge(b)
	if !cmp.Equal(a, all) {
		t.Errorf("merged %+v, union %+v", a, all)
	}
	if got := all.(*Stats).Docs; got != 2 {
		t.Errorf("answered documents %v, want 2", got)
	}
	// ½log(4/2π) − 2((1.5 − 1.2)² + 0.1) + ½log(4/2π) − 2((−3 + 2.5)² + 0.2)
	hand := math.Log(4/(2*math.Pi)) - 2*(0.09+0.1) - 2*(0.25+0.2)
	if math.Abs(want-hand) > 1e-14 {
		t.Errorf("Σ DocELBO = %v, hand-computed %v", want, hand)
	}
	if err := m.Update(context.Background(), all, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	if got := m.ELBO(all, framework.Step{Rho: 0.5, Scale: 3}); math.Abs(got-3*hand) > 1e-13 {
		t.Errorf("ELBO with S = 3: %v, want %v", got, 3*hand)
	}
	if err := m.Update(context.Background(), all, framework.Step{Rho: 2, Scale: 1}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("ρ = 2: err = %v", err)
	}
	all.Reset()
	if !cmp.Equal(all, m.NewStats()) {
		t.Errorf("Reset left %+v", all)
	}
}

// TestCompatibility: Init and Bind refuse a target kind / aggregate
// mismatch with ErrIncompatible; an unset aggregate follows the target.
func TestCompatibility(t *testing.T) {
	catCorpus := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 1), Answers: &framework.Answers{Annotators: []string{"a"}, Classes: []string{"x", "y"}, ByDoc: [][]framework.Answer{cat(1)}}}
	numCorpus := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 1), Answers: &framework.Answers{Annotators: []string{"a"}, ByDoc: [][]framework.Answer{num(1)}}}
	catSetup := &framework.Setup{Classes: catCorpus.Answers.Classes, Annotators: []string{"a"}, Corpus: catCorpus}
	numSetup := &framework.Setup{Annotators: []string{"a"}, Corpus: numCorpus}
	for _, tc := range []struct {
		name    string
		agg     string
		setup   *framework.Setup
		target  framework.Target
		initErr error
		bindErr error
		want    string
	}{
		{"default, categorical", "", catSetup, framework.NewCategorical(2), nil, nil, Majority},
		{"default, numeric", "", numSetup, &framework.Gaussian{}, nil, nil, Mean},
		{"majority, categorical", Majority, catSetup, framework.NewCategorical(2), nil, nil, Majority},
		{"mean, numeric", Mean, numSetup, &framework.Gaussian{}, nil, nil, Mean},
		{"mean on categorical answers", Mean, catSetup, nil, framework.ErrIncompatible, nil, ""},
		{"majority on numeric answers", Majority, numSetup, nil, framework.ErrIncompatible, nil, ""},
		{"categorical answers, Gaussian target", "", catSetup, &framework.Gaussian{}, nil, framework.ErrIncompatible, ""},
		{"numeric answers, categorical target", "", numSetup, framework.NewCategorical(2), nil, framework.ErrIncompatible, ""},
		{"class count mismatch", "", catSetup, framework.NewCategorical(3), nil, framework.ErrIncompatible, ""},
		{"mean, no corpus, categorical target", Mean, &framework.Setup{}, framework.NewCategorical(2), nil, framework.ErrIncompatible, ""},
		{"majority, no corpus, Gaussian target", Majority, &framework.Setup{}, &framework.Gaussian{}, nil, framework.ErrIncompatible, ""},
		{"default, no corpus, Gaussian target", "", &framework.Setup{}, &framework.Gaussian{}, nil, nil, Mean},
		{"unknown target type", "", &framework.Setup{}, otherTarget{}, nil, framework.ErrIncompatible, ""},
	} {
		m, err := New(Params{Aggregate: tc.agg})
		if err != nil {
			t.Fatal(err)
		}
		err = m.Init(tc.setup)
		if !errors.Is(err, tc.initErr) || (err != nil) != (tc.initErr != nil) {
			t.Errorf("%s: Init err = %v, want %v", tc.name, err, tc.initErr)
			continue
		}
		if err != nil {
			continue
		}
		err = m.Accepts(tc.target)
		if !errors.Is(err, tc.bindErr) || (err != nil) != (tc.bindErr != nil) {
			t.Errorf("%s: Bind err = %v, want %v", tc.name, err, tc.bindErr)
			continue
		}
		if err == nil && m.Aggregate() != tc.want {
			t.Errorf("%s: aggregate %q, want %q", tc.name, m.Aggregate(), tc.want)
		}
	}
}

type otherTarget struct{}

func (otherTarget) Reset()                    {}
func (otherTarget) Finalize()                 {}
func (otherTarget) CopyFrom(framework.Target) {}

func TestInitErrors(t *testing.T) {
	for name, c := range map[string]*framework.Corpus{
		"class out of range": {V: 1, Docs: make([]framework.Doc, 1), Answers: &framework.Answers{Annotators: []string{"a"}, Classes: []string{"x", "y"}, ByDoc: [][]framework.Answer{cat(2)}}},
		"non-finite answer":  {V: 1, Docs: make([]framework.Doc, 1), Answers: &framework.Answers{Annotators: []string{"a"}, ByDoc: [][]framework.Answer{num(math.NaN())}}},
	} {
		m, _ := New(Defaults())
		s := &framework.Setup{Classes: c.Answers.Classes, Corpus: c}
		if err := m.Init(s); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
	m, _ := New(Defaults())
	if err := m.Init(nil); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("nil setup: err = %v", err)
	}
}

func TestParams(t *testing.T) {
	for _, tc := range []struct {
		p  Params
		ok bool
	}{
		{Defaults(), true},
		{Params{Aggregate: Majority}, true},
		{Params{Aggregate: Mean, Precision: 1e6}, true},
		{Params{Aggregate: "median"}, false},
		{Params{Precision: -1}, false},
		{Params{Precision: math.NaN()}, false},
		{Params{Precision: math.Inf(1)}, false},
	} {
		_, err := New(tc.p)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, framework.ErrBadInput)) {
			t.Errorf("New(%+v): err = %v, want ok = %v", tc.p, err, tc.ok)
		}
	}
	n, err := framework.Default.Noise(Name, framework.ParamsFunc(func(into any) error {
		into.(*Params).Aggregate = Mean
		into.(*Params).Precision = 7
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.(*Model).Config; got != (Params{Aggregate: Mean, Precision: 7}) {
		t.Errorf("decoded %+v", got)
	}
}

func TestReport(t *testing.T) {
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 4), Answers: &framework.Answers{
		Annotators: []string{"a", "b", "c"}, Classes: []string{"x", "y", "z"},
		ByDoc: [][]framework.Answer{cat(0, 1), cat(2, 2, 1), nil, cat(1)},
	}}
	m := newModel(t, Defaults(), &framework.Setup{Classes: c.Answers.Classes, Annotators: c.Answers.Annotators, Corpus: c})
	header, rows, doc := m.Report()
	want := [][]string{{"annotator", "aggregate", "documents", "answers", "ties", "precision"}, {"perfect", "majority", "3", "6", "1", ""}}
	if diff := cmp.Diff(want, append([][]string{header}, rows...)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"annotator":"perfect","aggregate":"majority","documents":3,"answers":6,"ties":1}` {
		t.Errorf("JSON %s", got)
	}
	nc := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 2), Answers: &framework.Answers{Annotators: []string{"a"}, ByDoc: [][]framework.Answer{num(1), num(2)}}}
	m = newModel(t, Params{Precision: 2.5}, &framework.Setup{Corpus: nc})
	_, rows, _ = m.Report()
	if diff := cmp.Diff([]string{"perfect", "mean", "2", "2", "", "2.5"}, rows[0]); diff != "" {
		t.Errorf("mean report (-want +got):\n%s", diff)
	}
}

// TestSaveLoadRestoresLearnt: the precision computed from the training
// answers and the wawa weights survive SaveParams/LoadParams into a model
// rebuilt without a corpus (which would otherwise use precision
// RelPrecision and equal weights); bad parameters are refused.
func TestSaveLoadRestoresLearnt(t *testing.T) {
	c := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 4), Answers: &framework.Answers{
		Annotators: []string{"a", "b"},
		ByDoc:      [][]framework.Answer{num(1, 3), nil, num(5), num(8, 10)},
	}}
	trained := newModel(t, Defaults(), &framework.Setup{Annotators: c.Answers.Annotators, Corpus: c})
	var buf bytes.Buffer
	if err := trained.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	rebuilt := newModel(t, Defaults(), &framework.Setup{Annotators: c.Answers.Annotators})
	if rebuilt.Precision() == trained.Precision() {
		t.Fatalf("rebuilt precision %v already equals the trained one: the test cannot tell", rebuilt.Precision())
	}
	if err := rebuilt.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if rebuilt.Precision() != trained.Precision() {
		t.Errorf("precision after load %v, want %v", rebuilt.Precision(), trained.Precision())
	}

	p := Defaults()
	p.Aggregate = Wawa
	cc := &framework.Corpus{V: 1, Docs: make([]framework.Doc, 3), Answers: &framework.Answers{
		Annotators: []string{"a", "b", "c"}, Classes: []string{"x", "y"},
		ByDoc: [][]framework.Answer{cat(0, 0, 1), cat(1, 1, 1), cat(0, 0, 0)},
	}}
	setup := &framework.Setup{Annotators: cc.Answers.Annotators, Classes: cc.Answers.Classes, Corpus: cc}
	w := newModel(t, p, setup)
	buf.Reset()
	if err := w.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	rw := newModel(t, p, &framework.Setup{Annotators: cc.Answers.Annotators, Classes: cc.Answers.Classes})
	if err := rw.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w.Weights(), rw.Weights()); diff != "" || w.Weights() == nil {
		t.Errorf("wawa weights after load (-want +got):\n%s", diff)
	}
	for _, bad := range []string{`{"precision": 0}`, `{"precision": 1, "weights": [-1]}`, `{"precision": 1, "extra": 2}`, `not json`} {
		if err := rw.LoadParams(bytes.NewReader([]byte(bad))); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("LoadParams(%s): %v, want ErrBadInput", bad, err)
		}
	}
}
