package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The conventions of the Go ecosystem's command lines (cobra): --version
// and version, help CMD, completion, suggestions, single-dash long flags
// kept working.

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}, {"-version"}} {
		r := run(t, args...)
		if r.code != ExitOK || !regexp.MustCompile(`^maslda \S+, commit \S+.*, go1\.\d+`).MatchString(r.stdout) || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestNoCommand(t *testing.T) {
	r := run(t)
	if r.code != ExitUsage || !strings.Contains(r.stdout, "Crowd and topic models:") {
		t.Errorf("maslda: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func TestHelpTopics(t *testing.T) {
	// Every command's help goes to stdout (so | grep finds it), names the
	// command and lists its flags with two dashes.
	root := newRoot(&env{})
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		r := run(t, "help", c.Name())
		if r.code != ExitOK || !strings.Contains(r.stdout, "maslda "+c.Name()) || !strings.Contains(r.stdout, "--log-level") {
			t.Errorf("help %s: exit %d, stdout:\n%s", c.Name(), r.code, r.stdout)
		}
	}
	r := run(t, "plot", "confusion", "--help")
	if r.code != ExitOK || !strings.Contains(r.stdout, "maslda plot confusion --annotators") || !strings.Contains(r.stdout, "--true-confusions string") {
		t.Errorf("plot confusion --help: exit %d, stdout:\n%s", r.code, r.stdout)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := run(t, "completion", shell)
		if r.code != ExitOK || !strings.Contains(r.stdout, "maslda") || len(r.stdout) < 1000 {
			t.Errorf("completion %s: exit %d, %d bytes, stderr %q", shell, r.code, len(r.stdout), r.stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"tr"}, []string{"train"}},
		{[]string{"help", "pl"}, []string{"plot"}},
		{[]string{"help", "plot", "co"}, []string{"confusion"}},
		{[]string{"train", "--log-level", ""}, []string{"trace", "debug", "off"}},
		{[]string{"train", "--dup"}, []string{"--duplicates"}},
		{[]string{"train", "--duplicates", ""}, []string{"keep", "first", "last", "error"}},
		{[]string{"demo", "--progress", ""}, []string{"auto", "always", "never"}},
		{[]string{"eval", "--kind", ""}, []string{"categorical", "gaussian"}},
		{[]string{"prepare", "--format", ""}, []string{"csv", "jsonl", "dir", "lines"}},
		{[]string{"plot", ""}, []string{"metric", "confusion", "biasprec"}},
		{[]string{"train", "--model", ""}, []string{"ma-sldac", "ma-sldar", "dawid-skene", "mean"}},
		{[]string{"aggregate", "--method", ""}, []string{"dawid-skene", "mace", "majority-vote", "mean", "median", "bias-precision"}},
		{[]string{"simulate", "corpus", "--target", ""}, []string{"categorical", "numeric"}},
	} {
		r := run(t, append([]string{"__complete"}, tc.args...)...)
		got := strings.Split(r.stdout, "\n")
		for _, w := range tc.want {
			found := false
			for _, g := range got {
				found = found || strings.SplitN(g, "\t", 2)[0] == w
			}
			if !found {
				t.Errorf("complete %q: no %q in\n%s", tc.args, w, r.stdout)
			}
		}
	}
}

func TestPlotKinds(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot"}, `^maslda plot: missing the kind of plot: metric, history`},
		{[]string{"plot", "confuson"}, `^maslda plot: unknown kind of plot "confuson" \(did you mean confusion\?\); kinds: `},
		{[]string{"plot", "confusion"}, `^maslda plot confusion: missing --annotators$`},
		{[]string{"simulate", "corpsu"}, `^maslda simulate: unknown command "corpsu" \(did you mean corpus\?\)$`},
		{[]string{"train", "--seed", "abc"}, `^maslda train: --seed "abc": want a whole number ≥ 0; 'maslda train --help' lists the flags$`},
		{[]string{"demo", "--json=maybe"}, `unknown flag --json`},
		{[]string{"eval", "--json=maybe"}, `^maslda eval: --json "maybe": want true or false;`},
		{[]string{"help", "trian"}, `^maslda help: unknown help topic "trian" \(did you mean train\?\); 'maslda help' lists the commands$`},
		{[]string{"help", "plot", "confuson"}, `^maslda help: unknown help topic "plot confuson" \(did you mean confusion\?\)`},
	} {
		r := run(t, tc.args...)
		if r.code != ExitUsage || !regexp.MustCompile(tc.want).MatchString(strings.TrimSpace(r.stderr)) {
			t.Errorf("%v: exit %d, stderr %q, want %s", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestSingleDashLongFlags(t *testing.T) {
	// Go's flag package took -flag and -flag=value; command lines written
	// for it keep working: the same scores as with --flag.
	dir := t.TempDir()
	pred := writeFile(t, filepath.Join(dir, "pred.csv"), "task,label\nd1,a\nd2,b\nd3,a\n")
	truth := writeFile(t, filepath.Join(dir, "truth.csv"), "task,label\nd1,a\nd2,b\nd3,b\n")
	var got []map[string]any
	for _, args := range [][]string{
		{"eval", "--pred", pred, "--truth", truth, "--json"},
		{"eval", "-pred", pred, "-truth=" + truth, "-json", "-log-level", "warn"},
	} {
		r := run(t, args...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d, stderr %s", args, r.code, r.stderr)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
			t.Fatalf("%v: %v in %q", args, err, r.stdout)
		}
		got = append(got, m)
	}
	if got[0]["accuracy"] != got[1]["accuracy"] || got[0]["accuracy"] == nil {
		t.Errorf("--flags %v, -flags %v", got[0], got[1])
	}
	// A value that starts with a dash is not a flag.
	if a := longFlags(newRoot(&env{}), []string{"simulate", "--bias", "-0.3,1", "--title", "-x", "-seed", "3"}); strings.Join(a, " ") != "simulate --bias -0.3,1 --title -x --seed 3" {
		t.Errorf("longFlags: %q", a)
	}
}
