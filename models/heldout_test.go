package models_test

import (
	"context"
	"errors"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestSplitAnswers: the split is a partition of the answers (each
// document's kept and held answers merge back, in order, into its own),
// the same seed gives the same split, the share is about right, and a
// share outside [0, 1) is refused.
func TestSplitAnswers(t *testing.T) {
	t.Parallel()
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc = 400, 0, 5, 3
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	a := cr.Train.Answers
	kept, held, err := models.SplitAnswers(a, 0.25, 7)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for d, as := range a.ByDoc {
		merged := slices.Concat(kept.ByDoc[d], held[d])
		slices.SortFunc(merged, func(x, y framework.Answer) int { return int(x.Annotator - y.Annotator) })
		if diff := cmp.Diff(as, merged); diff != "" {
			t.Fatalf("document %d: kept and held are not a partition of its answers:\n%s", d, diff)
		}
		n += len(held[d])
	}
	if share := float64(n) / float64(a.Count()); math.Abs(share-0.25) > 0.04 {
		t.Errorf("held out %.3f of the answers, want about 0.25", share)
	}
	_, again, _ := models.SplitAnswers(a, 0.25, 7)
	if diff := cmp.Diff(held, again); diff != "" {
		t.Errorf("the same seed held out other answers:\n%s", diff)
	}
	_, none, _ := models.SplitAnswers(a, 0, 7)
	for d := range none {
		if len(none[d]) > 0 {
			t.Fatalf("share 0 held out document %d's answers", d)
		}
	}
	for _, bad := range []float64{-0.1, 1, math.NaN()} {
		if _, _, err := models.SplitAnswers(a, bad, 7); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("share %v: %v, want ErrBadInput", bad, err)
		}
	}
}

// TestScoreAnswers: the score is the sum, over held-out answers, of the
// annotator model's log predictive at the document's posterior; a model
// that knows the annotators (ξ from the planted matrices) scores the
// held-out answers higher than one that believes every annotator answers
// at random; held-out answers of the wrong length are refused.
func TestScoreAnswers(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc = 300, 0, 20, 3
	spec.Accuracies = []float64{0.9, 0.8, 0.7, 0.3, 0.25}
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	kept, held, err := models.SplitAnswers(cr.Train.Answers, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	train := &framework.Corpus{V: cr.Train.V, Docs: cr.Train.Docs, Answers: kept}
	score := func(src string) (models.AnswerScore, *models.Run) {
		cfg, err := models.ParseConfig([]byte(src), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, train)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Fit(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		s, err := r.Model.ScoreAnswers(context.Background(), held)
		if err != nil {
			t.Fatal(err)
		}
		return s, r
	}
	good, r := score("seed = 1\nconsensus = 1\ntopics { k = 8 }\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" { max_iters = 20 }\n")
	flat, _ := score("seed = 1\nconsensus = 1\ntopics { k = 8 }\nresponse \"softmax\" {}\nannotators \"confusion\" {\n init = \"uniform\"\n diagonal = 0\n omega = 1e6\n}\ninference \"batch\" { max_iters = 5 }\n")
	ap := r.Model.Noise.(framework.AnswerPredictor)
	post, err := r.Model.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := models.AnswerScore{}
	for d, as := range held {
		for _, a := range as {
			want.Sum += ap.LogPredictive(post[d].Target, a)
			want.N++
		}
	}
	if math.Abs(good.Sum-want.Sum) > 1e-9*math.Abs(want.Sum) || good.N != want.N || good.N == 0 {
		t.Errorf("ScoreAnswers %+v, want %+v", good, want)
	}
	if chance := math.Log(1 / float64(spec.C)); !(good.Mean() > flat.Mean()+0.1) || math.Abs(flat.Mean()-chance) > 0.01 {
		t.Errorf("mean held-out log predictive: fitted %.3f, flat annotators %.3f (chance %.3f): want the fitted one clearly higher and the flat one at chance", good.Mean(), flat.Mean(), chance)
	}
	if _, err := r.Model.ScoreAnswers(context.Background(), held[1:]); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("held-out answers of %d documents: %v, want ErrBadInput", len(held)-1, err)
	}
}

// TestFoldAnswers: over the folds every answer is held out exactly once,
// each fold's kept and held answers partition the answers, the folds are
// about equal, and a bad fold is refused.
func TestFoldAnswers(t *testing.T) {
	t.Parallel()
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc = 300, 0, 5, 3
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	a := cr.Train.Answers
	const F = 4
	times := make([]map[int32]int, len(a.ByDoc))
	for d := range times {
		times[d] = map[int32]int{}
	}
	for f := range F {
		kept, held, err := models.FoldAnswers(a, F, f, 9)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for d := range a.ByDoc {
			if len(kept.ByDoc[d])+len(held[d]) != len(a.ByDoc[d]) {
				t.Fatalf("fold %d, document %d: %d kept + %d held of %d", f, d, len(kept.ByDoc[d]), len(held[d]), len(a.ByDoc[d]))
			}
			for _, x := range held[d] {
				times[d][x.Annotator]++
			}
			n += len(held[d])
		}
		if share := float64(n) / float64(a.Count()); math.Abs(share-0.25) > 0.05 {
			t.Errorf("fold %d holds out %.3f of the answers, want about 1/4", f, share)
		}
	}
	for d, as := range a.ByDoc {
		for _, x := range as {
			if times[d][x.Annotator] != 1 {
				t.Fatalf("document %d, annotator %d: held out %d times over the folds, want 1", d, x.Annotator, times[d][x.Annotator])
			}
		}
	}
	for _, bad := range [][2]int{{1, 0}, {4, 4}, {4, -1}} {
		if _, _, err := models.FoldAnswers(a, bad[0], bad[1], 9); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("fold %d of %d: %v, want ErrBadInput", bad[1], bad[0], err)
		}
	}
}
