package cli

import (
	"encoding/json"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTrainDefaultModel: documents and answers without --config or
// --model train MA-sLDAc for class labels and MA-sLDAr for numbers, and
// answers alone Dawid–Skene, saying which in the log; never plain LDA.
func TestTrainDefaultModel(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	race.SkipLong(t)
	f := newFixture(t)
	var cls, num strings.Builder
	cls.WriteString("task,label\n")
	num.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		cls.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
		num.WriteString(id + "," + strconv.Itoa(i%5) + "\n")
	}
	truthC := writeFile(t, filepath.Join(f.dir, "truth-c.csv"), cls.String())
	truthR := writeFile(t, filepath.Join(f.dir, "truth-r.csv"), num.String())
	ansC := filepath.Join(f.dir, "answers-c.csv")
	ansR := filepath.Join(f.dir, "answers-r.csv")
	mustRun(t, "simulate", "--truth", truthC, "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", ansC, "--log-level", "warn")
	mustRun(t, "simulate", "--truth", truthR, "--bias", "0,0.5", "--precision", "4,1", "--per-doc", "0", "--out", ansR, "--log-level", "warn")
	for _, tc := range []struct {
		name     string
		args     []string
		model    string
		response string
	}{
		{"classes with documents", []string{"--docs", f.docs, "--ids", f.ids, "--answers", ansC}, "ma-sldac", "softmax"},
		{"numbers with documents", []string{"--docs", f.docs, "--ids", f.ids, "--answers", ansR}, "ma-sldar", "gaussian"},
		{"classes alone", []string{"--answers", ansC}, "dawid-skene", "class-prior"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m")
			r := mustRun(t, append([]string{"train", "--out", out, "--progress", "never", "--seed", "2"}, tc.args...)...)
			if want := `[INFO]  maslda: no --config or --model: training model = "` + tc.model + `": because=`; !strings.Contains(r.stderr, want) {
				t.Errorf("the log does not say %q:\n%s", want, r.stderr)
			}
			if m := readManifest(t, out); m.Response != tc.response {
				t.Errorf("response %q, want %q", m.Response, tc.response)
			}
		})
	}
}

// TestMixedLabels: a labels column mixing numbers and words is an error
// naming the file and the first line of each kind; with --classes a
// warning.
func TestMixedLabels(t *testing.T) {
	dir := t.TempDir()
	ans := writeFile(t, filepath.Join(dir, "mixed.csv"), "task,worker,label\nt1,a,1\nt1,b,2\nt2,a,2\nt2,b,dog\nt3,a,1\n")
	r := run(t, "aggregate", ans)
	if r.code != ExitError || !regexp.MustCompile(`mixed\.csv: the labels mix numbers \(line 2: "1"\) and words \(line 5: "dog"\); .*--classes`).MatchString(r.stderr) {
		t.Errorf("mixed labels: exit %d, stderr %q", r.code, r.stderr)
	}
	classes := writeFile(t, filepath.Join(dir, "classes.txt"), "1\n2\ndog\n")
	r = mustRun(t, "aggregate", ans, "--classes", classes)
	if !strings.Contains(r.stderr, `[WARN]  maslda: `+ans+`: the labels mix numbers (line 2: "1") and words (line 5: "dog") (used as classes, as --classes declares)`) {
		t.Errorf("with --classes: stderr %q", r.stderr)
	}
	r = run(t, "train", "--answers", ans, "--out", filepath.Join(dir, "m"))
	if r.code != ExitError || !strings.Contains(r.stderr, "the labels mix numbers") {
		t.Errorf("train: exit %d, stderr %q", r.code, r.stderr)
	}
	// A truth file too (eval of classes).
	pred := writeFile(t, filepath.Join(dir, "pred.csv"), "task,label\nt1,a\nt2,b\nt3,a\n")
	truth := writeFile(t, filepath.Join(dir, "truth.csv"), "task,label\nt1,a\nt2,7\nt3,a\n")
	r = run(t, "eval", "--pred", pred, "--truth", truth)
	if r.code != ExitError || !regexp.MustCompile(`truth\.csv: the labels mix numbers \(line 3: "7"\) and words \(line 2: "a"\)`).MatchString(r.stderr) {
		t.Errorf("eval: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestEvalInfersNumbers: a task,label file of measurements is scored as
// numeric predictions (R², not a confusion matrix of numbers) unless
// --kind says otherwise.
func TestEvalInfersNumbers(t *testing.T) {
	dir := t.TempDir()
	pred := writeFile(t, filepath.Join(dir, "pred.csv"), "task,label\n0,1.5\n1,2.5\n2,3.25\n3,4\n")
	truth := writeFile(t, filepath.Join(dir, "truth.csv"), "task,label\n0,1.4\n1,2.7\n2,3\n3,4.2\n")
	var m map[string]any
	r := mustRun(t, "eval", "--pred", pred, "--truth", truth, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["r2"] == nil || m["accuracy"] != nil {
		t.Errorf("eval: %v %s", err, r.stdout)
	}
	if !strings.Contains(r.stderr, "the predictions are numbers: scoring them as numeric") {
		t.Errorf("eval does not say it inferred numbers:\n%s", r.stderr)
	}
	r = mustRun(t, "eval", "--pred", pred, "--truth", pred, "--json", "--kind", "categorical")
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["accuracy"] == nil {
		t.Errorf("eval --kind categorical: %v %s", err, r.stdout)
	}
	// Class codes stay classes.
	codes := writeFile(t, filepath.Join(dir, "codes.csv"), "task,label\n0,1\n1,2\n2,1\n3,2\n")
	r = mustRun(t, "eval", "--pred", codes, "--truth", codes, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["accuracy"] != 1.0 {
		t.Errorf("eval of class codes: %v %s", err, r.stdout)
	}
}
