package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plotFixtures writes small inputs of every plot kind into a temporary
// directory: results.csv, a batch and an SVI model directory (history,
// annotators, manifest), bias-precision annotators, answers and truth.
func plotFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "results.csv"), `experiment,model,k,alpha,tau,omega,seed,status,truth_accuracy,truth_macro_f1,heldout_accuracy,heldout_macro_f1,truth_r2,truth_mae,truth_rmse,heldout_r2,heldout_mae,heldout_rmse,iters,seconds,peak_rss_mib,error
x,ma-sldac,10,,,,1,done,0.8,0.79,0.7,0.69,,,,,,,30,12.5,100,
x,ma-sldac,10,,,,2,done,0.82,0.8,0.72,0.7,,,,,,,30,12.1,100,
x,ma-sldac,20,,,,1,done,0.85,0.84,0.75,0.74,,,,,,,30,20.0,120,
x,lda+logreg(mv),10,,,,1,done,0.6,0.58,0.55,0.5,,,,,,,30,8.0,90,
x,lda+logreg(mv),20,,,,1,failed,,,,,,,,,,,,,,"killed"
x,lda+logreg(mv),20,,,,2,done,0.65,0.6,0.6,0.55,,,,,,,30,9.0,90,
`)
	for _, m := range []struct{ name, history string }{
		{"b10", "iteration,epoch,rho,elbo,seconds,truth_accuracy\n1,1,1,-1000,1.0,0.5\n2,2,1,-900,2.0,0.6\n3,3,1,-880,3.0,0.62\n"},
		{"s10", "iteration,epoch,rho,elbo,seconds\n1,1,0.7,-1100,0.3\n2,1,0.5,-950,0.6\n3,2,0.4,-1000,0.9\n4,2,0.35,-890,1.2\n5,3,0.3,-900,1.5\n6,3,0.28,-870,1.8\n"},
	} {
		d := filepath.Join(dir, m.name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "history.csv"), m.history)
		writeFile(t, filepath.Join(d, "model.json"), `{"format": "maslda-model", "version": 1, "classes": ["neg", "neutral", "pos"]}`)
		writeFile(t, filepath.Join(d, "annotators.json"), `[
  {"name": "a1", "answers": 4, "accuracy": 0.7, "confusion": [[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]]},
  {"name": "a0", "answers": 3, "accuracy": 0.9, "confusion": [[0.9, 0.05, 0.05], [0.05, 0.9, 0.05], [0.05, 0.05, 0.9]]}
]`)
	}
	writeFile(t, filepath.Join(dir, "bp.json"), `[
  {"annotator": "a0", "answers": 5, "bias": 0.1, "precision": 9, "sd": 0.33},
  {"annotator": "a1", "answers": 5, "bias": -2.4, "precision": 0.3, "sd": 1.8}
]`)
	writeFile(t, filepath.Join(dir, "nup.txt"), "n\nu\np\n")
	writeFile(t, filepath.Join(dir, "xy.txt"), "x\ny\n")
	writeFile(t, filepath.Join(dir, "true.json"), `[[[0.8,0.1,0.1],[0.1,0.8,0.1],[0.1,0.1,0.8]], [[0.6,0.2,0.2],[0.2,0.6,0.2],[0.2,0.2,0.6]]]`)
	writeFile(t, filepath.Join(dir, "answers.csv"), "task,worker,label\n0,a0,neg\n1,a0,pos\n2,a0,pos\n0,a1,neg\n1,a1,neutral\n")
	writeFile(t, filepath.Join(dir, "truth.csv"), "task,label\n0,neg\n1,pos\n2,neutral\n")
	return dir
}

// checkPlotFiles checks that prefix.png decodes and prefix.svg parses, and
// that no temporary file was left beside them.
func checkPlotFiles(t *testing.T, prefix string) {
	t.Helper()
	data := readFile(t, prefix+".png")
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s.png: %v", prefix, err)
	}
	if b := img.Bounds(); b.Dx() < 200 || b.Dy() < 200 {
		t.Errorf("%s.png is %d×%d", prefix, b.Dx(), b.Dy())
	}
	dec := xml.NewDecoder(bytes.NewReader(readFile(t, prefix+".svg")))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s.svg is not XML: %v", prefix, err)
		}
	}
	for _, n := range dirNames(t, filepath.Dir(prefix)) {
		if strings.Contains(n, ".tmp-") {
			t.Errorf("temporary file %s left behind", n)
		}
	}
}

func TestPlotCommand(t *testing.T) {
	race.SkipLong(t)
	dir := plotFixtures(t)
	in := func(n string) string { return filepath.Join(dir, n) }
	out := t.TempDir()
	small := []string{"--width", "4", "--height", "3", "--log-level", "warn"}
	tests := []struct {
		name string
		args []string
	}{
		{"metric", []string{"metric", "--results", in("results.csv"), "--metric", "heldout_accuracy"}},
		{"metric, one model, lower is better", []string{"metric", "--results", in("results.csv"), "--metric", "seconds", "--models", "ma-sldac", "--experiment", "x"}},
		{"history", []string{"history", "--history", in("b10") + "," + in("s10/history.csv"), "--x", "epoch,seconds"}},
		{"history of accuracy, labelled", []string{"history", "--history", in("b10"), "--labels", "batch", "--y", "truth_accuracy", "--x", "iteration"}},
		{"confusion, true matrices", []string{"confusion", "--annotators", in("b10"), "--true-confusions", in("true.json")}},
		{"confusion, true accuracies, chosen", []string{"confusion", "--annotators", in("b10/annotators.json"), "--true-accuracies", "0.9,0.6", "--select", "a1", "--classes", in("nup.txt")}},
		{"biasprec", []string{"biasprec", "--annotators", in("bp.json"), "--true-bias", "0,-2.5", "--true-precision", "10,0.25"}},
		{"boxes", []string{"boxes", "--annotators", in("b10"), "--answers", in("answers.csv"), "--truth", in("truth.csv")}},
		{"boxes, answers only", []string{"boxes", "--answers", in("answers.csv")}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := filepath.Join(out, tc.args[0]+string(rune('a'+i)))
			args := append(append([]string{"plot"}, tc.args...), append([]string{"--out", prefix + ".png"}, small...)...)
			mustRun(t, args...)
			checkPlotFiles(t, prefix)
		})
	}
	// --format png writes only the PNG
	prefix := filepath.Join(out, "only")
	mustRun(t, "plot", "metric", "--results", in("results.csv"), "--metric", "truth_accuracy", "--out", prefix, "--format", "png", "--width", "4", "--height", "3", "--log-level", "off")
	if _, err := os.Stat(prefix + ".svg"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--format png wrote an SVG (%v)", err)
	}
}

func TestPlotErrors(t *testing.T) {
	dir := plotFixtures(t)
	in := func(n string) string { return filepath.Join(dir, n) }
	o := filepath.Join(t.TempDir(), "fig")
	writeFile(t, in("noelbo.csv"), "iteration,epoch,seconds\n1,1,0.5\n")
	writeFile(t, in("empty.csv"), "experiment,model,k,status,heldout_accuracy\n")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, ExitUsage, "missing the kind of plot: metric, history, confusion, biasprec, boxes"},
		{[]string{"pie"}, ExitUsage, `unknown kind of plot "pie"`},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "truth_accuracy"}, ExitUsage, "missing --out"},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "truth_accuracy", "--out", o, "--format", "gif"}, ExitUsage, `--format "gif"; valid: png, svg`},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "accuracy", "--out", o}, ExitError, `results.csv:1: no column "accuracy"; the header has columns "experiment", "model"`},
		{[]string{"metric", "--results", in("empty.csv"), "--metric", "heldout_accuracy", "--out", o}, ExitError, "empty.csv: nothing to plot: 0 rows"},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "heldout_accuracy", "--models", "slda", "--out", o}, ExitError, `no done run of model "slda"`},
		{[]string{"history", "--history", in("noelbo.csv"), "--out", o}, ExitError, `noelbo.csv:1: no column "elbo"; the header has columns "iteration", "epoch", "seconds"`},
		{[]string{"history", "--history", in("b10"), "--labels", "a,b", "--out", o}, ExitUsage, "2 --labels for 1 --history files"},
		{[]string{"history", "--history", in("missing"), "--out", o}, ExitError, "001/missing: no such file or directory"},
		{[]string{"confusion", "--annotators", in("b10"), "--true-accuracies", "0.9", "--true-confusions", in("true.json"), "--out", o}, ExitUsage, "not both"},
		{[]string{"confusion", "--annotators", in("b10"), "--select", "a9", "--out", o}, ExitError, `unknown annotator "a9"`},
		{[]string{"confusion", "--annotators", in("b10"), "--classes", in("xy.txt"), "--out", o}, ExitError, "3×3 matrices but 2 class names"},
		{[]string{"confusion", "--annotators", in("b10"), "--classes", "x,y,z", "--out", o}, ExitUsage, "--classes x,y,z: no such file; --classes names a file with one class per line"},
		{[]string{"confusion", "--annotators", in("b10"), "--true-accuracies", "0.9,0.8,0.7", "--true-names", "a0,a1", "--out", o}, ExitError, "3 true matrices in --true-accuracies but 2 true names"},
		{[]string{"confusion", "--annotators", in("bp.json"), "--out", o}, ExitError, "describes bias-precision annotators; use maslda plot biasprec"},
		{[]string{"biasprec", "--annotators", in("bp.json"), "--true-bias", "1", "--out", o}, ExitUsage, "--true-bias and --true-precision together"},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "truth_accuracy", "--out", o, "--width", "100000", "--height", "100000"}, ExitUsage, "--width 100000 --height 100000: at most 200 inches a side and 1000 square inches"},
		{[]string{"metric", "--results", in("results.csv"), "--metric", "truth_accuracy", "--out", o, "--width", "NaN"}, ExitUsage, "--width/--height must be ≥ 0"},
		{[]string{"boxes", "--out", o}, ExitUsage, "missing --annotators or --answers"},
		{[]string{"boxes", "--annotators", in("b10"), "--truth", in("truth.csv"), "--out", o}, ExitUsage, "--truth needs --answers"},
	}
	for _, tc := range tests {
		r := run(t, append([]string{"plot"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("plot %v: exit %d, stderr %q; want exit %d containing %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(o + ".png"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed plot wrote %s.png", o)
	}
}
