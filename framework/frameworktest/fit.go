package frameworktest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// Fit configures the end-to-end checks, which assemble the component with
// a topic layer and the other kind's fake (Clamped or FlatResponse) into a
// models.Model and train it on a planted problem.
type Fit struct {
	// Iters is the number of batch iterations of BatchMonotone,
	// FullBatchSVI and Workers (default 8).
	Iters int
	// Problem is the planted problem of those three checks (default: a
	// small one of the kit's, from the seed).
	Problem func(seed uint64) (*Planted, error)
	// Recovery is the planted problem of the recovery check (default: the
	// kit's, larger), trained for RecoveryIters batch iterations
	// (default 40).
	Recovery      func(seed uint64) (*Planted, error)
	RecoveryIters int
	// Margin is what the recovery must gain over the trivial baseline
	// measured on the same data: held-out accuracy over always answering
	// the largest class (responses, categorical), held-out R² over 0
	// (responses, Gaussian), inferred-truth accuracy over the better of
	// majority vote and the largest class (annotator models, categorical),
	// or the fraction by which the truth's RMSE is below the mean answer's
	// (annotator models, Gaussian). Default 0.1, and 0.8 for a Gaussian
	// response's R² (the gaussian and linreg responses reach 0.967 on the
	// kit's planted problem).
	Margin float64
	// BayesShare is, for a categorical response on a planted problem
	// whose Bayes classifier is known (Planted.TestBayes), the share of
	// the gap between always answering the largest class and that
	// classifier that the held-out accuracy must close instead of Margin
	// (default 0.8: the softmax and logreg responses close 0.92–0.93 of
	// it on the kit's problem, and a response that learns half of η does
	// not pass).
	BayesShare float64
	// K is the number of topics (default 4).
	K int
}

func (f Fit) defaults(kind string, crowd bool) Fit {
	if f.Iters == 0 {
		f.Iters = 8
	}
	if f.RecoveryIters == 0 {
		f.RecoveryIters = 40
	}
	if f.Margin == 0 {
		f.Margin = 0.1
		if kind == KindGaussian && !crowd {
			f.Margin = 0.8
		}
	}
	if f.BayesShare == 0 {
		f.BayesShare = 0.8
	}
	if f.K == 0 {
		f.K = 4
	}
	return f
}

type endToEnd struct {
	kind    string
	tt      *TargetType // KindCustom's
	classes int
	seed    uint64
	fit     Fit
	fixed   bool // the response has fixed features: two-stage schedule
	checks  Checks
	build   func(t TB) (framework.Likelihood, framework.NoiseModel)
	// the batch trace with 2 workers, shared by three checks
	batch []point
}

type point struct {
	elbo  float64
	stage int
}

// problem is the small planted problem.
func (e *endToEnd) problem(t TB, crowd bool) *Planted {
	t.Helper()
	var p *Planted
	var err error
	switch {
	case e.fit.Problem != nil:
		p, err = e.fit.Problem(e.seed)
	case e.tt != nil:
		t.Fatalf("frameworktest: a custom Target needs Fit.Problem (the kit cannot plant a problem for target type %q)", e.tt.Name)
	case crowd:
		p, err = e.crowd(300)
	default:
		p, err = NewSupervised(e.supervised(120, 0), e.seed)
	}
	if err != nil {
		t.Fatalf("planted problem: %v", err)
	}
	return p
}

func (e *endToEnd) supervised(D, test int) Supervised {
	s := Supervised{D: D, Test: test, V: 100, K: e.fit.K, Classes: e.classes, DocLen: 40, EtaScale: 6, Sigma2: 0.05}
	if e.kind == KindGaussian {
		s.EtaScale = 2
	}
	return s
}

func (e *endToEnd) crowd(D int) (*Planted, error) {
	if e.kind == KindGaussian {
		return NewValueCrowd(ValueCrowd{D: D, V: 30, DocLen: 5, PerDoc: 3, Precisions: []float64{16, 4, 1, 0.5, 0.25}, BiasSD: 0.5}, e.seed)
	}
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.V, spec.K, spec.C, spec.DocLen = D, 0, 30, 2, e.classes, 5
	spec.Accuracies, spec.PerDoc = []float64{0.85, 0.65, 0.5, 0.4, 0.35}, 3
	spec.EtaScale = 0 // balanced classes: the flat response cannot learn their frequencies
	return NewClassCrowd(spec, e.seed)
}

// model assembles a topic layer (K topics, α 0.2, τ 0.05, seeded from the
// kit's seed), the components and the corpus.
func (e *endToEnd) model(t TB, p *Planted, workers int) *models.Model {
	t.Helper()
	cfg := topics.Defaults()
	cfg.K, cfg.Alpha, cfg.Tau = e.fit.K, 0.2, 0.05
	l, err := topics.New(cfg, p.Train.V)
	if err != nil {
		t.Fatalf("topics: %v", err)
	}
	rng := rand.New(rand.NewPCG(e.seed, 0x746f70))
	l.Init(p.Train, rng)
	resp, noise := e.build(t)
	setup := &framework.Setup{K: cfg.K, V: p.Train.V, Classes: p.Classes, Annotators: p.Train.Answers.Annotators, Corpus: p.Train, Rand: rng}
	if err := resp.Init(setup); err != nil {
		t.Fatalf("response Init: %v", err)
	}
	if err := noise.Init(setup); err != nil {
		t.Fatalf("annotators Init: %v", err)
	}
	m, err := models.NewModel(l, resp, noise, p.Train, workers)
	if err != nil {
		t.Fatalf("models.NewModel: %v", err)
	}
	return m
}

// train fits m with s and returns the trace.
func train(t TB, m framework.Model, s framework.Schedule) []point {
	t.Helper()
	var trace []point
	if _, err := s.Fit(context.Background(), m, rand.New(rand.NewPCG(1, 1)), func(p framework.Progress) error {
		trace = append(trace, point{p.ELBO, p.Stage})
		return nil
	}); err != nil {
		t.Fatalf("Fit: %v", err)
	}
	return trace
}

func (e *endToEnd) batchSchedule(iters int) framework.Schedule {
	if e.fixed {
		return &optim.TwoStage{TopicsIters: iters, ResponseIters: iters}
	}
	return &optim.Batch{MaxIters: iters}
}

func (e *endToEnd) batchTrace(t TB, p *Planted) []point {
	t.Helper()
	if e.batch == nil {
		e.batch = train(t, e.model(t, p, 2), e.batchSchedule(e.fit.Iters))
	}
	return e.batch
}

func (e *endToEnd) run(t TB, crowd bool) {
	t.Helper()
	var p *Planted
	get := func(t TB) *Planted {
		if p == nil {
			p = e.problem(t, crowd)
		}
		return p
	}
	e.checks.run(t, "BatchMonotone", func(t TB) {
		tr := e.batchTrace(t, get(t))
		if len(tr) != e.fit.Iters*map[bool]int{false: 1, true: 2}[e.fixed] {
			t.Errorf("%d updates, want %d", len(tr), e.fit.Iters)
		}
		for i := 1; i < len(tr); i++ {
			a, b := tr[i-1], tr[i]
			if math.IsNaN(b.elbo) || math.IsInf(b.elbo, 0) {
				t.Fatalf("update %d: bound %v", i+1, b.elbo)
			}
			if a.stage == b.stage && b.elbo < a.elbo-1e-8*math.Abs(a.elbo) {
				t.Errorf("update %d: the bound fell from %.12g to %.12g: batch EM must be monotone (each update maximises its part of the bound after an exact E-step)", i+1, a.elbo, b.elbo)
			}
		}
	})
	e.checks.run(t, "FullBatchSVI", func(t TB) {
		if e.fixed {
			t.Logf("a response with fixed features trains only under the two-stage schedule")
			return
		}
		p := get(t)
		bt := e.batchTrace(t, p)
		st := train(t, e.model(t, p, 2), &optim.SVI{BatchSize: len(p.Train.Docs), Kappa: 0, Delay: 1, Epochs: e.fit.Iters})
		if len(st) != len(bt) {
			t.Fatalf("SVI made %d updates, batch %d", len(st), len(bt))
		}
		for i := range bt {
			if !near(st[i].elbo, bt[i].elbo, 1e-9, 0) {
				t.Errorf("update %d: full-batch SVI with κ = 0 (ρ = S = 1) has bound %.12g, batch EM %.12g", i+1, st[i].elbo, bt[i].elbo)
			}
		}
	})
	e.checks.run(t, "Workers", func(t TB) {
		p := get(t)
		bt := e.batchTrace(t, p)
		one := train(t, e.model(t, p, 1), e.batchSchedule(e.fit.Iters))
		if !slices.Equal(one, bt) {
			t.Errorf("the bound trace with 1 E-step worker differs from that with 2 (the E-step runs the local step of different documents concurrently; components must not share mutable state across them): %v, %v", one, bt)
		}
	})
	e.checks.run(t, "Recovery", func(t TB) {
		if testing.Short() {
			t.Logf("skipped in -short mode")
			return
		}
		e.recovery(t, crowd)
	})
}

func (e *endToEnd) recovery(t TB, crowd bool) {
	var p *Planted
	var err error
	switch {
	case e.fit.Recovery != nil:
		p, err = e.fit.Recovery(e.seed)
	case e.tt != nil:
		t.Fatalf("frameworktest: a custom Target needs Fit.Recovery (the kit cannot plant a problem for target type %q)", e.tt.Name)
	case crowd:
		p, err = e.crowd(1500)
	default:
		p, err = NewSupervised(e.supervised(400, 400), e.seed)
	}
	if err != nil {
		t.Fatalf("planted problem: %v", err)
	}
	m := e.model(t, p, 2)
	sched := e.batchSchedule(e.fit.RecoveryIters)
	train(t, m, sched)
	ctx := context.Background()
	margin := e.fit.Margin
	if e.tt != nil {
		var preds []models.Prediction
		truth, what := p.TestTruth, "held-out prediction"
		if crowd {
			preds, err = m.Posterior(ctx)
			truth, what = p.Truth, "inferred truth"
		} else {
			preds, err = m.Predict(ctx, p.Test)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		est := make([]framework.Target, len(preds))
		for d, pr := range preds {
			est[d] = pr.Target
		}
		score, base := e.tt.Score(est, truth)
		t.Logf("%s: score %.4f; baseline %.4f", what, score, base)
		if !(score >= base+margin) {
			t.Errorf("%s scores %.4f, want ≥ %.4f (the baseline %.4f + %.2f)", what, score, base+margin, base, margin)
		}
		return
	}
	if crowd {
		post, err := m.Posterior(ctx)
		if err != nil {
			t.Fatalf("Posterior: %v", err)
		}
		if p.Kind == KindCategorical {
			hits := 0
			for d, pr := range post {
				if float64(pr.Target.(*framework.Categorical).Argmax()) == p.Truth[d] {
					hits++
				}
			}
			acc := float64(hits) / float64(len(post))
			mv, share := p.MajorityVote(), LargestShare(p.Truth, p.Truth)
			t.Logf("inferred truth %.4f; majority vote %.4f, largest class %.4f", acc, mv, share)
			if acc < math.Max(mv, share)+margin {
				t.Errorf("inferred-truth accuracy %.4f, want ≥ %.4f (the better of majority vote %.4f and the largest class %.4f, + %.2f)", acc, math.Max(mv, share)+margin, mv, share, margin)
			}
			return
		}
		est := make([]float64, len(post))
		for d, pr := range post {
			est[d] = pr.Target.(*framework.Gaussian).Mean
		}
		got, base := RMSE(est, p.Truth), p.MeanAnswerRMSE()
		t.Logf("truth RMSE %.4f; mean answer %.4f", got, base)
		if got > (1-margin)*base {
			t.Errorf("truth RMSE %.4f, want ≤ %.4f (the mean answer's %.4f less %.0f%%)", got, (1-margin)*base, base, 100*margin)
		}
		return
	}
	preds, err := m.Predict(ctx, p.Test)
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	if p.Kind == KindCategorical {
		hits := 0
		for d, pr := range preds {
			if float64(pr.Target.(*framework.Categorical).Argmax()) == p.TestTruth[d] {
				hits++
			}
		}
		acc := float64(hits) / float64(len(preds))
		share := LargestShare(p.Truth, p.TestTruth)
		t.Logf("held-out accuracy %.4f; largest class %.4f, Bayes classifier %.4f", acc, share, p.TestBayes)
		if p.TestBayes > share {
			if want := share + e.fit.BayesShare*(p.TestBayes-share); acc < want {
				t.Errorf("held-out accuracy %.4f, want ≥ %.4f (%.2f of the way from always answering the largest class %.4f to the Bayes classifier's %.4f)", acc, want, e.fit.BayesShare, share, p.TestBayes)
			}
			return
		}
		if acc < share+margin {
			t.Errorf("held-out accuracy %.4f, want ≥ %.4f (always answering the largest class %.4f, + %.2f)", acc, share+margin, share, margin)
		}
		return
	}
	est := make([]float64, len(preds))
	for d, pr := range preds {
		est[d] = pr.Target.(*framework.Gaussian).Mean
	}
	mean := 0.0
	for _, x := range p.TestTruth {
		mean += x / float64(len(p.TestTruth))
	}
	ss := 0.0
	for _, x := range p.TestTruth {
		ss += (x - mean) * (x - mean)
	}
	r2 := 1 - RMSE(est, p.TestTruth)*RMSE(est, p.TestTruth)*float64(len(est))/ss
	t.Logf("held-out R² %.4f", r2)
	if r2 < margin {
		t.Errorf("held-out R² %.4f, want ≥ %.2f (predicting the mean scores 0)", r2, margin)
	}
}
