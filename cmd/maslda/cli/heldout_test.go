package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/models"
)

// TestTrainHoldoutAnswers: --holdout-answers trains on the rest of the
// answers and scores the held-out ones. Dawid–Skene, whose annotators are
// learnt, predicts them better than chance (log 1/3) and better than a
// model that believes every annotator answers at random; the score is in
// model.json and each held-out answer in heldout-answers.csv; the same
// seed holds out the same answers; a bad share, answers without a
// response's annotator predictive and a share without answers are usage
// errors.
func TestTrainHoldoutAnswers(t *testing.T) {
	dir := t.TempDir()
	csvPath, _, _, _ := answersOnlyCrowd(t, dir)
	ds := writeFile(t, filepath.Join(dir, "ds.hcl"), "model = \"dawid-skene(bayes)\"\n")
	flat := writeFile(t, filepath.Join(dir, "flat.hcl"), "model = \"dawid-skene(bayes)\"\nannotators \"confusion\" {\n  init = \"uniform\"\n  diagonal = 0\n  omega = 1e6\n}\n")
	score := func(cfg, name string) (models.HeldOutAnswers, [][]string) {
		out := filepath.Join(dir, name)
		r := mustRun(t, "train", "--config", cfg, "--answers", csvPath, "--holdout-answers", "0.2", "--out", out, "--progress", "never")
		if !strings.Contains(r.stderr, "held-out answers: answers=") {
			t.Errorf("%s: stderr lacks the held-out answers line:\n%s", name, r.stderr)
		}
		raw, err := os.ReadFile(filepath.Join(out, "model.json"))
		if err != nil {
			t.Fatal(err)
		}
		var man models.Manifest
		if err := json.Unmarshal(raw, &man); err != nil {
			t.Fatal(err)
		}
		if man.HeldOutAnswers == nil {
			t.Fatalf("%s: model.json has no heldout_answers:\n%s", name, raw)
		}
		if _, err := models.Load(out, nil); err != nil {
			t.Fatalf("%s: the model does not load: %v", name, err)
		}
		return *man.HeldOutAnswers, readCSV(t, filepath.Join(out, "heldout-answers.csv"))
	}
	good, rows := score(ds, "ds")
	bad, rows2 := score(flat, "flat")
	chance := math.Log(1.0 / 3)
	t.Logf("mean log predictive: Dawid–Skene %.4f, flat annotators %.4f, chance %.4f (%d answers)", good.MeanLogPredictive, bad.MeanLogPredictive, chance, good.Answers)
	if good.Answers < 100 || good.Answers > 260 || good.Share != 0.2 {
		t.Errorf("held out %d of 900 answers at share %v, want about 180", good.Answers, good.Share)
	}
	if !(good.MeanLogPredictive > chance+0.05) || math.Abs(bad.MeanLogPredictive-chance) > 0.01 {
		t.Errorf("mean log predictive: Dawid–Skene %.4f, flat %.4f; want the first above chance %.4f and the second at it", good.MeanLogPredictive, bad.MeanLogPredictive, chance)
	}
	if len(rows) != good.Answers+1 || strings.Join(rows[0], ",") != "task,annotator,label,log_predictive" {
		t.Fatalf("heldout-answers.csv: %d rows, header %v", len(rows), rows[0])
	}
	sum := 0.0
	for i, row := range rows[1:] {
		if row[0] != rows2[i+1][0] || row[1] != rows2[i+1][1] || row[2] != rows2[i+1][2] {
			t.Fatalf("row %d: the same seed held out other answers: %v and %v", i+1, row, rows2[i+1])
		}
		x, err := strconv.ParseFloat(row[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += x
	}
	if math.Abs(sum/float64(good.Answers)-good.MeanLogPredictive) > 1e-6 {
		t.Errorf("heldout-answers.csv averages %.6f, model.json says %.6f", sum/float64(good.Answers), good.MeanLogPredictive)
	}
	// Errors.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", ds, "--answers", csvPath, "--holdout-answers", "1"}, "--holdout-answers 1"},
		{[]string{"--config", ds, "--answers", csvPath, "--holdout-answers", "-0.1"}, "--holdout-answers -0.1"},
		{[]string{"--config", writeFile(t, filepath.Join(dir, "mace.hcl"), "topics { k = 1 }\nresponse \"class-prior\" {}\nannotators \"mace\" {}\n"), "--answers", csvPath, "--holdout-answers", "0.2"}, "cannot score held-out answers"},
	} {
		r := run(t, append([]string{"train", "--out", filepath.Join(dir, "err"), "--progress", "never"}, tc.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// TestTrainSelect: a select block makes train fit each candidate on most
// of the answers, log its held-out score, and train the best on every
// answer: Dawid–Skene's learnt annotators beat flat ones; model.json
// records the choice, the saved configuration says selected = "ds" and
// loads as that candidate; without answers, and with --init-model, select
// is a usage error.
func TestTrainSelect(t *testing.T) {
	dir := t.TempDir()
	csvPath, _, _, _ := answersOnlyCrowd(t, dir)
	cfg := writeFile(t, filepath.Join(dir, "sel.hcl"), `model = "dawid-skene(bayes)"
select {
  share = 0.2
  candidate "flat" {
    annotators "confusion" {
      init     = "uniform"
      diagonal = 0
      omega    = 1e6
    }
  }
  candidate "ds" {}
}
`)
	out := filepath.Join(dir, "m")
	r := mustRun(t, "train", "--config", cfg, "--answers", csvPath, "--out", out, "--progress", "never")
	for _, want := range []string{"choosing by held-out answers: candidates=\"flat, ds\" share=0.2", "candidate: name=flat", "candidate: name=ds", "chosen: candidate=ds"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man models.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	if s := man.Selection; s == nil || s.Chosen != "ds" || len(s.Candidates) != 2 || !(s.Candidates[1].MeanLogPredictive > s.Candidates[0].MeanLogPredictive) {
		t.Fatalf("model.json's selection: %+v", man.Selection)
	}
	src, err := os.ReadFile(filepath.Join(out, "config.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), `selected = "ds"`) {
		t.Errorf("the saved configuration does not record the choice:\n%s", src)
	}
	saved, err := models.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Config.Select.Chosen != "ds" || saved.Config.Annotators.Name != "confusion" {
		t.Errorf("loaded as candidate %q", saved.Config.Select.Chosen)
	}
	// With folds the log names the folds, not the unused share.
	cfgF := writeFile(t, filepath.Join(dir, "self.hcl"), strings.Replace(string(readFile(t, cfg)), "share = 0.2", "folds = 3", 1))
	rf := mustRun(t, "train", "--config", cfgF, "--answers", csvPath, "--out", filepath.Join(dir, "f"), "--progress", "never")
	if want := "choosing by held-out answers: candidates=\"flat, ds\" folds=3 seed="; !strings.Contains(rf.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, rf.stderr)
	}
	docs := writeFile(t, filepath.Join(dir, "docs.ldac"), "1 0:1\n")
	for _, args := range [][]string{
		{"train", "--config", cfg, "--docs", docs, "--out", filepath.Join(dir, "x")},
		{"train", "--config", cfg, "--answers", csvPath, "--init-model", out, "--out", filepath.Join(dir, "y")},
	} {
		if r := run(t, args...); r.code != ExitUsage || !strings.Contains(r.stderr, "select") {
			t.Errorf("%v: exit %d, stderr %s; want a usage error about select", args, r.code, r.stderr)
		}
	}
}
