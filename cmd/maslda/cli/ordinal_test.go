package cli

import (
	"encoding/json"
	"fmt"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrdinalEndToEnd: simulate (an ordinal-shift block), train (ordinal +
// ordinal-shift, declared levels one of which nobody chose), predict, eval
// (the kind found from the columns, errors in levels) and plot history on
// ordered levels, with no kind named anywhere but in the configuration.
func TestOrdinalEndToEnd(t *testing.T) {
	race.SkipLong(t)
	f := newFixture(t)
	d := f.dir
	var truth strings.Builder
	for i := range 130 {
		fmt.Fprintf(&truth, "%s\n", []string{"1", "2", "4"}[i%3])
	}
	truthPath := writeFile(t, filepath.Join(d, "truth.txt"), truth.String())
	block := writeFile(t, filepath.Join(d, "crowd.hcl"), "annotators \"ordinal-shift\" {\n  shift     = [0, 0]\n  precision = [60, 60]\n}\n")
	answers := filepath.Join(d, "answers.csv")
	levelsFile := writeFile(t, filepath.Join(d, "levels4.txt"), "1\n2\n3\n4\n")
	mustRun(t, "simulate", "--annotators", block, "--truth-column", truthPath, "--classes", levelsFile, "--per-doc", "0", "--out", answers, "--log-level", "warn")
	rows := readCSV(t, answers)
	if len(rows) != 1+2*130 {
		t.Fatalf("%d rows, want a header and 2 answers per document", len(rows))
	}
	for _, r := range rows[1:] {
		if r[2] == "3" {
			t.Fatalf("a precise annotator answered the level nobody has: %v", r)
		}
	}
	levels := writeFile(t, filepath.Join(d, "levels.txt"), "1\n2\n3\n4\n")
	cfg := f.config(t, "ord.hcl", "seed = 2\ntopics {\n k = 3\n}\nresponse \"ordinal\" {}\nannotators \"ordinal-shift\" {}\ninference \"batch\" {\n max_iters = 5\n}\n")
	out := filepath.Join(d, "model")
	mustRun(t, "train", "--docs", f.docs, "--config", cfg, "--answers", answers, "--classes", levels, "--truth-column", truthPath, "--out", out, "--progress", "never", "--log-level", "warn")
	if diff := cmp.Diff([]string{"1", "2", "3", "4"}, readManifest(t, out).Classes); diff != "" {
		t.Errorf("model levels (-want +got):\n%s", diff)
	}
	post := readCSV(t, filepath.Join(out, "posterior.csv"))
	if diff := cmp.Diff([]string{"task", "label", "median", "p:1", "p:2", "p:3", "p:4"}, post[0]); diff != "" {
		t.Errorf("posterior.csv header (-want +got):\n%s", diff)
	}
	if h := readCSV(t, filepath.Join(out, "history.csv"))[0]; !strings.Contains(strings.Join(h, ","), "truth_accuracy") {
		t.Errorf("history.csv header %v: no truth_accuracy", h)
	}
	if a := readCSV(t, filepath.Join(out, "annotators.csv"))[0]; !cmp.Equal(a, []string{"annotator", "shift", "stretch", "precision", "accuracy"}) {
		t.Errorf("annotators.csv header %v", a)
	}
	pred := filepath.Join(d, "pred.csv")
	mustRun(t, "predict", "--model", out, "--docs", f.docs, "--out", pred, "--log-level", "warn")
	if got := readCSV(t, pred)[0][:7]; !cmp.Equal(got, post[0]) {
		t.Errorf("predictions header %v, want %v", got, post[0])
	}
	for _, file := range []string{filepath.Join(out, "posterior.csv"), pred} {
		r := mustRun(t, "eval", "--pred", file, "--truth-column", truthPath, "--json")
		var m struct {
			N         int      `json:"n"`
			Accuracy  float64  `json:"accuracy"`
			MAE       *float64 `json:"mae"`
			MedianMAE *float64 `json:"median_mae"`
			From      string   `json:"median_from"`
			Classes   []string `json:"classes"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
			t.Fatalf("eval --json: %v: %s", err, r.stdout)
		}
		if m.N != 130 || m.MAE == nil || m.MedianMAE == nil || m.From != "median" || !cmp.Equal(m.Classes, []string{"1", "2", "3", "4"}) {
			t.Errorf("eval %s: %s", file, r.stdout)
		}
		if file == pred {
			continue
		}
		if m.Accuracy < 0.9 || *m.MAE > 0.2 {
			t.Errorf("truth from two precise annotators: accuracy %.3f, MAE %.3f", m.Accuracy, *m.MAE)
		}
		text := mustRun(t, "eval", "--pred", file, "--truth-column", truthPath).stdout
		if !regexp.MustCompile(`(?m)^MAE +\d`).MatchString(text) || !strings.Contains(text, "median") {
			t.Errorf("eval text:\n%s", text)
		}
	}
	// the categorical reading of the same file, by name
	if r := mustRun(t, "eval", "--pred", pred, "--truth-column", truthPath, "--kind", "categorical", "--json"); strings.Contains(r.stdout, "mae") {
		t.Errorf("eval --kind categorical: %s", r.stdout)
	}
	mustRun(t, "plot", "history", "--history", out, "--y", "truth_accuracy", "--out", filepath.Join(d, "hist"), "--format", "png", "--log-level", "warn")
	mustRun(t, "plot", "boxes", "--annotators", out, "--answers", answers, "--truth-column", truthPath, "--out", filepath.Join(d, "boxes"), "--format", "png", "--log-level", "warn")
	mustRun(t, "plot", "ordshift", "--annotators", out, "--true-shift", "0,0", "--true-precision", "60,60", "--out", filepath.Join(d, "ord"), "--format", "png,svg", "--log-level", "warn")
	if r := run(t, "plot", "confusion", "--annotators", out, "--out", filepath.Join(d, "conf"), "--log-level", "warn"); r.code == ExitOK || !strings.Contains(r.stderr, "describes ordinal-shift annotators") {
		t.Errorf("plot confusion of ordinal-shift annotators: exit %d, %s", r.code, r.stderr)
	}
	if r := run(t, "plot", "ordshift", "--annotators", out, "--true-stretch", "1,1", "--out", filepath.Join(d, "bad"), "--log-level", "warn"); r.code != ExitUsage || !strings.Contains(r.stderr, "--true-stretch and --true-precision need --true-shift") {
		t.Errorf("plot ordshift --true-stretch alone: exit %d, %s", r.code, r.stderr)
	}
}

// TestSimulateOrdinalShift: the ordinal-shift block's keys (stretch
// optional) and its errors, at the block's line.
func TestSimulateOrdinalShift(t *testing.T) {
	d := t.TempDir()
	w := func(name, content string) string { return writeFile(t, filepath.Join(d, name), content) }
	var tr strings.Builder
	for i := range 300 {
		fmt.Fprintf(&tr, "%d\n", i%5)
	}
	truth := w("t.txt", tr.String())
	sim := func(block string, extra ...string) result {
		return run(t, append([]string{"simulate", "--truth-column", truth, "--annotators", w("b.hcl", block), "--out", filepath.Join(d, "a.csv"), "--seed", "3", "--log-level", "warn"}, extra...)...)
	}
	// a shift of +1 with a high precision answers one level higher (the top level stays)
	if r := sim("annotators \"ordinal-shift\" {\n  shift = [1]\n  precision = [50]\n}\n"); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i, row := range readCSV(t, filepath.Join(d, "a.csv"))[1:] {
		want := fmt.Sprint(min(i%5+1, 4))
		if row[2] != want {
			t.Fatalf("task %s answered %s, want %s", row[0], row[2], want)
		}
	}
	// a stretch of 3 pushes level 1 to 0 and level 3 to 4
	if r := sim("annotators \"ordinal-shift\" {\n  shift = [0]\n  stretch = [3]\n  precision = [50]\n}\n"); r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for i, row := range readCSV(t, filepath.Join(d, "a.csv"))[1:] {
		want := []string{"0", "0", "2", "4", "4"}[i%5]
		if row[2] != want {
			t.Fatalf("task %s answered %s, want %s", row[0], row[2], want)
		}
	}
	for _, tc := range []struct{ name, block, want string }{
		{"lengths", "\nannotators \"ordinal-shift\" {\n  shift = [0, 1]\n  precision = [1]\n}\n", `b\.hcl:2: .*2 shifts, 0 stretches and 1 precisions`},
		{"precision", "annotators \"ordinal-shift\" {\n  shift = [0]\n  precision = [0]\n}\n", `b\.hcl:1: .*precision 0, want positive`},
		{"stretch", "annotators \"ordinal-shift\" {\n  shift = [0]\n  stretch = [-1]\n  precision = [1]\n}\n", `stretch -1, want positive`},
		{"unknown key", "annotators \"ordinal-shift\" {\n  bias = [0]\n  shift = [0]\n  precision = [1]\n}\n", `Unsupported argument.*Valid: precision, shift, stretch`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sim(tc.block)
			if r.code == ExitOK || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant matching %s", r.code, r.stderr, tc.want)
			}
		})
	}
}
