package cli

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrainEvalEvery: SVI with eval_every > 0 gives history.csv a last
// column elbo_full, set at the last update of every eval_every-th epoch and
// of the last epoch and empty elsewhere; without eval_every there is no
// such column. `maslda plot history --y elbo_full` draws it.
func TestTrainEvalEvery(t *testing.T) {
	f := newFixture(t)
	truthPath, answers := f.crowd(t)
	crowd := []string{"--ids", f.ids, "--answers", answers, "--truth", truthPath}
	svi := func(every string) string {
		return "inference \"svi\" {\n  batch_size = 50\n  epochs = 3\n  tol = 0\n" + every + "}\n"
	}
	const lda = "topics {\n  k = 3\n}\n"
	const maslda = lda + "response \"softmax\" {}\nannotators \"confusion\" {}\n"
	base := []string{"iteration", "epoch", "rho", "elbo", "seconds"}
	tests := []struct {
		name   string
		cfg    string
		extra  []string
		header []string
		full   []int // rows (from 1) with elbo_full; nil: no column
	}{
		{"lda, eval_every 1", lda + svi("  eval_every = 1\n"), nil, append(base, "elbo_full"), []int{3, 6, 9}},
		{"lda, eval_every 2", lda + svi("  eval_every = 2\n"), nil, append(base, "elbo_full"), []int{6, 9}},
		{"lda, no eval_every", lda + svi(""), nil, base, nil},
		{"ma-sldac with truth, eval_every 1", maslda + svi("  eval_every = 1\n"), crowd, append(base, "truth_accuracy", "stage", "elbo_full"), []int{3, 6, 9}},
		// Batch EM's bound is over every document: elbo_full = elbo on every row.
		{"lda, batch", lda + "inference \"batch\" {\n  max_iters = 9\n  tol = 0\n}\n", nil, append(base, "elbo_full"), []int{1, 2, 3, 4, 5, 6, 7, 8, 9}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(f.dir, "model"+strconv.Itoa(i))
			args := append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--config", f.config(t, "c"+strconv.Itoa(i)+".hcl", tc.cfg),
				"--out", out, "--log-level", "warn", "--progress", "never"}, tc.extra...)
			mustRun(t, args...)
			recs := readCSV(t, filepath.Join(out, "history.csv"))
			if diff := cmp.Diff(tc.header, recs[0]); diff != "" {
				t.Fatalf("history.csv header (-want +got):\n%s", diff)
			}
			if len(recs) != 10 {
				t.Fatalf("history.csv has %d rows, want 9 updates (3 epochs of ⌈130/50⌉)", len(recs)-1)
			}
			if tc.full == nil {
				return
			}
			col := len(tc.header) - 1
			var got []int
			for j, r := range recs[1:] {
				if r[col] == "" {
					continue
				}
				got = append(got, j+1)
				v, err := strconv.ParseFloat(r[col], 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v >= 0 {
					t.Errorf("row %d: elbo_full %q, want a finite negative number", j+1, r[col])
				}
				if strings.HasSuffix(tc.name, "batch") && r[col] != r[3] {
					t.Errorf("row %d: elbo_full %q, want the batch elbo %q", j+1, r[col], r[3])
				}
			}
			if diff := cmp.Diff(tc.full, got); diff != "" {
				t.Errorf("rows with elbo_full (-want +got):\n%s", diff)
			}
		})
	}

	// The full bound plotted: against updates, epochs and seconds, with a run
	// that has the column; one without it is an error naming its columns.
	prefix := filepath.Join(t.TempDir(), "full")
	mustRun(t, "plot", "history", "--history", filepath.Join(f.dir, "model0")+","+filepath.Join(f.dir, "model3"), "--y", "elbo_full",
		"--x", "iteration,epoch,seconds", "--out", prefix, "--width", "6", "--height", "3", "--log-level", "warn")
	checkPlotFiles(t, prefix)
	r := run(t, "plot", "history", "--history", filepath.Join(f.dir, "model2"), "--y", "elbo_full", "--out", prefix+"-none", "--log-level", "warn")
	if want := `model2/history.csv:1: no column "elbo_full"; the header has columns "iteration", "epoch", "rho", "elbo", "seconds"`; r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Errorf("plot history --y elbo_full without the column: exit %d, stderr %q; want exit %d containing %q", r.code, r.stderr, ExitError, want)
	}
}
