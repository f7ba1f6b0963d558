package cli

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// checkpointIntervalEnv sets a child's default checkpoint interval (and no
// minimum run before an interrupt saves): TestMain.
const checkpointIntervalEnv = "MASLDA_CLI_TEST_CHECKPOINT_INTERVAL"

// TestDefaultCheckpointKilled: a run started without --checkpoint-every
// saves checkpoints by itself (here every update: the child's default
// interval is shortened), so after a SIGKILL `train --resume` continues it
// and ends with the uninterrupted run's files.
func TestDefaultCheckpointKilled(t *testing.T) {
	f := newFixture(t)
	truth, answers := f.crowd(t)
	cfg := f.config(t, "c.hcl", "topics {\n  k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {\n  start_iters = 2\n}\ninference \"batch\" {\n  max_iters = 60\n  tol = 0\n}\n")
	args := func(out string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--ids", f.ids, "--answers", answers, "--truth", truth,
			"--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)
	}
	mustRun(t, args("full")...)
	want := comparable(t, filepath.Join(f.dir, "full"))

	cmd := child(args("killed")...)
	cmd.Env = append(cmd.Env, checkpointIntervalEnv+"=1ns")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(f.dir, "killed.checkpoint")
	deadline := time.Now().Add(time.Minute)
	for !exists(filepath.Join(cp, "checkpoint.json")) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !exists(cp) {
		t.Fatalf("no checkpoint %s after the kill", cp)
	}
	r := mustRun(t, args("killed", "--resume", "--log-level", "info")...)
	if !regexp.MustCompile(`resuming: checkpoint=\S+ after update=\d+`).MatchString(r.stderr) {
		t.Errorf("--resume did not resume:\n%s", r.stderr)
	}
	if got := comparable(t, filepath.Join(f.dir, "killed")); !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the resumed run's files differ from the uninterrupted run's")
	}
	if exists(cp) {
		t.Errorf("the checkpoint is left after the run")
	}
}

// TestCheckpointEvery: the values of --checkpoint-every, and a default run
// (interrupted before a minute of training) that stops at once, saving
// nothing, as before checkpoints were on by default.
func TestCheckpointEvery(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want checkpointPolicy
	}{
		{"0", checkpointPolicy{explicit: true}},
		{"5", checkpointPolicy{iters: 5, explicit: true}},
		{"30s", checkpointPolicy{interval: 30 * time.Second, explicit: true}},
	} {
		got, err := parseCheckpointEvery(tc.in, true)
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	if got, _ := parseCheckpointEvery("10m", false); got.interval != 10*time.Minute || got.minRun != time.Minute || got.explicit {
		t.Errorf("default: %+v", got)
	}
	for _, bad := range []string{"-1", "soon", "-5s", "0s"} {
		if _, err := parseCheckpointEvery(bad, true); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	f := newFixture(t)
	out := filepath.Join(f.dir, "m")
	r := run(t, "train", "--docs", f.docs, "--out", out, "--checkpoint-every", "soon")
	if r.code != ExitUsage || !regexp.MustCompile(`--checkpoint-every "soon": want a number of updates`).MatchString(r.stderr) {
		t.Errorf("--checkpoint-every soon: exit %d, %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out + ".checkpoint"); err == nil {
		t.Error("a checkpoint was written")
	}
}
