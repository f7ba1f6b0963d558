package models

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

// TestRewarmIsBuildWithMarks: the run's second pass is the run built from
// the configuration and seed with the first pass's marks handed to the
// annotators' Init (Setup.Marks): the same bound, posterior and marks bit
// for bit, its updates those of the fit's second pass; and such a run
// marks nobody more (no third pass).
func TestRewarmIsBuildWithMarks(t *testing.T) {
	t.Parallel()
	c, err := synth.NearConstantCrowd(120, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustConfig(t, "seed = 3\nconsensus = 1\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 2\n constant = \"almost\"\n}\ninference \"batch\" {\n max_iters = 7\n tol = 0\n}\n")
	fit := func(r *Run) ([]framework.Progress, *framework.Result, []float64) {
		var ps []framework.Progress
		res, err := r.Fit(context.Background(), func(p framework.Progress) error {
			p.Elapsed = 0
			ps = append(ps, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		post, err := r.Model.Posterior(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var out []float64
		for _, p := range post {
			out = append(out, p.Theta...)
			out = append(out, p.Target.(*framework.Categorical).P...)
		}
		return ps, res, out
	}
	r, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	ps, res, post := fit(r)
	marks := r.Marks()
	if !cmp.Equal(marks, []int32{-1, -1, 1, -1}) {
		t.Fatalf("marks %v, want a2's class 1", marks)
	}
	w, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	// Built as Build builds, with the marks: the seed's random source, the
	// marks in the setup.
	w.src.Seed(cfg.Seed, randStream)
	w.marks = marks
	if w.Model, w.Schedule, err = w.assemble(); err != nil {
		t.Fatal(err)
	}
	wps, wres, wpost := fit(w)
	if !cmp.Equal(w.Marks(), marks) {
		t.Errorf("the run built with the marks ends with marks %v, want %v (no third pass)", w.Marks(), marks)
	}
	if math.Float64bits(res.ELBO) != math.Float64bits(wres.ELBO) || res.Iters != wres.Iters+r.pass.Iter {
		t.Errorf("fit: bound %v after %d updates; built with the marks: %v after %d (+%d of the first pass)", res.ELBO, res.Iters, wres.ELBO, wres.Iters, r.pass.Iter)
	}
	if r.pass.Iter != 2 {
		t.Errorf("the first pass ended after %d updates, want 2 (start_iters)", r.pass.Iter)
	}
	second := ps[len(ps)-len(wps):]
	for i := range second {
		second[i].Iter -= r.pass.Iter
		second[i].Epoch -= r.pass.Epoch
	}
	if diff := cmp.Diff(wps, second, cmp.Comparer(func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	})); diff != "" {
		t.Errorf("the second pass's updates (+) against the run built with the marks (-):\n%s", diff)
	}
	if len(post) != len(wpost) {
		t.Fatalf("%d posterior values, want %d", len(post), len(wpost))
	}
	for i := range post {
		if math.Float64bits(post[i]) != math.Float64bits(wpost[i]) {
			t.Fatalf("posterior value %d: %v, built with the marks %v", i, post[i], wpost[i])
		}
	}
	// A run whose annotators cannot be handed marks refuses them.
	lda, err := Build(mustConfig(t, "seed = 3\ntopics {\n k = 3\n}\n"), nil, &framework.Corpus{V: 60, Docs: c.Docs})
	if err != nil {
		t.Fatal(err)
	}
	if err := lda.rewarm(marks, framework.Progress{}); err == nil {
		t.Error("plain LDA took marks")
	}
}
