package models_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// almostCorpus is synth.NearConstantCrowd (a2 near-constant with near).
func almostCorpus(t testing.TB, D int, near bool) *framework.Corpus {
	t.Helper()
	c, err := synth.NearConstantCrowd(D, near)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// almostSrc is MA-sLDAc with constant = "almost" (the classifier start
// after two passes) under the given inference block.
func almostSrc(constant, inference string) string {
	return "seed = 3\nconsensus = 1\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 2\n constant = \"" + constant + "\"\n}\n" + inference
}

const rewarmBatch = "inference \"batch\" {\n max_iters = 7\n tol = 0\n}\n"

// constantOf is the annotators' Constant(r) for every annotator.
func constantOf(t *testing.T, r *models.Run) []int32 {
	t.Helper()
	c, ok := r.Model.Noise.(interface{ Constant(int) int })
	if !ok {
		t.Fatalf("annotators %T have no Constant", r.Model.Noise)
	}
	out := make([]int32, len(r.Annotators))
	for i := range out {
		out[i] = int32(c.Constant(i))
	}
	return out
}

// TestRewarmSecondPass: with constant = "almost" the classifier start of
// the first pass marks the near-constant a2 and no other; the run then
// starts again from the beginning and ends as a run whose annotators
// ignore exactly the first pass's marks (a2 with its class 1), its
// progress numbered on: every update once, in order, and the result's
// iterations those of both passes. The first pass's start comes after
// start_iters = 2 passes; the second pass runs the whole schedule.
func TestRewarmSecondPass(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, true)
	for _, inf := range []string{rewarmBatch, "inference \"svi\" {\n batch_size = 50\n epochs = 5\n tol = 0\n}\n"} {
		cfg, err := models.ParseConfig([]byte(almostSrc("almost", inf)), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		var iters []int
		res, err := r.Fit(context.Background(), func(p framework.Progress) error {
			if p.Restart == 0 {
				iters = append(iters, p.Iter)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []int32{-1, -1, 1, -1}; !cmp.Equal(r.Marks(), want) {
			t.Fatalf("%s: marks %v, want %v", cfg.Inference.Name, r.Marks(), want)
		}
		if got := constantOf(t, r); !cmp.Equal(got, r.Marks()) {
			t.Errorf("%s: the second pass ignores %v, the first pass marked %v", cfg.Inference.Name, got, r.Marks())
		}
		for i, it := range iters {
			if it != i+1 {
				t.Fatalf("%s: updates numbered %v, want 1 … %d", cfg.Inference.Name, iters, len(iters))
			}
		}
		if res.Iters != len(iters) {
			t.Errorf("%s: result of %d iterations, %d updates reported", cfg.Inference.Name, res.Iters, len(iters))
		}
		first := 2 // batch: the start after 2 passes
		if cfg.Inference.Name == "svi" {
			first = 6 // 120 documents in mini-batches of 50: 3 updates a pass, the start after 2 passes
		}
		if len(iters) <= first {
			t.Errorf("%s: %d updates, want the first pass's %d and a second pass", cfg.Inference.Name, len(iters), first)
		}
	}
}

// TestRewarmOneStart: the second pass runs no restart candidates (the
// first pass chose among them; Run.Restarts is 1 once the run has marks):
// with restarts = 2, restart_iters = 2, the candidates' 4 updates all come
// before the first pass's schedule, none after, and the run's restart
// bounds are cleared.
func TestRewarmOneStart(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, true)
	cfg, err := models.ParseConfig([]byte("restarts = 2\nrestart_iters = 2\n"+almostSrc("almost", rewarmBatch)), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Restarts() != 2 {
		t.Fatalf("Restarts() = %d before the run, want 2", r.Restarts())
	}
	var restarts, before int
	sched := false
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		switch {
		case p.Restart == 0:
			sched = true
		case !sched:
			before++
			restarts++
		default:
			restarts++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if r.Marks() == nil {
		t.Fatal("no marks: the case does not test the second pass")
	}
	if restarts != 4 || before != 4 {
		t.Errorf("%d restart updates, %d before the first schedule update; want 4 and 4", restarts, before)
	}
	if r.Restarts() != 1 || r.RestartELBOs != nil {
		t.Errorf("after the second pass: Restarts() = %d, RestartELBOs %v; want 1 and none", r.Restarts(), r.RestartELBOs)
	}
}

// TestRewarmNoMarks: where the start marks nobody (a2 reads the items),
// constant = "almost" is constant = "ignore" bit for bit: the same
// progress, bounds and posterior, one pass.
func TestRewarmNoMarks(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, false)
	want := fitTrace(t, almostSrc("ignore", rewarmBatch), c, 0, "")
	got := fitTrace(t, almostSrc("almost", rewarmBatch), c, 0, "")
	delete(want.files, "config.hcl")
	delete(got.files, "config.hcl")
	delete(want.files, "model.json")
	delete(got.files, "model.json")
	compareTraces(t, want, got)
}

// TestRewarmWorkers: the marks and the fit do not depend on the number of
// workers.
func TestRewarmWorkers(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, true)
	one := fitTrace(t, "workers = 1\n"+almostSrc("almost", rewarmBatch), c, 0, "")
	two := fitTrace(t, "workers = 2\n"+almostSrc("almost", rewarmBatch), c, 0, "")
	delete(one.files, "config.hcl")
	delete(two.files, "config.hcl")
	delete(one.files, "model.json")
	delete(two.files, "model.json")
	compareTraces(t, one, two)
}

// TestRewarmCheckpoint: a fit with a second pass stopped after update k,
// checkpointed and resumed in a new run, ends as the uninterrupted fit:
// k in the first pass before its start (the start and the second pass
// then happen after the resume), and in the second pass before and after
// its own start (the checkpoint holds the marks: the resumed run is built
// with them and neither marks again nor loses them). Batch EM and SVI.
func TestRewarmCheckpoint(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, true)
	for _, tc := range []struct {
		inf   string
		stops []int
	}{
		// Batch: the first pass ends at its start after update 2; the
		// second pass's updates are 3 … 9, its start after update 4.
		{rewarmBatch, []int{1, 3, 4, 5, 8}},
		// SVI: 3 updates a pass; the first pass ends at its start after
		// update 6, the second runs updates 7 … 15, its start after 12.
		{"inference \"svi\" {\n batch_size = 50\n epochs = 3\n tol = 0\n}\n", []int{2, 4, 7, 9, 12, 14}},
	} {
		src := almostSrc("almost", tc.inf)
		want := fitTrace(t, src, c, 0, "")
		for _, k := range tc.stops {
			got := fitTrace(t, src, c, k, filepath.Join(t.TempDir(), "cp"))
			compareTraces(t, want, got)
			if t.Failed() {
				t.Fatalf("%s: resumed after update %d", tc.inf, k)
			}
		}
	}
}

// TestRewarmMarksInFiles: the second pass's marks are saved with the
// annotators (constant) and the run's model reads them back.
func TestRewarmMarksInFiles(t *testing.T) {
	t.Parallel()
	c := almostCorpus(t, 120, true)
	cfg, err := models.ParseConfig([]byte(almostSrc("almost", rewarmBatch)), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	s, err := models.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, ok := s.Model.Noise.(interface{ Constant(int) int })
	if !ok {
		t.Fatalf("loaded annotators %T have no Constant", s.Model.Noise)
	}
	for i, v := range r.Marks() {
		if got := cs.Constant(i); got != int(v) {
			t.Errorf("loaded Constant(%d) = %d, want the mark %d", i, got, v)
		}
	}
	if math.IsNaN(r.Result.ELBO) {
		t.Error("NaN bound")
	}
}
