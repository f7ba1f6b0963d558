//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/maslda/maslda/beam/beamtrain"
	"github.com/maslda/maslda/framework/synth"
)

// childEnv makes the test binary run maslda-beam's main (TestMain):
// the command as a process of its own, which the test can kill.
const childEnv = "MASLDA_BEAM_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		return
	}
	// The children inherit the private TMPDIR: a killed child's
	// loopback files go with it.
	restore, err := beamtrain.PrivateTempDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := restore(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// command is maslda-beam run as a child process with args.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("no path to the test binary: %v", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	return cmd
}

// TestKilledDriverResumes: a maslda-beam process killed with SIGKILL
// after a checkpoint (between or during iterations: whatever the signal
// finds) and run again with --resume writes the model of an
// uninterrupted run, every file byte for byte (MA-sLDAr: φ, γ and
// q(target) state files on disk). Killed in the schedule (its checkpoint
// past iteration 3, after the pilot), or in the restarts (prelude.json
// past the first of 3 candidates): the resumed driver goes on after it.
// Skipped with -short.
func TestKilledDriverResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs maslda-beam three times as a process (-short)")
	}
	t.Run("schedule", func(t *testing.T) {
		killedDriver(t, "", 30, "checkpoint.json", func(b []byte) int {
			var ck struct {
				Iter int `json:"iter"`
			}
			if json.Unmarshal(b, &ck) == nil && ck.Iter >= 3 {
				return ck.Iter
			}
			return 0
		}, "iteration %d:")
	})
	t.Run("restarts", func(t *testing.T) {
		killedDriver(t, "restarts = 3\nrestart_iters = 8\n", 3, "prelude.json", func(b []byte) int {
			var pre struct {
				Restarts []uint64 `json:"restart_elbo_bits"`
			}
			if json.Unmarshal(b, &pre) == nil && len(pre.Restarts) >= 1 {
				return len(pre.Restarts)
			}
			return 0
		}, "restart %d,")
	})
}

// killedDriver runs maslda-beam on a planted MA-sLDAr problem (the
// configuration's head, then iters iterations) uninterrupted, then again
// killed once the work directory's file name holds a position killAt
// reports above 0, then with --resume: the resumed run's first line in
// the format first shows a position after it, and the models are equal.
func killedDriver(t *testing.T, head string, iters int, name string, killAt func([]byte) int, first string) {
	dir := t.TempDir()
	c := valueCorpus(t, 11, synth.LDASpec{D: 300, V: 80, K: 3, DocLen: 40, Alpha: 0.2, TopicConc: 0.1})
	src := head + fmt.Sprintf("seed = 7\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n  max_iters = %d\n  tol = 0\n}\n", iters)
	writeRun(t, dir, c, src)
	args := func(out, work string) []string {
		return []string{"train", "--config", filepath.Join(dir, "config.hcl"), "--docs", filepath.Join(dir, "docs.ldac"),
			"--answers", filepath.Join(dir, "answers.csv"), "--out", out, "--work", work, "--shard-size", "40"}
	}
	whole := filepath.Join(dir, "whole")
	if b, err := command(t, args(whole, filepath.Join(dir, "work-whole"))...).CombinedOutput(); err != nil {
		t.Fatalf("the uninterrupted run: %v\n%s", err, b)
	}

	// Kill the driver once its checkpoint is past the position (it
	// writes one after every iteration that does not end the run, and
	// after every restart candidate).
	out, work := filepath.Join(dir, "model"), filepath.Join(dir, "work")
	cmd := command(t, args(out, work)...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	killedAt := 0
	deadline := time.Now().Add(2 * time.Minute)
poll:
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("the driver ended before it was killed (%v): %s", err, log.String())
		default:
		}
		b, err := os.ReadFile(filepath.Join(work, name))
		if err == nil {
			if at := killAt(b); at > 0 {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killedAt = at
				break poll
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	if killedAt == 0 {
		cmd.Process.Kill()
		t.Fatalf("no %s to kill at within 2 minutes: %s", name, log.String())
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the driver was not killed by SIGKILL: %v", err)
	}
	if strings.Contains(log.String(), "trained:") {
		t.Fatalf("the driver finished before the kill: %s", log.String())
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a killed driver left a model directory: %v", err)
	}
	resumed, err := command(t, append(args(out, work), "--resume")...).CombinedOutput()
	if err != nil {
		t.Fatalf("the resumed run: %v\n%s", err, resumed)
	}
	t.Logf("killed with %s after %d; resumed:\n%s", name, killedAt, resumed)
	// It resumed (a run started afresh would give the same model).
	at := 0
	for _, l := range strings.Split(string(resumed), "\n") {
		if _, err := fmt.Sscanf(l, first, &at); err == nil {
			break
		}
	}
	if at <= killedAt {
		t.Errorf("the resumed run begins at %q %d; %s was after %d", first, at, name, killedAt)
	}
	if tmp, _ := filepath.Glob(filepath.Join(work, ".*.tmp-*")); len(tmp) > 0 {
		t.Errorf("temporary files left in the work directory after resuming: %v", tmp)
	}
	entries, err := os.ReadDir(whole)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("the uninterrupted model has %d files", len(entries))
	}
	for _, e := range entries {
		a, err := os.ReadFile(filepath.Join(whole, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the uninterrupted and the killed-and-resumed run", e.Name())
		}
	}
}
