package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeclaredClassNobodyChose: a class declared with train --classes that
// no answer uses is still a class of the model: in model.json, a column of
// posterior.csv and of predictions, and of eval --classes's confusion
// matrix. simulate --per-doc 0 asks every annotator.
func TestDeclaredClassNobodyChose(t *testing.T) {
	f := newFixture(t)
	d := f.dir
	var truth strings.Builder
	for i := range 130 {
		fmt.Fprintf(&truth, "%s\n", []string{"neg", "pos"}[i%2])
	}
	truthPath := writeFile(t, filepath.Join(d, "truth.txt"), truth.String())
	answers := filepath.Join(d, "answers.csv")
	mustRun(t, "simulate", "--truth-column", truthPath, "--accuracies", "0.9,0.7", "--per-doc", "0", "--out", answers, "--log-level", "warn")
	if got := len(readCSV(t, answers)); got != 1+2*130 {
		t.Errorf("--per-doc 0: %d rows, want a header and 2 answers per document", got)
	}
	classes := writeFile(t, filepath.Join(d, "classes.txt"), "pos\nneutral\nneg\n")
	cfg := f.config(t, "c.hcl", "topics {\n k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 2\n}\n")
	out := filepath.Join(d, "model")
	mustRun(t, "train", "--docs", f.docs, "--config", cfg, "--answers", answers, "--classes", classes, "--out", out, "--progress", "never", "--log-level", "warn")
	if diff := cmp.Diff([]string{"pos", "neutral", "neg"}, readManifest(t, out).Classes); diff != "" {
		t.Errorf("model classes (-want +got):\n%s", diff)
	}
	post := readCSV(t, filepath.Join(out, "posterior.csv"))
	if diff := cmp.Diff([]string{"task", "label", "p:pos", "p:neutral", "p:neg"}, post[0]); diff != "" {
		t.Errorf("posterior.csv header (-want +got):\n%s", diff)
	}
	pred := filepath.Join(d, "pred.csv")
	mustRun(t, "predict", "--model", out, "--docs", f.docs, "--out", pred, "--log-level", "warn")
	if got := readCSV(t, pred)[0][:5]; !cmp.Equal(got, post[0]) {
		t.Errorf("predictions header %v, want %v", got, post[0])
	}
	r := mustRun(t, "eval", "--pred", filepath.Join(out, "posterior.csv"), "--truth-column", truthPath, "--classes", classes, "--json")
	if !strings.Contains(r.stdout, `"classes":["pos","neutral","neg"]`) {
		t.Errorf("eval --classes: %s", r.stdout)
	}
	r = run(t, "eval", "--pred", pred, "--truth-column", truthPath, "--kind", "poisson")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `--kind: unknown component: target "poisson"; registered: categorical, gaussian, ordinal`) {
		t.Errorf("eval --kind poisson: exit %d, %s", r.code, r.stderr)
	}
}
