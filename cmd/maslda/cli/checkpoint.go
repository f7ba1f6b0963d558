package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
)

// checkpointDir is where train keeps the checkpoint of a run writing out:
// beside it, OUT.checkpoint.
func checkpointDir(out string) string { return filepath.Clean(out) + ".checkpoint" }

// trainFingerprint is the run's models.Run.Fingerprint with the ground
// truth that history.csv scores (its file's SHA-256).
func trainFingerprint(run *models.Run, truthPath, truthCol string) (string, error) {
	var extra []string
	for _, f := range []struct{ flag, path string }{{"truth", truthPath}, {"truth-column", truthCol}} {
		if f.path == "" {
			continue
		}
		b, err := os.ReadFile(f.path)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(b)
		extra = append(extra, f.flag+":"+hex.EncodeToString(sum[:]))
	}
	return run.Fingerprint(extra...), nil
}

// errCheckpointed ends an interrupted run whose state was saved.
type errCheckpointed struct {
	dir  string
	iter int
}

func (e errCheckpointed) Error() string {
	return fmt.Sprintf("interrupted after update %d; the run's state is in %s: continue it with the same command and --resume", e.iter, e.dir)
}

func (e errCheckpointed) Unwrap() error { return context.Canceled }

// checkpointPolicy is when train saves its state (--checkpoint-every).
type checkpointPolicy struct {
	iters    int           // every this many updates (0: not by count)
	interval time.Duration // every this much training time (0: not by time)
	// minRun: an interrupt saves only after this much training (the
	// default's: a checkpoint is worth it for long runs only).
	minRun   time.Duration
	explicit bool // the user gave --checkpoint-every
}

func (p checkpointPolicy) on() bool { return p.iters > 0 || p.interval > 0 }

// defaultCheckpointInterval and defaultCheckpointMinRun are the policy of
// a run without --checkpoint-every: every 10 minutes of training, and when
// interrupted after a minute (tests shorten them).
var (
	defaultCheckpointInterval = 10 * time.Minute
	defaultCheckpointMinRun   = time.Minute
)

// parseCheckpointEvery reads --checkpoint-every: 0 (off), a number of
// updates, or a duration; the default (not given) is the time policy above.
func parseCheckpointEvery(s string, given bool) (checkpointPolicy, error) {
	if !given {
		return checkpointPolicy{interval: defaultCheckpointInterval, minRun: defaultCheckpointMinRun}, nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return checkpointPolicy{}, fmt.Errorf("%w: --checkpoint-every %d, want ≥ 0 (0: no checkpoints)", errUsage, n)
		}
		return checkpointPolicy{iters: n, explicit: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return checkpointPolicy{}, fmt.Errorf("%w: --checkpoint-every %q: want a number of updates (0: no checkpoints) or a positive duration such as 30s or 10m", errUsage, s)
	}
	return checkpointPolicy{interval: d, explicit: true}, nil
}

// checkpoints saves the run's state as its policy says and when the run
// is interrupted.
type checkpoints struct {
	dir, fingerprint string
	policy           checkpointPolicy
}

// checkpointTestHook, when set, is called after every update that may be
// checkpointed, before the decision (tests interrupt the run there).
var checkpointTestHook func(iter int)

// watch installs the run's checkpoint hook and returns the context the run
// goes on with. An interrupt (ctx done) no longer stops the run at once:
// the iteration under way ends, the state is saved, and Fit returns
// errCheckpointed; a second interrupt, or one before the schedule's first
// update, stops at once. stop releases the watcher and waits for it.
func (c *checkpoints) watch(ctx context.Context, e *env, run *models.Run, h *history) (context.Context, func()) {
	fitCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	var updated atomic.Bool
	start := time.Now()
	last := start
	// worthSaving: an interrupt now saves (long enough into the run).
	worthSaving := func() bool { return updated.Load() && time.Since(start) >= c.policy.minRun }
	run.AfterIter = func(p models.Position) error {
		updated.Store(true)
		if checkpointTestHook != nil {
			checkpointTestHook(p.Iter)
		}
		stop := ctx.Err() != nil
		if stop && time.Since(start) < c.policy.minRun {
			return ctx.Err() // too early to be worth a checkpoint: stop
		}
		due := c.policy.iters > 0 && p.Iter%c.policy.iters == 0 || c.policy.interval > 0 && time.Since(last) >= c.policy.interval
		if !stop && !due {
			return nil
		}
		t0 := time.Now()
		if err := run.SaveCheckpoint(c.dir, c.fingerprint, p, func(tmp string) error {
			return copyFile(h.path, filepath.Join(tmp, "history.csv"))
		}); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		last = time.Now()
		e.log.Info("checkpoint", "dir", c.dir, "update", p.Iter, "seconds", last.Sub(t0).Seconds())
		if stop {
			return errCheckpointed{dir: c.dir, iter: p.Iter}
		}
		return nil
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		if !worthSaving() {
			cancel() // nothing to save yet, or not worth it
			return
		}
		e.log.Warn("interrupted: saving a checkpoint at the end of this iteration; interrupt again to stop at once")
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		select {
		case <-sig:
			cancel()
		case <-done:
		}
	}()
	// stop waits for the watcher, so that nothing it logs can interleave
	// with what the caller writes after the run (the race detector saw
	// the warning race with the final error message on one writer).
	return fitCtx, func() { close(done); cancel(); <-exited }
}

// check refuses, before any work, a checkpoint directory that train may
// not replace or remove: one that is not a directory, or holds anything
// that is not a checkpoint (a file the checkpoint does not list). It
// names the flag and path the user gave (--out) and the directory.
func (c *checkpoints) check(out string) error {
	fi, err := os.Stat(c.dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: its checkpoint %s: %w", out, c.dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: --out %s: its checkpoint %s (--checkpoint-every, --resume) exists and is not a directory; move it away or choose another --out", framework.ErrBadInput, out, c.dir)
	}
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("--out %s: its checkpoint %s: %w", out, c.dir, err)
	}
	if len(ents) == 0 {
		return nil
	}
	if err := models.IsCheckpointDir(c.dir); err != nil {
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		return fmt.Errorf("%w: --out %s: its checkpoint directory %s (--checkpoint-every, --resume) holds %s and was not written by maslda train as it is (%v); refusing to replace or remove it: move it away, or choose another --out", framework.ErrBadInput, out, c.dir, corpus.QuoteList(names), err)
	}
	return nil
}

// remove deletes the checkpoint after the run's output is saved, and what
// killed saves left beside it. A checkpoint written by another run (its
// fingerprint differs), or holding a file it does not list, is left with
// a warning.
func (c *checkpoints) remove(e *env) {
	models.Recover(c.dir)
	if _, err := os.Stat(c.dir); os.IsNotExist(err) {
		return
	}
	if err := models.IsCheckpointDir(c.dir); err != nil {
		e.log.Warn("the checkpoint is left in place: it holds what a checkpoint does not", "dir", c.dir, "reason", err)
		return
	}
	if fp, err := models.CheckpointFingerprint(c.dir); err != nil || fp != c.fingerprint {
		e.log.Warn("the checkpoint is left in place: another run (another configuration, seed or inputs) wrote it", "dir", c.dir)
		return
	}
	if err := models.RemoveDir(c.dir); err != nil {
		e.log.Warn("could not remove the checkpoint", "dir", c.dir, "error", err)
		return
	}
	e.log.Info("removed the checkpoint", "dir", c.dir)
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	return writeFileAtomic(to, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

// resume starts the history with the rows of a checkpoint's history.csv:
// written to the file as they are, and counted as written.
func (h *history) resume(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return framework.Errorf(path, 0, "%v", err)
	}
	want := historyHeader(h.metric)
	if len(recs) < 2 || len(recs[0]) < len(want) || !slices.Equal(recs[0][:len(want)], want) {
		return framework.Errorf(path, 1, "not the history of this run (want a header starting %v and a row per update)", want)
	}
	if _, err := h.file.Write(b); err != nil {
		return fmt.Errorf("writing %s: %w", h.path, err)
	}
	n := len(recs) - 1
	h.rows, h.truth = make([]framework.Progress, n), make([]float64, n)
	if n > 0 && slices.Contains(recs[0], "stage") {
		h.rows[0].Stage = 1 // staged(): the column stays
	}
	h.headed, h.written = true, n
	return nil
}
