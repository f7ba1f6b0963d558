package models_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/topics"
)

// TestSavedAlpha: a saved model records θ's prior α in model.json and is
// loaded with it, whatever its configuration's preset now says; a model
// saved before α was recorded (model.json without it) is loaded with the α
// its configuration gave then (the file's topics block, else the topics
// default: `model = "ma-sldar"` meant α 0.1 before its preset wrote α = 1),
// so that its predictions do not change; a bad α is an error naming
// model.json.
func TestSavedAlpha(t *testing.T) {
	t.Parallel()
	c := smallRegression(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, topics string
		saved, old   float64 // α recorded at save; α of the same model without it
	}{
		{"preset", "topics {\n  k = 3\n}\n", 1, topics.Defaults().Alpha},
		{"alpha written", "topics {\n  k = 3\n  alpha = 0.5\n}\n", 0.5, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "model = \"ma-sldar\"\nseed = 1\n" + tc.topics + "inference \"batch\" {\n  max_iters = 2\n}\n"
			cfg, err := models.ParseConfig([]byte(src), "r.hcl")
			if err != nil {
				t.Fatal(err)
			}
			r, err := models.Build(cfg, nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Fit(ctx, nil); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "m")
			if err := r.SaveAtomic(dir, nil); err != nil {
				t.Fatal(err)
			}
			s, err := models.Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Manifest.Alpha == nil || *s.Manifest.Alpha != tc.saved || s.Config.Topics.Alpha != tc.saved {
				t.Fatalf("saved α %v, loaded %v; want %v", s.Manifest.Alpha, s.Config.Topics.Alpha, tc.saved)
			}
			want, err := r.Model.Predict(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Model.Predict(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, want) {
				t.Error("the loaded model predicts otherwise than the saved one")
			}

			// model.json as a maslda before α was recorded wrote it.
			mpath := filepath.Join(dir, "model.json")
			b, err := os.ReadFile(mpath)
			if err != nil {
				t.Fatal(err)
			}
			var man map[string]any
			if err := json.Unmarshal(b, &man); err != nil {
				t.Fatal(err)
			}
			rewrite := func(man map[string]any) {
				t.Helper()
				out, err := json.Marshal(man)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(mpath, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			delete(man, "alpha")
			rewrite(man)
			old, err := models.Load(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if old.Manifest.Alpha != nil || old.Config.Topics.Alpha != tc.old {
				t.Errorf("without α in model.json: loaded α %v, want %v", old.Config.Topics.Alpha, tc.old)
			}

			man["alpha"] = -1
			rewrite(man)
			if _, err := models.Load(dir, nil); err == nil || !strings.Contains(err.Error(), "model.json") || !strings.Contains(err.Error(), "alpha = -1") {
				t.Errorf("α −1 in model.json: %v", err)
			}
		})
	}
}
