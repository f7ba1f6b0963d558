package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeclaredClassesAndBadValues: --classes declares the classes; answers
// and truth outside them, numeric answers under a classification config,
// huge numbers, empty documents files and numeric truth under
// --accuracies are errors (or a warning) naming the file and line.
func TestDeclaredClassesAndBadValues(t *testing.T) {
	f := newFixture(t)
	d := f.dir
	w := func(name, content string) string { return writeFile(t, filepath.Join(d, name), content) }
	cls := f.config(t, "cls.hcl", "topics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 2\n}\n")
	reg := f.config(t, "reg.hcl", "topics {\n k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 2\n}\n")
	answers := func(name string, label func(i int) string) string {
		var b strings.Builder
		b.WriteString("task,worker,label\n")
		for i := range 130 {
			fmt.Fprintf(&b, "%d,w%d,%s\n", i, i%3, label(i))
		}
		return w(name, b.String())
	}
	good := answers("good.csv", func(i int) string { return []string{"neg", "pos"}[i%2] })
	typo := answers("typo.csv", func(i int) string {
		if i == 7 {
			return "poss"
		}
		return []string{"neg", "pos"}[i%2]
	})
	fewNumbers := answers("few.csv", func(i int) string { return fmt.Sprintf("%.1f", float64(i%4)/2) })
	manyNumbers := answers("many.csv", func(i int) string { return fmt.Sprintf("%.3f", float64(i)/7) })
	huge := answers("huge.csv", func(i int) string {
		if i == 3 {
			return "1e308"
		}
		return "0.5"
	})
	classes := w("classes.txt", "pos\nneg\n")
	truthBad := w("truth.txt", strings.Repeat("pos\n", 5)+"maybe\n"+strings.Repeat("neg\n", 124))
	out := filepath.Join(d, "out")
	train := func(cfg string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--config", cfg, "--out", out, "--progress", "never", "--log-level", "warn"}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // regexp of stderr
	}{
		{"answer outside --classes", train(cls, "--answers", typo, "--classes", classes), ExitError, `typo\.csv:9: label "poss" is not a class; the 2 classes are "pos", "neg"`},
		{"truth outside --classes", train(cls, "--answers", good, "--classes", classes, "--truth-column", truthBad), ExitError, `truth\.txt:6: label "maybe" is not a class`},
		{"--classes under a regression config", train(reg, "--answers", fewNumbers, "--classes", classes), ExitUsage, `--classes applies to a categorical response`},
		{"--classes without answers", train(cls, "--classes", classes), ExitUsage, `--classes needs answers`},
		{"many numeric answers under softmax", train(cls, "--answers", manyNumbers), ExitError,
			`many\.csv: the answers look numeric \(130 distinct numbers, e\.g\. "0\.000" on line 2\) but response "softmax" is categorical: each distinct value becomes a class; refusing 130 classes: use a regression configuration`},
		{"a huge answer", train(reg, "--answers", huge), ExitError, `huge\.csv:5: label "1e308" is beyond ±1e\+12`},
		{"an empty docs file", []string{"train", "--docs", w("empty.ldac", ""), "--out", out}, ExitError, `empty\.ldac: no documents: the file is empty`},
		{"predict on an empty file", []string{"predict", "--model", f.train(t, "model"), "--docs", filepath.Join(d, "empty.ldac"), "--out", filepath.Join(d, "p.csv")}, ExitError, `empty\.ldac: no documents`},
		{"simulate --accuracies on numeric truth", []string{"simulate", "--truth-column", w("num.txt", "0.5\n1.5\n2.25\n"), "--accuracies", "0.9", "--out", filepath.Join(d, "s.csv")}, ExitError,
			`num\.txt:1: the truth looks numeric \(3 distinct numbers, e\.g\. "0\.5"\): --accuracies and --confusions simulate answers to classes`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.args...)
			if r.code != tc.code || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d matching %s", r.code, r.stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
	// Declared classes keep their order; few numeric answers only warn.
	r := mustRun(t, train(cls, "--answers", good, "--classes", classes)...)
	if man := readManifest(t, out); strings.Join(man.Classes, ",") != "pos,neg" {
		t.Errorf("classes %v, want the declared order pos,neg", man.Classes)
	}
	r = mustRun(t, train(cls, "--answers", fewNumbers)...)
	if !strings.Contains(r.stderr, `few.csv: the answers look numeric (4 distinct numbers, e.g. "0.0" on line 2) but response "softmax" is categorical`) {
		t.Errorf("no warning:\n%s", r.stderr)
	}
}
