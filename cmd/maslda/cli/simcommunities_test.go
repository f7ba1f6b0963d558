package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateCommunities: `community` blocks in a confusion annotators
// file simulate a crowd of communities (HCL blocks decoded), and the
// `communities` preset trains on its answers and reports each annotator's
// community.
func TestSimulateCommunities(t *testing.T) {
	d := t.TempDir()
	var truth strings.Builder
	for i := range 90 {
		fmt.Fprintf(&truth, "%s\n", []string{"x", "y", "z"}[i%3])
	}
	tf := writeFile(t, filepath.Join(d, "t.txt"), truth.String())
	block := writeFile(t, filepath.Join(d, "c.hcl"), `annotators "confusion" {
  count = 12
  community "good" {
    share    = 2
    accuracy = 0.9
  }
  community "spam" {
    share     = 1
    confusion = [[1, 0, 0], [1, 0, 0], [1, 0, 0]]
  }
}
`)
	ans := filepath.Join(d, "a.csv")
	mustRun(t, "simulate", "--truth-column", tf, "--out", ans, "--annotators", block, "--per-doc", "4", "--seed", "3", "--log-level", "warn")
	lines := strings.Split(strings.TrimSpace(string(readFile(t, ans))), "\n")
	if len(lines) != 1+90*4 {
		t.Fatalf("%d lines, want the header and 360 answers", len(lines))
	}
	workers := map[string]bool{}
	for _, l := range lines[1:] {
		workers[strings.Split(l, ",")[1]] = true
	}
	if len(workers) > 12 {
		t.Errorf("%d workers, want at most count = 12", len(workers))
	}
	cfg := writeFile(t, filepath.Join(d, "p.hcl"), "model = \"communities\"\n")
	out := filepath.Join(d, "m")
	mustRun(t, "train", "--config", cfg, "--answers", ans, "--out", out, "--log-level", "warn")
	head := strings.SplitN(string(readFile(t, filepath.Join(out, "annotators.csv"))), "\n", 2)[0]
	// the community columns, then (the simulated spammers who give one
	// class to everything, annotators "confusion" { constant = "ignore" })
	// ignores_items
	if !strings.HasSuffix(head, ",community,community_p") && !strings.HasSuffix(head, ",community,community_p,ignores_items") {
		t.Errorf("annotators.csv header %q, want the community columns last (or before ignores_items)", head)
	}
}
