package experiment_test

import (
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/cmd/maslda/experiment"
)

// badTemplate names a response that is not registered: train fails.
const badTemplate = `seed = ${seed}
response "nonexistent" {}
`

// TestExperimentRunResume: a run interrupted after its first cell leaves that cell
// done and writes no results; the rerun does not recompute it (same
// result.json, untouched), runs the others, records the failing model's
// cell as failed without stopping the rest, and writes results.csv and
// summary.md.
func TestExperimentRunResume(t *testing.T) {
	specPath := newTiny(t, "\nmodel \"broken\" {\n  config = \"bad.hcl\"\n}\n")
	writeFile(t, filepath.Join(filepath.Dir(specPath), "bad.hcl"), badTemplate)
	out := filepath.Join(t.TempDir(), "out")
	spec, err := experiment.LoadSpec(specPath, experiment.Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}

	// Run 1: cancelled as soon as the first cell is done (one at a time).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var finished atomic.Int32
	r := &experiment.Runner{Spec: spec, Env: childEnv, Cores: 1, OnCell: func(experiment.Cell, experiment.Result) {
		finished.Add(1)
		cancel()
	}}
	if _, err := r.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err %v, want context.Canceled", err)
	}
	if n := finished.Load(); n != 1 {
		t.Fatalf("%d cells finished before the interruption took effect, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); !os.IsNotExist(err) {
		t.Fatalf("results.csv after an interrupted run: %v", err)
	}
	cells := spec.Cells("") // labels only: ids need the data id
	if len(cells) != 3 {
		t.Fatalf("%d cells, want 3 (ma-sldac k=2, k=3; broken)", len(cells))
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "cells", "*", "result.json"))
	if len(dirs) != 1 || !strings.Contains(dirs[0], "ma-sldac-k2-o1-s1-") {
		t.Fatalf("result.json files after the interruption: %v, want the first cell's only", dirs)
	}
	first := dirs[0]
	before := readFile(t, first)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(first, old, old); err != nil { // so a rewrite would show even on a coarse clock
		t.Fatal(err)
	}

	// Run 2: resumes.
	var (
		mu  sync.Mutex
		ran []string
	)
	r2 := &experiment.Runner{Spec: spec, Env: childEnv, Cores: 2, OnCell: func(c experiment.Cell, _ experiment.Result) {
		mu.Lock()
		ran = append(ran, c.Label())
		mu.Unlock()
	}}
	rep, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 1 || rep.Ran != 2 || rep.Failed != 1 {
		t.Errorf("rerun: skipped %d, ran %d, failed %d; want 1, 2, 1", rep.Skipped, rep.Ran, rep.Failed)
	}
	if fi, err := os.Stat(first); err != nil || !fi.ModTime().Equal(old) || readFile(t, first) != before {
		t.Errorf("the done cell's result.json was rewritten (mtime %v, want %v)", fi.ModTime(), old)
	}
	for _, l := range ran {
		if l == "ma-sldac k=2 omega=1 seed=1" {
			t.Errorf("the done cell was run again")
		}
	}

	f, err := os.Open(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"experiment", "model", "k", "alpha", "tau", "omega", "seed", "status",
		"truth_accuracy", "truth_macro_f1", "heldout_accuracy", "heldout_macro_f1",
		"truth_r2", "truth_mae", "truth_rmse", "heldout_r2", "heldout_mae", "heldout_rmse",
		"iters", "seconds", "peak_rss_mib", "error"}
	if diff := cmp.Diff(want, rows[0]); diff != "" {
		t.Fatalf("results.csv header (-want +got):\n%s", diff)
	}
	if len(rows) != 4 {
		t.Fatalf("results.csv has %d rows, want header + 3", len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	// Rows in cell order: ma-sldac k=2, k=3, broken.
	for i, w := range []struct{ model, k, omega, status string }{{"ma-sldac", "2", "1", "done"}, {"ma-sldac", "3", "1", "done"}, {"broken", "", "", "failed"}} {
		row := rows[1+i]
		got := []string{row[col["model"]], row[col["k"]], row[col["omega"]], row[col["status"]], row[col["experiment"]], row[col["seed"]], row[col["alpha"]]}
		if diff := cmp.Diff([]string{w.model, w.k, w.omega, w.status, "tiny", "1", ""}, got); diff != "" {
			t.Errorf("row %d (-want +got):\n%s", i+1, diff)
		}
		if w.status == "done" {
			for _, c := range []string{"truth_accuracy", "truth_macro_f1", "heldout_accuracy", "heldout_macro_f1", "iters", "seconds", "peak_rss_mib"} {
				if row[col[c]] == "" {
					t.Errorf("row %d: %s is empty", i+1, c)
				}
			}
			for _, c := range []string{"truth_r2", "heldout_rmse", "error"} {
				if row[col[c]] != "" {
					t.Errorf("row %d: %s = %q, want empty", i+1, c, row[col[c]])
				}
			}
			if row[col["iters"]] != "3" {
				t.Errorf("row %d: iters %s, want 3 (max_iters)", i+1, row[col["iters"]])
			}
		}
	}
	if e := rows[3][col["error"]]; !strings.Contains(e, "train: exit status 1") || !strings.Contains(e, `"nonexistent"`) {
		t.Errorf("the failed cell's error %q does not say train failed on the unknown response", e)
	}
	sum := readFile(t, filepath.Join(out, "summary.md"))
	for _, s := range []string{"# Experiment tiny", "3 runs: 2 done, 1 failed", "## heldout_accuracy", "| ma-sldac | 2 |", "## Failed runs", "| broken | – |"} {
		if !strings.Contains(sum, s) {
			t.Errorf("summary.md lacks %q:\n%s", s, sum)
		}
	}

	// Run 3: the failed cell is retried, nothing else runs.
	rep, err = (&experiment.Runner{Spec: spec, Env: childEnv, Cores: 2}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != 2 || rep.Ran != 1 {
		t.Errorf("third run: skipped %d, ran %d; want 2, 1", rep.Skipped, rep.Ran)
	}
}

// TestExperimentStepFails: a failing step stops the run with the step's line and
// the child's error.
func TestExperimentStepFails(t *testing.T) {
	specPath := newTiny(t, "")
	src := strings.Replace(readFile(t, specPath), `"--per-doc", "2"`, `"--per-doc", "7"`, 1)
	writeFile(t, specPath, src)
	spec, err := experiment.LoadSpec(specPath, experiment.Options{Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = (&experiment.Runner{Spec: spec, Env: childEnv, Cores: 1}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "spec.hcl:9: step \"answers\"") || !strings.Contains(err.Error(), "--per-doc 7 but only 3 annotators") {
		t.Fatalf("err = %v, want the step's line and simulate's message", err)
	}
}
