package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSimulateBlock: an annotators block of a noise model that can simulate
// (framework.Sampler) gives the answers its shorthand flags give, byte for
// byte; unknown and non-sampling models, unknown keys and extra blocks are
// errors naming the file, the line and what is valid.
func TestSimulateBlock(t *testing.T) {
	d := t.TempDir()
	w := func(name, content string) string { return writeFile(t, filepath.Join(d, name), content) }
	var cls, num strings.Builder
	for i := range 60 {
		fmt.Fprintf(&cls, "%s\n", []string{"neg", "pos", "mid"}[i%3])
		fmt.Fprintf(&num, "%g\n", float64(i%7)/2+0.25)
	}
	truthC, truthR := w("c.txt", cls.String()), w("r.txt", num.String())
	conf := w("conf.json", "[[[0.8,0.1,0.1],[0.2,0.7,0.1],[0,0,1]],[[0.5,0.5,0],[0,1,0],[0.3,0.3,0.4]]]")
	sim := func(out, truth string, extra ...string) []string {
		return append([]string{"simulate", "--truth-column", truth, "--out", filepath.Join(d, out), "--seed", "4", "--log-level", "warn"}, extra...)
	}
	for _, tc := range []struct {
		name        string
		block       string
		truth       string
		shorthand   []string
		flagsPerDoc string
	}{
		{"accuracies", "annotators \"confusion\" {\n  accuracies = [0.9, 0.6, 0.4]\n}\n", truthC, []string{"--accuracies", "0.9,0.6,0.4"}, "2"},
		{"confusions file", "annotators \"confusion\" {\n  confusions_file = " + hclString(conf) + "\n}\n", truthC, []string{"--confusions", conf}, "1"},
		{"inline confusions", "annotators \"confusion\" {\n  confusions = [[[0.8,0.1,0.1],[0.2,0.7,0.1],[0,0,1]],[[0.5,0.5,0],[0,1,0],[0.3,0.3,0.4]]]\n}\n", truthC, []string{"--confusions", conf}, "2"},
		{"bias-precision", "annotators \"bias-precision\" {\n  bias = [0.1, -0.3, 1]\n  precision = [10, 3, 0.5]\n}\n", truthR, []string{"--bias", "0.1,-0.3,1", "--precision", "10,3,0.5"}, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			block := w(tc.name+".hcl", tc.block)
			mustRun(t, sim("block.csv", tc.truth, "--annotators", block, "--per-doc", tc.flagsPerDoc)...)
			mustRun(t, sim("flags.csv", tc.truth, append(tc.shorthand, "--per-doc", tc.flagsPerDoc)...)...)
			got, want := string(readFile(t, filepath.Join(d, "block.csv"))), string(readFile(t, filepath.Join(d, "flags.csv")))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("block and flags differ (-flags +block):\n%s", diff)
			}
			if strings.Count(got, "\n") < 61 {
				t.Errorf("only %d lines:\n%s", strings.Count(got, "\n"), got)
			}
		})
	}
	for _, tc := range []struct {
		name, file, block string
		args              []string
		code              int
		want              string // regexp of stderr
	}{
		{"unknown model", "unknown.hcl", "annotators \"two-coin\" {\n}\n", nil, ExitError,
			`unknown\.hcl:1: unknown component: annotators "two-coin"; registered: bias-precision, confusion, glad, mace, median, one-coin, ordinal-shift, perfect; those that can simulate: bias-precision, confusion, glad, ordinal-shift`},
		{"a model that cannot simulate", "cannot.hcl", "\nannotators \"perfect\" {\n}\n", nil, ExitError,
			`cannot\.hcl:2: .*annotators "perfect" cannot simulate answers \(framework\.Sampler\); those that can: bias-precision, confusion, glad, ordinal-shift`},
		{"an unknown key", "key.hcl", "annotators \"confusion\" {\n  accuracy = [0.9]\n}\n", nil, ExitError,
			`Unsupported argument.*Valid: accuracies, community \{\}, confusions, confusions_file, count`},
		{"two ways", "two.hcl", "annotators \"confusion\" {\n  accuracies = [0.9]\n  confusions_file = \"x.json\"\n}\n", nil, ExitError,
			`two\.hcl:1: .*give one of accuracies, confusions, confusions_file`},
		{"no block", "none.hcl", "", nil, ExitError, `none\.hcl: 0 annotators blocks, want one: annotators "NAME" \{ … \} with the simulated annotators' parameters \(annotators that can simulate: bias-precision, confusion, glad, ordinal-shift\)`},
		{"classes of matrices", "matrices.hcl", "annotators \"confusion\" {\n  confusions = [[[1, 0], [0, 1]]]\n}\n", nil, ExitError,
			`matrices\.hcl:1: .*confusions has 2×2 matrices but there are 3 classes \(mid, neg, pos\)`},
		{"numbers answer no classes", "numbers.hcl", "annotators \"bias-precision\" {\n  bias = [0]\n  precision = [1]\n}\n", []string{"--classes", "a,b"}, ExitUsage,
			`--classes names classes, but annotators "bias-precision" answer targets of kind "gaussian", without classes`},
		{"--classes as a comma list", "list.hcl", "annotators \"confusion\" {\n  accuracies = [0.9]\n}\n", []string{"--classes", "neg,pos,mid"}, ExitUsage,
			`--classes neg,pos,mid: no such file; --classes names a file with one class per line, in order \(train, eval and simulate alike\), not a comma-separated list`},
		{"too many per document", "many.hcl", "annotators \"confusion\" {\n  accuracies = [0.9]\n}\n", []string{"--per-doc", "2"}, ExitUsage, `--per-doc 2 but only 1 annotators`},
		{"block and flags", "both.hcl", "annotators \"confusion\" {\n  accuracies = [0.9]\n}\n", []string{"--accuracies", "0.9"}, ExitUsage, `give --annotators or the shorthands`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := w(tc.file, tc.block)
			r := run(t, sim("bad.csv", truthC, append([]string{"--annotators", file}, tc.args...)...)...)
			if r.code != tc.code || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d matching %s", r.code, r.stderr, tc.code, tc.want)
			}
		})
	}
}
