package models

import (
	"bytes"
	"context"
	"errors"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"github.com/maslda/maslda/likelihoods/gaussian"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// warmCrowd is MA-sLDAc with the classifier start after two passes (so a
// start that is not skipped shows as a Stage 2 and a drop of the bound).
const warmCrowd = twoStageTopics + `response "softmax" {}
annotators "confusion" {
  init        = "classifier"
  start_iters = 2
}
inference "batch" {
  max_iters = 6
  tol       = 0
}
`

// trainSaved trains src on c and saves the model; it returns the run and
// the directory.
func trainSaved(t *testing.T, src string, c *framework.Corpus) (*Run, string) {
	t.Helper()
	r, err := Build(mustConfig(t, src), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir() + "/model"
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// globals is every global parameter of m: ζ and the persisted parameters.
func globals(t *testing.T, m *Model) (zeta []float64, params [][]byte) {
	t.Helper()
	for _, c := range []any{m.Response, m.Noise} {
		p, ok := c.(framework.Persister)
		if !ok {
			continue
		}
		var b bytes.Buffer
		if err := p.SaveParams(&b); err != nil {
			t.Fatal(err)
		}
		params = append(params, b.Bytes())
	}
	return append([]float64(nil), m.Topics.Zeta...), params
}

// TestWarmStartCopiesGlobals: after WarmStart a run built from another seed
// holds exactly the saved model's globals, for both models.
func TestWarmStartCopiesGlobals(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	for _, tc := range []struct {
		name, src string
		corpus    func(testing.TB) *framework.Corpus
	}{
		{"MA-sLDAc", warmCrowd, crowdTrain},
		{"MA-sLDAr", smallRegConfig, smallRegCorpus},
		{"LDA", twoStageTopics, crowdTrain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.corpus(t)
			trained, dir := trainSaved(t, tc.src, c)
			cfg := mustConfig(t, tc.src)
			cfg.Seed += 17
			r, err := Build(cfg, nil, c)
			if err != nil {
				t.Fatal(err)
			}
			z0, _ := globals(t, r.Model)
			if h, ok := trained.Model.Response.(framework.CrowdHolder); ok {
				// A warm start reopens a held crowd's pilot
				// (TestWarmStartHeldCrowd): the saved parameters but for
				// the pilot's end.
				h.Reopen()
			}
			wantZ, wantP := globals(t, trained.Model)
			if cmp.Equal(z0, wantZ) {
				t.Fatal("the fresh run already has the trained topics: the test cannot fail")
			}
			if err := r.WarmStart(dir); err != nil {
				t.Fatal(err)
			}
			gotZ, gotP := globals(t, r.Model)
			if !cmp.Equal(gotZ, wantZ) {
				t.Error("ζ differs from the saved model's")
			}
			if !cmp.Equal(gotP, wantP) {
				t.Error("the response's or the annotators' parameters differ from the saved model's")
			}
			if len(wantP) == 0 && tc.name != "LDA" {
				t.Error("no persisted parameters to compare")
			}
		})
	}
}

// TestWarmStartContinues: batch EM from a warm start begins near the saved
// model's bound, far above a cold start, climbs monotonically, and does
// not repeat the classifier start (no Stage 2, no drop).
func TestWarmStartContinues(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	c := crowdTrain(t)
	trained, dir := trainSaved(t, warmCrowd, c)
	saved := trained.Result.ELBO
	trace := func(warm bool) []float64 {
		r, err := Build(mustConfig(t, warmCrowd), nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if warm {
			if err := r.WarmStart(dir); err != nil {
				t.Fatal(err)
			}
		}
		var elbo []float64
		if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
			if warm && p.Stage > 1 {
				t.Errorf("iteration %d: stage %d after a warm start: the classifier start ran again", p.Iter, p.Stage)
			}
			elbo = append(elbo, p.ELBO)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return elbo
	}
	cold, warm := trace(false), trace(true)
	if math.Abs(warm[0]-saved) > 0.01*math.Abs(saved) {
		t.Errorf("first warm ELBO %.2f, saved model's %.2f: not within 1%%", warm[0], saved)
	}
	if warm[0] <= cold[0] {
		t.Errorf("first warm ELBO %.2f is not above the cold start's %.2f", warm[0], cold[0])
	}
	for i := 1; i < len(warm); i++ {
		if warm[i] < warm[i-1]-1e-8*math.Abs(warm[i-1]) {
			t.Errorf("warm-started batch ELBO decreased at iteration %d: %.6f → %.6f", i+1, warm[i-1], warm[i])
		}
	}
}

// TestWarmStartRejects: a saved model that does not fit the run is a clear
// error naming what differs.
func TestWarmStartRejects(t *testing.T) {
	t.Parallel()
	c := crowdTrain(t)
	_, crowdDir := trainSaved(t, warmCrowd, c)
	_, ldaDir := trainSaved(t, twoStageTopics, c)
	other, _, _ := crowdCorpus(t, 5, 240, 150, 4, 3, 2, []float64{0.8, 0.6})
	for _, tc := range []struct {
		name, src, dir string
		corpus         *framework.Corpus
		want           string
	}{
		{"topics", strings.Replace(warmCrowd, "k = 4", "k = 5", 1), crowdDir, c, "k = 4, this run 5"},
		{"response", warmCrowd, ldaDir, c, "response (none), this run softmax"},
		{"annotators", warmCrowd, crowdDir, other, "annotators named [a0 a1 a2], this run [a0 a1]"},
		{"restarts", "restarts = 3\n" + warmCrowd, crowdDir, c, "restarts = 3"},
		{"not a model", warmCrowd, t.TempDir(), c, "not a trained model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Build(mustConfig(t, tc.src), nil, tc.corpus)
			if err != nil {
				t.Fatal(err)
			}
			err = r.WarmStart(tc.dir)
			if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("WarmStart error = %v, want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
}

// TestWarmStartHeldCrowd: a warm start from an MA-sLDAr saved after its
// pilot, which holds the crowd (the gaussian's truth = "exact"), runs the
// pilot again from the loaded parameters (progress of Stage 1) and holds
// what that pilot ends with: the saved model keeps no document's q(x_d),
// so without the new pilot the annotators would be frozen at the loaded
// values and the truth left to the weighted fit.
func TestWarmStartHeldCrowd(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	c := smallRegCorpus(t)
	src := smallRegConfig + "restarts = 1\n"
	trained, dir := trainSaved(t, src, c)
	if !trained.Model.HoldsCrowd() {
		t.Fatal("the trained MA-sLDAr does not hold its crowd")
	}
	r, err := Build(mustConfig(t, src), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WarmStart(dir); err != nil {
		t.Fatal(err)
	}
	if r.Model.HoldsCrowd() || r.Model.Response.(*gaussian.Response).Held {
		t.Fatal("after the warm start the crowd is held before any pilot")
	}
	pilot := 0
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		if p.Stage == 1 {
			pilot++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if pilot < 2 || !r.Model.HoldsCrowd() {
		t.Errorf("warm-started run: %d pilot updates, holds the crowd %v; want ≥ 2 and true", pilot, r.Model.HoldsCrowd())
	}
}
