package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAggregateNumeric: numeric answers alone through the value prior:
// --method mean is each task's mean answer and median its median (to
// 1e-9: the flat prior does not shrink them), bias-precision corrects the annotators' biases (a
// better R² than the mean on a crowd with biased annotators), and train
// on numeric answers alone without a config trains bias-precision.
func TestAggregateNumeric(t *testing.T) {
	dir := t.TempDir()
	var tb strings.Builder
	tb.WriteString("task,label\n")
	for d := range 200 {
		tb.WriteString("t" + strconv.Itoa(d) + "," + strconv.FormatFloat(float64(d%17)*0.37-2, 'g', -1, 64) + "\n")
	}
	truth := writeFile(t, filepath.Join(dir, "truth.csv"), tb.String())
	answers := filepath.Join(dir, "answers.csv")
	mustRun(t, "simulate", "--truth", truth, "--bias", "2,-1.5,0,0.5,-2", "--precision", "4,4,1,10,2", "--per-doc", "3", "--out", answers, "--log-level", "warn")
	byTask := map[string][]float64{}
	for _, row := range readCSV(t, answers)[1:] {
		v, _ := strconv.ParseFloat(row[2], 64)
		byTask[row[0]] = append(byTask[row[0]], v)
	}
	r2 := map[string]float64{}
	for _, m := range []string{"mean", "median", "bias-precision"} {
		r := mustRun(t, "aggregate", "--method", m, answers, "--log-level", "warn")
		rows := readCSVString(t, r.stdout)
		if !slices.Equal(rows[0], []string{"task", "label", "var"}) || len(rows) != 201 {
			t.Fatalf("%s: header %v, %d rows", m, rows[0], len(rows))
		}
		for _, row := range rows[1:] {
			got, _ := strconv.ParseFloat(row[1], 64)
			as := slices.Sorted(slices.Values(byTask[row[0]]))
			want := math.NaN()
			switch m {
			case "mean":
				want = 0
				for _, a := range as {
					want += a / float64(len(as))
				}
			case "median":
				want = as[len(as)/2]
				if len(as)%2 == 0 {
					want = (as[len(as)/2-1] + as[len(as)/2]) / 2
				}
			}
			if !math.IsNaN(want) && math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s of task %s: %v, want %v (answers %v)", m, row[0], got, want, as)
				break
			}
		}
		pred := writeFile(t, filepath.Join(dir, m+".csv"), r.stdout)
		var s map[string]float64
		if err := json.Unmarshal([]byte(mustRun(t, "eval", "--pred", pred, "--truth", truth, "--json").stdout), &s); err != nil {
			t.Fatal(err)
		}
		r2[m] = s["r2"]
	}
	// Without --method, numbers get bias-precision (said in the log).
	def := mustRun(t, "aggregate", answers)
	if bp := mustRun(t, "aggregate", "--method", "bias-precision", answers, "--log-level", "warn"); def.stdout != bp.stdout || !strings.Contains(def.stderr, "no --method: aggregating with bias-precision") {
		t.Errorf("aggregate without --method on numbers: stderr\n%s", def.stderr)
	}
	if !(r2["bias-precision"] > r2["mean"]+0.05) {
		t.Errorf("truth R²: %v; want bias-precision above the mean", r2)
	}
	out := filepath.Join(dir, "m")
	r := mustRun(t, "train", "--answers", answers, "--out", out, "--progress", "never")
	if !strings.Contains(r.stderr, `training model = "bias-precision"`) {
		t.Errorf("train on numeric answers alone:\n%s", r.stderr)
	}
	if m := readManifest(t, out); m.Response != "value-prior" {
		t.Errorf("response %q", m.Response)
	}
	// Numbers under a categorical method, and classes under a numeric one.
	if r := run(t, "aggregate", "--method", "mean", writeFile(t, filepath.Join(dir, "cls.csv"), "task,worker,label\n1,a,x\n1,b,y\n")); r.code == ExitOK {
		t.Errorf("mean of class labels: exit 0")
	}
}

// TestSnowAffect runs the numeric methods on answers alone on the Snow et
// al. (2008) affect ratings (../shared/data/snow2008_affect; skipped
// without it): the numbers of docs/cli.md's table for anger and sadness,
// where bias-precision beats the mean answer, and mean equal to the mean
// of the ratings.
func TestSnowAffect(t *testing.T) {
	root := filepath.Join("..", "..", "..", "..", "shared", "data", "snow2008_affect")
	if _, err := os.Stat(filepath.Join(root, "anger.standardized.tsv")); err != nil {
		t.Skipf("no ../shared/data/snow2008_affect beside the repository (%v)", err)
	}
	want := map[string]map[string]float64{
		"anger":   {"mean": 0.177, "median": -0.264, "bias-precision": 0.476},
		"sadness": {"mean": 0.513, "median": 0.440, "bias-precision": 0.642},
	}
	dir := t.TempDir()
	for emotion, w := range want {
		b, err := os.ReadFile(filepath.Join(root, emotion+".standardized.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		var ans, truth strings.Builder
		ans.WriteString("task,worker,label\n")
		truth.WriteString("task,label\n")
		gold := map[string]bool{}
		for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Split(line, "\t")
			if i == 0 {
				continue // !amt_annotation_ids !amt_worker_ids orig_id response gold
			}
			ans.WriteString(f[2] + "," + f[1] + "," + f[3] + "\n")
			if !gold[f[2]] {
				gold[f[2]] = true
				truth.WriteString(f[2] + "," + strings.TrimSpace(f[4]) + "\n")
			}
		}
		answers := writeFile(t, filepath.Join(dir, emotion+".answers.csv"), ans.String())
		truthPath := writeFile(t, filepath.Join(dir, emotion+".truth.csv"), truth.String())
		for m, r2 := range w {
			pred := filepath.Join(dir, emotion+"."+m+".csv")
			mustRun(t, "aggregate", "--method", m, answers, "--out", pred, "--log-level", "warn")
			var s map[string]float64
			if err := json.Unmarshal([]byte(mustRun(t, "eval", "--pred", pred, "--truth", truthPath, "--json").stdout), &s); err != nil {
				t.Fatal(err)
			}
			if math.Abs(s["r2"]-r2) > 0.0005 {
				t.Errorf("%s %s: truth R² %.4f, docs/cli.md says %.3f", emotion, m, s["r2"], r2)
			}
		}
	}
}
