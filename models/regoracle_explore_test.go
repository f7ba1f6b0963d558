package models

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// plantedHeldOutOracle predicts the held-out targets of g with the planted
// parameters: each test document's E[z̄] under the true topics β and α
// (the variational local step with ζ = 1e9·β), times the true η. It is the
// ceiling of any predictor that sees only a document's words.
func plantedHeldOutOracle(t testing.TB, g *regData, alpha float64) []float64 {
	t.Helper()
	cfg := topics.Defaults()
	cfg.K, cfg.Alpha, cfg.LocalIters, cfg.LocalTol = len(g.eta), alpha, 1000, 1e-6
	l, err := topics.New(cfg, g.test.V)
	if err != nil {
		t.Fatal(err)
	}
	K := cfg.K
	for k, row := range g.pl.Beta {
		for v, b := range row {
			l.Zeta[v*K+k] = 1e9*b + 1e-9
		}
	}
	l.Refresh()
	s := l.NewScratch()
	out := make([]float64, len(g.test.Docs))
	for d := range g.test.Docs {
		doc := &g.test.Docs[d]
		st := framework.NewDocState(K, len(doc.Words))
		st.Bind(d, doc, nil)
		l.Infer(st, nil, s)
		st.UpdatePhiBar()
		for k, z := range st.PhiBar {
			out[d] += g.eta[k] * z
		}
	}
	return out
}

// TestExploreRegressionOracle reports, on the planted regression data and
// variants of its generator, the held-out R² of MA-sLDAr (defaults and the
// exact bound), of LDA + LinReg on the mean answer, of the oracle that knows
// β, α and η (plantedHeldOutOracle) and of the planted z̄ itself. Run with
// MASLDA_EXPLORE=1 go test ./models -run ExploreRegressionOracle -v -timeout 0
func TestExploreRegressionOracle(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	base := regSpec{dTrain: 1000, dTest: 500, sigma2: 0.1, K: 5, V: 300, docLen: 80, alpha: 0.2, topicConc: 0.05}
	vary := func(f func(*regSpec)) regSpec { s := base; f(&s); return s }
	gens := []struct {
		name string
		spec regSpec
	}{
		{"tests' generator", base},
		{"crowd unbiased on average", vary(func(s *regSpec) { s.centred = true })},
		{"short documents (20 words)", vary(func(s *regSpec) { s.docLen = 20 })},
		{"K 10, 150 words, denser topics", vary(func(s *regSpec) { s.K, s.docLen, s.topicConc, s.V = 10, 150, 0.2, 1000 })},
		{"one answer per document", vary(func(s *regSpec) { s.perDoc = 1 })},
	}
	for _, gen := range gens {
		if f := os.Getenv("MASLDA_EXPLORE_VARIANT"); f != "" && !strings.Contains(gen.name, f) {
			continue
		}
		for seed := uint64(1); seed <= 3; seed++ {
			g := plantedRegressionSpec(t, seed, gen.spec)
			zb := make([]float64, len(g.xTest))
			for d := range zb {
				for k, z := range g.pl.ZBar[gen.spec.dTrain+d] {
					zb[d] += g.eta[k] * z
				}
			}
			or := plantedHeldOutOracle(t, g, gen.spec.alpha)
			lin := regLinRegBaseline(t, g, 3, 60)
			line := ""
			type gv struct {
				name string
				gp   gaussian.Params
			}
			mk := func(w, s2 float64, est bool) gv {
				gp := gaussian.Defaults()
				gp.Weight, gp.Sigma2, gp.EstimateSigma2, gp.ExactIters = w, s2, est, 0 // one weight throughout
				return gv{fmt.Sprintf("w %g, σ² %g%s", w, s2, map[bool]string{true: " est.", false: ""}[est]), gp}
			}
			gvs := []gv{mk(1, 0, false), mk(100, 0, false)}
			if os.Getenv("MASLDA_EXPLORE_SIGMA") != "" {
				gvs = []gv{mk(1, 0, true), mk(100, 0, true), mk(1, 0.1, false), mk(100, 0.1, false)}
			}
			for _, v := range gvs {
				gp := v.gp
				m := newRegModel(t, g, gp, biasprecision.Defaults(), 3)
				b := optim.Batch{MaxIters: 100, MinIters: 2, Tol: 1e-7}
				if _, err := b.Fit(context.Background(), m, nil, nil); err != nil {
					t.Fatal(err)
				}
				r := regEvaluate(t, m, g)
				line += fmt.Sprintf(" | %s: truth %.3f (shifted %.3f) held-out %.3f (shifted %.3f)%s", v.name, r.truthR2, r.shiftedR2, r.testR2, r.testShiftedR2, topicMatch(m.Topics.Beta(), g.pl.Beta))
			}
			t.Logf("%s, seed %d: mean answer %.3f, planted z̄ %.3f, oracle (true β, α, η) %.3f, LDA+LinReg %.3f (shifted %.3f)%s", gen.name, seed, regR2(regMeanAnswers(g.train.Answers), g.xTrain), regR2(zb, g.xTest), regR2(or, g.xTest), regR2(lin, g.xTest), shiftedR2(lin, g.xTest), line)
		}
	}
}

// topicMatch describes how well learned topics match the planted ones: for
// each planted topic, the total-variation distance to its nearest learned
// topic, and the nearest's index.
func topicMatch(learned, planted [][]float64) string {
	out := " [TV"
	for _, p := range planted {
		best, bi := 2.0, -1
		for j, q := range learned {
			tv := 0.0
			for v := range p {
				tv += math.Abs(p[v] - q[v])
			}
			if tv/2 < best {
				best, bi = tv/2, j
			}
		}
		out += fmt.Sprintf(" %.2f→%d", best, bi)
	}
	return out + "]"
}
