package cli

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// plantedLines writes a lines file (label TAB text) of perClass documents
// per planted class: its documents are numbered from 1 by prepare.
func plantedLines(t *testing.T, dir string, perClass int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 1))
	var b strings.Builder
	for i := range perClass * len(plantedClasses) {
		c := plantedClasses[i%len(plantedClasses)]
		var words []string
		for range 20 {
			words = append(words, c.words[r.IntN(len(c.words))])
		}
		fmt.Fprintf(&b, "%s\t%s\n", c.label, strings.Join(words, " "))
	}
	return writeFile(t, filepath.Join(dir, "docs.txt"), b.String())
}

// TestCorpusDir: prepare → simulate --corpus → train --corpus → predict
// --corpus → eval: the ids of prepare's ids.txt (from 1) throughout, with
// no --docs, --ids or --vocab, and no config (MA-sLDAc by default).
func TestCorpusDir(t *testing.T) {
	dir := t.TempDir()
	in := plantedLines(t, dir, 30)
	corpus := filepath.Join(dir, "corpus")
	mustRun(t, "prepare", "--input", in, "--format", "lines", "--line-fields", "label,text", "--split", "0.8", "--out", corpus, "--log-level", "warn")
	answers := filepath.Join(dir, "answers.csv")
	mustRun(t, "simulate", "--corpus", corpus, "--accuracies", "0.9,0.7,0.6", "--per-doc", "2", "--out", answers, "--log-level", "warn")
	cfg := writeFile(t, filepath.Join(dir, "c.hcl"), "model = \"ma-sldac\"\ntopics {\n  k = 3\n}\ninference \"batch\" {\n  max_iters = 30\n}\n")
	model := filepath.Join(dir, "model")
	r := mustRun(t, "train", "--corpus", corpus, "--answers", answers, "--config", cfg, "--out", model, "--progress", "never")
	if !regexp.MustCompile(`corpus: dir=\S+/corpus/train ids=true vocabulary=true labels=true`).MatchString(r.stderr) ||
		!regexp.MustCompile(`truth inference: truth_accuracy=(0\.9\d*|1)\b`).MatchString(r.stderr) {
		t.Errorf("train --corpus log:\n%s", r.stderr)
	}
	post := readCSV(t, filepath.Join(model, "posterior.csv"))
	ids := strings.Fields(string(readFile(t, filepath.Join(corpus, "train", "ids.txt"))))
	if post[1][0] != ids[0] || ids[0] == "0" {
		t.Errorf("posterior's first task %q, ids.txt's first %q", post[1][0], ids[0])
	}
	pred := filepath.Join(dir, "pred.csv")
	mustRun(t, "predict", "--model", model, "--corpus", corpus, "--out", pred, "--log-level", "warn")
	r = mustRun(t, "eval", "--pred", pred, "--truth", filepath.Join(corpus, "test", "labels.csv"))
	if !regexp.MustCompile(`(?m)^accuracy\s+(0\.9\d*|1\.0*)$`).MatchString(r.stdout) {
		t.Errorf("eval of predict --corpus:\n%s", r.stdout)
	}

	// --docs without --ids numbers documents from 0: the error says where
	// prepare's ids are.
	r = run(t, "train", "--docs", filepath.Join(corpus, "train", "docs.ldac"), "--answers", answers, "--config", cfg, "--out", filepath.Join(dir, "m2"))
	if r.code != ExitError || !strings.Contains(r.stderr, "without --ids the documents are numbered from 0; give --ids "+filepath.Join(corpus, "train", "ids.txt")+", or --corpus") {
		t.Errorf("train --docs without --ids: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--corpus", corpus, "--docs", "x.ldac", "--out", filepath.Join(dir, "m3")}, `--corpus gives --docs \(\S+\): not both`},
		{[]string{"train", "--corpus", dir, "--out", filepath.Join(dir, "m3")}, `--corpus \S+: no docs.ldac there nor in train/`},
		{[]string{"simulate", "--corpus", corpus, "--truth", "t.csv", "--accuracies", "1", "--out", "-"}, `--corpus gives the truth`},
	} {
		r := run(t, tc.args...)
		if r.code == ExitOK || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
			t.Errorf("%v: exit %d, stderr %q, want %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m3")); err == nil {
		t.Error("a failed run wrote its --out")
	}
}

// TestExampleConfigs: every configuration in docs/examples trains (a few
// iterations on the test corpus), MA-sLDAc and MA-sLDAr with answers.
func TestExampleConfigs(t *testing.T) {
	f := newFixture(t)
	var cls strings.Builder
	cls.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		cls.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
	}
	truth := writeFile(t, filepath.Join(f.dir, "truth.csv"), cls.String())
	answers := filepath.Join(f.dir, "answers.csv")
	mustRun(t, "simulate", "--truth", truth, "--accuracies", "0.9,0.6", "--per-doc", "2", "--out", answers, "--log-level", "warn")
	paths, err := filepath.Glob("../../../docs/examples/*.hcl")
	if err != nil || len(paths) < 4 {
		t.Fatalf("docs/examples: %v, %v", paths, err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			src := string(readFile(t, p))
			for _, key := range []string{"max_iters", "epochs"} {
				src = regexp.MustCompile(`(?m)^(\s*`+key+`\s*=\s*)\d+`).ReplaceAllString(src, "${1}2")
			}
			src = regexp.MustCompile(`(?m)^(\s*k\s*=\s*)\d+`).ReplaceAllString(src, "${1}3")
			src = regexp.MustCompile(`(?m)^(\s*restarts\s*=\s*)\d+`).ReplaceAllString(src, "${1}1")
			cfg := writeFile(t, filepath.Join(t.TempDir(), filepath.Base(p)), src)
			args := []string{"train", "--docs", f.docs, "--ids", f.ids, "--config", cfg, "--out", filepath.Join(t.TempDir(), "m"), "--progress", "never", "--log-level", "warn"}
			switch filepath.Base(p) {
			case "maslda-c.hcl":
				args = append(args, "--answers", answers)
			case "maslda-r.hcl":
				args = append(args, "--answers", writeFile(t, filepath.Join(t.TempDir(), "r.csv"), strings.NewReplacer(",x\n", ",1.5\n", ",y\n", ",2.25\n", ",z\n", ",3\n").Replace(string(readFile(t, answers)))))
			}
			mustRun(t, args...)
		})
	}
}
