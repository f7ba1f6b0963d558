package cli

import (
	"encoding/json"
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
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "corpus", "--out", dir}, ExitError, `not written by maslda simulate corpus|refusing`},
		{[]string{"simulate", "corpus", "--out", filepath.Join(dir, "x"), "--target", "ordinal"}, ExitUsage, `--target "ordinal"; valid: categorical, numeric`},
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
