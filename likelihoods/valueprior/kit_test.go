package valueprior

import (
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit. The value prior ignores the documents, so held-out
// prediction is the prior mean, the baseline itself.
func TestKit(t *testing.T) {
	for _, prior := range []string{Learned, Flat} {
		t.Run(prior, func(t *testing.T) { kit(t, prior) })
	}
}

func kit(t *testing.T, prior string) {
	skips := map[string]string{
		"Recovery": "the value prior ignores the documents: it predicts the mean value, the baseline itself",
	}
	if prior == Flat {
		skips["Maximises"] = "the flat prior has no parameter in the bound (μ and σ² serve Predict only): every point is a maximum"
	}
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New: func() (framework.Likelihood, error) { return New(Params{Prior: prior}) },
		Natural: func(l framework.Likelihood) []float64 {
			r := l.(*Response)
			return append(append([]float64(nil), r.run[:]...), r.runW)
		},
		Checks: frameworktest.Checks{Skip: skips},
	})
}

// TestFlat: the flat prior adds no message, so one answer's message alone
// makes q(y); a document that no message reaches (v = ∞) adds nothing to
// the bound or the statistics.
func TestFlat(t *testing.T) {
	r, err := New(Params{Prior: Flat})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(&framework.Setup{K: 1, V: 1}); err != nil {
		t.Fatal(err)
	}
	tg := &framework.Gaussian{}
	d := &framework.DocState{Target: tg}
	r.NewLocal().TargetTerm(d)
	tg.Prec, tg.PrecMean = tg.Prec+4, tg.PrecMean+4*2.5 // an annotator's message: 2.5 with precision 4
	tg.Finalize()
	if tg.Mean != 2.5 || tg.Var != 0.25 {
		t.Errorf("q(y) = N(%v, %v), want N(2.5, 0.25)", tg.Mean, tg.Var)
	}
	empty := &framework.DocState{Target: &framework.Gaussian{}}
	empty.Target.Finalize()
	st := r.NewStats()
	r.Accumulate(st, empty)
	if s := st.(*Stats); s.Docs != 0 || r.DocELBO(empty) != 0 {
		t.Errorf("a document without messages: stats %+v, DocELBO %v", s, r.DocELBO(empty))
	}
	if _, err := New(Params{Prior: "wide"}); err == nil {
		t.Error(`prior = "wide": no error`)
	}
}
