//go:build unix

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTrainOutLock (issue 30, item 3): while a train holds --out (its
// lock .OUT.lock), a second train into the same --out is refused before
// any work, naming the holder's pid; a lock file left by a run that died
// (its pid gone) is taken over with a warning, and removed when the run
// ends.
func TestTrainOutLock(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "m")
	held, err := lockOut("out", out) // as a running train holds it
	if err != nil || held == nil {
		t.Fatalf("lockOut: %v, %v", held, err)
	}
	args := []string{"train", "--docs", f.docs, "--config", f.config(t, "batch.hcl", batchHCL), "--out", out, "--log-level", "warn", "--progress", "never"}
	r := run(t, args...)
	want := "--out " + out + " is in use: maslda train with pid " + strconv.Itoa(os.Getpid())
	if r.code != ExitError || !strings.Contains(r.stderr, want) {
		t.Fatalf("second run: exit %d, stderr:\n%s\nwant exit 1 and %q", r.code, r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote %s (%v)", out, err)
	}
	held.release()

	// A stale lock: the pid of a process that has ended.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to make a dead pid:", err)
	}
	dead := cmd.Process.Pid
	writeFile(t, lockPath(out), strconv.Itoa(dead)+"\n")
	r = mustRun(t, args...)
	if !strings.Contains(r.stderr, "taking over the lock") || !strings.Contains(r.stderr, "pid="+strconv.Itoa(dead)) {
		t.Errorf("stale lock: stderr\n%s\nwant the take-over warning naming pid %d", r.stderr, dead)
	}
	if _, err := os.Stat(lockPath(out)); !os.IsNotExist(err) {
		t.Errorf("the lock file is left after the run (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(out, "model.json")); err != nil {
		t.Errorf("no model after taking over a stale lock: %v", err)
	}
}

// TestTrainCheckpointDirChecked (issue 30, items 3 and 6): a foreign
// OUT.checkpoint is refused before the first iteration, naming --out as
// given and the checkpoint directory (with --checkpoint-every and with
// --resume; the user's file stays); a finishing run leaves a checkpoint
// that another run (another seed) wrote, with a warning, instead of
// deleting it.
func TestTrainCheckpointDirChecked(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, "batch.hcl", batchHCL)
	args := func(out string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)
	}
	t.Cleanup(func() { checkpointTestHook = nil })
	foreign := filepath.Join(f.dir, "m2.checkpoint")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	notes := writeFile(t, filepath.Join(foreign, "notes.txt"), "mine\n")
	for _, extra := range [][]string{{"--checkpoint-every", "1"}, {"--resume"}} {
		iterated := false
		checkpointTestHook = func(int) { iterated = true }
		r := run(t, args("m2", extra...)...)
		checkpointTestHook = nil
		want := "--out " + filepath.Join(f.dir, "m2") + ": its checkpoint directory " + foreign
		if r.code != ExitError || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "notes.txt") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant exit 1 and %q naming notes.txt", extra, r.code, r.stderr, want)
		}
		if iterated {
			t.Errorf("%v: the run iterated before refusing the checkpoint directory", extra)
		}
		if _, err := os.Stat(notes); err != nil {
			t.Errorf("%v: the user's file in the checkpoint directory: %v", extra, err)
		}
	}

	// Another run's checkpoint (seed 5, interrupted) survives a run with
	// --checkpoint-every that saves none (N above its iterations).
	ctx, cancel := context.WithCancel(context.Background())
	checkpointTestHook = func(int) { cancel() }
	r := runCtx(t, ctx, nil, args("m3", "--checkpoint-every", "100", "--seed", "5")...)
	checkpointTestHook = nil
	cancel()
	if r.code != ExitInterrupted {
		t.Fatalf("interrupted run: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	cp := filepath.Join(f.dir, "m3.checkpoint")
	before := dirFiles(t, cp)
	r = mustRun(t, args("m3", "--checkpoint-every", "100")...)
	if !strings.Contains(r.stderr, "another run") {
		t.Errorf("stderr:\n%s\nwant a warning that the checkpoint of another run is left", r.stderr)
	}
	if after := dirFiles(t, cp); len(after) != len(before) {
		t.Errorf("the other run's checkpoint changed: %v, was %v", after, before)
	}
	// A file of the user's in the checkpoint: --resume refuses before
	// training and leaves both.
	extra := writeFile(t, filepath.Join(cp, "notes.txt"), "mine\n")
	r = run(t, args("m3", "--resume", "--seed", "5")...)
	if r.code != ExitError || !strings.Contains(r.stderr, "notes.txt") || !strings.Contains(r.stderr, "--out "+filepath.Join(f.dir, "m3")) {
		t.Errorf("resume with a foreign file in the checkpoint: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	// Its own run resumes from it and removes it.
	mustRun(t, args("m3", "--resume", "--seed", "5")...)
	if _, err := os.Stat(cp); !os.IsNotExist(err) {
		t.Errorf("the checkpoint is left after its run resumed and finished (%v)", err)
	}
}
