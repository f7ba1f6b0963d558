package beamtrain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	_ "github.com/maslda/maslda/plugins/std"
)

func TestMain(m *testing.M) {
	beam.Init()
	restore, err := PrivateTempDir()
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

// testCorpus is a small planted corpus with numeric or class answers.
func testCorpus(t *testing.T, kind string) *framework.Corpus {
	t.Helper()
	rng := rand.New(rand.NewPCG(26, 4))
	c, pl, err := synth.LDA(synth.LDASpec{D: 150, V: 60, K: 3, DocLen: 30, Alpha: 0.2, TopicConc: 0.1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "values":
		x := make([]float64, len(c.Docs))
		for d := range x {
			x[d] = pl.ZBar[d][0] + 3*pl.ZBar[d][1] + 5*pl.ZBar[d][2] + 0.3*rng.NormFloat64()
		}
		c.Answers = &framework.Answers{Annotators: []string{"a", "b", "c", "d", "e"}, ByDoc: biasprecision.Sample(x, biasprecision.PaperBias, biasprecision.PaperPrec, 3, rng)}
	case "classes":
		classes := synth.Classes(pl.ZBar, synth.PlantedEta(3, 3, 6, rng), rng)
		pis, err := confusion.FromAccuracies([]float64{0.8, 0.6, 0.45}, 3)
		if err != nil {
			t.Fatal(err)
		}
		byDoc, err := confusion.Sample(classes, pis, 2, rng)
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"c0", "c1", "c2"}
		workers := []string{"a0", "a1", "a2"}
		c.Answers = &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}
	}
	return c
}

// compositions are trained by batch EM from their one start, without a
// pilot (restarts = 1; the gaussian's exact_iters = 0): the iterations
// themselves (TestPrepareAsFit: the restarts and the pilot).
var compositions = []struct{ name, kind, src string }{
	{"lda", "", "seed = 1\ntopics {\n  k = 3\n}\n"},
	{"ma-sldar", "values", "seed = 2\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {\n  exact_iters = 0\n}\nannotators \"bias-precision\" {}\n"},
	{"ma-sldac-mm", "classes", "seed = 3\nconsensus = 1\nrestarts = 1\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n"},
}

func build(t *testing.T, src, kind string) *models.Run {
	t.Helper()
	return buildOn(t, src, testCorpus(t, kind))
}

// buildOn is the run of configuration src on corpus c.
func buildOn(t *testing.T, src string, c *framework.Corpus) *models.Run {
	t.Helper()
	cfg, err := models.ParseConfig([]byte(src), "test.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// inProcess is batch EM with the model's own E-step.
func inProcess(t *testing.T, r *models.Run, iters int) []float64 {
	t.Helper()
	ctx := context.Background()
	m := r.Model
	all := make([]int, m.NumDocs())
	for d := range all {
		all[d] = d
	}
	var trace []float64
	for it := 1; it <= iters; it++ {
		s, err := m.EStep(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		st := framework.BatchStep(it)
		if err := m.Update(ctx, s, st); err != nil {
			t.Fatal(err)
		}
		trace = append(trace, m.ELBO(s, st))
	}
	return trace
}

func prismRun(ctx context.Context, p *beam.Pipeline) error {
	_, err := prism.Execute(ctx, p)
	return err
}

// TestBeamEqualsInProcess: batch EM whose E-steps are Beam pipelines on
// prism (LOOPBACK) gives the in-process run's bounds and globals bit for
// bit, for plain LDA, MA-sLDAr and MA-sLDAc (the MM M-step), with shards
// of 7 documents (not the in-process 32) and, for MA-sLDAr, a DoFn that
// fails once: prism fails the job, the driver reruns the iteration's
// pipeline, and the result is unchanged.
func TestBeamEqualsInProcess(t *testing.T) {
	const iters = 4
	for _, tc := range compositions {
		t.Run(tc.name, func(t *testing.T) {
			want := inProcess(t, build(t, tc.src, tc.kind), iters)
			wantRun := build(t, tc.src, tc.kind)
			inProcess(t, wantRun, iters)
			wantSnap, err := wantRun.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			r := build(t, tc.src, tc.kind)
			opt := Options{Dir: t.TempDir(), ShardSize: 7, MaxIters: iters, Run: prismRun}
			if tc.name == "ma-sldar" {
				opt.FailOnce = filepath.Join(t.TempDir(), "failed")
			}
			res, err := Train(context.Background(), r, opt)
			if err != nil {
				t.Fatal(err)
			}
			sameAsInProcess(t, fmt.Sprintf("%d iterations", iters), res.Trace, want, r, wantSnap.Sum)
			if opt.FailOnce != "" {
				if _, err := os.Stat(opt.FailOnce); err != nil || res.Reruns != 1 {
					t.Errorf("the injected failure: %v, %d pipelines rerun; want one", err, res.Reruns)
				}
			}
			t.Logf("%s: bounds %v; snapshots loaded %s", tc.name, res.Trace, strconv.Itoa(loads))
		})
	}
}

// TestResume: a driver stopped between iterations (after the checkpoint
// of iteration 2) and started again with Resume, from a run built anew,
// ends with the uninterrupted run's bounds and globals, bit for bit.
func TestResume(t *testing.T) {
	const iters = 4
	// The last also runs restarts and the pilot before the schedule: the
	// resumed run, built anew (its model restart 1's), goes on from the
	// checkpoint's globals (of the candidate the restarts chose, after
	// the pilot's end) without them.
	for _, tc := range append(compositions[1:], struct{ name, kind, src string }{"ma-sldar-restarts-pilot", "values",
		"seed = 5\nrestarts = 3\nrestart_iters = 2\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\n"}) {
		t.Run(tc.name, func(t *testing.T) {
			whole := build(t, tc.src, tc.kind)
			want, err := Train(context.Background(), whole, Options{Dir: t.TempDir(), MaxIters: iters, Run: prismRun})
			if err != nil {
				t.Fatal(err)
			}
			wantSnap, err := whole.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			stop := errors.New("stopped")
			_, err = Train(context.Background(), build(t, tc.src, tc.kind), Options{Dir: dir, MaxIters: iters, Run: prismRun,
				Progress: func(it int, _ float64) error {
					if it == 2 {
						return stop
					}
					return nil
				}})
			if !errors.Is(err, stop) {
				t.Fatalf("the first run: %v, want it stopped", err)
			}
			r := build(t, tc.src, tc.kind)
			got, err := Train(context.Background(), r, Options{Dir: dir, MaxIters: iters, Run: prismRun, Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Trace) != len(want.Trace) {
				t.Fatalf("%d bounds after resuming, %d uninterrupted", len(got.Trace), len(want.Trace))
			}
			for i := range want.Trace {
				if math.Float64bits(got.Trace[i]) != math.Float64bits(want.Trace[i]) {
					t.Errorf("iteration %d: bound %v resumed, %v uninterrupted", i+1, got.Trace[i], want.Trace[i])
				}
			}
			snap, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if snap.Sum != wantSnap.Sum {
				t.Errorf("globals: SHA-256 %s resumed, %s uninterrupted", snap.Sum, wantSnap.Sum)
			}
			if !slices.Equal(got.RestartELBOs, want.RestartELBOs) {
				t.Errorf("restart candidates' bounds %v resumed, %v uninterrupted", got.RestartELBOs, want.RestartELBOs)
			}
			if len(want.RestartELBOs) > 0 {
				t.Logf("restart candidates' bounds %v", want.RestartELBOs)
			}
		})
	}
}

// TestConvergenceAsInProcess: with a tolerance, the Beam driver stops at
// the iteration where in-process batch EM (optim.Batch, with the model's
// ConvergencePart) stops, with the same bounds.
func TestConvergenceAsInProcess(t *testing.T) {
	tc := compositions[2] // MA-sLDAc: a supervised part judged on its own
	want := build(t, tc.src, tc.kind)
	var trace []float64
	sched := &optim.Batch{MaxIters: 60, MinIters: 2, Tol: 1e-4}
	res, err := sched.Fit(context.Background(), want.Model, nil, func(p framework.Progress) error {
		trace = append(trace, p.ELBO)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged {
		t.Fatalf("in process: not converged in %d iterations", res.Iters)
	}
	got, err := Train(context.Background(), build(t, tc.src, tc.kind), Options{Dir: t.TempDir(), MaxIters: 60, MinIters: 2, Tol: 1e-4, Run: prismRun})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Converged || got.Iters != res.Iters || len(got.Trace) != len(trace) {
		t.Fatalf("Beam: converged %v after %d iterations; in process after %d", got.Converged, got.Iters, res.Iters)
	}
	for i := range trace {
		if math.Float64bits(got.Trace[i]) != math.Float64bits(trace[i]) {
			t.Errorf("iteration %d: bound %v on Beam, %v in process", i+1, got.Trace[i], trace[i])
		}
	}
	t.Logf("converged after %d iterations", res.Iters)
}

// TestSplitBundles: prism splits the E-step's bundle when an element
// takes longer than its progress ticks (100 ms; stage.go in prism's
// internal package: a bundle without progress between two ticks is split
// at half its remaining elements, the rest run as another bundle at
// once). Each shard here sleeps 250 ms first: the bundles, recorded by
// the DoFn (BundleLog), must be several, partition the shards, and the
// bounds and globals equal those of a run without the delay and of the
// in-process run, bit for bit, for MA-sLDAr (φ state) and MA-sLDAc (MM,
// q(target) state).
func TestSplitBundles(t *testing.T) {
	const iters = 3
	for _, tc := range compositions[1:] {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name != "ma-sldar" {
				t.Skip("-short: MA-sLDAr only")
			}
			w := build(t, tc.src, tc.kind)
			want := inProcess(t, w, iters)
			wantSnap, err := w.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			var sums [2]string
			for i, delay := range []time.Duration{0, 250 * time.Millisecond} {
				r := build(t, tc.src, tc.kind)
				log := filepath.Join(t.TempDir(), "bundles")
				res, err := Train(context.Background(), r, Options{Dir: t.TempDir(), ShardSize: 19, MaxIters: iters, Run: prismRun, Delay: delay, BundleLog: log})
				if err != nil {
					t.Fatal(err)
				}
				for j := range want {
					if math.Float64bits(res.Trace[j]) != math.Float64bits(want[j]) {
						t.Errorf("delay %v, iteration %d: bound %v on Beam, %v in process", delay, j+1, res.Trace[j], want[j])
					}
				}
				snap, err := r.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				sums[i] = snap.Sum
				bundles := readBundleLog(t, log)
				seen := map[int]int{}
				for _, b := range bundles {
					for _, s := range b {
						seen[s]++
					}
				}
				const shards = 8 // 150 documents in shards of 19
				if len(seen) != shards {
					t.Errorf("delay %v: bundles %v cover %d shards of %d", delay, bundles, len(seen), shards)
				}
				for s, n := range seen {
					if n != iters {
						t.Errorf("delay %v: shard %d processed %d times in %d iterations", delay, s, n, iters)
					}
				}
				if delay > 0 && len(bundles) <= iters {
					t.Errorf("delay %v: %d bundles in %d iterations (%v): prism split none", delay, len(bundles), iters, bundles)
				}
				t.Logf("delay %v: %d bundles in %d iterations: %v", delay, len(bundles), iters, bundles)
			}
			if sums[0] != wantSnap.Sum || sums[1] != wantSnap.Sum {
				t.Errorf("globals: SHA-256 %s in split bundles, %s unsplit, %s in process", sums[1], sums[0], wantSnap.Sum)
			}
		})
	}
}

// readBundleLog reads BundleLog's lines ("[0 1 2]").
func readBundleLog(t *testing.T, path string) [][]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var shards []int
		for _, f := range strings.Fields(strings.Trim(line, "[]")) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: %q", path, line)
			}
			shards = append(shards, n)
		}
		out = append(out, shards)
	}
	return out
}

// TestPrepareAsFit: Train runs the restarts and the response's pilot as
// models.Run.Fit does (models.Run.Prepare), each iteration a pipeline:
// every bound of the restarts' candidates and of the pilot, the bounds
// of the schedule after them and the final globals equal Fit's with the
// same batch schedule, bit for bit. MA-sLDAr as the ma-sldar preset has
// it (the gaussian's exact pilot, ended by EndPilot; its default of one
// start); MA-sLDAc with the MM M-step and the default restarts (4
// candidates of plain LDA; restart_iters 3 here); MA-sLDAr with
// restarts = 2 and then its pilot; plain LDA with restarts = 3 (the
// candidates in the joint phase, the schedule going on from the best
// one's γ).
func TestPrepareAsFit(t *testing.T) {
	batch := "inference \"batch\" {\n  max_iters = 4\n  tol = 0\n}\n"
	for _, tc := range []struct{ name, kind, src string }{
		{"ma-sldar-pilot", "values", "seed = 2\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\n" + batch},
		{"ma-sldac-mm-restarts", "classes", "seed = 3\nconsensus = 1\nrestart_iters = 3\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n" + batch},
		{"ma-sldar-restarts-pilot", "values", "seed = 5\nrestarts = 2\nrestart_iters = 2\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\n" + batch},
		{"lda-restarts", "", "seed = 1\nrestarts = 3\nrestart_iters = 2\ntopics {\n  k = 3\n}\n" + batch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			want := build(t, tc.src, tc.kind)
			var wantPre, wantMain []float64
			if _, err := want.Fit(ctx, func(p framework.Progress) error {
				if p.Restart > 0 || p.Stage == 1 {
					wantPre = append(wantPre, p.ELBO)
				} else {
					wantMain = append(wantMain, p.ELBO)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			wantSnap, err := want.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			r := build(t, tc.src, tc.kind)
			b := r.Schedule.(*optim.Batch)
			var pre []float64
			dir := t.TempDir()
			res, err := Train(ctx, r, Options{Dir: dir, ShardSize: 16, MaxIters: b.MaxIters, MinIters: b.MinIters, Tol: b.Tol, Run: prismRun,
				Prelude: func(p framework.Progress) error {
					pre = append(pre, p.ELBO)
					return nil
				}})
			if err != nil {
				t.Fatal(err)
			}
			if len(wantPre) == 0 {
				t.Fatal("in process: no restarts nor pilot")
			}
			same := func(what string, got, want []float64) {
				if len(got) != len(want) {
					t.Errorf("%s: %d bounds on Beam, %d in process", what, len(got), len(want))
					return
				}
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Errorf("%s %d: bound %v on Beam, %v in process", what, i+1, got[i], want[i])
					}
				}
			}
			same("restarts and pilot, iteration", pre, wantPre)
			same("restart candidate", res.RestartELBOs, want.RestartELBOs)
			same("iteration", res.Trace, wantMain)
			snap, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if snap.Sum != wantSnap.Sum {
				t.Errorf("globals: SHA-256 %s on Beam, %s in process", snap.Sum, wantSnap.Sum)
			}
			left, err := filepath.Glob(filepath.Join(dir, "restart-*"))
			for _, name := range []string{"pilot", "prelude.json"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
					left = append(left, name)
				}
			}
			if err != nil || len(left) > 0 {
				t.Errorf("left after the restarts and the pilot: %v %v", left, err)
			}
			t.Logf("%d iterations of restarts and pilot, candidates %v, then %v", len(pre), res.RestartELBOs, res.Trace)
		})
	}
}

// TestClassifierStart: the confusion annotators' classifier start (their
// default init) as models.Run.Fit runs it: after start_iters iterations
// every document is predicted by a pipeline and the annotators restart
// from the shards' start counts (framework.StartCounter), or from the
// predictions themselves; a schedule that converges first runs again
// after the start. Every bound (with the restarts before) and the final
// globals equal Fit's, bit for bit; a driver stopped before the start,
// after it, and in the second run, resumed from a run built anew, ends
// the same.
func TestClassifierStart(t *testing.T) {
	mm := "response \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\n"
	for _, tc := range []struct {
		name, src string
		second    bool // the schedule converges before the start
		stops     []int
	}{
		{"during", "seed = 3\nconsensus = 1\nrestarts = 2\nrestart_iters = 2\ntopics {\n  k = 3\n}\n" + mm + "annotators \"confusion\" {\n  start_iters = 4\n}\ninference \"batch\" {\n  max_iters = 7\n  tol = 0\n}\n", false, []int{3, 5}},
		{"after-convergence", "seed = 3\nconsensus = 1\nrestarts = 1\ntopics {\n  k = 3\n}\n" + mm + "annotators \"confusion\" {\n  start_iters = 30\n}\ninference \"batch\" {\n  max_iters = 40\n  tol = 1e-3\n}\n", true, []int{2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.second {
				t.Skip("-short")
			}
			ctx := context.Background()
			want := build(t, tc.src, "classes")
			var wantMain []float64
			stage1 := 0
			wres, err := want.Fit(ctx, func(p framework.Progress) error {
				if p.Restart == 0 {
					wantMain = append(wantMain, p.ELBO)
					if p.Stage == 1 {
						stage1++
					}
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
			if tc.second && stage1 >= 30 || !tc.second && stage1 != 4 {
				t.Fatalf("in process: %d iterations before the start of %d: not the case meant", stage1, wres.Iters)
			}
			t.Logf("in process: %d iterations, %d before the start, converged %v", wres.Iters, stage1, wres.Converged)
			check := func(what string, r *models.Run, res *Result) {
				t.Helper()
				if res.Iters != wres.Iters || res.Converged != wres.Converged || len(res.Trace) != len(wantMain) {
					t.Fatalf("%s: %d iterations (converged %v, %d bounds), in process %d (%v, %d)", what, res.Iters, res.Converged, len(res.Trace), wres.Iters, wres.Converged, len(wantMain))
				}
				sameAsInProcess(t, what, res.Trace, wantMain, r, wantSnap.Sum)
			}
			opts := func(r *models.Run, dir string) Options {
				b := r.Schedule.(*optim.Batch)
				return Options{Dir: dir, ShardSize: 16, MaxIters: b.MaxIters, MinIters: b.MinIters, Tol: b.Tol, Run: prismRun}
			}
			r := build(t, tc.src, "classes")
			res, err := Train(ctx, r, opts(r, t.TempDir()))
			if err != nil {
				t.Fatal(err)
			}
			check("uninterrupted", r, res)
			// The start from the D predictions (StartFrom), for annotators
			// that cannot count: the same.
			r = build(t, tc.src, "classes")
			o := opts(r, t.TempDir())
			o.startTargets = true
			if res, err = Train(ctx, r, o); err != nil {
				t.Fatal(err)
			}
			check("from the predictions", r, res)
			for _, stop := range tc.stops {
				if stop == 0 {
					stop = stage1 + 2 // in the second run
				}
				dir := t.TempDir()
				halt := errors.New("stopped")
				r1 := build(t, tc.src, "classes")
				o := opts(r1, dir)
				o.Progress = func(it int, _ float64) error {
					if it == stop {
						return halt
					}
					return nil
				}
				if _, err := Train(ctx, r1, o); !errors.Is(err, halt) {
					t.Fatalf("stopped at %d: %v", stop, err)
				}
				r2 := build(t, tc.src, "classes")
				o = opts(r2, dir)
				o.Resume = true
				res, err := Train(ctx, r2, o)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("stopped after iteration %d and resumed", stop), r2, res)
			}
		})
	}
}

// TestPreludeResume: a driver stopped during the restarts (in the second
// or the last candidate) or during the pilot, resumed from a run built
// anew, goes on after the last candidate done (prelude.json: the
// candidates' bounds, the best one's globals and state) and ends with the
// uninterrupted run's candidates' bounds, schedule bounds and globals,
// bit for bit; the restarts' files are gone after the run.
func TestPreludeResume(t *testing.T) {
	batch := "inference \"batch\" {\n  max_iters = 3\n  tol = 0\n}\n"
	type stop struct{ restart, iter, pilot int }
	for _, tc := range []struct {
		name, kind, src string
		stops           []stop
	}{
		{"ma-sldac-mm", "classes", "seed = 3\nconsensus = 1\nrestarts = 4\nrestart_iters = 3\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n" + batch,
			[]stop{{restart: 2, iter: 2}, {restart: 4, iter: 3}}},
		{"lda", "", "seed = 1\nrestarts = 3\nrestart_iters = 2\ntopics {\n  k = 3\n}\n" + batch,
			[]stop{{restart: 3, iter: 1}}},
		{"ma-sldar-pilot", "values", "seed = 5\nrestarts = 2\nrestart_iters = 2\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\n" + batch,
			[]stop{{pilot: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			whole := build(t, tc.src, tc.kind)
			want, err := Train(ctx, whole, Options{Dir: t.TempDir(), ShardSize: 16, MaxIters: 3, Run: prismRun})
			if err != nil {
				t.Fatal(err)
			}
			wantSnap, err := whole.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tc.stops {
				dir := t.TempDir()
				halt := errors.New("stopped")
				_, err := Train(ctx, build(t, tc.src, tc.kind), Options{Dir: dir, ShardSize: 16, MaxIters: 3, Run: prismRun,
					Prelude: func(p framework.Progress) error {
						if p.Restart > 0 && p.Restart == st.restart && p.Iter == st.iter || p.Restart == 0 && p.Iter == st.pilot {
							return halt
						}
						return nil
					}})
				if !errors.Is(err, halt) {
					t.Fatalf("%+v: %v, want stopped", st, err)
				}
				r := build(t, tc.src, tc.kind)
				var again []int
				got, err := Train(ctx, r, Options{Dir: dir, ShardSize: 16, MaxIters: 3, Run: prismRun, Resume: true,
					Prelude: func(p framework.Progress) error {
						if p.Restart > 0 && p.Iter == 1 {
							again = append(again, p.Restart)
						}
						return nil
					}})
				if err != nil {
					t.Fatalf("%+v: resumed: %v", st, err)
				}
				if st.restart > 0 && (len(again) == 0 || again[0] != st.restart) {
					t.Errorf("%+v: resumed with the candidates %v, want from %d on", st, again, st.restart)
				}
				for what, p := range map[string][2][]float64{"candidate": {got.RestartELBOs, want.RestartELBOs}, "iteration": {got.Trace, want.Trace}} {
					if len(p[0]) != len(p[1]) {
						t.Fatalf("%+v: %d %s bounds resumed, %d uninterrupted", st, len(p[0]), what, len(p[1]))
					}
					for i := range p[1] {
						if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
							t.Errorf("%+v: %s %d: bound %v resumed, %v uninterrupted", st, what, i+1, p[0][i], p[1][i])
						}
					}
				}
				snap, err := r.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if snap.Sum != wantSnap.Sum {
					t.Errorf("%+v: globals SHA-256 %s resumed, %s uninterrupted", st, snap.Sum, wantSnap.Sum)
				}
				left, _ := filepath.Glob(filepath.Join(dir, "restart-*"))
				if _, err := os.Stat(filepath.Join(dir, "prelude.json")); err == nil {
					left = append(left, "prelude.json")
				}
				if len(left) > 0 {
					t.Errorf("%+v: left after the run: %v", st, left)
				}
				t.Logf("%+v: resumed with the candidates %v; bounds %v", st, again, got.RestartELBOs)
			}
		})
	}
}

// sameAsInProcess fails t unless the Beam run's bounds equal want bit for
// bit and r's globals have the SHA-256 wantSum.
func sameAsInProcess(t *testing.T, what string, got, want []float64, r *models.Run, wantSum string) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Errorf("%s, iteration %d: bound %v on Beam, %v in process", what, i+1, got[i], want[i])
		}
	}
	snap, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if snap.Sum != wantSum {
		t.Errorf("%s: globals SHA-256 %s on Beam, %s in process", what, snap.Sum, wantSum)
	}
}
