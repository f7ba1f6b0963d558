package models_test

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	_ "github.com/maslda/maslda/annotators/perfect" // annotators: perfect
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/likelihoods/classprior"
	_ "github.com/maslda/maslda/likelihoods/gaussian" // responses: gaussian, linreg
	_ "github.com/maslda/maslda/likelihoods/logreg"   // response: logreg
	_ "github.com/maslda/maslda/likelihoods/softmax"  // response: softmax
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/optim" // schedules: batch, svi, two-stage
)

// The baselines of MODEL.md §6 assembled from the plug-ins perfect,
// class-prior, logreg and linreg: batch EM (and the two-stage schedule
// for the fixed-feature responses) must be monotone, the perfect
// annotator must clamp the target to the aggregate, and each baseline must
// do what it is for.

// blClassData is a planted classification problem: planted topics and η,
// true classes, answers from annotators of the given accuracies (perDoc
// answers per training document).
type blClassData struct {
	train, test      *framework.Corpus
	truth, testTruth []int
}

func blClassProblem(t *testing.T, seed uint64, d, perDoc int, acc []float64) *blClassData {
	t.Helper()
	const V, K, C = 300, 5, 3
	rng := rand.New(rand.NewPCG(seed, 21))
	all, pl, err := synth.LDA(synth.LDASpec{D: 2 * d, V: V, K: K, DocLen: 60, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(C, K, 6, rng), rng)
	pis, err := confusion.FromAccuracies(acc, C)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(classes[:d], pis, perDoc, rng)
	if err != nil {
		t.Fatal(err)
	}
	workers := make([]string, len(acc))
	for i := range workers {
		workers[i] = "w" + strconv.Itoa(i)
	}
	return &blClassData{
		train: &framework.Corpus{V: V, Docs: all.Docs[:d], Answers: &framework.Answers{Annotators: workers, Classes: []string{"c0", "c1", "c2"}, ByDoc: byDoc}},
		test:  &framework.Corpus{V: V, Docs: all.Docs[d:]},
		truth: classes[:d], testTruth: classes[d:],
	}
}

// oracle is the same problem with one annotator who gives the true class.
func (g *blClassData) oracle() *framework.Corpus {
	byDoc := make([][]framework.Answer, len(g.truth))
	for d, c := range g.truth {
		byDoc[d] = []framework.Answer{{Annotator: 0, Class: int32(c), Value: float64(c)}}
	}
	return &framework.Corpus{V: g.train.V, Docs: g.train.Docs, Answers: &framework.Answers{Annotators: []string{"oracle"}, Classes: g.train.Answers.Classes, ByDoc: byDoc}}
}

// blMajority is each document's strict majority class, or −1 (a tie or no
// answer).
func blMajority(as []framework.Answer, C int) int {
	votes := make([]int, C)
	for _, a := range as {
		votes[a.Class]++
	}
	best, top := -1, 0
	for l, v := range votes {
		switch {
		case v > top:
			best, top = l, v
		case v == top && v > 0:
			best = -1
		}
	}
	return best
}

// blFit builds and fits a configuration, checking that the bound never
// decreases within a stage (relative 1e-8; the two-stage schedule's two
// stages have different objectives).
func blFit(t *testing.T, name, src string, c *framework.Corpus) *models.Run {
	t.Helper()
	cfg, err := models.ParseConfig([]byte(src), name+".hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var prev framework.Progress
	iters := 0
	_, err = run.Fit(context.Background(), func(p framework.Progress) error {
		if p.Restart > 0 || p.Fit > 0 { // the restarts' candidates (plain LDA), each from its own start, and the other seeds' fits (consensus)
			return nil
		}
		if iters > 0 && p.Stage == prev.Stage && p.ELBO < prev.ELBO-1e-8*math.Abs(prev.ELBO) {
			t.Errorf("%s: stage %d: ELBO decreased at iteration %d: %.12g → %.12g", name, p.Stage, p.Iter, prev.ELBO, p.ELBO)
		}
		if math.IsNaN(p.ELBO) || math.IsInf(p.ELBO, 0) {
			t.Errorf("%s: ELBO %v at iteration %d", name, p.ELBO, p.Iter)
		}
		prev = p
		iters++
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if iters < 3 {
		t.Errorf("%s: only %d updates: the monotonicity check saw too little", name, iters)
	}
	return run
}

func blAccuracy(preds []models.Prediction, truth []int) float64 {
	right := 0
	for i, p := range preds {
		if p.Target.(*framework.Categorical).Argmax() == truth[i] {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}

func blPosterior(t *testing.T, run *models.Run) []models.Prediction {
	t.Helper()
	post, err := run.Model.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return post
}

func blPredict(t *testing.T, run *models.Run, c *framework.Corpus) []models.Prediction {
	t.Helper()
	pred, err := run.Model.Predict(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return pred
}

// checkClamped: every training document with a strict majority has q(c)
// exactly on it; a tied document has no mass outside the tied classes.
func checkClamped(t *testing.T, name string, post []models.Prediction, c *framework.Corpus) (mvAcc []int) {
	t.Helper()
	C := len(c.Answers.Classes)
	for d, as := range c.Answers.ByDoc {
		p := post[d].Target.(*framework.Categorical).P
		if mv := blMajority(as, C); mv >= 0 {
			if p[mv] != 1 {
				t.Errorf("%s: document %d: q(c) = %v, want exactly the majority class %d", name, d, p, mv)
				return
			}
			continue
		}
		votes := make([]int, C)
		top := 0
		for _, a := range as {
			votes[a.Class]++
			top = max(top, votes[a.Class])
		}
		for l, v := range votes {
			if len(as) > 0 && v < top && p[l] != 0 {
				t.Errorf("%s: tied document %d: q(c) = %v puts mass on class %d outside the tie", name, d, p, l)
				return
			}
		}
	}
	return nil
}

const blTopics = "topics {\n k = 5\n alpha = 0.1\n tau = 0.05\n}\n"

// TestBaselineSLDAMajority is sLDA (mv) (MODEL.md §6): softmax + perfect
// annotator on the majority vote, batch EM. The ELBO never decreases, the
// targets are clamped to the majority vote, and the held-out accuracy
// against the truth is close to that of the same model trained on the true
// classes (an oracle annotator): the majority vote's label noise costs
// little held-out accuracy when the labels' errors are spread evenly.
func TestBaselineSLDAMajority(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a long recovery test (minutes under -race): run without -short; CI runs it in its non-race pass")
	}
	g := blClassProblem(t, 1, 400, 3, []float64{0.8, 0.65, 0.55, 0.5, 0.45})
	mvRight, mvDocs := 0, 0
	for d, as := range g.train.Answers.ByDoc {
		if mv := blMajority(as, 3); mv >= 0 {
			mvDocs++
			if mv == g.truth[d] {
				mvRight++
			}
		}
	}
	const src = blTopics + "response \"softmax\" {}\nannotators \"perfect\" {}\ninference \"batch\" {\n max_iters = 25\n}\n"
	run := blFit(t, "slda(mv)", src, g.train)
	checkClamped(t, "slda(mv)", blPosterior(t, run), g.train)
	held := blAccuracy(blPredict(t, run, g.test), g.testTruth)
	oracle := blAccuracy(blPredict(t, blFit(t, "slda(truth)", src, g.oracle()), g.test), g.testTruth)
	t.Logf("majority vote (strict majorities) %.3f on %d documents; held-out: sLDA(mv) %.3f, sLDA(truth) %.3f", float64(mvRight)/float64(mvDocs), mvDocs, held, oracle)
	if held < oracle-0.06 || held < 0.6 {
		t.Errorf("sLDA(mv) held-out accuracy %.3f, want ≥ 0.6 and within 0.06 of sLDA on the true classes (%.3f)", held, oracle)
	}
}

// TestBaselineLDALogRegMajority is LDA + LogReg (mv) under the two-stage
// schedule: each stage's bound is monotone, the targets are clamped, and
// the held-out accuracy is at least 0.1 above the majority vote it is
// trained on (TestBaselineSLDAMajority's problem).
func TestBaselineLDALogRegMajority(t *testing.T) {
	t.Parallel()
	g := blClassProblem(t, 1, 400, 3, []float64{0.8, 0.65, 0.55, 0.5, 0.45})
	run := blFit(t, "lda+logreg(mv)", blTopics+"response \"logreg\" {}\nannotators \"perfect\" {}\ninference \"two-stage\" {\n topics_iters = 25\n}\n", g.train)
	checkClamped(t, "lda+logreg(mv)", blPosterior(t, run), g.train)
	held := blAccuracy(blPredict(t, run, g.test), g.testTruth)
	mvRight, mvDocs := 0, 0
	for d, as := range g.train.Answers.ByDoc {
		if mv := blMajority(as, 3); mv >= 0 {
			mvDocs++
			if mv == g.truth[d] {
				mvRight++
			}
		}
	}
	mv := float64(mvRight) / float64(mvDocs)
	t.Logf("LDA + LogReg (mv) held-out %.3f; majority vote on the training documents %.3f", held, mv)
	// Measured 0.902 held-out against majority vote's 0.743 (issue 29: the
	// former threshold 0.6 was below the labels it is trained on).
	if held < mv+0.1 {
		t.Errorf("LDA + LogReg (mv) held-out accuracy %.3f, want ≥ majority vote's %.3f + 0.1: topics that denoise the votes", held, mv)
	}
}

// blRegData is a planted regression problem: x_d = η·z̄_d + N(0, 0.1),
// answers from three annotators of mean bias 0.
type blRegData struct {
	train, test   *framework.Corpus
	xTrain, xTest []float64
}

func blRegProblem(t *testing.T, seed uint64, d int) *blRegData {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 31))
	all, pl, err := synth.LDA(synth.LDASpec{D: 2 * d, V: 300, K: 5, DocLen: 60, Alpha: 0.2, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := synth.Targets(pl.ZBar, []float64{0.5, 1.75, 3, 4.25, 5.5}, 0.1, rng)
	byDoc := biasprecision.Sample(x[:d], []float64{0.3, -0.3, 0}, []float64{4, 2, 1}, 3, rng)
	return &blRegData{
		train:  &framework.Corpus{V: 300, Docs: all.Docs[:d], Answers: &framework.Answers{Annotators: []string{"a", "b", "c"}, ByDoc: byDoc}},
		test:   &framework.Corpus{V: 300, Docs: all.Docs[d:]},
		xTrain: x[:d], xTest: x[d:],
	}
}

func blR2(pred []models.Prediction, truth []float64) float64 {
	mu := 0.0
	for _, x := range truth {
		mu += x / float64(len(truth))
	}
	ss, st := 0.0, 0.0
	for i, p := range pred {
		e := p.Target.(*framework.Gaussian).Mean - truth[i]
		ss += e * e
		st += (truth[i] - mu) * (truth[i] - mu)
	}
	return 1 - ss/st
}

// checkMeanClamp: every training document's q(x) has its mean within
// 1e-5 of the mean answer (the clamp of a large precision) and a tiny
// variance.
func checkMeanClamp(t *testing.T, name string, post []models.Prediction, c *framework.Corpus) {
	t.Helper()
	for d, as := range c.Answers.ByDoc {
		y := 0.0
		for _, a := range as {
			y += a.Value / float64(len(as))
		}
		g := post[d].Target.(*framework.Gaussian)
		if math.Abs(g.Mean-y) > 1e-5 || !(g.Var > 0 && g.Var < 1e-6) {
			t.Errorf("%s: document %d: q(x) = N(%v, %v), want the mean answer %v clamped", name, d, g.Mean, g.Var, y)
			return
		}
	}
}

// TestBaselineRegressionOnMean is sLDA (mean) (gaussian + perfect, batch)
// and LDA + LinReg (mean) (linreg + perfect, two-stage): monotone bounds,
// targets clamped to the mean answer, and held-out R² against the truth
// close to what the mean answer itself reaches on the training documents.
func TestBaselineRegressionOnMean(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a long recovery test (minutes under -race): run without -short; CI runs it in its non-race pass")
	}
	g := blRegProblem(t, 2, 400)
	mean := make([]models.Prediction, len(g.xTrain))
	for d, as := range g.train.Answers.ByDoc {
		y := 0.0
		for _, a := range as {
			y += a.Value / float64(len(as))
		}
		mean[d] = models.Prediction{Target: &framework.Gaussian{Mean: y}}
	}
	meanR2 := blR2(mean, g.xTrain)
	for _, tc := range []struct{ name, src string }{
		{"slda(mean)", "response \"gaussian\" {}\nannotators \"perfect\" {}\ninference \"batch\" {\n max_iters = 25\n}\n"},
		{"lda+linreg(mean)", "response \"linreg\" {}\nannotators \"perfect\" {}\ninference \"two-stage\" {\n topics_iters = 25\n}\n"},
	} {
		run := blFit(t, tc.name, blTopics+tc.src, g.train)
		checkMeanClamp(t, tc.name, blPosterior(t, run), g.train)
		held := blR2(blPredict(t, run, g.test), g.xTest)
		t.Logf("%s: held-out R² %.3f (mean answer on the training documents: %.3f)", tc.name, held, meanR2)
		if held < meanR2-0.1 || held < 0.7 {
			t.Errorf("%s: held-out R² %.3f, want ≥ 0.7 and within 0.1 of the mean answer's %.3f", tc.name, held, meanR2)
		}
	}
}

// TestBaselineDawidSkene is Dawid–Skene (class-prior + confusion, k = 1):
// with both estimates of the class prior, batch EM is monotone, the
// inferred truth beats the majority vote, and the class prior recovers
// the unbalanced frequencies of the true classes.
func TestBaselineDawidSkene(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	const D, C = 1500, 3
	rng := rand.New(rand.NewPCG(4, 41))
	freq := []float64{0.6, 0.3, 0.1}
	truth := make([]int, D)
	docs := make([]framework.Doc, D)
	for d := range truth {
		truth[d] = synth.Categorical(freq, rng)
		docs[d] = framework.Doc{Words: []int32{0}, Counts: []float64{1}, N: 1}
	}
	pis, err := confusion.FromAccuracies([]float64{0.85, 0.7, 0.55, 0.45, 0.4}, C)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(truth, pis, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	c := &framework.Corpus{V: 1, Docs: docs, Answers: &framework.Answers{Annotators: []string{"a", "b", "c", "d", "e"}, Classes: []string{"x", "y", "z"}, ByDoc: byDoc}}
	empirical := make([]float64, C)
	for _, c := range truth {
		empirical[c] += 1.0 / D
	}
	mv := 0.0
	for d, as := range byDoc {
		votes := make([]float64, C)
		for _, a := range as {
			votes[a.Class]++
		}
		if confusion.MajorityVote(votes, as) {
			mv += votes[truth[d]] / D // ties count as split evenly
		}
	}
	for _, est := range []string{classprior.Variational, classprior.Point} {
		// The start this test was written against (the default until the classifier start, which needs a response that reads the documents).
		src := "topics {\n k = 1\n}\nresponse \"class-prior\" {\n estimate = \"" + est + "\"\n}\nannotators \"confusion\" {\n init = \"uniform\"\n}\ninference \"batch\" {\n max_iters = 60\n}\n"
		run := blFit(t, "dawid-skene/"+est, src, c)
		right := 0
		for d, p := range blPosterior(t, run) {
			if p.Target.(*framework.Categorical).Argmax() == truth[d] {
				right++
			}
		}
		acc := float64(right) / D
		prior := run.Model.Response.(*classprior.Response).Mean()
		t.Logf("%s: truth %.3f (majority vote %.3f), class prior %.3f (true classes %.3f)", est, acc, mv, prior, empirical)
		if acc < mv+0.05 {
			t.Errorf("%s: inferred truth %.3f, want ≥ majority vote %.3f + 0.05", est, acc, mv)
		}
		for l, f := range empirical {
			// 0.564/0.570 for 0.597 measured: Σ_d λ_d/D of an 80%-accurate
			// truth; a prior that ignored the data would be 0.27 off.
			if math.Abs(prior[l]-f) > 0.05 {
				t.Errorf("%s: class prior %.3f, want within 0.05 of the true classes' frequencies %.3f", est, prior, empirical)
				break
			}
		}
	}
}

// TestBaselineLogRegConfusion is LDA + Raykar's composition with the
// Bayesian confusion annotators under the two-stage schedule (the point
// estimate is the confusion model's own option): stage 2 alternates q(c)
// with the regression and the annotators on frozen features, and its bound
// must not decrease; the inferred truth beats the majority vote.
func TestBaselineLogRegConfusion(t *testing.T) {
	t.Parallel()
	g := blClassProblem(t, 3, 400, 3, []float64{0.8, 0.65, 0.55, 0.5, 0.45})
	run := blFit(t, "lda+logreg+confusion", blTopics+"response \"logreg\" {}\nannotators \"confusion\" {}\ninference \"two-stage\" {\n topics_iters = 25\n}\n", g.train)
	post := blPosterior(t, run)
	right, mv := 0, 0.0
	for d, p := range post {
		if p.Target.(*framework.Categorical).Argmax() == g.truth[d] {
			right++
		}
		w := make([]float64, 3)
		if confusion.MajorityVote(w, g.train.Answers.ByDoc[d]) {
			mv += w[g.truth[d]] / float64(len(post))
		}
	}
	acc := float64(right) / float64(len(post))
	held := blAccuracy(blPredict(t, run, g.test), g.testTruth)
	share, testShare := blShare(g.truth, g.truth), blShare(g.truth, g.testTruth)
	t.Logf("truth %.3f (majority vote %.3f, largest class %.3f), held-out %.3f (largest class %.3f)", acc, mv, share, held, testShare)
	if base := max(mv, share); acc < base+0.1 {
		t.Errorf("inferred truth %.3f, want ≥ %.3f: the better of majority vote (%.3f) and always answering the largest class (%.3f), + 0.1", acc, base+0.1, mv, share)
	}
	if held < testShare+0.1 {
		t.Errorf("held-out accuracy %.3f, want ≥ %.3f: always answering the largest class of the training truth (%.3f) + 0.1", held, testShare+0.1, testShare)
	}
}

// blShare is the accuracy on truth of always answering the class most
// frequent in train.
func blShare(train, truth []int) float64 {
	count := map[int]int{}
	best := train[0]
	for _, c := range train {
		count[c]++
		if count[c] > count[best] {
			best = c
		}
	}
	hits := 0
	for _, c := range truth {
		if c == best {
			hits++
		}
	}
	return float64(hits) / float64(len(truth))
}
