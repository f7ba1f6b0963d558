package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/cmd/maslda/experiment"
)

// asMainEnv makes the test binary act as maslda (TestMain): `maslda
// experiment` runs its children from os.Executable(), which in a test is
// this binary.
const asMainEnv = "MASLDA_CLI_TEST_AS_MAIN"

// childEnv is the environment that turns a child into maslda. A child
// built with -race would sleep a second at exit (the race runtime's
// default atexit_sleep_ms = 1000).
var childEnv = []string{asMainEnv + "=1", "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		if d, err := time.ParseDuration(os.Getenv(checkpointIntervalEnv)); err == nil {
			defaultCheckpointInterval, defaultCheckpointMinRun = d, 0 // TestDefaultCheckpointKilled
		}
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// experimentFixture writes a spec over newFixture's corpus: truth x, y, z
// in turn, answers from a simulate step, MA-sLDAc at k = 2 and 3 with the
// given inference block, plus extra.
func experimentFixture(t *testing.T, inference, extra string) (spec string) {
	t.Helper()
	experimentEnv = childEnv
	t.Cleanup(func() { experimentEnv = nil })
	f := newFixture(t)
	var tr, te strings.Builder
	tr.WriteString("task,label\n")
	te.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		tr.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
	}
	for i, id := range f.heldOutIDs {
		te.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
	}
	writeFile(t, filepath.Join(f.dir, "train-truth.csv"), tr.String())
	writeFile(t, filepath.Join(f.dir, "test-truth.csv"), te.String())
	f.config(t, "c.hcl", "seed = ${seed}\ntopics {\n  k = ${k}\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n"+inference)
	return f.config(t, "spec.hcl", `name  = "cli"
k     = [2, 3]
data {
  simulate "answers" {
    args = ["--truth", "${spec_dir}/train-truth.csv", "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", "${work}/answers.csv"]
  }
  train_docs  = "train.ldac"
  train_ids   = "train.ids"
  train_vocab = "vocab.txt"
  answers     = "${work}/answers.csv"
  train_truth = "train-truth.csv"
  test_docs   = "test.ldac"
  test_ids    = "test.ids"
  test_truth  = "test-truth.csv"
}
model "ma-sldac" {
  config = "c.hcl"
}
`+extra)
}

const fastInference = "inference \"batch\" {\n  max_iters = 2\n}\n"

func TestExperimentCommand(t *testing.T) {
	spec := experimentFixture(t, fastInference, "")
	out := filepath.Join(t.TempDir(), "out")

	r := mustRun(t, "experiment", "--spec", spec, "--out", out, "--dry-run")
	for _, s := range []string{"experiment cli (", "2 cells, at most", `step  simulate "answers"  will run`, "known once the steps have run", "-       ma-sldac  2  -      -    -      1     -"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("dry run lacks %q:\n%s", s, r.stdout)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a dry run created %s", out)
	}

	r = mustRun(t, "experiment", "--spec", spec, "--out", out, "--cores", "2")
	for _, s := range []string{"maslda: step: step=answers", "maslda: cell done: n=1/2", "maslda: experiment finished: cells=2 ran=2 done_before=0 failed=0"} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if diff := cmp.Diff(experiment.Columns, rows[0]); diff != "" {
		t.Errorf("results.csv header (-want +got):\n%s", diff)
	}
	if len(rows) != 3 || rows[1][2] != "2" || rows[2][2] != "3" || rows[1][7] != "done" || rows[2][7] != "done" {
		t.Errorf("results.csv rows %v", rows[1:])
	}
	if sum := string(readFile(t, filepath.Join(out, "summary.md"))); !strings.Contains(sum, "| ma-sldac | 3 |") {
		t.Errorf("summary.md:\n%s", sum)
	}

	// Nothing to do the second time; the dry run now knows ids and statuses.
	r = mustRun(t, "experiment", "--spec", spec, "--out", out)
	if !strings.Contains(r.stderr, "step cached") || !strings.Contains(r.stderr, "ran=0 done_before=2") {
		t.Errorf("rerun stderr:\n%s", r.stderr)
	}
	r = mustRun(t, "experiment", "--spec", spec, "--out", out, "--dry-run")
	if !strings.Contains(r.stdout, "cached") || strings.Count(r.stdout, "done    ma-sldac") != 2 || !strings.Contains(r.stdout, "ma-sldac-k3-s1-") {
		t.Errorf("dry run after the run:\n%s", r.stdout)
	}
}

// TestExperimentInterrupt: Ctrl-C during a cell stops its child, exits 130
// and leaves no trace of the unfinished cell.
func TestExperimentInterrupt(t *testing.T) {
	spec := experimentFixture(t, "inference \"batch\" {\n  max_iters = 1000000\n  tol = 0\n}\n", "")
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()
	r := runCtx(t, ctx, &cancelOn{match: "maslda: cell start:", cancel: cancel}, "experiment", "--spec", spec, "--out", out, "--cores", "1")
	if r.code != ExitInterrupted || !strings.Contains(r.stderr, "interrupted: done cells are kept") {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitInterrupted, r.stderr)
	}
	if d := time.Since(start); d > 9*time.Second {
		t.Errorf("the interrupted child took %v to stop (it was killed, not interrupted?)", d)
	}
	if cells, _ := os.ReadDir(filepath.Join(out, "cells")); len(cells) != 0 {
		t.Errorf("an interrupted cell left %d directories", len(cells))
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); !os.IsNotExist(err) {
		t.Errorf("results.csv after an interruption: %v", err)
	}
}

func TestExperimentErrors(t *testing.T) {
	spec := experimentFixture(t, fastInference, "model \"broken\" {\n  config = \"bad.hcl\"\n}\n")
	dir := filepath.Dir(spec)
	writeFile(t, filepath.Join(dir, "bad.hcl"), "response \"nonexistent\" {}\n")
	out := filepath.Join(t.TempDir(), "out")

	r := run(t, "experiment", "--spec", spec, "--out", out, "--cores", "2", "--log-level", "warn")
	if r.code != ExitError || !strings.Contains(r.stderr, "maslda experiment: 1 of 3 runs failed; ") {
		t.Errorf("a failed cell: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "its cells will probably fail") || !strings.Contains(r.stderr, "cell failed") {
		t.Errorf("no warnings about the broken model:\n%s", r.stderr)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 4 || rows[3][1] != "broken" || rows[3][7] != "failed" || !strings.Contains(rows[3][21], `unknown component: response "nonexistent"`) {
		t.Errorf("results.csv: %v", rows)
	}

	// An --out holding what the experiment did not write is refused
	// before any work (nothing is added to it).
	notes, userData := filepath.Join(t.TempDir(), "notes"), filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(notes, 0o755)
	writeFile(t, filepath.Join(notes, "todo.txt"), "mine\n")
	os.MkdirAll(filepath.Join(userData, "data"), 0o755)
	writeFile(t, filepath.Join(userData, "data", "corpus.txt"), "mine\n")
	for _, o := range []struct{ dir, want string }{
		{notes, "it holds todo.txt, which an experiment does not write"},
		{userData, "its data/ holds neither the steps' markers"},
	} {
		r := run(t, "experiment", "--spec", spec, "--out", o.dir)
		if r.code != ExitError || !strings.Contains(r.stderr, "was not written by this command ("+o.want) {
			t.Errorf("--out %s: exit %d, stderr %q", o.dir, r.code, r.stderr)
		}
		if got := treeFiles(t, o.dir); len(got) != 1 {
			t.Errorf("--out %s: files %v after the refusal", o.dir, got)
		}
	}

	bad := writeFile(t, filepath.Join(dir, "bad-spec.hcl"), "k = [2]\nbogus = 1\n")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"experiment"}, ExitUsage, "maslda experiment: missing --spec"},
		{[]string{"experiment", "--spec", spec, "--cores", "0"}, ExitUsage, "--cores 0, want ≥ 1"},
		{[]string{"experiment", "--spec", bad}, ExitError, "bad-spec.hcl:2,1-6: Unsupported argument"},
		{[]string{"experiment", "--spec", filepath.Join(dir, "absent.hcl")}, ExitError, "reading spec: open "},
	} {
		r := run(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}

// TestExperimentRealData runs the shipped we8there spec, cut down to one
// MA-sLDAr cell (K 5, 5 iterations), against ../shared/data. Slow: only
// with MASLDA_REALDATA=1.
func TestExperimentRealData(t *testing.T) {
	if os.Getenv("MASLDA_REALDATA") == "" {
		t.Skip("set MASLDA_REALDATA=1 to run the shipped we8there spec on ../shared/data")
	}
	root := filepath.Join("..", "..", "..", "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(root, "rodrigues_we8there_sim", "data_train.txt")); err != nil {
		t.Skipf("no ../shared/data beside the repository (%v)", err)
	}
	experimentEnv = childEnv
	t.Cleanup(func() { experimentEnv = nil })
	src := string(readFile(t, filepath.Join("..", "..", "..", "experiments", "we8there.hcl")))
	dir := t.TempDir()
	// The shipped spec with the grid cut to K 5, one seed, one model whose
	// template is the shipped one with 5 iterations.
	tmpl := string(readFile(t, filepath.Join("..", "..", "..", "experiments", "models", "ma-sldar-batch.hcl")))
	tmpl = strings.Replace(tmpl, "max_iters = 100", "max_iters = 5", 1)
	writeFile(t, filepath.Join(dir, "ma-sldar-batch.hcl"), tmpl)
	cut := src[:strings.Index(src, "\nmodel ")] + "\nmodel \"ma-sldar-batch\" {\n  config = \"ma-sldar-batch.hcl\"\n  k = [5]\n  seeds = [1]\n}\n"
	spec := writeFile(t, filepath.Join(dir, "we8there.hcl"), cut)
	abs, _ := filepath.Abs(root)
	out := filepath.Join(dir, "out")
	mustRun(t, "experiment", "--spec", spec, "--data", abs, "--out", out, "--cores", "2")
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	if len(rows) != 2 || rows[1][7] != "done" || rows[1][12] == "" || rows[1][15] == "" {
		t.Fatalf("results.csv: %v", rows)
	}
	t.Logf("we8there, MA-sLDAr batch K 5, 5 iterations: truth R² %s, held-out R² %s, %s s, %s MiB", rows[1][12], rows[1][15], rows[1][19], rows[1][20])
}
