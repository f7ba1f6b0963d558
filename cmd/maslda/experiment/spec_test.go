package experiment_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/cmd/maslda/experiment"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

func TestExperimentSpec(t *testing.T) {
	specPath := newTiny(t, `
model "svi" {
  config = "${spec_dir}/c.hcl"
  k      = [5]
  seeds  = [7, 8]
}
`)
	dir := filepath.Dir(specPath)
	s, err := experiment.LoadSpec(specPath, experiment.Options{Out: "o"})
	if err != nil {
		t.Fatal(err)
	}
	j := func(f string) string { return filepath.Join(dir, f) }
	want := &experiment.Spec{
		Name: "tiny", File: specPath, Dir: dir, Out: "o", Work: filepath.Join("o", "data"),
		Metric: experiment.MetricClassification, Workers: 1,
		Data: experiment.Data{TrainDocs: j("train.ldac"), TrainIDs: j("train.ids"), VocabSize: 40,
			Answers: filepath.Join("o", "data", "answers.csv"), TrainTruth: j("train-truth.csv"),
			TestDocs: j("test.ldac"), TestIDs: j("test.ids"), TestTruth: j("test-truth.csv")},
		Steps: []experiment.Step{{Command: "simulate", Name: "answers", Where: specPath + ":9",
			Args: []string{"--truth", j("train-truth.csv"), "--accuracies", "0.9,0.7,0.5", "--per-doc", "2",
				"--seed", "1", "--out", filepath.Join("o", "data", "answers.csv"), "--log-level", "warn"}}},
		Grid: experiment.Grid{K: []int{2, 3}, Omega: []float64{1}, Seeds: []uint64{1}},
		Models: []experiment.Model{
			{Name: "ma-sldac", Config: j("c.hcl"), Template: cTemplate, Uses: map[string]bool{"seed": true, "k": true, "omega": true},
				Grid: experiment.Grid{K: []int{2, 3}, Omega: []float64{1}, Seeds: []uint64{1}}, Where: specPath + ":23"},
			{Name: "svi", Config: j("c.hcl"), Template: cTemplate, Uses: map[string]bool{"seed": true, "k": true, "omega": true},
				Grid: experiment.Grid{K: []int{5}, Omega: []float64{1}, Seeds: []uint64{7, 8}}, Where: specPath + ":27"},
		},
	}
	if diff := cmp.Diff(want, s, cmpopts.IgnoreUnexported(experiment.Data{})); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}

	// --data and the default output directory.
	s, err = experiment.ParseSpec([]byte(`data_root = "../d"
data {
  train_docs = "${data}/x.ldac"
}
model "m" {
  config = "c.hcl"
}
k = [2]
omega = [1]
`), specPath, experiment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.DataRoot != filepath.Join(dir, "../d") || s.Data.TrainDocs != filepath.Join(dir, "../d", "x.ldac") || s.Out != filepath.Join("results", "spec") {
		t.Errorf("data root %q, train_docs %q, out %q", s.DataRoot, s.Data.TrainDocs, s.Out)
	}
	s, err = experiment.LoadSpec(specPath, experiment.Options{DataRoot: "/elsewhere"})
	if err != nil || s.DataRoot != "/elsewhere" {
		t.Errorf("--data: root %q, err %v", s.DataRoot, err)
	}
}

// TestExperimentSpecErrors: bad specs give the file, the line and what was
// expected.
func TestExperimentSpecErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "c.hcl"), cTemplate)
	writeFile(t, filepath.Join(dir, "bad-var.hcl"), "seed = ${seed}\ntopics {\n  k = ${kk}\n}\n")
	const model = "model \"m\" {\n  config = \"c.hcl\"\n}\n"
	const data = "data {\n  train_docs = \"d.ldac\"\n}\n"
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"unknown key", "k = [2]\nomega = [1]\nbogus = 1\n" + data + model,
			[]string{"spec.hcl:3,", `An argument named "bogus" is not expected here. Valid: alpha, data {}, data_root, k, metric, model {}, name, omega, seeds, tau, workers.`}},
		{"unknown key in data", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"d\"\n  answer = \"a.csv\"\n}\n" + model,
			[]string{"spec.hcl:5,", `"answer" is not expected here. Did you mean "answers"? Valid: answers, answers_wide, missing, prepare {}, simulate {}, test_docs,`}},
		{"unknown key in model", "k = [2]\nomega = [1]\n" + data + "model \"m\" {\n  config = \"c.hcl\"\n  seed = [1]\n}\n",
			[]string{"spec.hcl:8,", `"seed" is not expected here. Did you mean "seeds"? Valid: alpha, config, k, omega, seeds, tau.`}},
		{"missing config file", "k = [2]\n" + data + "model \"m\" {\n  config = \"nope.hcl\"\n}\n",
			[]string{"spec.hcl:5: model \"m\": config: open " + filepath.Join(dir, "nope.hcl") + ": no such file or directory"}},
		{"bad template variable", "k = [2]\n" + data + "model \"m\" {\n  config = \"bad-var.hcl\"\n}\n",
			[]string{filepath.Join(dir, "bad-var.hcl") + ":3: unknown template variable ${kk}; valid: ${alpha}, ${k}, ${omega}, ${seed}, ${tau}"}},
		{"axis without values", "k = [2]\n" + data + model,
			[]string{filepath.Join(dir, "c.hcl") + ":7: the template uses ${omega} but", "gives no omega values"}},
		{"unknown variable", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"${nope}/d\"\n}\n" + model,
			[]string{"spec.hcl:4,", `There is no variable named "nope"`, "Variables: ${data}"}},
		{"data without root", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"${data}/d\"\n}\n" + model,
			[]string{"spec.hcl:4,", `There is no variable named "data"`, "--data, or data_root"}},
		{"no models", "k = [2]\n" + data, []string{"spec.hcl: no model block"}},
		{"no data", "k = [2]\n" + model, []string{"spec.hcl: no data block"}},
		{"no train docs", "k = [2]\nomega = [1]\ndata {\n}\n" + model, []string{"spec.hcl:3,", `The argument "train_docs" is required`}},
		{"bad metric", "metric = \"ranking\"\nk = [2]\nomega = [1]\n" + data + model, []string{`spec.hcl:1: metric = "ranking"; valid: classification, regression`}},
		{"bad k", "k = [2, 0]\nomega = [1]\n" + data + model, []string{"spec.hcl:1: k = 0, want ≥ 1"}},
		{"fractional k", "k = [2.5]\nomega = [1]\n" + data + model, []string{"spec.hcl:1,", "value must be a whole number"}},
		{"duplicate seed", "k = [2]\nomega = [1]\nseeds = [1, 1]\n" + data + model, []string{"spec.hcl:3: seeds lists 1 twice"}},
		{"negative alpha", "k = [2]\nomega = [1]\nalpha = [-1]\n" + data + model, []string{"spec.hcl:3: alpha = -1, want positive finite numbers"}},
		{"workers", "workers = 0\nk = [2]\nomega = [1]\n" + data + model, []string{"spec.hcl:1: workers = 0, want ≥ 1"}},
		{"duplicate model", "k = [2]\nomega = [1]\n" + data + model + model, []string{"spec.hcl:9: model \"m\" appears twice (first at"}},
		{"two answer files", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"d\"\n  answers = \"a\"\n  answers_wide = \"w\"\n}\n" + model,
			[]string{"spec.hcl:6: give answers (CSV task,worker,label) or answers_wide"}},
		{"ids with a truth column", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"d\"\n  train_ids = \"i\"\n  train_truth_column = \"t\"\n}\n" + model,
			[]string{"spec.hcl:6: train_ids names the documents but train_truth_column numbers them from 0"}},
		{"test docs without truth", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"d\"\n  test_docs = \"t\"\n}\n" + model,
			[]string{"spec.hcl:5: test_docs needs test_truth or test_truth_column"}},
		{"empty step", "k = [2]\nomega = [1]\ndata {\n  train_docs = \"d\"\n  prepare \"p\" {\n    args = []\n  }\n}\n" + model,
			[]string{"spec.hcl:5: prepare \"p\": args is empty"}},
		{"syntax", "k = [2\n", []string{"spec.hcl:1,"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := experiment.ParseSpec([]byte(tc.src), filepath.Join(dir, "spec.hcl"), experiment.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}

	if _, err := experiment.LoadSpec(filepath.Join(dir, "absent.hcl"), experiment.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing spec file: %v", err)
	}
	// A data file that is not there: the spec's line, at run time.
	s, err := experiment.ParseSpec([]byte("k = [2]\nomega = [1]\n"+data+model), filepath.Join(dir, "spec.hcl"), experiment.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DataID(context.Background()); err == nil || !strings.Contains(err.Error(), "spec.hcl:4: train_docs: open ") {
		t.Errorf("missing data file: %v", err)
	}
	if _, err := experiment.ParseSpec([]byte("k = [2]\n"), "spec.hcl", experiment.Options{}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("bad input is not ErrBadInput: %v", err)
	}
}

// TestExperimentShippedSpecs: every spec under experiments/ parses (no data
// needed), and every model's configuration, substituted with the grid's
// first values, is a valid configuration (keys and syntax; the plug-in
// names are checked at train time, since the baselines' plug-ins may not be
// linked into this test).
func TestExperimentShippedSpecs(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "..", "experiments", "*.hcl"))
	if err != nil || len(specs) != 7 {
		t.Fatalf("shipped specs: %v (%v), want 7", specs, err)
	}
	want := map[string]int{"20ng": 27, "20ng-seeds": 81, "r8": 27, "moviereviews": 60, "we8there": 60, "we8there-hyper": 48, "we8there-tuned": 60}
	for _, path := range specs {
		s, err := experiment.LoadSpec(path, experiment.Options{Out: t.TempDir()})
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		cells := s.Cells("")
		if len(cells) != want[s.Name] {
			t.Errorf("%s: %d cells, want %d", path, len(cells), want[s.Name])
		}
		seen := map[string]bool{}
		for _, c := range cells {
			if seen[c.Model] {
				continue
			}
			seen[c.Model] = true
			cfg, err := models.ParseConfig([]byte(c.Config), c.Model+".hcl")
			if err != nil {
				t.Errorf("%s: model %q: %v", path, c.Model, err)
				continue
			}
			if c.K != "" && strconv.Itoa(cfg.Topics.K) != c.K {
				t.Errorf("%s: model %q: k = %d, want %s", path, c.Model, cfg.Topics.K, c.K)
			}
		}
	}
}
