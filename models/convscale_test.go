package models_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// TestConvergenceScaleOneTopic: with k = 1 the topic layer's part of the
// bound is the same after every update, so ELBO + ConvergenceScale (the
// bound less its supervised part, which is negative) is constant from the
// first iteration on, and the scale is far below |ELBO| on documents with
// many words; with k = 2 the model reports no scale (the whole bound).
func TestConvergenceScaleOneTopic(t *testing.T) {
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
