package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readCSVString parses a whole CSV.
func readCSVString(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("%v in\n%s", err, s)
	}
	return rows
}

// TestAggregate runs every method on answers alone: the labels on standard
// output (crowd-kit's fit_predict), one row per task, better than chance.
func TestAggregate(t *testing.T) {
	dir := t.TempDir()
	csvPath, widePath, truthPath, majority := answersOnlyCrowd(t, dir)
	truth := map[string]string{}
	for _, r := range readCSVString(t, string(must(os.ReadFile(truthPath))))[1:] {
		truth[r[0]] = r[1]
	}
	methods := answerPresets()
	for _, want := range []string{"dawid-skene", "dawid-skene(bayes)", "majority-vote", "wawa", "mace", "one-coin", "glad", "communities"} {
		if !slices.Contains(methods, want) {
			t.Errorf("answerPresets() = %v, want %q among them", methods, want)
		}
	}
	if slices.Contains(methods, "ma-sldac") {
		t.Errorf("answerPresets() = %v has ma-sldac, which needs documents", methods)
	}
	for _, m := range methods {
		if slices.Contains([]string{"mean", "median", "bias-precision"}, m) {
			continue // numeric: TestAggregateNumeric
		}
		t.Run(m, func(t *testing.T) {
			r := mustRun(t, "aggregate", "--method", m, csvPath, "--log-level", "warn")
			rows := readCSVString(t, r.stdout)
			if !slices.Equal(rows[0][:2], []string{"task", "label"}) || len(rows) != 301 {
				t.Fatalf("header %v, %d rows", rows[0], len(rows))
			}
			right := 0
			for _, row := range rows[1:] {
				if truth[row[0]] == row[1] {
					right++
				}
			}
			if acc := float64(right) / 300; acc < majority-0.1 {
				t.Errorf("accuracy %.3f, majority vote %.3f", acc, majority)
			}
		})
	}
	// --out FILE writes the same table; --answers-wide reads the matrix
	// (tasks 0, 1, ...); the default method is Dawid–Skene.
	out := filepath.Join(dir, "labels.csv")
	std := mustRun(t, "aggregate", csvPath, "--log-level", "warn")
	mustRun(t, "aggregate", "--method", "dawid-skene", "--out", out, csvPath)
	if got := string(must(os.ReadFile(out))); got != std.stdout {
		t.Errorf("--out file differs from standard output:\n%s\n%s", got, std.stdout)
	}
	// --annotators: each annotator's reliability (crowd-kit's skills).
	ann := filepath.Join(dir, "annotators.csv")
	mustRun(t, "aggregate", "--method", "one-coin", csvPath, "--annotators", ann, "--out", filepath.Join(dir, "oc.csv"))
	if rows := readCSVString(t, string(must(os.ReadFile(ann)))); len(rows) != 6 || rows[0][0] != "annotator" {
		t.Errorf("--annotators: %d rows, header %v", len(rows), rows[0])
	}
	wide := mustRun(t, "aggregate", "--answers-wide", widePath, "--missing", "-1", "--log-level", "warn")
	if rows := readCSVString(t, wide.stdout); len(rows) != 301 || rows[1][0] != "0" {
		t.Errorf("--answers-wide: %d rows, first %v", len(rows), rows[1])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"aggregate"}, `missing the answers: maslda aggregate --method NAME ANSWERS.csv`},
		{[]string{"aggregate", "--method", "ma-sldac", csvPath}, `--method "ma-sldac" models the documents \(maslda train --model ma-sldac needs --docs\); methods on answers alone: .*dawid-skene`},
		{[]string{"aggregate", "--method", "dawid-skeen", csvPath}, `--method "dawid-skeen" is not a method \(did you mean dawid-skene\?\)`},
		{[]string{"aggregate", csvPath, csvPath}, `one answers file, got 2 arguments`},
		{[]string{"aggregate", "--out", csvPath, csvPath}, `--out .* is --answers: the output would overwrite the input`},
	} {
		r := run(t, tc.args...)
		if r.code != ExitUsage || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestTrainModelFlag: train --model NAME is the configuration
// model = "NAME": the same posterior, alone or beside a file's blocks.
func TestTrainModelFlag(t *testing.T) {
	dir := t.TempDir()
	csvPath, _, _, _ := answersOnlyCrowd(t, dir)
	cfg := writeFile(t, filepath.Join(dir, "ds.hcl"), "model = \"dawid-skene\"\n")
	seedOnly := writeFile(t, filepath.Join(dir, "seed.hcl"), "seed = 1\n")
	post := func(args ...string) string {
		out := filepath.Join(t.TempDir(), "m")
		mustRun(t, append([]string{"train", "--answers", csvPath, "--out", out, "--progress", "never", "--log-level", "warn"}, args...)...)
		return string(must(os.ReadFile(filepath.Join(out, "posterior.csv"))))
	}
	want := post("--config", cfg)
	if got := post("--model", "dawid-skene"); got != want {
		t.Errorf("--model dawid-skene differs from model = \"dawid-skene\"")
	}
	if got := post("--model", "dawid-skene", "--config", seedOnly); got != want {
		t.Errorf("--model with a configuration of seed = 1 differs")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "dawid-skeen"}, `--model "dawid-skeen" is not a preset \(did you mean dawid-skene\?\)`},
		{[]string{"--model", "mace", "--config", cfg}, `--model "mace" and model = … in .*ds\.hcl: give the preset once`},
	} {
		r := run(t, append([]string{"train", "--answers", csvPath, "--out", filepath.Join(dir, "x")}, tc.args...)...)
		if r.code != ExitUsage || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestOutDash: --out - writes the one table of predict, import, simulate
// and aggregate to standard output, and no file named "-".
func TestOutDash(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	t.Chdir(dir)
	model := filepath.Join(dir, "model")
	mustRun(t, "train", "--docs", f.docs, "--out", model, "--config", writeFile(t, filepath.Join(dir, "c.hcl"), batchHCL), "--progress", "never", "--log-level", "warn")
	pred := filepath.Join(dir, "pred.csv")
	mustRun(t, "predict", "--model", model, "--docs", f.test, "--out", pred, "--log-level", "warn")
	r := mustRun(t, "predict", "--model", model, "--docs", f.test, "--out", "-", "--log-level", "warn")
	if r.stdout != string(must(os.ReadFile(pred))) {
		t.Errorf("predict --out - differs from --out FILE")
	}
	wide := writeFile(t, filepath.Join(dir, "wide.txt"), "1 0\n0 9\n")
	if r := mustRun(t, "import", "--wide", wide, "--missing", "9", "--out", "-", "--log-level", "warn"); r.stdout != "task,worker,label\n0,a0,1\n0,a1,0\n1,a0,0\n" {
		t.Errorf("import --out -: %q", r.stdout)
	}
	truth := writeFile(t, filepath.Join(dir, "truth.csv"), "task,label\n0,a\n1,b\n")
	if r := mustRun(t, "simulate", "--truth", truth, "--accuracies", "1,1", "--out", "-", "--log-level", "warn"); !strings.HasPrefix(r.stdout, "task,worker,label\n") || strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("simulate --out -: %q", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("a file named - was written")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
