package cli

import (
	"encoding/csv"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateGLAD: an `annotators "glad"` block simulates GLAD
// annotators (framework.Sampler): with every task's difficulty fixed
// (log_beta_sd = 0, β = e), ability 4 answers right (σ(4e) > 0.99995),
// ability −4 never does, and ability 0 is right half the time; the glad
// preset then finds the truth from the answers alone.
func TestSimulateGLAD(t *testing.T) {
	d := t.TempDir()
	var truth strings.Builder
	for i := range 300 {
		fmt.Fprintf(&truth, "%s\n", []string{"a", "b", "c"}[i%3])
	}
	tr := writeFile(t, filepath.Join(d, "truth.txt"), truth.String())
	block := writeFile(t, filepath.Join(d, "glad.hcl"), "annotators \"glad\" {\n  abilities   = [4, -4, 0]\n  log_beta_sd = 0\n}\n")
	out := filepath.Join(d, "answers.csv")
	mustRun(t, "simulate", "--truth-column", tr, "--annotators", block, "--out", out, "--per-doc", "3", "--seed", "3", "--log-level", "warn")
	rows, err := csv.NewReader(strings.NewReader(string(readFile(t, out)))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(truth.String()), "\n")
	right, n := map[string]int{}, map[string]int{}
	for _, r := range rows[1:] {
		var task int
		fmt.Sscan(r[0], &task)
		n[r[1]]++
		if r[2] == want[task] {
			right[r[1]]++
		}
	}
	if n["a0"] != 300 || n["a1"] != 300 || n["a2"] != 300 {
		t.Fatalf("answers per annotator %v, want 300 each (--per-doc 3: every annotator answers every task)", n)
	}
	if right["a0"] != 300 || right["a1"] != 0 {
		t.Errorf("right answers %v: want a0 all 300 (ability 4) and a1 none (ability −4)", right)
	}
	if r := right["a2"]; r < 120 || r > 180 {
		t.Errorf("ability 0 answered right %d times of 300, want about 150", r)
	}
	cfg := writeFile(t, filepath.Join(d, "p.hcl"), "model = \"glad\"\n")
	model := filepath.Join(d, "m")
	mustRun(t, "train", "--config", cfg, "--answers", out, "--truth-column", tr, "--out", model, "--log-level", "warn", "--progress", "never")
	post, err := csv.NewReader(strings.NewReader(string(readFile(t, filepath.Join(model, "posterior.csv"))))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for _, r := range post[1:] {
		var task int
		fmt.Sscan(r[0], &task)
		if r[1] == want[task] {
			hits++
		}
	}
	if hits < 295 {
		t.Errorf("the glad preset recovered %d of 300 true classes, want at least 295", hits)
	}
}
