package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsInsideInputs (issue 30, item 2): every command's output is
// checked against its inputs as predict's is: report --out MODEL/x.html,
// plot --out inside a model given as --history, experiment --out around
// its spec, train --checkpoint-every whose OUT.checkpoint holds --docs;
// each refused with exit 2 naming both flags, and nothing written.
func TestOutputsInsideInputs(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "m")
	before := dirFiles(t, model)
	specDir := filepath.Join(f.dir, "exp")
	if err := os.Mkdir(specDir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := writeFile(t, filepath.Join(specDir, "spec.hcl"), "name = \"x\"\n")
	cpDocs := filepath.Join(f.dir, "n.checkpoint", "docs.ldac")
	if err := os.MkdirAll(filepath.Dir(cpDocs), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cpDocs, readFile(t, f.docs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"predict", []string{"predict", "--model", model, "--docs", f.docs, "--out", filepath.Join(model, "p.csv")}, "is inside --model"},
		{"report", []string{"report", "--model", model, "--out", filepath.Join(model, "report.html")}, "is inside --model"},
		{"report is model.json", []string{"report", "--model", model, "--out", model}, "is --model"},
		{"plot history", []string{"plot", "history", "--history", model, "--out", filepath.Join(model, "h")}, "is inside --history"},
		{"plot history, second of a list", []string{"plot", "history", "--history", f.docs + "," + model, "--out", filepath.Join(model, "h.png")}, "is inside --history"},
		{"experiment", []string{"experiment", "--spec", spec, "--out", specDir}, "contains --spec"},
		{"train checkpoint", []string{"train", "--docs", cpDocs, "--out", filepath.Join(f.dir, "n"), "--checkpoint-every", "1"}, "contains --docs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, append(tc.args, "--log-level", "warn")...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
	if after := dirFiles(t, model); len(after) != len(before) {
		t.Errorf("the model directory changed: %v, was %v", after, before)
	}
}
