package models

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// tinyCheckpoint fits plain LDA on a few documents for one update and
// checkpoints it into dir; it returns a function building a fresh run of
// the same configuration and corpus, and its fingerprint.
func tinyCheckpoint(t *testing.T, dir string) (func() *Run, string) {
	t.Helper()
	c := &framework.Corpus{V: 5}
	for d := range 6 {
		c.Docs = append(c.Docs, framework.Doc{ID: string(rune('a' + d)), Words: []int32{int32(d % 4), int32(d%4) + 1}, Counts: []float64{2, 1}, N: 3})
	}
	cfg, err := ParseConfig([]byte("topics {\n k = 2\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n"), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	build := func() *Run {
		r, err := Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := build()
	fp := r.Fingerprint()
	stop := errors.New("stop")
	r.AfterIter = func(p Position) error {
		if err := r.SaveCheckpoint(dir, fp, p, nil); err != nil {
			return err
		}
		return stop
	}
	if _, err := r.Fit(context.Background(), nil); !errors.Is(err, stop) {
		t.Fatalf("fit: %v", err)
	}
	return build, fp
}

// TestCheckpointManifestSum (issue 30, item 1): checkpoint.json is covered
// by its own SHA-256 ("sum"), so an edited "started" or "elapsed_ns" is
// refused, naming checkpoint.json; with the sum recomputed, impossible
// positions are still refused; an earlier version-1 checkpoint is refused
// with a message; a changed file is reported against checkpoint.json, not
// model.json.
func TestCheckpointManifestSum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		edit  func(m *checkpointManifest)
		resum bool
		file  func(dir string) // changes another file
		want  string           // "" = loads
	}{
		{name: "untouched"},
		{name: "untouched, re-summed", resum: true},
		{name: "started edited", edit: func(m *checkpointManifest) { m.Position.Started = !m.Position.Started }, want: "checkpoint.json was edited or damaged"},
		{name: "elapsed negative", edit: func(m *checkpointManifest) { m.Position.Elapsed = -5 }, want: "checkpoint.json was edited or damaged"},
		{name: "elapsed negative, re-summed", edit: func(m *checkpointManifest) { m.Position.Elapsed = -5 }, resum: true, want: "elapsed_ns -5 is negative"},
		{name: "iter negative, re-summed", edit: func(m *checkpointManifest) { m.Position.Iter, m.Position.BatchIter = -1, -1 }, resum: true, want: "want 0 ≤ batch_iter ≤ iter"},
		{name: "stage 7, re-summed", edit: func(m *checkpointManifest) { m.Position.Stage = 7 }, resum: true, want: "stage 7"},
		{name: "offsets without second, re-summed", edit: func(m *checkpointManifest) { m.Position.IterOffset = 1 }, resum: true, want: "second is false"},
		{name: "version 1", edit: func(m *checkpointManifest) { m.Version = 1; m.Sum = "" }, want: "earlier maslda"},
		{name: "topics.bin changed", file: func(dir string) {
			b, err := os.ReadFile(filepath.Join(dir, "topics.bin"))
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)-1] ^= 1
			if err := os.WriteFile(filepath.Join(dir, "topics.bin"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: "checkpoint.json records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cp")
			build, fp := tinyCheckpoint(t, dir)
			mpath := filepath.Join(dir, "checkpoint.json")
			if tc.edit != nil || tc.resum {
				raw, err := os.ReadFile(mpath)
				if err != nil {
					t.Fatal(err)
				}
				var man checkpointManifest
				if err := json.Unmarshal(raw, &man); err != nil {
					t.Fatal(err)
				}
				if tc.edit != nil {
					tc.edit(&man)
				}
				if tc.resum {
					if man.Sum, err = manifestSum(man); err != nil {
						t.Fatal(err)
					}
				}
				out, err := json.MarshalIndent(man, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(mpath, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.file != nil {
				tc.file(dir)
			}
			_, err := build().LoadCheckpoint(dir, fp)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("LoadCheckpoint: %v", err)
				}
				return
			}
			if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "model.json") {
				t.Fatalf("LoadCheckpoint: %v\nwant ErrBadInput containing %q and not model.json", err, tc.want)
			}
		})
	}
}
