package models

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/likelihoods/gaussian"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/optim"
)

// crowdCorpus is a small planted MA-sLDAc problem: documents from planted
// topics, classes from a planted η (MODEL.md §2), perDoc answers per
// document from annotators of the given accuracies. It returns the
// training corpus (with answers), held-out documents and the training
// documents' true classes.
func crowdCorpus(t testing.TB, seed uint64, d, v, k, c, perDoc int, acc []float64) (train, test *framework.Corpus, truth []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 31))
	all, pl, err := synth.LDA(synth.LDASpec{D: 2 * d, V: v, K: k, DocLen: 60, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(c, k, 6, rng), rng)
	pis, err := confusion.FromAccuracies(acc, c)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(classes[:d], pis, perDoc, rng)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, c)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	workers := make([]string, len(acc))
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	train = &framework.Corpus{V: v, Docs: all.Docs[:d], Answers: &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}}
	return train, &framework.Corpus{V: v, Docs: all.Docs[d:]}, classes[:d]
}

func smallCrowd(t testing.TB) (train, test *framework.Corpus, truth []int) {
	return crowdCorpus(t, 5, 240, 150, 4, 3, 2, []float64{0.8, 0.6, 0.45})
}

// twoStageTopics pins one fit (consensus = 1): the tests built on it
// check one fit's mechanics (consensus_test.go checks the consensus).
const twoStageTopics = `
seed = 3
consensus = 1
topics {
  k = 4
  alpha = 0.2
  tau = 0.05
}
`

// stageTrace is what an observer saw of a fit, by stage.
type stageTrace struct {
	elbo    map[int][]float64 // by Progress.Stage
	iters   []int             // Progress.Iter, in order
	frozen  [][]float32       // every document's frozen φ at the last stage-1 update
	gamma   []float64         // the stored γ at the last stage-1 update
	restart int               // updates seen with Progress.Restart > 0
}

// fitTrace builds src over c and fits it, recording the trace; with
// snapshot, the frozen φ and γ are copied after every stage-1 update (the
// last copy is stage 1's final state).
func fitTrace(t *testing.T, src string, c *framework.Corpus, workers int, snapshot bool) (*Run, *stageTrace) {
	t.Helper()
	cfg := mustConfig(t, src)
	cfg.Workers = workers
	r, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	tr := &stageTrace{elbo: map[int][]float64{}}
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		if p.Restart > 0 {
			tr.restart++
			return nil
		}
		tr.elbo[p.Stage] = append(tr.elbo[p.Stage], p.ELBO)
		tr.iters = append(tr.iters, p.Iter)
		if snapshot && p.Stage == 1 {
			m := r.Model
			tr.frozen = tr.frozen[:0]
			for d := range m.NumDocs() {
				tr.frozen = append(tr.frozen, m.FrozenPhi(d))
			}
			tr.gamma = append(tr.gamma[:0], m.gamma...)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return r, tr
}

// monotone fails on any decrease beyond rel·|ELBO|.
func monotone(t *testing.T, name string, elbos []float64, rel float64) {
	t.Helper()
	if len(elbos) < 2 {
		t.Errorf("%s: %d updates, want ≥ 2", name, len(elbos))
	}
	for i := 1; i < len(elbos); i++ {
		if elbos[i] < elbos[i-1]-rel*math.Abs(elbos[i-1]) {
			t.Errorf("%s: ELBO decreased at update %d: %.12g → %.12g", name, i+1, elbos[i-1], elbos[i])
		}
	}
}

// TestTwoStageTopicsEqualLDA: stage 1 of two-stage is plain LDA, bit for
// bit: the same ELBO trace and the same topics as a configuration without
// response and annotators, with and without restarts (whose candidates run
// in the topics phase).
func TestTwoStageTopicsEqualLDA(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	for _, restarts := range []string{"", "restarts = 3\nrestart_iters = 2\n"} {
		lda, trL := fitTrace(t, twoStageTopics+restarts+`inference "batch" {
  max_iters = 8
  tol = 0
}`, train, 2, false)
		two, trT := fitTrace(t, twoStageTopics+restarts+`response "softmax" {}
annotators "confusion" {}
inference "two-stage" {
  topics_iters = 8
  topics_tol = 0
  response_iters = 3
}`, train, 2, false)
		if diff := cmp.Diff(trL.elbo[0], trT.elbo[1]); diff != "" {
			t.Errorf("%q: stage 1's ELBO trace differs from LDA's (-lda +stage 1):\n%s", restarts, diff)
		}
		if !cmp.Equal(lda.Model.Topics.Zeta, two.Model.Topics.Zeta) {
			t.Errorf("%q: topics after two-stage differ from LDA's", restarts)
		}
		if !cmp.Equal(lda.RestartELBOs, two.RestartELBOs) || trL.restart != trT.restart {
			t.Errorf("%q: restart ELBOs %v (%d updates), LDA's %v (%d updates)", restarts, two.RestartELBOs, trT.restart, lda.RestartELBOs, trL.restart)
		}
		if len(trT.elbo[2]) != 3 || len(trT.elbo) != 2 {
			t.Errorf("%q: updates by stage %v, want 8 in stage 1 and 3 in stage 2", restarts, trT.elbo)
		}
		for i, it := range trT.iters {
			if it != i+1 {
				t.Fatalf("%q: Progress.Iter %v, want 1, 2, … across the stages", restarts, trT.iters)
			}
		}
	}
}

// TestTwoStageSoftmaxConfusion: MA-sLDAc's parts under two-stage. Each
// stage's bound never decreases; stage 2 changes neither the frozen φ nor
// the stored γ nor the topics (its local step runs no sweep); the model is
// left in the response phase, and posterior and prediction work.
func TestTwoStageSoftmaxConfusion(t *testing.T) {
	t.Parallel()
	train, test, truth := smallCrowd(t)
	src := twoStageTopics + `response "softmax" {}
annotators "confusion" {}
inference "two-stage" {
  topics_iters = 30
  response_iters = 30
  response_tol = 0
}`
	r, tr := fitTrace(t, src, train, 2, true)
	m := r.Model
	monotone(t, "stage 1", tr.elbo[1], 1e-12)
	monotone(t, "stage 2", tr.elbo[2], 1e-10)
	if m.Phase() != framework.PhaseResponse {
		t.Errorf("phase after two-stage %v, want response", m.Phase())
	}
	for d := range m.NumDocs() {
		if got := m.FrozenPhi(d); got == nil || !cmp.Equal(tr.frozen[d], got) {
			t.Fatalf("document %d: frozen φ changed during stage 2", d)
		}
	}
	if !cmp.Equal(tr.gamma, m.gamma) {
		t.Error("stored γ changed during stage 2: the response phase swept the topics")
	}
	// The model keeps one store.
	if want := 4 * m.Topics.K * corpusUnique(train); m.PhiBytes() != want {
		t.Errorf("the φ store takes %d bytes, want 4·K·Σ_d L_d = %d", m.PhiBytes(), want)
	}
	if eta := m.Response.(*softmax.Softmax).Eta; cmp.Equal(eta, make([]float64, len(eta))) {
		t.Error("η still zero after stage 2")
	}
	ctx := context.Background()
	post, err := m.Posterior(ctx)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for d, p := range post {
		c, ok := p.Target.(*framework.Categorical)
		if !ok {
			t.Fatalf("document %d: posterior target %T, want *framework.Categorical", d, p.Target)
		}
		if c.Argmax() == truth[d] {
			right++
		}
	}
	pred, err := m.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pred[0].Target.(*framework.Categorical); !ok || len(pred) != len(test.Docs) {
		t.Fatalf("prediction %+v, want a categorical target per held-out document", pred[0])
	}
	acc := float64(right) / float64(len(truth))
	share, mv := largestShare(truth), majorityVote(train, truth)
	t.Logf("stage 1: %d updates, ELBO %.6g → %.6g; stage 2: %d updates, %.6g → %.6g; inferred truth accuracy %.3f (largest class %.3f, majority vote %.3f)",
		len(tr.elbo[1]), tr.elbo[1][0], tr.elbo[1][len(tr.elbo[1])-1], len(tr.elbo[2]), tr.elbo[2][0], tr.elbo[2][len(tr.elbo[2])-1], acc, share, mv)
	if base := max(share, mv); acc < base+0.2 {
		t.Errorf("inferred truth accuracy %.3f, want ≥ %.3f: the better of always answering the largest class (%.3f) and majority vote (%.3f), + 0.2", acc, base+0.2, share, mv)
	}
}

// largestShare is the accuracy of always answering the most frequent class.
func largestShare(truth []int) float64 {
	count := map[int]int{}
	best := 0
	for _, c := range truth {
		count[c]++
		best = max(best, count[c])
	}
	return float64(best) / float64(len(truth))
}

// majorityVote is the accuracy of each document's most frequent answer,
// ties split evenly (an unanswered document counts as wrong).
func majorityVote(c *framework.Corpus, truth []int) float64 {
	acc := 0.0
	votes := make([]int, len(c.Answers.Classes))
	for d, as := range c.Answers.ByDoc {
		clear(votes)
		for _, a := range as {
			votes[a.Class]++
		}
		top, n := slices.Max(votes), 0
		for _, v := range votes {
			if v == top {
				n++
			}
		}
		if len(as) > 0 && votes[truth[d]] == top {
			acc += 1 / float64(n) / float64(len(truth))
		}
	}
	return acc
}

func corpusUnique(c *framework.Corpus) int {
	n := 0
	for i := range c.Docs {
		n += c.Docs[i].Len()
	}
	return n
}

// TestTwoStageDeterministicAcrossWorkers: both stages give the same
// traces and parameters, bit for bit, with 1, 2 and 7 workers.
func TestTwoStageDeterministicAcrossWorkers(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	src := twoStageTopics + `response "softmax" {}
annotators "confusion" {}
inference "two-stage" {
  topics_iters = 5
  response_iters = 5
}`
	params := func(r *Run) []float64 {
		out := append([]float64(nil), r.Model.Topics.Zeta...)
		out = append(out, r.Model.Response.(*softmax.Softmax).Eta...)
		noise := r.Model.Noise.(*confusion.Model)
		for a := range noise.NumAnnotators() {
			for _, row := range noise.Xi(a) {
				out = append(out, row...)
			}
		}
		return out
	}
	r1, tr1 := fitTrace(t, src, train, 1, false)
	for _, w := range []int{2, 7} {
		rw, trw := fitTrace(t, src, train, w, false)
		if diff := cmp.Diff(tr1.elbo, trw.elbo); diff != "" {
			t.Errorf("ELBO traces with %d workers differ from 1 worker's (-1 +%d):\n%s", w, w, diff)
		}
		if !cmp.Equal(params(r1), params(rw)) {
			t.Errorf("parameters with %d workers differ from 1 worker's", w)
		}
	}
}

// TestTwoStageGaussian: MA-sLDAr's parts under two-stage (a response
// without fixed features): both stages monotone, predictions work.
func TestTwoStageGaussian(t *testing.T) {
	t.Parallel()
	c := smallRegCorpus(t)
	r, tr := fitTrace(t, smallRegConfig+`inference "two-stage" {
  topics_iters = 20
  response_iters = 20
  response_tol = 0
}`, c, 2, false)
	monotone(t, "stage 1", tr.elbo[1], 1e-12)
	monotone(t, "stage 2", tr.elbo[2], 1e-9)
	t.Logf("stage 2: ELBO %.6g → %.6g in %d updates", tr.elbo[2][0], tr.elbo[2][len(tr.elbo[2])-1], len(tr.elbo[2]))
	pred, err := r.Model.Predict(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := pred[0].Target.(*framework.Gaussian); !ok || math.IsNaN(g.Mean) {
		t.Errorf("prediction target %+v, want a Gaussian", pred[0].Target)
	}
}

// fixedGaussian is a Gaussian response claiming fixed features (what the
// logreg and linreg responses do), for the schedule check.
type fixedGaussian struct{ *gaussian.Response }

func (fixedGaussian) FixedFeatures() bool { return true }

// fixedRegistry delegates to framework.Default and adds the response
// "fixed" (a fixedGaussian).
func fixedRegistry() *framework.Registry {
	reg := framework.NewRegistry()
	reg.RegisterLikelihood("fixed", func(p framework.Params) (framework.Likelihood, error) {
		g, err := gaussian.New(gaussian.Params{Sigma2: 0.5, EstimateSigma2: true, L2: 0.01})
		return fixedGaussian{g}, err
	})
	reg.RegisterNoise(biasprecision.Name, func(p framework.Params) (framework.NoiseModel, error) {
		return framework.Default.Noise(biasprecision.Name, p)
	})
	for _, s := range []string{"batch", "svi", optim.TwoStageName} {
		reg.RegisterSchedule(s, func(p framework.Params) (framework.Schedule, error) { return framework.Default.Schedule(s, p) })
	}
	return reg
}

// TestFixedFeaturesNeedsTwoStage: a response with fixed features is refused
// under batch and SVI (ErrIncompatible naming two-stage, at the inference
// block's line) and by a joint E-step of a model assembled by hand; under
// two-stage, with restarts, it trains.
func TestFixedFeaturesNeedsTwoStage(t *testing.T) {
	t.Parallel()
	c := smallRegCorpus(t)
	reg := fixedRegistry()
	head := twoStageTopics + `response "fixed" {}
annotators "bias-precision" {}
`
	for _, inf := range []string{`inference "batch" {}`, `inference "svi" {}`, ``} {
		_, err := Build(mustConfig(t, head+inf), reg, c)
		if !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), `needs inference "two-stage"`) || !strings.Contains(err.Error(), "test.hcl:") {
			t.Errorf("%q: Build = %v, want ErrIncompatible at test.hcl naming two-stage", inf, err)
		}
	}
	cfg := mustConfig(t, head+"restarts = 2\nrestart_iters = 2\n"+`inference "two-stage" {
  topics_iters = 5
  response_iters = 10
  response_tol = 0
}`)
	r, err := Build(cfg, reg, c)
	if err != nil {
		t.Fatal(err)
	}
	var stage2 []float64
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		if p.Stage == 2 {
			stage2 = append(stage2, p.ELBO)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	monotone(t, "fixed features, stage 2", stage2, 1e-9)
	if _, err := r.Model.Posterior(context.Background()); err != nil {
		t.Errorf("Posterior after two-stage: %v", err)
	}
	// Assembled by hand and run jointly: refused by the E-step.
	if err := r.Model.SetPhase(framework.PhaseJoint); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Model.EStep(context.Background(), []int{0}); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("joint E-step with fixed features: %v, want ErrIncompatible", err)
	}
}

// TestSetPhaseErrors: the phases' preconditions.
func TestSetPhaseErrors(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 1, 40, 30, 2)
	lda := newLDA(t, c, 2, 1, 1)
	train, _, _ := smallCrowd(t)
	r, err := Build(mustConfig(t, twoStageTopics+`response "softmax" {}
annotators "confusion" {}`), nil, train)
	if err != nil {
		t.Fatal(err)
	}
	sup := r.Model
	noCorpus, err := NewModel(lda.Topics, nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		m     *Model
		phase framework.Phase
		want  error
	}{
		{"response without a response", lda, framework.PhaseResponse, framework.ErrIncompatible},
		{"response before the topics phase", sup, framework.PhaseResponse, framework.ErrNotTrained},
		{"topics without a corpus", noCorpus, framework.PhaseTopics, framework.ErrNotTrained},
		{"unknown phase", sup, framework.Phase(9), framework.ErrBadInput},
		{"joint", sup, framework.PhaseJoint, nil},
		{"topics", sup, framework.PhaseTopics, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.SetPhase(tc.phase)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Errorf("SetPhase(%v) = %v, want %v", tc.phase, err, tc.want)
			}
		})
	}
	// A topics-phase E-step over some documents only is not enough.
	if _, err := sup.EStep(context.Background(), []int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := sup.SetPhase(framework.PhaseResponse); !errors.Is(err, framework.ErrNotTrained) {
		t.Errorf("SetPhase(response) after a partial topics E-step: %v, want ErrNotTrained", err)
	}
	if sup.Target(0) != nil {
		t.Error("a topics-phase E-step set a target")
	}
	// Plain LDA under two-stage: nothing to fit in stage 2.
	cfg := mustConfig(t, `topics {
  k = 2
}
inference "two-stage" {
  topics_iters = 2
}`)
	rl, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rl.Fit(context.Background(), nil); !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "stage 2") {
		t.Errorf("two-stage on plain LDA: %v, want ErrIncompatible from stage 2", err)
	}
}

// TestTwoStageSaveLoad: a two-stage model written from a preset
// (ma-sldar with the inference block replaced) is saved and loaded
// through the registry: the preset is expanded again from the saved
// configuration and the loaded model predicts exactly as the trained one.
func TestTwoStageSaveLoad(t *testing.T) {
	t.Parallel()
	c := smallRegCorpus(t)
	r, err := Build(mustConfig(t, `model = "ma-sldar"
topics {
  k = 3
}
inference "two-stage" {
  topics_iters = 4
  response_iters = 4
}`), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Fit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/model"
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Model != "ma-sldar" || s.Manifest.Inference != optim.TwoStageName || s.Manifest.Response != "gaussian" {
		t.Errorf("loaded configuration: model %q, manifest %+v", s.Config.Model, s.Manifest)
	}
	p1, err := r.Model.Predict(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s.Model.Predict(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(p1, p2) {
		t.Error("predictions of the loaded two-stage model differ")
	}
}
