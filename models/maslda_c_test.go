package models_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"github.com/maslda/maslda/framework/synth"
	_ "github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/optim"
)

// crowdData is a planted MA-sLDAc problem: documents from planted topics,
// true classes from a planted η, answers from simulated annotators.
type crowdData struct {
	train, test      *framework.Corpus
	truth, testTruth []int
	pis              [][][]float64
}

func plantedCrowd(t testing.TB, seed uint64, d, v, k, c, perDoc int, acc []float64) *crowdData {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	all, pl, err := synth.LDA(synth.LDASpec{D: 2 * d, V: v, K: k, DocLen: 100, Alpha: 0.1, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	eta := synth.PlantedEta(c, k, 6, rng)
	classes := synth.Classes(pl.ZBar, eta, rng)
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
	train := &framework.Corpus{V: v, Docs: all.Docs[:d], Answers: &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}}
	test := &framework.Corpus{V: v, Docs: all.Docs[d:]}
	return &crowdData{train: train, test: test, truth: classes[:d], testTruth: classes[d:], pis: pis}
}

func majorityAccuracy(cd *crowdData, rng *rand.Rand) float64 {
	right := 0
	C := len(cd.train.Answers.Classes)
	for d, as := range cd.train.Answers.ByDoc {
		votes := make([]int, C)
		for _, a := range as {
			votes[a.Class]++
		}
		best, ties := -1, 0
		for l, v := range votes {
			if best < 0 || v > votes[best] {
				best, ties = l, 1
			} else if v == votes[best] {
				ties++
				if rng.IntN(ties) == 0 {
					best = l
				}
			}
		}
		if best == cd.truth[d] {
			right++
		}
	}
	return float64(right) / float64(len(cd.truth))
}

func accuracyOf(preds []models.Prediction, truth []int) float64 {
	right := 0
	for i, p := range preds {
		if p.Target.(*framework.Categorical).Argmax() == truth[i] {
			right++
		}
	}
	return float64(right) / float64(len(truth))
}

func TestExploreMASLDAc(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	acc := []float64{0.737, 0.468, 0.284, 0.278, 0.260}
	cd := plantedCrowd(t, 1, 1500, 500, 8, 4, 1, acc)
	mv := majorityAccuracy(cd, rand.New(rand.NewPCG(1, 1)))
	for _, src := range []string{
		os.Getenv("MASLDA_CFG"),
	} {
		cfg, err := models.ParseConfig([]byte(src), "x.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, cd.train)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		res, err := r.Fit(ctx, func(p framework.Progress) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		post, _ := r.Model.Posterior(ctx)
		pred, _ := r.Model.Predict(ctx, cd.test)
		fmt.Printf("MV %.3f  truth %.3f  test %.3f  iters %d ELBO %.6g  confusion dist %.3f\n", mv, accuracyOf(post, cd.truth), accuracyOf(pred, cd.testTruth), res.Iters, res.ELBO, confusionDistance(r.Model.Noise.(*confusion.Model), cd.pis))
	}
}

// confusionDistance is the mean absolute difference per entry between the
// estimated (posterior-mean) and planted confusion matrices.
func confusionDistance(m *confusion.Model, pis [][][]float64) float64 {
	s, n := 0.0, 0
	for r, pi := range pis {
		est := m.Mean(r)
		for c := range pi {
			for l := range pi[c] {
				s += math.Abs(est[c][l] - pi[c][l])
				n++
			}
		}
	}
	return s / float64(n)
}

// annotatorDistance is the mean absolute difference per entry between
// annotator a's estimated (posterior-mean) and planted matrices.
func annotatorDistance(m *confusion.Model, a int, pi [][]float64) float64 {
	s, n := 0.0, 0
	est := m.Mean(a)
	for c := range pi {
		for l := range pi[c] {
			s += math.Abs(est[c][l] - pi[c][l])
			n++
		}
	}
	return s / float64(n)
}

// uniformDistance is confusionDistance of uniform matrices (every row
// 1/C): the trivial baseline of the estimated confusion matrices.
func uniformDistance(pis [][][]float64) float64 {
	s, n := 0.0, 0
	for _, pi := range pis {
		for c := range pi {
			for l := range pi[c] {
				s += math.Abs(1/float64(len(pi[c])) - pi[c][l])
				n++
			}
		}
	}
	return s / float64(n)
}

// TestMASLDAcRecovery: planted topics and η, the paper's five annotators
// (MODEL.md §7) and ONE answer per document, the hard regime of the
// paper's 20 Newsgroups run. MA-sLDAc's inferred truth and held-out
// predictions must beat majority vote by a wide margin, the estimated
// confusion matrices must be close to the planted ones, the batch ELBO must
// never decrease (within each stage of the classifier start), the default
// restarts must not do worse than one start, and SVI's truth and held-out
// accuracies must be within 2 points of batch's from one start (with the
// classifier start SVI is ahead on both).
func TestMASLDAcRecovery(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	if testing.Short() {
		t.Skip("a long recovery test (minutes under -race): run without -short; CI runs it in its non-race pass")
	}
	race.SkipUnlessLong(t, "MA-sLDAc's planted topics and annotators, batch (the default restarts and consensus, one start) and SVI (about 20 CPU-s)")
	acc := []float64{0.737, 0.468, 0.284, 0.278, 0.260}
	cd := plantedCrowd(t, 1, 1000, 400, 8, 4, 1, acc)
	mv := majorityAccuracy(cd, rand.New(rand.NewPCG(1, 1)))
	run := func(inference string) (truthAcc, testAcc, dist float64, elbos []float64, stages []int) {
		cfg, err := models.ParseConfig([]byte("topics {\n k = 8\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n"+inference), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, cd.train)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := r.Fit(ctx, func(p framework.Progress) error {
			if p.Restart > 0 || p.Fit > 0 { // the restarts' candidates (plain LDA), the other seeds' fits (consensus)
				return nil
			}
			elbos, stages = append(elbos, p.ELBO), append(stages, p.Stage)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		post, err := r.Model.Posterior(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := r.Model.Predict(ctx, cd.test)
		if err != nil {
			t.Fatal(err)
		}
		noise := r.Model.Noise.(*confusion.Model)
		{ // batch and SVI alike
			// Annotators whose planted matrix is far from uniform must be
			// estimated far closer than uniform matrices are (measured:
			// batch 0.051 against 0.243 and 0.073 against 0.109, SVI 0.045 and
			// 0.066); the three within
			// 0.02 of uniform are weakly identified with one answer per
			// document and are estimated 0.072–0.087 away (docs/design.md).
			for a, pi := range cd.pis {
				d, u := annotatorDistance(noise, a, pi), uniformDistance(cd.pis[a:a+1])
				t.Logf("annotator %d: distance %.3f, uniform matrices %.3f", a, d, u)
				if u >= 0.1 && d > 0.75*u {
					t.Errorf("annotator %d: confusion matrix at mean distance %.3f per entry from the planted one, want ≤ 0.75 × %.3f (uniform's)", a, d, u)
				}
			}
		}
		return accuracyOf(post, cd.truth), accuracyOf(pred, cd.testTruth), confusionDistance(noise, cd.pis), elbos, stages
	}
	truthB, testB, distB, elbos, stages := run("inference \"batch\" {\n max_iters = 40\n}\n")
	t.Logf("majority vote %.3f; batch: truth %.3f, held-out %.3f, confusion distance %.3f", mv, truthB, testB, distB)
	// The default classifier start re-initialises the annotators once, after
	// 8 passes: stage 1 before, stage 2 after; each must be monotone.
	if len(stages) < 10 || stages[0] != 1 || stages[7] != 1 || stages[8] != 2 || stages[len(stages)-1] != 2 {
		t.Errorf("stages %v, want 1 for the first 8 iterations and 2 after", stages)
	}
	for i := 1; i < len(elbos); i++ {
		if stages[i] != stages[i-1] {
			continue
		}
		if elbos[i] < elbos[i-1]-1e-8*math.Abs(elbos[i-1]) {
			t.Errorf("batch ELBO decreased at iteration %d: %v → %v", i+1, elbos[i-1], elbos[i])
		}
	}
	if truthB < mv+0.25 || testB < mv+0.25 {
		t.Errorf("batch MA-sLDAc truth %.3f / held-out %.3f do not beat majority vote %.3f by 0.25", truthB, testB, mv)
	}
	uniform := uniformDistance(cd.pis)
	t.Logf("uniform confusion matrices: distance %.3f", uniform)
	// Over all five annotators the margin is thin (measured 0.072 against
	// 0.078): see the per-annotator check above.
	if distB >= uniform {
		t.Errorf("confusion matrices at mean distance %.3f per entry from the planted ones, want below uniform matrices' %.3f", distB, uniform)
	}
	// The default restarts (4 starts of plain LDA, the best bound kept)
	// and consensus (three seeds' fits, the medoid kept) against one
	// start and one fit: measured 0.871 / 0.900 against 0.786 / 0.823
	// for the restarts alone.
	truth1, test1, _, _, _ := run("restarts = 1\nconsensus = 1\ninference \"batch\" {\n max_iters = 40\n}\n")
	t.Logf("batch with one start: truth %.3f, held-out %.3f", truth1, test1)
	if truthB < truth1-0.005 || testB < test1-0.005 {
		t.Errorf("batch with the default restarts: truth %.3f / held-out %.3f, below one start's %.3f / %.3f", truthB, testB, truth1, test1)
	}
	// SVI (no restarts) against batch from one start: the schedules alike.
	truthS, testS, distS, _, _ := run("inference \"svi\" {\n batch_size = 200\n epochs = 20\n}\n")
	t.Logf("svi: truth %.3f, held-out %.3f, confusion distance %.3f", truthS, testS, distS)
	if testS < test1-0.02 || truthS < truth1-0.02 {
		t.Errorf("SVI truth %.3f / held-out %.3f: more than 2 points below batch's from one start, %.3f / %.3f", truthS, testS, truth1, test1)
	}
}
