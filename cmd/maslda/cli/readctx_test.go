package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestTrainInterruptedWhileLoading (issue 30, item 5): an interrupt that
// comes while the answers load stops train there (exit 130, nothing
// written); the reader itself stops between chunks of rows
// (corpus.TestReadOptsContextAndProgress).
func TestTrainInterruptedWhileLoading(t *testing.T) {
	d := t.TempDir()
	answers := writeFile(t, filepath.Join(d, "a.csv"), "task,worker,label\n0,w1,x\n0,w2,y\n1,w1,x\n")
	cfg := writeFile(t, filepath.Join(d, "ds.hcl"), "model = \"dawid-skene\"\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(d, "m")
	r := runCtx(t, ctx, nil, "train", "--answers", answers, "--config", cfg, "--out", out, "--log-level", "warn")
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, stderr:\n%s\nwant 130", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s written by an interrupted run (%v)", out, err)
	}
}
