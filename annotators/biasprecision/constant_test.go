package biasprecision

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
)

// constantCrowd is 40 documents answered by two noisy annotators ("a",
// "b", about x_d and x_d + 1) and, on its first 30, by "c", who answers 5
// every time. without drops c's answers (keeping c in the list).
func constantCrowd(without bool) *framework.Corpus {
	rng := rand.New(rand.NewPCG(7, 8))
	var byDoc [][]framework.Answer
	for d := range 40 {
		x := 3 * rng.NormFloat64()
		as := []framework.Answer{ans(0, x+0.5*rng.NormFloat64()), ans(1, x+1+rng.NormFloat64())}
		if d < 30 && !without {
			as = append(as, ans(2, 5))
		}
		byDoc = append(byDoc, as)
	}
	return numeric([]string{"a", "b", "c"}, byDoc)
}

// TestConstantIgnored: with constant = "ignore" an annotator who gives one
// answer to everything is as if absent: the same s₀², starting and
// updated parameters of the others (over batch and SVI steps), the same
// evidence and bound as a model of the crowd without its answers, for the fixed and the learned prior;
// its own parameters are its answer and its precision at residual 0.
func TestConstantIgnored(t *testing.T) {
	full, without := constantCrowd(false), constantCrowd(true)
	for _, tc := range []struct {
		learned bool
		learn   string // with learned: Params.Learn
		nu      float64
	}{{false, "", 1}, {true, "", 1}, {true, LearnBias, 1}, {false, "", 2.5}} {
		learned := tc.learned
		p := fixedDefaults()
		p.PriorAnswers = tc.nu
		if learned {
			p.Prior, p.Learn = PriorLearned, tc.learn
		}
		keep := p
		keep.Constant = ConstantKeep
		m := newModel(t, p, full)
		ref := newModel(t, keep, without)
		if diff := cmp.Diff([]bool{false, false, true}, m.Ignores); diff != "" {
			t.Fatalf("learned %v: Ignores (-want +got):\n%s", learned, diff)
		}
		if got := m.IgnoredAnnotators(); !cmp.Equal(got, []string{"c"}) {
			t.Errorf("IgnoredAnnotators = %v, want [c]", got)
		}
		if ref.Ignores != nil {
			t.Fatalf("learned %v: constant = keep marks %v", learned, ref.Ignores)
		}
		if m.S0 != ref.S0 {
			t.Errorf("learned %v: s₀² %v, without c's answers %v", learned, m.S0, ref.S0)
		}
		wantPrec := (30 + p.PriorAnswers) / (p.PriorAnswers * m.S0)
		if m.Bias[2] != 5 || m.Prec[2] != wantPrec || m.Answers[2] != 30 {
			t.Errorf("learned %v: c has bias %v, precision %v, %d answers; want 5, %v, 30", learned, m.Bias[2], m.Prec[2], m.Answers[2], wantPrec)
		}
		for it := range 5 {
			// batch steps, then SVI steps (0 < ρ < 1, scale S ≠ 1: the
			// running statistics of the others blend, c's stay empty)
			step := framework.BatchStep(1)
			if it >= 2 {
				step = framework.Step{Rho: 0.6, Scale: 2.5}
			}
			if diff := cmp.Diff(ref.Bias[:2], m.Bias[:2], cmpopts.EquateApprox(1e-12, 1e-12)); diff != "" {
				t.Errorf("learned %v, iteration %d: biases (-without +with):\n%s", learned, it, diff)
			}
			if diff := cmp.Diff(ref.Prec[:2], m.Prec[:2], cmpopts.EquateApprox(1e-12, 0)); diff != "" {
				t.Errorf("learned %v, iteration %d: precisions (-without +with):\n%s", learned, it, diff)
			}
			s, sr := m.NewStats(), ref.NewStats()
			elbo, elboRef := 0.0, 0.0
			for d := range full.Answers.ByDoc {
				ds := docState(full.Answers.ByDoc[d], 0, 0)
				dr := docState(without.Answers.ByDoc[d], 0, 0)
				ds.Target, dr.Target = &framework.Gaussian{Prec: 0.1}, &framework.Gaussian{Prec: 0.1}
				m.Evidence(ds)
				ref.Evidence(dr)
				g, gr := ds.Target.(*framework.Gaussian), dr.Target.(*framework.Gaussian)
				if !near(g.Prec, gr.Prec, 1e-12, 0) || !near(g.PrecMean, gr.PrecMean, 1e-12, 1e-12) {
					t.Fatalf("learned %v, document %d: evidence %v, %v; without c %v, %v", learned, d, g.Prec, g.PrecMean, gr.Prec, gr.PrecMean)
				}
				for _, q := range []*framework.Gaussian{g, gr} {
					q.Var = 1 / q.Prec
					q.Mean = q.PrecMean * q.Var
				}
				m.Accumulate(s, ds)
				ref.Accumulate(sr, dr)
				elbo += m.DocELBO(ds)
				elboRef += ref.DocELBO(dr)
			}
			if !near(elbo, elboRef, 1e-12, 1e-12) {
				t.Errorf("learned %v, iteration %d: Σ DocELBO %v, without c %v", learned, it, elbo, elboRef)
			}
			if a, b := m.ELBO(s, step), ref.ELBO(sr, step); learned && it > 0 && !near(a, b, 1e-12, 1e-12) {
				// after an update c's posterior is the learned prior in both: no term
				t.Errorf("learned, iteration %d: ELBO %v, without c %v", it, a, b)
			}
			if !learned {
				// the answers' part; the prior's log density has one term per
				// estimated annotator: none for c, who is not estimated
				a := m.ELBO(s, step) - m.LogPrior()
				b := ref.ELBO(sr, step) - ref.LogPrior()
				if !near(a, b, 1e-12, 1e-12) {
					t.Errorf("iteration %d: ELBO − log prior %v, without c %v", it, a, b)
				}
			}
			if err := m.Update(t.Context(), s, step); err != nil {
				t.Fatal(err)
			}
			if err := ref.Update(t.Context(), sr, step); err != nil {
				t.Fatal(err)
			}
			if m.Bias[2] != 5 || m.Prec[2] != wantPrec {
				t.Errorf("learned %v, iteration %d: the update moved c to %v, %v", learned, it, m.Bias[2], m.Prec[2])
			}
		}
		// c's answers are predicted by its constant, whatever the document.
		want := 0.5*math.Log(wantPrec/(2*math.Pi)) - 0.5*wantPrec*0.25
		for _, g := range []*framework.Gaussian{{Mean: 0, Var: 1}, {Mean: 40, Var: 0.1}} {
			if got := m.LogPredictive(g, ans(2, 5.5)); !near(got, want, 1e-13, 0) {
				t.Errorf("learned %v: log predictive of c's 5.5 = %v, want %v", learned, got, want)
			}
		}
	}
}

// TestConstantPersist: the marks are saved with the parameters and a saved
// model's marks are the ones used after loading, whatever Init found.
func TestConstantPersist(t *testing.T) {
	m := newModel(t, fixedDefaults(), constantCrowd(false))
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"ignores_items"`) {
		t.Fatalf("saved parameters without ignores_items:\n%s", buf.String())
	}
	// A model without answers (as predict rebuilds it) takes them from the file.
	q := newModel(t, fixedDefaults(), numeric([]string{"a", "b", "c"}, nil))
	if q.Ignores != nil {
		t.Fatalf("a model without answers marks %v", q.Ignores)
	}
	if err := q.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, q, cmp.AllowUnexported(Model{})); diff != "" {
		t.Errorf("loaded model (-saved +loaded):\n%s", diff)
	}
	ds := docState([]framework.Answer{ans(2, 5)}, 0, 0)
	ds.Target = &framework.Gaussian{}
	q.Evidence(ds)
	if g := ds.Target.(*framework.Gaussian); g.Prec != 0 || g.PrecMean != 0 {
		t.Errorf("loaded model: c sends evidence %v, %v", g.Prec, g.PrecMean)
	}
	// A file without marks clears Init's.
	k := newModel(t, fixedDefaults(), constantCrowd(false))
	keep := newModel(t, Params{PriorAnswers: 1, BiasAnchor: AnchorMean, Constant: ConstantKeep}, constantCrowd(false))
	buf.Reset()
	if err := keep.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"ignores_items"`) {
		t.Errorf("constant = keep saved ignores_items:\n%s", buf.String())
	}
	if err := k.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if k.Ignores != nil {
		t.Errorf("marks %v after loading a file without them", k.Ignores)
	}
	// Marks for the wrong number of annotators are an error.
	bad := strings.Replace(mustSave(t, m), "\"ignores_items\": [\n    false,", "\"ignores_items\": [", 1)
	if err := newModel(t, fixedDefaults(), numeric([]string{"a", "b", "c"}, nil)).LoadParams(strings.NewReader(bad)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("two marks for three annotators: err = %v, want ErrBadInput", err)
	}
}

func mustSave(t *testing.T, m *Model) string {
	t.Helper()
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}
