package models

import (
	"context"
	"errors"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"github.com/maslda/maslda/topics"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"

	// Plug-ins of the presets, linked so that their presets are built.
	_ "github.com/maslda/maslda/annotators/biasprecision"
	_ "github.com/maslda/maslda/annotators/confusion"
	_ "github.com/maslda/maslda/annotators/perfect"
	_ "github.com/maslda/maslda/likelihoods/classprior"
	_ "github.com/maslda/maslda/likelihoods/gaussian"
	_ "github.com/maslda/maslda/likelihoods/logreg"
	_ "github.com/maslda/maslda/likelihoods/softmax"
)

// blocks summarises a configuration's composition.
type blocks struct {
	Model, Response, Annotators, Inference string
	K                                      int
	Where                                  []string // response, annotators, inference
}

func summary(c *Config) blocks {
	b := blocks{Model: c.Model, Inference: c.Inference.Name, K: c.Topics.K}
	for _, comp := range []*Component{c.Response, c.Annotators, &c.Inference} {
		if comp == nil {
			b.Where = append(b.Where, "")
			continue
		}
		b.Where = append(b.Where, comp.Where)
	}
	if c.Response != nil {
		b.Response = c.Response.Name
	}
	if c.Annotators != nil {
		b.Annotators = c.Annotators.Name
	}
	return b
}

func TestPresetConfig(t *testing.T) {
	t.Parallel()
	const at1, at2 = `test.hcl:1 (model "ma-sldac")`, `test.hcl:2 (model "dawid-skene")`
	tests := []struct {
		name, src string
		want      blocks
	}{
		{"ma-sldac", `model = "ma-sldac"`,
			blocks{"ma-sldac", "softmax", "confusion", "batch", 20, []string{at1, at1, at1}}},
		{"ma-sldar, inference written", `model = "ma-sldar"
inference "svi" {
  epochs = 2
}`, blocks{"ma-sldar", "gaussian", "bias-precision", "svi", 20,
			[]string{`test.hcl:1 (model "ma-sldar")`, `test.hcl:1 (model "ma-sldar")`, "test.hcl:2"}}},
		{"lda+raykar", `model = "lda+raykar"`, blocks{"lda+raykar", "logreg", "confusion", "two-stage", 20,
			[]string{`test.hcl:1 (model "lda+raykar")`, `test.hcl:1 (model "lda+raykar")`, `test.hcl:1 (model "lda+raykar")`}}},
		{"dawid-skene: k = 1", `seed = 4
model = "dawid-skene"`, blocks{"dawid-skene", "class-prior", "confusion", "batch", 1, []string{at2, at2, at2}}},
		{"topics written override the preset's settings one at a time", `model = "dawid-skene(bayes)"
topics {
  alpha = 0.5
}`, blocks{"dawid-skene(bayes)", "class-prior", "confusion", "batch", 1,
			[]string{`test.hcl:1 (model "dawid-skene(bayes)")`, `test.hcl:1 (model "dawid-skene(bayes)")`, `test.hcl:1 (model "dawid-skene(bayes)")`}}},
		{"k written over the preset's", `model = "dawid-skene(bayes)"
topics {
  k = 3
}`, blocks{"dawid-skene(bayes)", "class-prior", "confusion", "batch", 3,
			[]string{`test.hcl:1 (model "dawid-skene(bayes)")`, `test.hcl:1 (model "dawid-skene(bayes)")`, `test.hcl:1 (model "dawid-skene(bayes)")`}}},
		{"annotators written", `model = "slda(mv)"
annotators "confusion" {}`, blocks{"slda(mv)", "softmax", "confusion", "batch", 20,
			[]string{`test.hcl:1 (model "slda(mv)")`, "test.hcl:2", `test.hcl:1 (model "slda(mv)")`}}},
		{"no preset", `response "softmax" {}`, blocks{"", "softmax", "", "batch", 20, []string{"test.hcl:1", "", ""}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summary(mustConfig(t, tc.src))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// HCL's JSON syntax.
	cfg, err := ParseConfig([]byte(`{"model": "ma-sldar", "topics": {"k": 3}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(cfg); got.Response != "gaussian" || got.Annotators != "bias-precision" || got.K != 3 {
		t.Errorf("JSON preset decoded to %+v", got)
	}
	// The preset's topics settings are defaults: the file's own topics
	// block keeps those it does not write and overrides the rest.
	cfg = mustConfig(t, "model = \"dawid-skene(bayes)\"\ntopics {\n  alpha = 0.5\n}\n")
	if cfg.Topics.K != 1 || cfg.Topics.Alpha != 0.5 {
		t.Errorf("topics under a preset: k %d, α %v; want the preset's 1 and the file's 0.5", cfg.Topics.K, cfg.Topics.Alpha)
	}
	// ma-sldar's α = 1 (docs/results-realdata.md) survives the k every
	// configuration writes, and gives way to an α written in the file.
	for _, tc := range []struct {
		src   string
		k     int
		alpha float64
	}{
		{"model = \"ma-sldar\"\ntopics {\n  k = 5\n}\n", 5, 1},
		{"model = \"ma-sldar\"\ntopics {\n  k = 5\n  alpha = 0.1\n}\n", 5, 0.1},
		{"model = \"ma-sldac\"\ntopics {\n  k = 5\n}\n", 5, topics.Defaults().Alpha},
	} {
		if cfg := mustConfig(t, tc.src); cfg.Topics.K != tc.k || cfg.Topics.Alpha != tc.alpha {
			t.Errorf("%q: k %d, α %v; want %d, %v", tc.src, cfg.Topics.K, cfg.Topics.Alpha, tc.k, tc.alpha)
		}
	}
}

func TestPresetErrors(t *testing.T) {
	valid := strings.Join(PresetNames(), ", ")
	tests := []struct{ name, src, want string }{
		{"unknown", "seed = 1\nmodel = \"lda\"", `test.hcl:2: unknown model "lda"; presets: ` + valid},
		{"not a string", `model = ["ma-sldac"]`, "test.hcl:1: model:"},
		{"annotators written without a response", `annotators "confusion" {}`, "needs a response"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.src), "test.hcl")
			if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig(%q) = %v, want ErrBadInput containing %q", tc.src, err, tc.want)
			}
		})
	}
	// A preset naming a plug-in that is not registered fails at Build with
	// the registry's error, located at the model line.
	c, _ := plantedCorpus(t, 1, 20, 30, 2)
	reg := framework.NewRegistry()
	_, err := Build(mustConfig(t, `model = "ma-sldac"`), reg, c)
	if !errors.Is(err, framework.ErrUnknownComponent) || !strings.Contains(err.Error(), `test.hcl:1 (model "ma-sldac"): unknown component: response "softmax"`) {
		t.Errorf("Build with an empty registry: %v", err)
	}
}

// TestPresetTable: every preset's text parses into a complete composition,
// the names are unique and sorted by PresetNames, and the table matches
// docs/design.md's (response, annotators, inference, k).
func TestPresetTable(t *testing.T) {
	want := map[string]blocks{
		"ma-sldac":           {Response: "softmax", Annotators: "confusion", Inference: "batch", K: 20},
		"ma-sldar":           {Response: "gaussian", Annotators: "bias-precision", Inference: "batch", K: 20},
		"lda+logreg(mv)":     {Response: "logreg", Annotators: "perfect", Inference: "two-stage", K: 20},
		"lda+linreg(mean)":   {Response: "linreg", Annotators: "perfect", Inference: "two-stage", K: 20},
		"slda(mv)":           {Response: "softmax", Annotators: "perfect", Inference: "batch", K: 20},
		"slda(mean)":         {Response: "gaussian", Annotators: "perfect", Inference: "batch", K: 20},
		"lda+raykar":         {Response: "logreg", Annotators: "confusion", Inference: "two-stage", K: 20},
		"dawid-skene":        {Response: "class-prior", Annotators: "confusion", Inference: "batch", K: 1},
		"dawid-skene(bayes)": {Response: "class-prior", Annotators: "confusion", Inference: "batch", K: 1},
		"communities":        {Response: "class-prior", Annotators: "confusion", Inference: "batch", K: 1},
		"majority-vote":      {Response: "class-prior", Annotators: "perfect", Inference: "batch", K: 1},
		"wawa":               {Response: "class-prior", Annotators: "perfect", Inference: "batch", K: 1},
		"mace":               {Response: "class-prior", Annotators: "mace", Inference: "batch", K: 1},
		"one-coin":           {Response: "class-prior", Annotators: "one-coin", Inference: "batch", K: 1},
		"glad":               {Response: "class-prior", Annotators: "glad", Inference: "batch", K: 1},
	}
	got := map[string]blocks{}
	for _, p := range Presets() {
		if _, dup := got[p.Name]; dup {
			t.Errorf("preset %q twice", p.Name)
		}
		b := summary(mustConfig(t, `model = "`+p.Name+`"`))
		b.Model, b.Where = "", nil
		got[p.Name] = b
		if lp, ok := LookupPreset(p.Name); !ok || lp != p {
			t.Errorf("LookupPreset(%q) = %+v, %v", p.Name, lp, ok)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("presets (-docs/design.md +table):\n%s", diff)
	}
	names := PresetNames()
	if !sort.StringsAreSorted(names) || len(names) != len(want) {
		t.Errorf("PresetNames() = %v", names)
	}
	if _, ok := LookupPreset("nope"); ok {
		t.Error(`LookupPreset("nope") found something`)
	}
}

// presetData says which data each preset is built on in
// TestPresetsBuild: classification (crowdCorpus) or regression
// (smallRegCorpus).
var presetData = map[string]string{
	"ma-sldac": "class", "ma-sldar": "reg", "lda+logreg(mv)": "class", "lda+linreg(mean)": "reg",
	"slda(mv)": "class", "slda(mean)": "reg", "lda+raykar": "class", "dawid-skene": "class", "dawid-skene(bayes)": "class",
	"communities": "class", "majority-vote": "class", "wawa": "class", "mace": "class", "one-coin": "class", "glad": "class",
}

// TestPresetsBuild builds and briefly trains every preset whose plug-ins
// are registered (linked into this test binary), and skips the others,
// saying which plug-in is missing: each preset is checked as soon as its
// plug-ins exist. Each fit must give finite ELBOs, a posterior with a
// target for every training document, and predictions; a two-stage
// preset's response must be refused under batch EM (fixed features).
func TestPresetsBuild(t *testing.T) {
	race.SkipLong(t)
	for _, p := range Presets() {
		t.Run(p.Name, func(t *testing.T) {
			kind, ok := presetData[p.Name]
			if !ok {
				t.Fatalf("preset %q has no data in presetData", p.Name)
			}
			base := mustConfig(t, `model = "`+p.Name+`"`)
			if err := base.Check(nil); err != nil {
				if errors.Is(err, framework.ErrUnknownComponent) {
					t.Skipf("plug-in not registered yet: %v", err)
				}
				t.Fatal(err)
			}
			// Keep the preset's schedule, with few iterations.
			src := "seed = 2\nmodel = \"" + p.Name + "\"\n"
			switch base.Inference.Name {
			case "two-stage":
				src += "inference \"two-stage\" {\n  topics_iters = 4\n  response_iters = 4\n}\n"
			default:
				src += "inference \"" + base.Inference.Name + "\" {\n  max_iters = 4\n}\n"
			}
			if base.Topics.K > 1 {
				src += "topics {\n  k = 3\n}\n"
			}
			var train, test *framework.Corpus
			if kind == "class" {
				train, test, _ = smallCrowd(t)
			} else {
				train = smallRegCorpus(t)
				test = &framework.Corpus{V: train.V, Docs: train.Docs[:20]}
			}
			r, err := Build(mustConfig(t, src), nil, train)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			res, err := r.Fit(ctx, func(pr framework.Progress) error {
				if math.IsNaN(pr.ELBO) || math.IsInf(pr.ELBO, 0) {
					t.Errorf("update %d: ELBO %v", pr.Iter, pr.ELBO)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Iters < 2 {
				t.Errorf("%d updates", res.Iters)
			}
			post, err := r.Model.Posterior(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for d, pr := range post {
				if pr.Target == nil {
					t.Fatalf("document %d: no posterior target", d)
				}
			}
			pred, err := r.Model.Predict(ctx, test)
			if err != nil {
				t.Fatal(err)
			}
			if len(pred) != len(test.Docs) || pred[0].Target == nil {
				t.Errorf("predictions: %d, first %+v", len(pred), pred[0])
			}
			// The two-stage presets' responses have fixed features: batch
			// EM is refused.
			if base.Inference.Name == "two-stage" {
				_, err := Build(mustConfig(t, "model = \""+p.Name+"\"\ninference \"batch\" {}\n"), nil, train)
				if !errors.Is(err, framework.ErrIncompatible) {
					t.Errorf("%s under batch: Build = %v, want ErrIncompatible", p.Name, err)
				}
			}
		})
	}
}
