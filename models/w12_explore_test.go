package models

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian"
	"github.com/maslda/maslda/optim"
)

// TestExploreW12 compares, on the planted regression of the tests
// with one answer per document (MASLDA_W12_PERDOC=1, the default) or five
// (0), the exact bound, the defaults before the exact pilot and the
// current defaults: truth and held-out R², σ², the precisions and biases,
// and λ, the fraction of m_d − x̂_d (x̂_d: the unsupervised prediction of
// the training document) that the supervised η·φ̄_d follows (the topics'
// fit to the training targets). Run with
// MASLDA_EXPLORE=1 MASLDA_W12_SEEDS=1,2,3 MASLDA_W12_PERDOC=1 go test ./models -run ExploreW12 -v
func TestExploreW12(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only")
	}
	perDoc := 1
	if s := os.Getenv("MASLDA_W12_PERDOC"); s != "" {
		perDoc, _ = strconv.Atoi(s)
	}
	seeds := []uint64{1}
	if s := os.Getenv("MASLDA_W12_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			v, _ := strconv.Atoi(f)
			seeds = append(seeds, uint64(v))
		}
	}
	only := os.Getenv("MASLDA_W12_ONLY")
	base := regSpec{dTrain: 1000, dTest: 500, sigma2: 0.1, K: 5, V: 300, docLen: 80, alpha: 0.2, topicConc: 0.05, perDoc: perDoc}
	for _, seed := range seeds {
		g := plantedRegressionSpec(t, seed, base)
		s2y := func() float64 {
			a := regMeanAnswers(g.train.Answers)
			mu, v := 0.0, 0.0
			for _, x := range a {
				mu += x / float64(len(a))
			}
			for _, x := range a {
				v += (x - mu) * (x - mu) / float64(len(a))
			}
			return v
		}()
		fit := func(m *Model, iters int) {
			b := optim.Batch{MaxIters: iters, MinIters: 2, Tol: 1e-7}
			if _, err := b.Fit(context.Background(), m, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		report := func(name string, m *Model, t0 time.Time) {
			r := regEvaluate(t, m, g)
			resp := m.Response.(*gaussian.Response)
			bp := m.Noise.(*biasprecision.Model)
			// overfit: correlation of supervised η·φ̄_d − unsupervised with m_d − unsupervised
			post, _ := m.Posterior(context.Background())
			pr, _ := m.Predict(context.Background(), g.train)
			num, den := 0.0, 0.0
			for d := range post {
				mt := post[d].Target.(*framework.Gaussian).Mean
				sup := dot(resp.Eta, post[d].PhiBar)
				uns := pr[d].Target.(*framework.Gaussian).Mean
				num += (sup - uns) * (mt - uns)
				den += (mt - uns) * (mt - uns)
			}
			t.Logf("seed %d %-28s truth %.3f held-out %.3f (sh %.3f) σ² %.4f (s²ȳ %.3f) λ %.2f prec %.2f bias %.2f [%.0fs]", seed, name, r.truthR2, r.testR2, r.testShiftedR2, resp.Sigma2, s2y, num/den, bp.Prec, bp.Bias, time.Since(t0).Seconds())
		}
		mk := func(w, s2 float64, est bool) gaussian.Params {
			gp := gaussian.Defaults()
			gp.Weight, gp.Sigma2, gp.EstimateSigma2 = w, s2, est
			return gp
		}
		_ = math.Abs
		run := func(name string, f func() *Model) {
			if only != "" && !strings.Contains(name, only) {
				return
			}
			t0 := time.Now()
			m := f()
			report(name, m, t0)
		}
		run("exact (w 1, σ² est.)", func() *Model {
			gp := mk(1, 0, true)
			m := newRegModel(t, g, gp, biasprecision.Defaults(), 3)
			fit(m, 100)
			return m
		})
		run("old default (w 100, σ² fixed)", func() *Model {
			gp := mk(100, 0, false)
			gp.ExactIters = 0
			m := newRegModel(t, g, gp, biasprecision.Defaults(), 3)
			fit(m, 100)
			return m
		})
		run("new default (exact pilot)", func() *Model {
			m := newRegModel(t, g, gaussian.Defaults(), biasprecision.Defaults(), 3)
			fitRun(t, m, &optim.Batch{MaxIters: 100, MinIters: 2, Tol: 1e-7}, nil, nil)
			return m
		})
	}
	_ = fmt.Sprint
}
