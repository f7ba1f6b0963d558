package models_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestConvergenceScaleOneTopic: with k = 1 the topic layer's part of the
// bound is the same after every update, so ELBO + ConvergenceScale (the
// bound less its supervised part, which is negative) is constant from the
// first iteration on, and the scale is far below |ELBO| on documents with
// many words; with k = 2 the model reports no scale (the whole bound).
func TestConvergenceScaleOneTopic(t *testing.T) {
	t.Parallel()
	const D, C, V = 300, 3, 50
	rng := rand.New(rand.NewPCG(5, 51))
	truth := make([]int, D)
	docs := make([]framework.Doc, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
		doc := framework.Doc{}
		for v := range V {
			if n := rng.IntN(4); n > 0 {
				doc.Words = append(doc.Words, int32(v))
				doc.Counts = append(doc.Counts, float64(n))
				doc.N += float64(n)
			}
		}
		docs[d] = doc
	}
	pis, err := confusion.FromAccuracies([]float64{0.8, 0.6, 0.5, 0.4}, C)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(truth, pis, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	c := &framework.Corpus{V: V, Docs: docs, Answers: &framework.Answers{Annotators: []string{"a", "b", "c", "d"}, Classes: []string{"x", "y", "z"}, ByDoc: byDoc}}
	for _, k := range []int{1, 2} {
		cfg, err := models.ParseConfig([]byte("model = \"dawid-skene\"\ntopics {\n  k = "+strconv.Itoa(k)+"\n}\n"), "ds.hcl")
		if err != nil {
			t.Fatal(err)
		}
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		m := run.Model
		all := make([]int, D)
		for d := range all {
			all[d] = d
		}
		rest := math.NaN()
		for it := 1; it <= 4; it++ {
			s, err := m.EStep(context.Background(), all)
			if err != nil {
				t.Fatal(err)
			}
			st := framework.BatchStep(it)
			if err := m.Update(context.Background(), s, st); err != nil {
				t.Fatal(err)
			}
			e := m.ELBO(s, st)
			scale, ok := m.ConvergenceScale(s, st)
			if k != 1 {
				if ok {
					t.Errorf("k = %d: ConvergenceScale ok", k)
				}
				break
			}
			if !ok || scale <= 0 || scale > 0.1*math.Abs(e) {
				t.Fatalf("iteration %d: scale %v, %v (ELBO %v)", it, scale, ok, e)
			}
			if it > 1 && math.Abs(e+scale-rest) > 1e-9*math.Abs(rest) {
				t.Errorf("iteration %d: ELBO − supervised part %v, was %v", it, e+scale, rest)
			}
			rest = e + scale
		}
	}
}

// TestConvergencePartCrowd: with k > 1 the model reports its supervised
// part (and not with k = 1, where ConvergenceScale covers it), and on
// draw0 of the randomised family (6-word documents, 8 noisy answers per
// item, 87% of one class) batch EM no longer stops while the crowd's part
// still moves: truth 0.762 after 15 iterations when only the whole bound
// was judged, 0.875 now (the crowd oracle 0.871, Bayesian Dawid–Skene
// 0.873).
func TestConvergencePartCrowd(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	spec := synth.RandomFamily(1, 1)[0]
	cr, err := synth.NewFamilyCrowd(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 2} {
		cfg, err := models.ParseConfig([]byte(fmt.Sprintf("model = \"ma-sldac\"\nworkers = 1\nconsensus = 1\ntopics { k = %d }\n", k)), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		run, err := models.Build(cfg, nil, cr.Train)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, len(cr.Train.Docs))
		for d := range all {
			all[d] = d
		}
		s, err := run.Model.EStep(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		st := framework.BatchStep(1)
		if err := run.Model.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		part, ok := run.Model.ConvergencePart(s, st)
		if e := run.Model.ELBO(s, st); ok != (k > 1) || (ok && !(part < 0 && part > e)) {
			t.Errorf("k = %d: ConvergencePart %v, %v (ELBO %v)", k, part, ok, e)
		}
	}
	if testing.Short() {
		t.Skip("the recovery takes 100 iterations (about 5 s)")
	}
	truth, _, _, err := fitScored(cr.Crowd, fmt.Sprintf("model = \"ma-sldac\"\nseed = 1\nworkers = 1\nconsensus = 1\ntopics { k = %d }\n", spec.ModelK), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if truth < 0.86 {
		t.Errorf("truth %.4f, want ≥ 0.86 (Bayesian Dawid–Skene 0.873; 0.762 when EM stopped on the whole bound)", truth)
	}
}
