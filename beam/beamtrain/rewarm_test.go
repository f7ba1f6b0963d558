package beamtrain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestRewarm: with constant = "almost" the first pass's classifier start
// (after 2 iterations) marks a2; the driver builds the run again with the
// marks and trains it from the beginning (one start: the second pass runs
// no restart candidates, models.Run.Restarts; then the schedule), as
// models.Run.Fit does: the same marks, iterations, bounds (the first
// pass's then the second's, numbered on) and globals, bit for bit. A
// driver stopped anywhere (in the first pass's schedule or its second
// restart candidate; in the second pass's first iteration and later in
// its schedule) and resumed from a run built anew ends the same, and
// leaves no file of the first pass behind.
func TestRewarm(t *testing.T) {
	src := "seed = 3\nconsensus = 1\nrestarts = 2\nrestart_iters = 2\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\n" +
		"annotators \"confusion\" {\n  start_iters = 2\n  constant = \"almost\"\n}\ninference \"batch\" {\n  max_iters = 6\n  tol = 0\n}\n"
	ctx := context.Background()
	c, err := synth.NearConstantCrowd(120, true)
	if err != nil {
		t.Fatal(err)
	}
	build := func() *models.Run {
		t.Helper()
		return buildOn(t, src, c)
	}
	want := build()
	var wantMain []float64
	wres, err := want.Fit(ctx, func(p framework.Progress) error {
		if p.Restart == 0 {
			wantMain = append(wantMain, p.ELBO)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantSnap, err := want.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	wantMarks := want.Marks()
	if diff := cmp.Diff([]int32{-1, -1, 1, -1}, wantMarks); diff != "" {
		t.Fatalf("in process: marks (-want +got):\n%s", diff)
	}
	if wres.Iters != 2+6 || len(wantMain) != 8 {
		t.Fatalf("in process: %d iterations, %d bounds; want 2 + 6", wres.Iters, len(wantMain))
	}
	check := func(what string, r *models.Run, res *Result, dir string) {
		t.Helper()
		if res.Iters != wres.Iters || res.Converged != wres.Converged || len(res.Trace) != len(wantMain) {
			t.Fatalf("%s: %d iterations (converged %v, %d bounds), in process %d (%v, %d)", what, res.Iters, res.Converged, len(res.Trace), wres.Iters, wres.Converged, len(wantMain))
		}
		sameAsInProcess(t, what, res.Trace, wantMain, r, wantSnap.Sum)
		if diff := cmp.Diff(wantMarks, res.Marks); diff != "" {
			t.Errorf("%s: Result.Marks (-in process +Beam):\n%s", what, diff)
		}
		if diff := cmp.Diff(wantMarks, r.Marks()); diff != "" {
			t.Errorf("%s: the run's marks (-in process +Beam):\n%s", what, diff)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "restart-*"))
		for _, f := range []string{"prelude.json", "pilot"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				left = append(left, f)
			}
		}
		if len(left) > 0 {
			t.Errorf("%s: left after the run: %v", what, left)
		}
	}
	opts := func(dir string) Options {
		return Options{Dir: dir, ShardSize: 16, MaxIters: 6, Tol: 0, Run: prismRun}
	}
	r := build()
	var seen []int
	candidates := map[int]bool{} // the second pass's restart candidates
	o := opts(t.TempDir())
	o.Progress = func(it int, _ float64) error { seen = append(seen, it); return nil }
	o.Prelude = func(p framework.Progress) error {
		if len(seen) >= 2 && p.Restart > 0 {
			candidates[p.Restart] = true
		}
		return nil
	}
	res, err := Train(ctx, r, o)
	if err != nil {
		t.Fatal(err)
	}
	check("uninterrupted", r, res, o.Dir)
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5, 6, 7, 8}, seen); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if len(candidates) > 0 {
		t.Errorf("the second pass ran restart candidates %v: it has one start (models.Run.Restarts)", candidates)
	}
	type stop struct{ iter, restart, restartIter int }
	for _, st := range []stop{{iter: 1}, {iter: 2}, {restart: 2, restartIter: 1}, {iter: 3}, {iter: 5}} {
		t.Run(fmt.Sprintf("%+v", st), func(t *testing.T) {
			dir := t.TempDir()
			halt := errors.New("stopped")
			o := opts(dir)
			o.Progress = func(it int, _ float64) error {
				if it == st.iter {
					return halt
				}
				return nil
			}
			o.Prelude = func(p framework.Progress) error {
				if st.restart > 0 && p.Restart == st.restart && p.Iter == st.restartIter {
					return halt
				}
				return nil
			}
			if _, err := Train(ctx, build(), o); !errors.Is(err, halt) {
				t.Fatalf("%v, want stopped", err)
			}
			r := build()
			o = opts(dir)
			o.Resume = true
			first, firstRestart := 0, 0
			o.Progress = func(it int, _ float64) error {
				if first == 0 {
					first = it
				}
				return nil
			}
			o.Prelude = func(p framework.Progress) error {
				if firstRestart == 0 && first == 0 {
					firstRestart = p.Restart
				}
				return nil
			}
			res, err := Train(ctx, r, o)
			if err != nil {
				t.Fatalf("resumed: %v", err)
			}
			check("stopped and resumed", r, res, dir)
			// Where it went on: at the iteration stopped in, or the
			// restart candidate (the second pass's first when nothing of
			// that pass was saved).
			if st.iter > 0 && (first != st.iter || firstRestart != 0) || st.restart > 0 && firstRestart != st.restart {
				t.Errorf("resumed at iteration %d (restart candidate %d first)", first, firstRestart)
			}
		})
	}
}

// TestRewarmBadFile: a resume whose rewarm.json is not JSON, of another
// format, or holds marks for another number of annotators fails with
// ErrBadInput naming the file, before any pipeline runs.
func TestRewarmBadFile(t *testing.T) {
	c, err := synth.NearConstantCrowd(60, true)
	if err != nil {
		t.Fatal(err)
	}
	src := "seed = 3\nconsensus = 1\nrestarts = 1\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\n" +
		"annotators \"confusion\" {\n  start_iters = 2\n  constant = \"almost\"\n}\ninference \"batch\" {\n  max_iters = 3\n  tol = 0\n}\n"
	for name, body := range map[string]string{
		"not json":       "{",
		"another format": `{"format": "maslda-beam-rewarm-0", "marks": [-1, -1, 1, -1], "trace_bits": []}`,
		"three marks":    `{"format": "maslda-beam-rewarm-1", "marks": [-1, 1, -1], "trace_bits": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := buildOn(t, src, c)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, rewarmFile), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Train(context.Background(), r, Options{Dir: dir, ShardSize: 16, MaxIters: 3, Run: prismRun, Resume: true})
			if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), filepath.Join(dir, rewarmFile)) {
				t.Fatalf("%v; want ErrBadInput naming %s", err, filepath.Join(dir, rewarmFile))
			}
		})
	}
}
