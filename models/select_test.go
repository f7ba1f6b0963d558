package models_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

const selectSrc = `model = "ma-sldac"
seed = 4
consensus = 1
topics { k = 3 }
inference "batch" { max_iters = 30 }

select {
  share = 0.2
  candidate "fixed" {}
  candidate "flat" {
    seed = 9
    annotators "confusion" {
      omega    = 1000
      diagonal = 0
      init     = "uniform"
    }
  }
}
`

// TestSelectParse: a select block lists its candidates; each candidate's
// configuration is the file's with the candidate's blocks (and seed) in
// place of its own; its source says selected = "NAME" and parses back to
// the same configuration (HCL and JSON); a saved choice is what ParseConfig
// returns.
func TestSelectParse(t *testing.T) {
	t.Parallel()
	cfg, err := models.ParseConfig([]byte(selectSrc), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Unresolved() {
		t.Fatal("a select block without selected: Unresolved() = false")
	}
	if diff := cmp.Diff([]string{"fixed", "flat"}, cfg.Select.Candidates); diff != "" {
		t.Errorf("candidates:\n%s", diff)
	}
	if cfg.Select.Share != 0.2 {
		t.Errorf("share %v, want 0.2", cfg.Select.Share)
	}
	cfg.Workers = 1 // as `maslda train --workers 1` sets it after parsing
	flat, err := cfg.SelectCandidate("flat")
	if err != nil {
		t.Fatal(err)
	}
	fixed, err := cfg.SelectCandidate("fixed")
	if err != nil {
		t.Fatal(err)
	}
	if flat.Seed != 9 || fixed.Seed != 4 || flat.Workers != 1 || fixed.Workers != 1 {
		t.Errorf("seeds %d, %d and workers %d, %d; want 9 (the candidate's), 4 (the file's) and 1, 1", flat.Seed, fixed.Seed, flat.Workers, fixed.Workers)
	}
	if flat.Topics.K != 3 || flat.Response.Name != "softmax" || flat.Annotators.Name != "confusion" || flat.Inference.Name != "batch" {
		t.Errorf("flat: k %d, %s, %s, %s; want the file's k 3 and blocks", flat.Topics.K, flat.Response.Name, flat.Annotators.Name, flat.Inference.Name)
	}
	if flat.Unresolved() || flat.Select.Chosen != "flat" {
		t.Errorf("the candidate's configuration: chosen %q", flat.Select.Chosen)
	}
	if !strings.Contains(string(flat.Source), `selected = "flat"`) {
		t.Errorf("the candidate's source does not say selected = \"flat\":\n%s", flat.Source)
	}
	again, err := models.ParseConfig(flat.Source, "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if again.Unresolved() || again.Select.Chosen != "flat" || again.Seed != 9 || string(again.Source) != string(flat.Source) {
		t.Errorf("the saved source parses to chosen %q, seed %d", again.Select.Chosen, again.Seed)
	}
	js := `{"model": "ma-sldac", "topics": {"k": 3}, "select": {"candidate": {"a": {}, "b": {"annotators": {"confusion": {"prior": "learned"}}}}}}`
	jc, err := models.ParseConfig([]byte(js), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := jc.SelectCandidate("b")
	if err != nil {
		t.Fatal(err)
	}
	back, err := models.ParseConfig(b.Source, "s.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, b.Source)
	}
	if back.Select.Chosen != "b" || back.Select.Share != models.DefaultSelectShare {
		t.Errorf("JSON: chosen %q, share %v", back.Select.Chosen, back.Select.Share)
	}
}

// TestSelectErrors: bad select blocks are errors that say what is
// expected, with the file and line.
func TestSelectErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ src, want string }{
		{"model = \"ma-sldac\"\nselect {\n  candidate \"a\" {}\n}\n", "s.hcl:2: select: 1 candidates, want at least 2"},
		{"model = \"ma-sldac\"\nselect {\n  candidate \"a\" {}\n  candidate \"a\" {}\n}\n", `candidate "a" named twice`},
		{"model = \"ma-sldac\"\nselect {\n  refit = \"hot\"\n  candidate \"a\" {}\n  candidate \"b\" {}\n}\n", `refit = "hot"; valid: "warm"`},
		{"model = \"ma-sldac\"\nselect {\n  folds = 1\n  candidate \"a\" {}\n  candidate \"b\" {}\n}\n", "folds = 1, want 2 to 100"},
		{"model = \"ma-sldac\"\nselect {\n  folds = 3\n  share = 0.2\n  candidate \"a\" {}\n  candidate \"b\" {}\n}\n", "share and folds together"},
		{"model = \"ma-sldac\"\nselect {\n  share = 1\n  candidate \"a\" {}\n  candidate \"b\" {}\n}\n", "share = 1, want 0 < share < 1"},
		{"model = \"ma-sldac\"\nselect {\n  candidate \"a\" {}\n  candidate \"b\" {\n    workers = 2\n  }\n}\n", "Valid: annotators {}, inference {}, response {}, restart_iters, restarts, seed, topics {}"},
		{"model = \"ma-sldac\"\nselect {\n  candidate \"a\" {}\n  candidate \"b\" {\n    topics { k = 0 }\n  }\n}\n", `candidate "b"`},
		{"model = \"ma-sldac\"\nselected = \"c\"\nselect {\n  candidate \"a\" {}\n  candidate \"b\" {}\n}\n", `no candidate "c"; candidates: a, b`},
		{"model = \"ma-sldac\"\nselected = \"c\"\n", `selected = "c" but the configuration has no select block`},
	} {
		_, err := models.ParseConfig([]byte(c.src), "s.hcl")
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant ErrBadInput containing %q", c.src, err, c.want)
		}
	}
	// A candidate naming an unknown plug-in fails Check, before any
	// candidate trains, with the candidate's name and the block's line.
	typo := strings.Replace(selectSrc, `candidate "flat" {
    seed = 9
    annotators "confusion" {`, `candidate "flat" {
    seed = 9
    annotators "confuson" {`, 1)
	tc, err := models.ParseConfig([]byte(typo), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.Check(nil); err == nil || !strings.Contains(err.Error(), `candidate "flat"`) || !strings.Contains(err.Error(), "s.hcl:12") || !strings.Contains(err.Error(), "confuson") {
		t.Errorf("Check with a misspelt plug-in in a candidate: %v", err)
	}
	cfg, err := models.ParseConfig([]byte(selectSrc), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Check(nil); err != nil {
		t.Errorf("Check of a good select block: %v", err)
	}
	cr := selectCrowd(t)
	if _, err := models.Build(cfg, nil, cr.Train); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "none is chosen") {
		t.Errorf("Build with no candidate chosen: %v", err)
	}
	oc := strings.Replace(selectSrc, `annotators "confusion" {
      omega    = 1000
      diagonal = 0
      init     = "uniform"
    }`, `annotators "mace" {}`, 1)
	if cfg, err = models.ParseConfig([]byte(oc), "s.hcl"); err != nil {
		t.Fatal(err)
	}
	if _, err := models.Choose(context.Background(), cfg, nil, cr.Train, nil); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), `annotators "mace" cannot score`) {
		t.Errorf("a candidate without a predictive: %v", err)
	}
}

func selectCrowd(t *testing.T) *synth.Crowd {
	t.Helper()
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc, spec.K = 200, 0, 20, 3, 3
	spec.Accuracies = []float64{0.9, 0.8, 0.7, 0.3, 0.25}
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	return cr
}

// TestChoose: Choose fits each candidate on the kept answers and picks the
// best held-out score: the confusion annotators that learn beat ones held
// near a flat matrix by a strong prior; each candidate's score is the one
// ScoreAnswers gives that candidate fitted alone on the same split; the
// chosen configuration builds, and the same call chooses the same.
func TestChoose(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	race.SkipLong(t)
	cr := selectCrowd(t)
	cfg, err := models.ParseConfig([]byte(selectSrc), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 1
	ctx := context.Background()
	ch, err := models.Choose(ctx, cfg, nil, cr.Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Chosen != "fixed" || ch.Config.Select.Chosen != "fixed" || len(ch.Candidates) != 2 {
		t.Fatalf("chose %q among %+v; want fixed", ch.Chosen, ch.Candidates)
	}
	if !(ch.Candidates[0].MeanLogPredictive > ch.Candidates[1].MeanLogPredictive) {
		t.Errorf("scores %+v: the learning annotators do not score higher", ch.Candidates)
	}
	kept, held, err := models.SplitAnswers(cr.Train.Answers, 0.2, 4)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, h := range held {
		n += len(h)
	}
	if ch.Answers != n || ch.Seed != 4 || ch.Share != 0.2 {
		t.Errorf("choice held out %d answers with seed %d, share %v; want %d, 4, 0.2", ch.Answers, ch.Seed, ch.Share, n)
	}
	flat, err := cfg.SelectCandidate("flat")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(flat, nil, &framework.Corpus{V: cr.Train.V, Docs: cr.Train.Docs, Answers: kept})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	sc, err := r.Model.ScoreAnswers(ctx, held)
	if err != nil {
		t.Fatal(err)
	}
	if got := ch.Candidates[1].MeanLogPredictive; got != sc.Mean() {
		t.Errorf("candidate flat scored %v in Choose, %v alone", got, sc.Mean())
	}
	again, err := models.Choose(ctx, cfg, nil, cr.Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ch.Candidates, again.Candidates, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Seconds" }, cmp.Ignore())); diff != "" {
		t.Errorf("the same call chose otherwise:\n%s", diff)
	}
	// folds = 3: every answer is held out once; the same choice here.
	cf, err := models.ParseConfig([]byte(strings.Replace(selectSrc, "share = 0.2", "folds = 3", 1)), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	cf.Workers = 1
	chf, err := models.Choose(ctx, cf, nil, cr.Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	if chf.Chosen != "fixed" || chf.Answers != cr.Train.Answers.Count() || chf.Folds != 3 || chf.Share != 0 {
		t.Errorf("folds: chose %q scoring %d answers (folds %d, share %v); want fixed, every one of %d answers", chf.Chosen, chf.Answers, chf.Folds, chf.Share, cr.Train.Answers.Count())
	}
	// refit = "warm" (the default) starts the final run from the chosen
	// candidate's fit; "fresh" from the configured initialisation.
	final, err := models.Build(ch.Config, nil, cr.Train)
	if err != nil {
		t.Fatalf("the chosen configuration does not build: %v", err)
	}
	fresh := slices.Clone(final.Model.Topics.Zeta)
	if err := ch.Start(final); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(fresh, final.Model.Topics.Zeta) {
		t.Error("refit = \"warm\": Start left the configured initial topics")
	}
	// ... and those are the chosen candidate's fit on the kept answers
	// (fitted again here: fits are deterministic), annotators included.
	fixedCfg, err := cfg.SelectCandidate("fixed")
	if err != nil {
		t.Fatal(err)
	}
	again2, err := models.Build(fixedCfg, nil, &framework.Corpus{V: cr.Train.V, Docs: cr.Train.Docs, Answers: kept})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again2.Fit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again2.Model.Topics.Zeta, final.Model.Topics.Zeta) {
		t.Error("refit = \"warm\": the final run's topics are not the chosen candidate's")
	}
	var want, got bytes.Buffer
	if err := again2.Model.Noise.(framework.Persister).SaveParams(&want); err != nil {
		t.Fatal(err)
	}
	if err := final.Model.Noise.(framework.Persister).SaveParams(&got); err != nil {
		t.Fatal(err)
	}
	if want.String() != got.String() {
		t.Error("refit = \"warm\": the final run's annotators are not the chosen candidate's")
	}
	if _, err := final.Fit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	cfg2, err := models.ParseConfig([]byte(strings.Replace(selectSrc, "share = 0.2", "share = 0.2\n  refit = \"fresh\"", 1)), "s.hcl")
	if err != nil {
		t.Fatal(err)
	}
	cfg2.Workers = 1
	ch2, err := models.Choose(ctx, cfg2, nil, cr.Train, nil)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := models.Build(ch2.Config, nil, cr.Train)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch2.Start(f2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fresh, f2.Model.Topics.Zeta) || ch2.Refit != "fresh" {
		t.Errorf("refit = \"fresh\" (%q): Start changed the configured initial topics", ch2.Refit)
	}
}
