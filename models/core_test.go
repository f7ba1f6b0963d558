package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

func mustConfig(t testing.TB, src string) *Config {
	t.Helper()
	cfg, err := ParseConfig([]byte(src), "test.hcl")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// trace trains a plain LDA model and returns its ELBO trace and final ζ.
func trace(t *testing.T, src string, workers int) ([]float64, []float64) {
	t.Helper()
	c, _ := plantedCorpus(t, 5, 300, 120, 4)
	cfg := mustConfig(t, src)
	cfg.Workers = workers
	r, err := Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	var elbos []float64
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		elbos = append(elbos, p.ELBO)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return elbos, append([]float64(nil), r.Model.Topics.Zeta...)
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		`topics {
k = 4
}
inference "batch" {
max_iters = 5
}`,
		`topics {
k = 4
}
inference "svi" {
batch_size = 70
epochs = 2
}`,
	} {
		e1, z1 := trace(t, src, 1)
		for _, w := range []int{2, 7} {
			ew, zw := trace(t, src, w)
			if diff := cmp.Diff(e1, ew); diff != "" {
				t.Errorf("%s: ELBO trace with %d workers differs from 1 worker (-1 +%d):\n%s", src, w, w, diff)
			}
			if !cmp.Equal(z1, zw) {
				t.Errorf("%s: ζ with %d workers differs from 1 worker", src, w)
			}
		}
	}
}

// TestFullBatchSVIEqualsBatch: SVI whose mini-batch is the corpus, with
// κ = 0 (ρ = 1), performs batch EM's iterations, also with the fresh
// restarts thinned (topics.fresh_every, counted over full E-steps in both).
func TestFullBatchSVIEqualsBatch(t *testing.T) {
	t.Parallel()
	for _, extra := range []string{"", "fresh_every = 3\n"} {
		eb, zb := trace(t, `topics {
k = 4
`+extra+`}
inference "batch" {
max_iters = 6
tol = 0
}`, 2)
		es, zs := trace(t, `topics {
k = 4
`+extra+`}
inference "svi" {
batch_size = 100000
kappa = 0
epochs = 6
tol = 0
}`, 2)
		opt := cmpopts.EquateApprox(1e-9, 0)
		if diff := cmp.Diff(eb, es, opt); diff != "" {
			t.Errorf("%q: full-batch SVI with ρ = 1 differs from batch (-batch +svi):\n%s", extra, diff)
		}
		if !cmp.Equal(zb, zs, opt) {
			t.Errorf("%q: full-batch SVI ζ differs from batch ζ", extra)
		}
	}
}

// TestFreshEveryMiniBatches: an E-step over a mini-batch (0 < ρ < 1, S =
// D/|B| ≠ 1) never thins the fresh restarts, even under local_init =
// "best": SVI with fresh_every = 3 is SVI with fresh_every = 1, bit for bit.
func TestFreshEveryMiniBatches(t *testing.T) {
	t.Parallel()
	src := func(every int) string {
		return fmt.Sprintf("topics {\nk = 4\nlocal_init = \"best\"\nfresh_every = %d\n}\ninference \"svi\" {\nbatch_size = 70\nepochs = 4\ntol = 0\n}", every)
	}
	e1, z1 := trace(t, src(1), 2)
	e3, z3 := trace(t, src(3), 2)
	if diff := cmp.Diff(e1, e3); diff != "" {
		t.Errorf("SVI ELBO trace with fresh_every = 3 differs from 1 (-1 +3):\n%s", diff)
	}
	if !cmp.Equal(z1, z3) {
		t.Error("SVI ζ with fresh_every = 3 differs from 1")
	}
}

func TestMergedStatsEqualUnion(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 7, 200, 80, 3)
	m := newLDA(t, c, 3, 1, 2)
	all := make([]int, len(c.Docs))
	for i := range all {
		all[i] = i
	}
	ctx := context.Background()
	// Two E-steps from the same state: warm starts are stored per document,
	// so use fresh starts to make the runs independent of order.
	m.Topics.LocalInit = "fresh"
	whole, err := m.EStep(ctx, all)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.EStep(ctx, all[:77])
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.EStep(ctx, all[77:])
	if err != nil {
		t.Fatal(err)
	}
	a.Merge(b)
	w, u := whole.(*stats).topics.(*topics.Stats), a.(*stats).topics.(*topics.Stats)
	opt := cmpopts.EquateApprox(1e-12, 1e-12)
	if !cmp.Equal(w.Word, u.Word, opt) || !cmp.Equal(w.DocELBO, u.DocELBO, opt) || w.Docs != u.Docs {
		t.Errorf("merged statistics differ from the whole corpus's: docs %d vs %d, DocELBO %v vs %v", w.Docs, u.Docs, w.DocELBO, u.DocELBO)
	}
	// Reset really empties.
	a.Reset()
	if s := a.(*stats).topics.(*topics.Stats); s.Docs != 0 || s.DocELBO != 0 || !cmp.Equal(s.Word, make([]float64, len(s.Word))) {
		t.Error("Reset left statistics behind")
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"unknown top-level key", `sed = 1`, "Valid: annotators {}, consensus, inference {}, model, response {}, restart_iters, restarts, seed, select {}, selected, topics {}, workers"},
		{"unknown topics key", `topics {
kk = 3
}`, "Valid: alpha, fresh_accel, fresh_every, fresh_exact, fresh_start, init, k, local_init, local_iters, local_tol, local_tol_tokens, tau"},
		{"bad k", `topics {
k = 0
}`, "topics.k = 0"},
		{"bad local_init", `topics {
local_init = "x"
}`, "valid: auto, best, fresh, warm"},
		{"fresh_every 0", `topics {
fresh_every = 0
}`, "topics.fresh_every = 0, want ≥ 1"},
		{"bad fresh_accel", `topics {
k = 3
fresh_accel = "fast"
}`, "test.hcl:1: bad input: topics.fresh_accel = \"fast\"; valid: squarem, none"},
		{"bad fresh_exact", `topics {
k = 3
fresh_exact = "never"
}`, "test.hcl:1: bad input: topics.fresh_exact = \"never\"; valid: always, unsettled"},
		{"bad fresh_start", `topics {
fresh_start = "x"
}`, "test.hcl:1: bad input: topics.fresh_start = \"x\"; valid: supervised, lda"},
		{"annotators without response", `annotators "confusion" {}`, "needs a response"},
		{"syntax", `topics {`, "test.hcl:1"},
		{"negative workers", `workers = -1`, "workers = -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.src), "test.hcl")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("ParseConfig(%q) = %v, want an ErrBadInput containing %q", tc.src, err, tc.want)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 1, 20, 30, 2)
	tests := []struct{ src, want string }{
		{`inference "nope" {}`, `unknown component: inference "nope"; registered: batch, svi`},
		{`inference "batch" {
max_itrs = 3
}`, "Valid: max_iters, min_iters, tol"},
		{`inference "svi" {
kappa = 2
}`, "inference.kappa = 2"},
		{`response "nope" {}`, `unknown component: response "nope"; registered:`},
	}
	for _, tc := range tests {
		_, err := Build(mustConfig(t, tc.src), nil, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%q) = %v, want error containing %q", tc.src, err, tc.want)
		}
	}
}

func TestJSONConfig(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte(`{"seed": 3, "topics": {"k": 7, "alpha": 0.5}, "inference": {"svi": {"batch_size": 10}}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 3 || cfg.Topics.K != 7 || cfg.Topics.Alpha != 0.5 || cfg.Topics.Tau != 0.1 || cfg.Inference.Name != "svi" {
		t.Errorf("JSON config decoded to %+v", cfg)
	}
	if _, err := ParseConfig([]byte(`{"topics": {"q": 1}}`), "c.json"); err == nil || !strings.Contains(err.Error(), "Valid:") {
		t.Errorf("unknown JSON key: %v", err)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 2, 100, 50, 3)
	c.Vocab = make([]string, c.V)
	for v := range c.Vocab {
		c.Vocab[v] = "t" + string(rune('a'+v%26)) + strings.Repeat("x", v/26)
	}
	r, err := Build(mustConfig(t, `seed = 4
topics {
k = 3
}
inference "batch" {
max_iters = 3
}`), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Fit(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.Model.Topics.Zeta, r.Model.Topics.Zeta) || !cmp.Equal(s.Vocab, c.Vocab) || s.Manifest.Iters != 3 {
		t.Fatal("loaded model differs from the saved one")
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
		t.Error("predictions of the loaded model differ")
	}
	// A failing second save leaves the first intact and no temporary files.
	boom := errors.New("boom")
	if err := r.SaveAtomic(dir, func(string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("SaveAtomic error = %v, want boom", err)
	}
	if _, err := Load(dir, nil); err != nil {
		t.Errorf("previous model damaged by a failed save: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), "no model.json") {
		t.Errorf("empty dir: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "model.json"), []byte(`{"format":"maslda-model","version":99}`), 0o644)
	if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Errorf("future version: %v", err)
	}
}

func TestPredictUnseenDocs(t *testing.T) {
	t.Parallel()
	c, pl := plantedCorpus(t, 3, 400, 100, 3)
	m := newLDA(t, c, 3, 1, 2)
	b := optim.DefaultBatch()
	if _, err := b.Fit(context.Background(), m, nil, nil); err != nil {
		t.Fatal(err)
	}
	test, tpl := plantedCorpus(t, 3, 400, 100, 3) // same topics: same seed
	_ = tpl
	preds, err := m.Predict(context.Background(), test)
	if err != nil {
		t.Fatal(err)
	}
	// Every θ is a distribution.
	for i, p := range preds {
		s := 0.0
		for _, x := range p.Theta {
			s += x
		}
		if math.Abs(s-1) > 1e-12 {
			t.Fatalf("doc %d: Σθ = %v", i, s)
		}
	}
	_ = pl
	_ = rand.New
}
