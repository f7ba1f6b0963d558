package models_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
)

// TestExploreSVIAnnotators traces SVI on a shape of BenchmarkSVIShape
// (MASLDA_SVI_SHAPE, default annotators; MASLDA_SVI_SCALE, default 10;
// MASLDA_SVI_SEED; MASLDA_SVI_INFER, MASLDA_SVI_EXTRA and
// MASLDA_SVI_TOPICS as there) update by update: ρ, the stage, the truth
// accuracy of the stored q(c_d) of the documents seen, the answer-weighted
// distance per entry of the confusion matrices' posterior means from the
// planted ones, and for the most frequent annotator, one of median
// participation and a rare one their answers, ξ's mass (Σ ξ) and their
// distance; every epoch the held-out accuracy (issue 27, item 3).
//
//	MASLDA_EXPLORE=1 go test ./models -run ExploreSVIAnnotators -v -timeout 60m
func TestExploreSVIAnnotators(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	spec, seed := sviShapeSpec(t, 10, "annotators")
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(seed, 99)))
	if err != nil {
		t.Fatal(err)
	}
	infer := fmt.Sprintf("  batch_size = 500\n  kappa = 0.6\n  delay = 1\n  epochs = %d\n  min_epochs = %d\n  tol = 0\n", shapeIters, shapeIters)
	if s := os.Getenv("MASLDA_SVI_INFER"); s != "" {
		infer = s
	}
	sched := "svi"
	if s := os.Getenv("MASLDA_SVI_SCHEDULE"); s != "" {
		sched = s
	}
	model := "model = \"ma-sldac\"\n"
	if s, ok := os.LookupEnv("MASLDA_SVI_MODEL"); ok {
		model = s
	}
	src := model + "seed = 1\nworkers = 1\ntopics {\n  k = 20\n  alpha = 0.1\n  tau = 0.1\n" + os.Getenv("MASLDA_SVI_TOPICS") + "}\n" +
		"inference \"" + sched + "\" {\n" + infer + "}\n" + os.Getenv("MASLDA_SVI_EXTRA")
	cfg, err := models.ParseConfig([]byte(src), "svi.hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, nil, cr.Train)
	if err != nil {
		t.Fatal(err)
	}
	// Answers per annotator; three annotators to follow.
	R := len(cr.Pis)
	n := make([]int, R)
	for _, as := range cr.Train.Answers.ByDoc {
		for _, a := range as {
			n[a.Annotator]++
		}
	}
	order := make([]int, R)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return n[b] - n[a] })
	follow := []int{order[0], order[R/2], order[R-R/10]}
	share := make([]int, len(cr.Pis[0]))
	for _, c := range cr.TestTruth {
		share[c]++
	}
	fmt.Printf("held-out classes %v\n", share)
	for _, r := range follow {
		fmt.Printf("follow annotator %d: %d answers, planted accuracy %.3f\n", r, n[r], spec.Accuracies[r])
	}
	total := 0
	for _, x := range n {
		total += x
	}
	cm, _ := run.Model.Noise.(*confusion.Model)
	dist := func(r int) float64 {
		if cm == nil {
			return 0
		}
		est := cm.Mean(r)
		s := 0.0
		for c := range cr.Pis[r] {
			for l := range cr.Pis[r][c] {
				s += math.Abs(est[c][l] - cr.Pis[r][c][l])
			}
		}
		return s / float64(len(cr.Pis[r])*len(cr.Pis[r]))
	}
	mass := func(r int) float64 {
		if cm == nil {
			return 0
		}
		s := 0.0
		for _, row := range cm.Xi(r) {
			for _, x := range row {
				s += x
			}
		}
		return s
	}
	ctx := context.Background()
	D := len(cr.Train.Docs)
	seenDocs := 0
	if _, err := run.Fit(ctx, func(p framework.Progress) error {
		if p.Restart != 0 {
			return nil
		}
		seenDocs += p.Docs
		right, have := 0, 0
		for d := range D {
			if tg := run.Model.Target(d); tg != nil {
				have++
				if tg.(*framework.Categorical).Argmax() == cr.Truth[d] {
					right++
				}
			}
		}
		wd := 0.0
		for r := range R {
			wd += float64(n[r]) * dist(r)
		}
		line := fmt.Sprintf("t %4d ep %2d st %d ρ %.3f truth %.4f (%d) conf %.4f", p.Iter, p.Epoch, p.Stage, p.Rho, float64(right)/float64(max(have, 1)), have, wd/float64(total))
		if p.Iter%10 == 0 || p.Docs == D {
			tv, sp := topicMatch(run.Model.Topics.Beta(), cr.Beta)
			line += fmt.Sprintf(" | topics TV %.3f spread %.3f", tv, sp)
		}
		for _, r := range follow {
			line += fmt.Sprintf(" | r%d ξ %.1f d %.3f", r, mass(r), dist(r))
		}
		if seenDocs%D == 0 || p.Docs == D {
			pred, err := run.Model.Predict(ctx, cr.Test)
			if err != nil {
				return err
			}
			hist := make([]int, len(cr.Pis[0]))
			for _, q := range pred {
				if q.Target != nil {
					hist[q.Target.(*framework.Categorical).Argmax()]++
				}
			}
			norm := 0.0
			if sm, ok := run.Model.Response.(*softmax.Softmax); ok {
				for _, x := range sm.Eta {
					norm += x * x
				}
			}
			acc := 0.0
			if pred[0].Target != nil {
				acc = accuracyOf(pred, cr.TestTruth)
			}
			line += fmt.Sprintf(" | held-out %.4f classes %v |η| %.2f", acc, hist, math.Sqrt(norm))
			if os.Getenv("MASLDA_SVI_PROBE") != "" {
				// The topics' worth: a logistic regression on the unsupervised
				// φ̄ of 10,000 training documents with their true classes,
				// scored on the held-out φ̄.
				sub := &framework.Corpus{Docs: cr.Train.Docs[:10000], V: cr.Train.V}
				tp, err := run.Model.Predict(ctx, sub)
				if err != nil {
					return err
				}
				line += fmt.Sprintf(" | probe %.4f", probeAccuracy(tp, cr.Truth[:10000], pred, cr.TestTruth, len(cr.Pis[0])))
			}
		}
		fmt.Println(line)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// probeAccuracy fits a multinomial logistic regression (no intercept, L2
// 1e-3 per document) of the classes on φ̄ of train and returns its accuracy
// on test.
func probeAccuracy(train []models.Prediction, truth []int, test []models.Prediction, testTruth []int, C int) float64 {
	K := len(train[0].PhiBar)
	f := func(x, g []float64) float64 {
		clear(g)
		v := 0.0
		z := make([]float64, C)
		for d, p := range train {
			mx := math.Inf(-1)
			for c := range C {
				z[c] = 0
				for k, f := range p.PhiBar {
					z[c] += x[c*K+k] * f
				}
				mx = max(mx, z[c])
			}
			s := 0.0
			for c := range C {
				s += math.Exp(z[c] - mx)
			}
			v -= z[truth[d]] - mx - math.Log(s)
			for c := range C {
				w := math.Exp(z[c]-mx) / s
				if c == truth[d] {
					w--
				}
				for k, f := range p.PhiBar {
					g[c*K+k] += w * f
				}
			}
		}
		n := float64(len(train))
		for i, xi := range x {
			v += 0.5e-3 * n * xi * xi
			g[i] += 1e-3 * n * xi
		}
		return v
	}
	res, _ := optim.Minimize(context.Background(), f, make([]float64, C*K), optim.LBFGSOptions{MaxIters: 300, GradTol: 1e-6})
	right := 0
	for d, p := range test {
		best, bc := math.Inf(-1), 0
		for c := range C {
			z := 0.0
			for k, f := range p.PhiBar {
				z += res.X[c*K+k] * f
			}
			if z > best {
				best, bc = z, c
			}
		}
		if bc == testTruth[d] {
			right++
		}
	}
	return float64(right) / float64(len(test))
}

// topicMatch is the mean over planted topics of the total variation
// distance to the closest learned topic, and the mean distance of the
// learned topics from their average (0: all alike).
func topicMatch(learned, planted [][]float64) (float64, float64) {
	tv := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += math.Abs(a[i] - b[i])
		}
		return s / 2
	}
	m := 0.0
	for _, p := range planted {
		best := 1.0
		for _, l := range learned {
			best = min(best, tv(p, l))
		}
		m += best
	}
	avg := make([]float64, len(learned[0]))
	for _, l := range learned {
		for i, x := range l {
			avg[i] += x / float64(len(learned))
		}
	}
	sp := 0.0
	for _, l := range learned {
		sp += tv(l, avg)
	}
	return m / float64(len(planted)), sp / float64(len(learned))
}
