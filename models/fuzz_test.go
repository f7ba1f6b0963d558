package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
)

// fuzzModelDir trains a small MA-sLDAr model and saves it under tb's
// temporary directory: the template that FuzzLoadModel corrupts one file
// of at a time.
func fuzzModelDir(tb testing.TB) string {
	tb.Helper()
	cfg := mustConfig(tb, smallRegConfig+"inference \"batch\" {\n  max_iters = 2\n}\n")
	r, err := Build(cfg, nil, smallRegCorpus(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	out := filepath.Join(tb.TempDir(), "model")
	if err := r.SaveAtomic(out, nil); err != nil {
		tb.Fatal(err)
	}
	return out
}

// editManifest rewrites dir's model.json through edit (model.json is not
// among its own checksums, so the model still passes them).
func editManifest(tb testing.TB, dir string, edit func(man map[string]any)) {
	tb.Helper()
	mj := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(mj)
	if err != nil {
		tb.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(raw, &man); err != nil {
		tb.Fatal(err)
	}
	edit(man)
	if raw, err = json.Marshal(man); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(mj, raw, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// fuzzDeadline runs body and fails t if it takes longer than d, so that
// the fuzzer records an input that makes a reader hang (body reports its
// own failures with t.Errorf).
func fuzzDeadline(t *testing.T, d time.Duration, body func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("took more than %v", d)
	}
}

// FuzzLoadModel: a saved model with any one file replaced by arbitrary
// bytes (and, for a file other than model.json, model.json's checksum
// updated to match, so that the file's own reader is reached) loads with
// an error or loads into a model that predicts; it never panics. Seeds are
// every file of a real model, unchanged.
func FuzzLoadModel(f *testing.F) {
	tmpl := fuzzModelDir(f)
	entries, err := os.ReadDir(tmpl)
	if err != nil {
		f.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for i, n := range names {
		b, err := os.ReadFile(filepath.Join(tmpl, n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	test := smallRegCorpus(f)
	test.Answers = nil
	test.Docs = test.Docs[:3]
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		dir := filepath.Join(t.TempDir(), "model")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(tmpl, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		name := names[int(which)%len(names)]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if name != "model.json" {
			sum := sha256.Sum256(data)
			editManifest(t, dir, func(man map[string]any) {
				if files, ok := man["files"].(map[string]any); ok {
					files[name] = hex.EncodeToString(sum[:])
				}
			})
		}
		fuzzDeadline(t, 20*time.Second, func() {
			s, err := Load(dir, nil)
			if err != nil {
				return
			}
			if s.Manifest.V > 100000 || s.Manifest.K > 200 || s.Config.Topics.LocalIters > 1000 {
				return // a legitimate but large model: loading it was the test
			}
			c := *test
			if c.V > s.Manifest.V {
				return
			}
			if _, err := s.Model.Predict(context.Background(), &c); err != nil && !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("%s replaced: Load succeeded, Predict failed with %v", name, err)
			}
		})
	})
}

// FuzzParseConfig: any bytes, read as HCL and as HCL's JSON syntax, give
// a configuration or an error wrapping framework.ErrBadInput, never a
// panic; a configuration that parses and is small builds on a small
// corpus or fails with an error.
func FuzzParseConfig(f *testing.F) {
	for _, p := range []string{"../docs/examples/maslda-r.hcl", "../docs/examples/lda.hcl", "../docs/examples/lda-svi.hcl"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, false)
		}
	}
	f.Add([]byte(smallRegConfig), false)
	f.Add([]byte(`{"seed": 1, "topics": {"k": 3, "alpha": 0.1}, "inference": {"svi": {"batch_size": 5}}}`), true)
	f.Add([]byte("model = \"dawid-skene\"\n"), false)
	f.Add([]byte("model = \"lda+raykar\"\ntopics { k = 2 }\n"), false)
	c := smallRegCorpus(f)
	c.Docs = c.Docs[:20]
	for d := range c.Answers.ByDoc {
		if d >= 20 {
			c.Answers.ByDoc = c.Answers.ByDoc[:20]
			break
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "fuzz.hcl"
		if asJSON {
			name = "fuzz.json"
		}
		fuzzDeadline(t, 20*time.Second, func() {
			cfg, err := ParseConfig(data, name)
			if err != nil {
				if !errors.Is(err, framework.ErrBadInput) {
					t.Errorf("error %v does not wrap ErrBadInput", err)
				}
				return
			}
			if cfg.Topics.K > 20 || cfg.Restarts > 3 || cfg.Workers > 4 {
				return
			}
			_, _ = Build(cfg, nil, c)
		})
	})
}

// TestLoadChecksTopicsSizeFirst: a model.json whose v disagrees with
// topics.bin (model.json is not among its own checksums) is refused from
// the file's size, naming topics.bin, before K·V is allocated (v = 5·10⁶
// fits in memory, so this is the first check that can refuse it).
func TestLoadChecksTopicsSizeFirst(t *testing.T) {
	t.Parallel()
	dir := fuzzModelDir(t)
	editManifest(t, dir, func(man map[string]any) { man["v"] = 5000000 })
	_, err := Load(dir, nil)
	var le *framework.LineError
	if !errors.As(err, &le) || filepath.Base(le.File) != "topics.bin" {
		t.Fatalf("Load: %v, want an error naming topics.bin", err)
	}
}
