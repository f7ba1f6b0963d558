package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAggregateNumeric: numeric answers alone through the value prior:
// --method mean is each task's mean answer and median its median (to
// 1e-6 relative), bias-precision corrects the annotators' biases (a
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
			if !math.IsNaN(want) && math.Abs(got-want) > 1e-6*(1+math.Abs(want)) {
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
