package biasprecision

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// TestPriorAuto: prior = "auto" is, bit for bit, the fixed prior with
// bias_prior = "auto" (κ₀ = AutoBiasPrior) where the annotators average
// fewer than AutoFewAnswers answers, and the learned prior with learn =
// "bias" otherwise (the fixed prior with a number for bias_prior, bias =
// "none" or precision = "shared"): after Init and three updates both save the same bytes. A model
// rebuilt without answers takes the prior from the file, and updates and
// predicts from it as the trained one does.
func TestPriorAuto(t *testing.T) {
	// crowd: D documents with truths 0.3·(d mod 3), answered by a (1, 1.1
	// alternately, above the truth) on every one and by b (−1, −1.2) on the
	// first nb and c (0.5 + truth) on the first nc.
	crowd := func(D, nb, nc int) *framework.Corpus {
		by := make([][]framework.Answer, D)
		for d := range by {
			x := 0.3 * float64(d%3)
			by[d] = []framework.Answer{ans(0, x+1+0.1*float64(d%2))}
			if d < nb {
				by[d] = append(by[d], ans(1, x-1-0.2*float64(d%2)))
			}
			if d < nc {
				by[d] = append(by[d], ans(2, x+0.5+0.05*float64(d%4)))
			}
		}
		return numeric([]string{"a", "b", "c"}, by)
	}
	fixed := func(p *Params) { p.Prior = PriorFixed }
	learnBias := func(p *Params) { p.Prior, p.Learn = PriorLearned, LearnBias }
	for _, tc := range []struct {
		name      string
		D, nb, nc int
		edit      func(*Params) // applied to both
		want      func(*Params) // the configuration "auto" must equal
		wantPrior string
	}{
		{name: "4.3 answers each", D: 6, nb: 4, nc: 3, want: fixed, wantPrior: PriorFixed},
		{name: "1 answer each", D: 1, nb: 1, nc: 1, want: fixed, wantPrior: PriorFixed},
		{name: "6 answers each", D: 6, nb: 6, nc: 6, want: learnBias, wantPrior: PriorLearned},
		{name: "5 answers each, unanchored", D: 5, nb: 5, nc: 5, edit: func(p *Params) { p.BiasAnchor = AnchorNone }, want: learnBias, wantPrior: PriorLearned},
		{name: "6 each, bias_prior 0", D: 6, nb: 6, nc: 6, edit: func(p *Params) { p.BiasPrior = "0" }, want: fixed, wantPrior: PriorFixed},
		{name: "6 each, bias_prior 2", D: 6, nb: 6, nc: 6, edit: func(p *Params) { p.BiasPrior = "2" }, want: fixed, wantPrior: PriorFixed},
		{name: "6 each, bias none", D: 6, nb: 6, nc: 6, edit: func(p *Params) { p.Bias = None }, want: fixed, wantPrior: PriorFixed},
		{name: "6 each, shared precision", D: 6, nb: 6, nc: 6, edit: func(p *Params) { p.Precision = Shared }, want: fixed, wantPrior: PriorFixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pa, pw := Defaults(), Defaults()
			if tc.edit != nil {
				tc.edit(&pa)
				tc.edit(&pw)
			}
			pa.Prior = PriorAuto
			tc.want(&pw)
			c := crowd(tc.D, tc.nb, tc.nc)
			ma, mw := newModel(t, pa, c), newModel(t, pw, c)
			if got := ma.PriorInUse(); got != tc.wantPrior {
				t.Fatalf("PriorInUse = %q, want %q", got, tc.wantPrior)
			}
			save := func(m *Model) string {
				var buf bytes.Buffer
				if err := m.SaveParams(&buf); err != nil {
					t.Fatal(err)
				}
				return buf.String()
			}
			for it := range 3 {
				for _, m := range []*Model{ma, mw} {
					s := m.NewStats()
					for d, as := range c.Answers.ByDoc {
						m.Accumulate(s, docState(as, 0.3*float64(d%3)+0.01*float64(it), 0.02))
					}
					if err := m.Update(context.Background(), s, framework.BatchStep(it+1)); err != nil {
						t.Fatal(err)
					}
				}
				if diff := cmp.Diff(save(mw), save(ma)); diff != "" {
					t.Fatalf("update %d: prior = \"auto\" differs from its resolution (-want +got):\n%s", it, diff)
				}
				if ma.BiasPriorInUse() != mw.BiasPriorInUse() {
					t.Fatalf("κ₀ in use %v, want %v", ma.BiasPriorInUse(), mw.BiasPriorInUse())
				}
			}
			// Rebuilt without answers (Init would choose "learned"), the file decides.
			re := newModel(t, pa, numeric([]string{"a", "b", "c"}, nil))
			if err := re.LoadParams(strings.NewReader(save(ma))); err != nil {
				t.Fatal(err)
			}
			if re.PriorInUse() != tc.wantPrior || save(re) != save(ma) {
				t.Errorf("loaded: prior %q, want %q; saved again equal: %v", re.PriorInUse(), tc.wantPrior, save(re) == save(ma))
			}
			// ... and updates from there as the trained model does.
			for _, m := range []*Model{ma, re} {
				s := m.NewStats()
				for d, as := range c.Answers.ByDoc {
					m.Accumulate(s, docState(as, 0.3*float64(d%3)-0.02, 0.03))
				}
				if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(save(ma), save(re)); diff != "" {
				t.Errorf("an update after loading differs from the trained model's (-trained +loaded):\n%s", diff)
			}
			for _, as := range c.Answers.ByDoc {
				for _, a := range as {
					tg := &framework.Gaussian{Mean: 0.2, Var: 0.5}
					if x, y := ma.LogPredictive(tg, a), re.LogPredictive(tg, a); x != y {
						t.Fatalf("log predictive %v after loading, %v trained", y, x)
					}
				}
			}
		})
	}
}

// TestPriorAutoConfig: "auto" is a valid prior; learn still needs prior =
// "learned"; a file with a learned prior is refused under "auto" where
// "auto" never learns.
func TestPriorAutoConfig(t *testing.T) {
	p := Defaults()
	p.Prior, p.Learn = PriorAuto, LearnBias
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `needs prior = "learned"`) {
		t.Errorf("learn with prior = auto: %v", err)
	}
	p.Prior, p.Learn = "autom", ""
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "valid: fixed, learned, auto") {
		t.Errorf("prior = autom: %v", err)
	}
	by := make([][]framework.Answer, 6)
	for d := range by {
		by[d] = []framework.Answer{ans(0, float64(d)), ans(1, float64(d)+0.5*float64(d%2))}
	}
	c := numeric([]string{"a", "b"}, by)
	p = Defaults()
	p.Prior, p.Learn = PriorLearned, LearnBias
	m := newModel(t, p, c)
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	p = Defaults()
	p.Prior, p.Bias = PriorAuto, None
	re := newModel(t, p, numeric([]string{"a", "b"}, nil))
	if err := re.LoadParams(&buf); err == nil || !strings.Contains(err.Error(), "never chooses") {
		t.Errorf("learned file under auto with bias none: %v", err)
	}
}
