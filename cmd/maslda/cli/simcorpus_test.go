package cli

import (
	"encoding/json"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSimulateCorpus: one command writes planted documents, their truth
// and answers as a corpus directory that train --corpus reads, for class
// labels and numbers; the same seed writes the same files.
func TestSimulateCorpus(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	race.SkipLong(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		target, response, answer string
	}{
		{"categorical", "softmax", `^c\d$`},
		{"numeric", "gaussian", `^-?\d+(\.\d+)?(e-?\d+)?$`},
	} {
		t.Run(tc.target, func(t *testing.T) {
			out := filepath.Join(dir, tc.target)
			r := mustRun(t, "simulate", "corpus", "--out", out, "--target", tc.target, "--docs", "150", "--test", "30", "--vocab-size", "60", "--topics", "3", "--doc-length", "40", "--per-doc", "2", "--log-level", "warn")
			if !strings.Contains(r.stdout, "maslda train --corpus "+out) {
				t.Errorf("stdout: %s", r.stdout)
			}
			for _, f := range []string{"answers.csv", "simulated.json", "train/docs.ldac", "train/ids.txt", "train/vocab.txt", "train/labels.csv", "test/docs.ldac", "test/labels.csv"} {
				if !exists(filepath.Join(out, f)) {
					t.Errorf("no %s", f)
				}
			}
			ans := readCSV(t, filepath.Join(out, "answers.csv"))
			if len(ans) != 1+2*150 || !regexp.MustCompile(tc.answer).MatchString(ans[1][2]) {
				t.Errorf("answers: %d rows, first %v", len(ans), ans[1])
			}
			if test := readCSV(t, filepath.Join(out, "test", "labels.csv")); len(test) != 31 || test[1][0] != "150" {
				t.Errorf("test labels: %d rows, first %v", len(test), test[1])
			}
			again := filepath.Join(dir, tc.target+"-again")
			mustRun(t, "simulate", "corpus", "--out", again, "--target", tc.target, "--docs", "150", "--test", "30", "--vocab-size", "60", "--topics", "3", "--doc-length", "40", "--per-doc", "2", "--log-level", "warn")
			for _, f := range []string{"answers.csv", "train/docs.ldac", "train/labels.csv"} {
				if string(readFile(t, filepath.Join(out, f))) != string(readFile(t, filepath.Join(again, f))) {
					t.Errorf("%s differs between two runs with the same seed", f)
				}
			}
			// Replacing its own output is allowed; the default model fits
			// the target.
			mustRun(t, "simulate", "corpus", "--out", out, "--target", tc.target, "--docs", "150", "--test", "30", "--vocab-size", "60", "--topics", "3", "--doc-length", "40", "--per-doc", "2", "--log-level", "warn")
			model := filepath.Join(dir, tc.target+"-model")
			cfgless := mustRun(t, "train", "--corpus", out, "--answers", filepath.Join(out, "answers.csv"), "--out", model, "--progress", "never", "--seed", "1")
			if m := readManifest(t, model); m.Response != tc.response {
				t.Errorf("response %q, want %q; log:\n%s", m.Response, tc.response, cfgless.stderr)
			}
			var man map[string]any
			if err := json.Unmarshal(readFile(t, filepath.Join(out, "simulated.json")), &man); err != nil || man["target"] != tc.target {
				t.Errorf("simulated.json: %v %v", man, err)
			}
		})
	}
	// Ordinal levels: the default crowd of ordinal-shift annotators (its
	// block written beside the answers); the ordinal response trains on it.
	ord := filepath.Join(dir, "ordinal")
	mustRun(t, "simulate", "corpus", "--out", ord, "--target", "ordinal", "--docs", "150", "--vocab-size", "60", "--topics", "3", "--doc-length", "40", "--log-level", "warn")
	levels := map[string]int{}
	for _, row := range readCSV(t, filepath.Join(ord, "labels.csv"))[1:] {
		levels[row[1]]++
	}
	if len(levels) != 4 || levels["1"] < 20 || levels["4"] < 20 || !exists(filepath.Join(ord, "annotators.hcl")) {
		t.Errorf("ordinal levels %v", levels)
	}
	cfg := writeFile(t, filepath.Join(dir, "ord.hcl"), "topics {\n  k = 3\n}\nresponse \"ordinal\" {}\nannotators \"ordinal-shift\" {}\ninference \"batch\" {\n  max_iters = 5\n}\n")
	om := filepath.Join(dir, "ord-model")
	mustRun(t, "train", "--corpus", ord, "--answers", filepath.Join(ord, "answers.csv"), "--config", cfg, "--out", om, "--progress", "never", "--log-level", "warn")
	if m := readManifest(t, om); m.Response != "ordinal" {
		t.Errorf("response %q", m.Response)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "corpus", "--out", dir}, ExitError, `not written by maslda simulate corpus|refusing`},
		{[]string{"simulate", "corpus", "--out", filepath.Join(dir, "x"), "--target", "ordinal2"}, ExitUsage, `--target "ordinal2"; valid: categorical, numeric, ordinal`},
		{[]string{"simulate", "corpus"}, ExitUsage, `missing --out`},
		{[]string{"simulate", "corpus", "--out", filepath.Join(dir, "y"), "--accuracies", "0.9,2"}, ExitError, `accurac`},
	} {
		r := run(t, tc.args...)
		if r.code != tc.code || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %s", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
	if exists(filepath.Join(dir, "y")) {
		t.Error("a failed simulate corpus left its --out")
	}
}
