package cli

import (
	"fmt"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// empiricalModels are two trained models with their answers and truth.
type empiricalModels struct {
	dir                     string
	confModel, ansC, truthC string
	bpModel, wide, truthR   string
}

// trainEmpiricalModels trains, on the test corpus, a confusion model from
// CSV answers on a truth whose labels cycle pos, neg, neutral (the model
// orders its classes neg, neutral, pos) with a CSV truth, and a
// bias-precision model from a wide answer matrix with a column of true
// values (5 batch iterations each).
func trainEmpiricalModels(t *testing.T) empiricalModels {
	t.Helper()
	f := newFixture(t)
	m := empiricalModels{dir: f.dir}
	var cls, num strings.Builder
	cls.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		cls.WriteString(id + "," + []string{"pos", "neg", "neutral"}[i%3] + "\n")
		num.WriteString(strconv.FormatFloat(float64(i%7)/2, 'g', -1, 64) + "\n")
	}
	m.truthC = writeFile(t, filepath.Join(f.dir, "truth-c.csv"), cls.String())
	m.truthR = writeFile(t, filepath.Join(f.dir, "truth-r.txt"), num.String())
	m.ansC = filepath.Join(f.dir, "answers-c.csv")
	ansR := filepath.Join(f.dir, "answers-r.csv")
	mustRun(t, "simulate", "--truth", m.truthC, "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", m.ansC, "--log-level", "warn")
	mustRun(t, "simulate", "--truth-column", m.truthR, "--bias", "0,0.5,-1", "--precision", "4,1,0.25", "--per-doc", "2", "--out", ansR, "--log-level", "warn")

	// The regression answers as a wide matrix: row = document, column j =
	// annotator aj (simulate's names are a0, a1, ...), 999999999 = none.
	wide := make([][]string, len(f.trainIDs))
	for i := range wide {
		wide[i] = []string{"999999999", "999999999", "999999999"}
	}
	for _, r := range readCSV(t, ansR)[1:] {
		d, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatal(err)
		}
		j, err := strconv.Atoi(strings.TrimPrefix(r[1], "a"))
		if err != nil {
			t.Fatal(err)
		}
		wide[d][j] = r[2]
	}
	var w strings.Builder
	for _, row := range wide {
		w.WriteString(strings.Join(row, " ") + "\n")
	}
	m.wide = writeFile(t, filepath.Join(f.dir, "answers-r.txt"), w.String())

	m.confModel = filepath.Join(f.dir, "conf")
	mustRun(t, "train", "--docs", f.docs, "--ids", f.ids, "--vocab", f.vocab, "--answers", m.ansC, "--out", m.confModel, "--log-level", "warn", "--progress", "never",
		"--config", f.config(t, "c.hcl", "topics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 5\n}\n"))
	m.bpModel = filepath.Join(f.dir, "bp")
	mustRun(t, "train", "--docs", f.docs, "--vocab", f.vocab, "--answers-wide", m.wide, "--missing", "999999999", "--out", m.bpModel, "--log-level", "warn", "--progress", "never",
		"--config", f.config(t, "r.hcl", "topics {\n k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 5\n}\n"))
	if got := readManifest(t, m.confModel).Classes; strings.Join(got, ",") != "neg,neutral,pos" {
		t.Fatalf("the confusion model's classes are %v, want neg, neutral, pos (sorted, not in order of appearance)", got)
	}
	return m
}

// TestPlotEmpirical renders `plot confusion` and `plot biasprec` with
// the empirical truth to PNG and SVG, then checks the errors, on models
// trained once.
func TestPlotEmpirical(t *testing.T) {
	race.SkipLong(t)
	m := trainEmpiricalModels(t)
	t.Run("figures", func(t *testing.T) { plotEmpiricalFigures(t, m) })
	t.Run("errors", func(t *testing.T) { plotEmpiricalErrors(t, m) })
}

func plotEmpiricalFigures(t *testing.T, m empiricalModels) {
	out := t.TempDir()
	tests := []struct {
		name string
		args []string
		log  string // in stderr (--log-level info)
	}{
		{"confusion, CSV answers and truth", []string{"confusion", "--annotators", m.confModel, "--answers", m.ansC, "--truth", m.truthC}, "annotators=3"},
		{"confusion, one annotator, one per row", []string{"confusion", "--annotators", filepath.Join(m.confModel, "annotators.json"), "--answers", m.ansC, "--truth", m.truthC, "--select", "a2", "--per-row", "1"}, "wrote"},
		{"biasprec, wide answers and a truth column: bars", []string{"biasprec", "--annotators", m.bpModel, "--answers-wide", m.wide, "--missing", "999999999", "--truth-column", m.truthR}, "annotators=3"},
		{"biasprec, scatter", []string{"biasprec", "--annotators", m.bpModel, "--answers-wide", m.wide, "--truth-column", m.truthR, "--style", "scatter", "--min-answers", "20", "--title", "a title"}, "wrote"},
		{"boxes, wide answers and a truth column", []string{"boxes", "--annotators", m.bpModel, "--answers-wide", m.wide, "--missing", "999999999", "--truth-column", m.truthR}, "wrote"},
		{"boxes, wide answers only", []string{"boxes", "--answers-wide", m.wide}, "wrote"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := filepath.Join(out, fmt.Sprintf("%s%d", tc.args[0], i))
			r := mustRun(t, append(append([]string{"plot"}, tc.args...), "--out", prefix, "--log-level", "info")...)
			if !strings.Contains(r.stderr, tc.log) {
				t.Errorf("stderr %q, want it to contain %q", r.stderr, tc.log)
			}
			checkPlotFiles(t, prefix)
		})
	}
}

func plotEmpiricalErrors(t *testing.T, m empiricalModels) {
	o := filepath.Join(t.TempDir(), "fig")
	bad := func(name, content string) string { return writeFile(t, filepath.Join(m.dir, name), content) }
	extra := bad("extra.csv", string(readFile(t, m.ansC))+"doc-0,z9,pos\n")
	unknownLabel := bad("label.csv", strings.Replace(string(readFile(t, m.ansC)), ",neg\n", ",negative\n", 1))
	labelLine := 0 // the line of the renamed label
	for i, l := range strings.Split(string(readFile(t, unknownLabel)), "\n") {
		if labelLine == 0 && strings.HasSuffix(l, ",negative") {
			labelLine = i + 1
		}
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"confusion", "--annotators", m.confModel, "--true-accuracies", "0.9,0.6,0.4", "--answers", m.ansC, "--truth", m.truthC}, ExitUsage, "give one truth: --true-confusions, --true-accuracies, or the answers"},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", m.ansC}, ExitUsage, "needs the answers (--answers or --answers-wide) and the ground truth (--truth or --truth-column) together"},
		{[]string{"confusion", "--annotators", m.confModel, "--truth", m.truthC}, ExitUsage, "together"},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", m.ansC, "--answers-wide", m.wide, "--truth", m.truthC}, ExitUsage, "give --answers or --answers-wide, not both"},
		{[]string{"boxes", "--answers", m.ansC, "--answers-wide", m.wide}, ExitUsage, "give --answers or --answers-wide, not both"},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", m.ansC, "--truth", m.truthC, "--truth-column", m.truthR}, ExitUsage, "give --truth or --truth-column, not both"},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", extra, "--truth", m.truthC}, ExitError, `extra.csv:` + strconv.Itoa(len(readCSV(t, extra))) + `: annotator "z9" is not in`},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", unknownLabel, "--truth", m.truthC}, ExitError, fmt.Sprintf(`label.csv:%d: label "negative" of annotator`, labelLine)},
		{[]string{"confusion", "--annotators", m.confModel, "--answers", m.ansC, "--truth-column", m.truthR}, ExitError, `no task of ` + m.ansC + ` has a truth`},
		{[]string{"confusion", "--annotators", m.bpModel, "--answers-wide", m.wide, "--truth-column", m.truthR}, ExitError, "describes bias-precision annotators; use maslda plot biasprec"},
		{[]string{"biasprec", "--annotators", m.bpModel, "--true-bias", "0,0.5,-1", "--true-precision", "4,1,0.25", "--answers-wide", m.wide, "--truth-column", m.truthR}, ExitUsage, "give one truth: --true-bias with --true-precision, or the answers"},
		{[]string{"biasprec", "--annotators", m.bpModel, "--style", "pie"}, ExitUsage, `--style "pie"; valid: auto, bars, scatter`},
		{[]string{"biasprec", "--annotators", m.bpModel, "--style", "scatter"}, ExitUsage, "--style scatter needs a truth"},
		{[]string{"biasprec", "--annotators", m.bpModel, "--answers-wide", m.wide, "--truth-column", m.truthR, "--min-answers", "-1"}, ExitUsage, "--min-answers -1, want ≥ 0"},
		{[]string{"biasprec", "--annotators", m.bpModel, "--answers-wide", m.wide, "--truth-column", m.truthR, "--min-answers", "1000"}, ExitError, "none of the 3 annotators has 1000 or more answers"},
		{[]string{"biasprec", "--annotators", m.bpModel, "--answers", m.ansC, "--truth", m.truthC}, ExitError, `answer "pos" of annotator "a0" is not a finite number`},
		{[]string{"biasprec", "--annotators", m.confModel, "--answers", m.ansC, "--truth", m.truthC}, ExitError, "describes confusion annotators; use maslda plot confusion"},
		// the wide matrix names its annotators a0, a1, ... by column: CSV
		// answers with other names are not the model's
		{[]string{"biasprec", "--annotators", m.bpModel, "--answers", bad("renamed.csv", "task,worker,label\n0,w0,1\n"), "--truth-column", m.truthR}, ExitError, `annotator "a0" of ` + filepath.Join(m.bpModel, "annotators.json") + ` (line 2) has no answer in`},
	}
	for _, tc := range tests {
		r := run(t, append(append([]string{"plot"}, tc.args...), "--out", o)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("plot %v: exit %d, stderr %q; want exit %d containing %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
	if names := dirNames(t, filepath.Dir(o)); len(names) != 0 {
		t.Errorf("failed plots wrote %v", names)
	}
}
