package experiment

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/maslda/maslda/cmd/maslda/internal/atomicfile"
	"github.com/maslda/maslda/models"
)

// Runner runs a spec's steps and cells.
type Runner struct {
	Spec  *Spec
	Exe   string       // the maslda binary the children run; default os.Executable()
	Env   []string     // added to the children's environment (KEY=VALUE)
	Cores int          // core budget: at most Cores / Spec.Workers cells at once (at least one); default runtime.NumCPU()
	Log   hclog.Logger // default: no logging

	// OnCell, when set, is called after each cell finishes (done or
	// failed) and its result.json is written, from the goroutine that ran
	// it.
	OnCell func(Cell, Result)
}

// Report is what a run did.
type Report struct {
	Cells    []Cell
	Results  []Result // one per cell, in cell order
	Skipped  int      // cells done before this run
	Ran      int      // cells run now
	Failed   int      // cells whose status is failed
	Parallel int      // cells run at once
	CSV      string   // path of results.csv
	Summary  string   // path of summary.md
}

// Plan is what a run would do (Runner.Plan, for --dry-run).
type Plan struct {
	Steps     []Step
	Cached    []bool // per step: its output is in Spec.Work with the same arguments
	DataReady bool   // every step is cached and the data files are there: cell ids and statuses are known
	Cells     []Cell
	Status    []string // per cell: StatusDone, StatusFailed or "pending" ("" when !DataReady)
	Parallel  int
}

func (r *Runner) log() hclog.Logger {
	if r.Log == nil {
		return hclog.NewNullLogger()
	}
	return r.Log
}

func (r *Runner) parallel() int {
	cores := r.Cores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	return max(1, cores/max(1, r.Spec.Workers))
}

func (r *Runner) exe() (string, error) {
	if r.Exe != "" {
		return r.Exe, nil
	}
	return os.Executable()
}

func (r *Runner) cellDir(c Cell) string { return filepath.Join(r.Spec.Out, "cells", c.ID) }

// Plan reports the steps that would run and every cell's status, without
// running or writing anything.
func (r *Runner) Plan(ctx context.Context) (*Plan, error) {
	p := &Plan{Steps: r.Spec.Steps, DataReady: true, Parallel: r.parallel()}
	for _, st := range r.Spec.Steps {
		c := r.stepCached(st)
		p.Cached = append(p.Cached, c)
		p.DataReady = p.DataReady && c
	}
	dataID := ""
	if p.DataReady {
		var err error
		if dataID, err = r.Spec.DataID(ctx); err != nil {
			return nil, err
		}
	}
	p.Cells = r.Spec.Cells(dataID)
	for _, c := range p.Cells {
		st := ""
		if p.DataReady {
			st = "pending"
			if res, ok := r.load(c); ok {
				st = res.Status
			}
		}
		p.Status = append(p.Status, st)
	}
	if !p.DataReady {
		for i := range p.Cells {
			p.Cells[i].ID = ""
		}
	}
	return p, nil
}

// Run runs the steps not yet cached, then every cell not yet done (failed
// cells are run again), and writes results.csv and summary.md. A failed
// cell does not stop the others; a failed step or an I/O error stops the
// run. When ctx is cancelled the children are interrupted, done cells stay
// done, nothing else is written and the context's error is returned.
func (r *Runner) Run(ctx context.Context) (*Report, error) {
	s, log := r.Spec, r.log()
	if err := os.MkdirAll(s.Work, 0o755); err != nil {
		return nil, err
	}
	for _, st := range s.Steps {
		if err := r.runStep(ctx, st); err != nil {
			return nil, err
		}
	}
	dataID, err := s.DataID(ctx)
	if err != nil {
		return nil, err
	}
	rep := &Report{Cells: s.Cells(dataID), Parallel: r.parallel(),
		CSV: filepath.Join(s.Out, "results.csv"), Summary: filepath.Join(s.Out, "summary.md")}
	rep.Results = make([]Result, len(rep.Cells))
	r.checkConfigs(rep.Cells)
	var pending []int
	for i, c := range rep.Cells {
		if res, ok := r.load(c); ok && res.Status == StatusDone {
			rep.Results[i] = res
			rep.Skipped++
			continue
		}
		pending = append(pending, i)
	}
	log.Info("experiment", "name", s.Name, "cells", len(rep.Cells), "done_before", rep.Skipped, "to_run", len(pending), "at_once", rep.Parallel, "out", s.Out)

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		fatal    error
		finished = rep.Skipped
	)
	jobs := make(chan int)
	for range min(rep.Parallel, max(1, len(pending))) {
		wg.Go(func() {
			for i := range jobs {
				if runCtx.Err() != nil {
					continue
				}
				c := rep.Cells[i]
				log.Info("cell start", "cell", c.Label(), "id", c.ID)
				res, err := r.runCell(runCtx, c)
				if err == nil {
					err = writeJSONAtomic(filepath.Join(r.cellDir(c), "result.json"), res)
				}
				mu.Lock()
				if err != nil {
					if fatal == nil && runCtx.Err() == nil {
						fatal = fmt.Errorf("cell %s: %w", c.ID, err)
						cancel()
					}
					mu.Unlock()
					continue
				}
				rep.Results[i] = res
				rep.Ran++
				finished++
				n := finished
				mu.Unlock()
				if res.Status == StatusDone {
					log.Info("cell done", append([]any{"n", fmt.Sprintf("%d/%d", n, len(rep.Cells)), "cell", c.Label()}, res.logPairs()...)...)
				} else {
					log.Warn("cell failed", "n", fmt.Sprintf("%d/%d", n, len(rep.Cells)), "cell", c.Label(), "error", res.Error)
				}
				if r.OnCell != nil {
					r.OnCell(c, res)
				}
			}
		})
	}
feed:
	for _, i := range pending {
		select {
		case jobs <- i:
		case <-runCtx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if fatal != nil {
		return nil, fatal
	}
	if err := ctx.Err(); err != nil {
		log.Warn("interrupted: done cells are kept; rerun the same command to resume", "done", finished, "cells", len(rep.Cells))
		return nil, err
	}
	for _, res := range rep.Results {
		if res.Status != StatusDone {
			rep.Failed++
		}
	}
	if err := writeFileAtomic(rep.CSV, func(w io.Writer) error { return WriteCSV(w, rep.Results) }); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(rep.Summary, func(w io.Writer) error { return WriteSummary(w, s.Name, rep.Results) }); err != nil {
		return nil, err
	}
	return rep, nil
}

// logPairs are a result's numbers for a log line.
func (res *Result) logPairs() []any {
	kv := []any{"seconds", strconv.FormatFloat(res.Seconds, 'f', 1, 64), "iters", res.Iters}
	for _, v := range values[:10] {
		if x, ok := v.get(res); ok {
			kv = append(kv, v.name, strconv.FormatFloat(x, 'f', 4, 64))
		}
	}
	if res.PeakRSSMiB > 0 {
		kv = append(kv, "peak_rss_mib", strconv.FormatFloat(res.PeakRSSMiB, 'f', 0, 64))
	}
	return kv
}

// checkConfigs loads each model's first configuration in this process and
// warns when it does not load (its cells will fail with train's error).
func (r *Runner) checkConfigs(cells []Cell) {
	seen := map[string]bool{}
	for _, c := range cells {
		if seen[c.Model] {
			continue
		}
		seen[c.Model] = true
		cfg, err := models.ParseConfig([]byte(c.Config), filepath.Join(r.cellDir(c), "config.hcl"))
		if err == nil {
			err = cfg.Check(nil)
		}
		if err != nil {
			r.log().Warn("a model's configuration does not load here: its cells will probably fail", "model", c.Model, "error", oneLine(err.Error()))
		}
	}
}

// load reads a cell's result.json; ok is false when there is none (or it
// is not this cell's).
func (r *Runner) load(c Cell) (Result, bool) {
	b, err := os.ReadFile(filepath.Join(r.cellDir(c), "result.json"))
	if err != nil {
		return Result{}, false
	}
	var res Result
	if json.Unmarshal(b, &res) != nil || res.ID != c.ID || (res.Status != StatusDone && res.Status != StatusFailed) {
		return Result{}, false
	}
	return res, true
}

// stepMarker is what a finished step leaves in Work/.steps.
type stepMarker struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func (r *Runner) markerPath(st Step) string {
	return filepath.Join(r.Spec.Work, ".steps", st.Name+".json")
}

func (r *Runner) stepCached(st Step) bool {
	b, err := os.ReadFile(r.markerPath(st))
	if err != nil {
		return false
	}
	var m stepMarker
	return json.Unmarshal(b, &m) == nil && m.Command == st.Command && slices.Equal(m.Args, st.Args)
}

// runStep runs a step unless it is cached.
func (r *Runner) runStep(ctx context.Context, st Step) error {
	log := r.log()
	if r.stepCached(st) {
		log.Info("step cached", "step", st.Name, "command", st.Command)
		return nil
	}
	log.Info("step", "step", st.Name, "command", st.Command, "log", filepath.Join(r.Spec.Work, st.Name+".log"))
	if _, err := r.child(ctx, nil, filepath.Join(r.Spec.Work, st.Name+".log"), append([]string{st.Command}, st.Args...)...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%s: step %q: %w", st.Where, st.Name, err)
	}
	return writeJSONAtomic(r.markerPath(st), stepMarker{Command: st.Command, Args: st.Args})
}

// childCommand is exec.CommandContext for a child that dies with the
// runner (childAttr: a parent-death signal on Linux), so that killing
// maslda experiment, even with SIGKILL, leaves no train running.
func childCommand(ctx context.Context, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.SysProcAttr = childAttr()
	return cmd
}

// childRun is what a finished child process cost.
type childRun struct {
	seconds float64 // wall time
	rssMiB  float64 // peak resident memory (0: unknown)
}

// child runs the maslda binary with args; stderr (and stdout when it is
// nil) goes to logPath. On failure the error ends with the last line of
// the log (the child's one-line error).
func (r *Runner) child(ctx context.Context, stdout io.Writer, logPath string, args ...string) (childRun, error) {
	exe, err := r.exe()
	if err != nil {
		return childRun{}, err
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return childRun{}, err
	}
	logf, err := os.Create(logPath)
	if err != nil {
		return childRun{}, err
	}
	defer logf.Close()
	cmd := childCommand(ctx, exe, args...)
	cmd.Env = append(os.Environ(), r.Env...)
	cmd.Stderr = logf
	cmd.Stdout = logf
	if stdout != nil {
		cmd.Stdout = stdout
	}
	// Ctrl-C: interrupt the child (it exits 130 after cleaning up), kill it
	// if it has not exited after 10 s.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err = cmd.Run()
	cr := childRun{seconds: time.Since(start).Seconds()}
	if cmd.ProcessState != nil {
		cr.rssMiB = peakRSSMiB(cmd.ProcessState)
	}
	if ctx.Err() != nil {
		return cr, ctx.Err()
	}
	if err != nil {
		logf.Sync()
		if last := lastLine(logPath); last != "" {
			return cr, fmt.Errorf("%s: %w: %s", args[0], err, last)
		}
		return cr, fmt.Errorf("%s: %w (log: %s)", args[0], err, logPath)
	}
	return cr, nil
}

// lastLine is the last non-empty line of a file.
func lastLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// runCell trains, predicts and scores one cell in its directory. A
// failure is recorded in the result; the error is only the context's.
func (r *Runner) runCell(ctx context.Context, c Cell) (Result, error) {
	s, d := r.Spec, &r.Spec.Data
	res := Result{ID: c.ID, Experiment: s.Name, Model: c.Model, K: c.K, Alpha: c.Alpha, Tau: c.Tau, Omega: c.Omega, Seed: c.Seed, Status: StatusFailed}
	fail := func(err error) (Result, error) {
		if ctx.Err() != nil {
			os.RemoveAll(r.cellDir(c))
			return res, ctx.Err()
		}
		res.Error = oneLine(err.Error())
		res.Finished = time.Now().UTC().Truncate(time.Millisecond)
		return res, nil
	}
	dir := r.cellDir(c)
	if err := os.RemoveAll(dir); err != nil {
		return fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	cfg := filepath.Join(dir, "config.hcl")
	if err := os.WriteFile(cfg, []byte(c.Config), 0o644); err != nil {
		return fail(err)
	}
	workers := strconv.Itoa(s.Workers)
	model := filepath.Join(dir, "model")
	args := []string{"train", "--config", cfg, "--docs", d.TrainDocs, "--out", model,
		"--seed", strconv.FormatUint(c.Seed, 10), "--workers", workers, "--progress", "never"}
	args = appendFlag(args, "--ids", d.TrainIDs)
	args = appendFlag(args, "--vocab", d.TrainVocab)
	if d.VocabSize > 0 {
		args = append(args, "--vocab-size", strconv.Itoa(d.VocabSize))
	}
	args = appendFlag(args, "--answers", d.Answers)
	args = appendFlag(args, "--answers-wide", d.AnswersWide)
	if d.AnswersWide != "" && d.Missing != "" {
		args = append(args, "--missing", d.Missing)
	}
	args = appendFlag(args, "--truth", d.TrainTruth)
	args = appendFlag(args, "--truth-column", d.TrainTruthColumn)
	tr, err := r.child(ctx, nil, filepath.Join(dir, "train.log"), args...)
	res.Seconds, res.PeakRSSMiB = tr.seconds, tr.rssMiB
	if err != nil {
		return fail(err)
	}
	if res.Iters, err = countRows(filepath.Join(model, "history.csv")); err != nil {
		return fail(err)
	}
	post := filepath.Join(model, "posterior.csv")
	if _, err := os.Stat(post); err == nil && (d.TrainTruth != "" || d.TrainTruthColumn != "") {
		if res.Truth, err = r.eval(ctx, dir, "truth", post, d.TrainTruth, d.TrainTruthColumn); err != nil {
			return fail(err)
		}
	}
	if d.TestDocs != "" {
		pred := filepath.Join(dir, "test.csv")
		args := appendFlag([]string{"predict", "--model", model, "--docs", d.TestDocs, "--out", pred, "--workers", workers}, "--ids", d.TestIDs)
		pr, err := r.child(ctx, nil, filepath.Join(dir, "predict.log"), args...)
		res.PredictSeconds, res.PeakRSSMiB = pr.seconds, max(res.PeakRSSMiB, pr.rssMiB)
		if err != nil {
			return fail(err)
		}
		if hasLabel(pred) { // plain LDA predicts topic proportions only
			if res.Heldout, err = r.eval(ctx, dir, "heldout", pred, d.TestTruth, d.TestTruthColumn); err != nil {
				return fail(err)
			}
		}
	}
	if s.Metric != "" {
		for _, m := range []*Metrics{res.Truth, res.Heldout} {
			if k := m.kind(); k != "" && k != s.Metric {
				return fail(fmt.Errorf("the run's scores are %s ones but %s says metric = %q: is the model's response the right one?", k, s.File, s.Metric))
			}
		}
	}
	res.Status = StatusDone
	res.Finished = time.Now().UTC().Truncate(time.Millisecond)
	return res, nil
}

func appendFlag(args []string, flag, value string) []string {
	if value == "" {
		return args
	}
	return append(args, flag, value)
}

// eval runs `maslda eval --json` and keeps its output in dir/name.json.
func (r *Runner) eval(ctx context.Context, dir, name, pred, truth, truthColumn string) (*Metrics, error) {
	args := []string{"eval", "--pred", pred, "--json"}
	args = appendFlag(args, "--truth", truth)
	args = appendFlag(args, "--truth-column", truthColumn)
	var out bytes.Buffer
	if _, err := r.child(ctx, &out, filepath.Join(dir, "eval-"+name+".log"), args...); err != nil {
		return nil, err
	}
	var m Metrics
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		return nil, fmt.Errorf("eval %s: reading its JSON output: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), out.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return &m, nil
}

// countRows counts the data rows of a CSV file with a header (history.csv
// has no quoted line breaks).
func countRows(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := -1
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			n++
		}
	}
	return max(n, 0), sc.Err()
}

// hasLabel reports whether a predictions CSV has a label column.
func hasLabel(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	cols := strings.Split(strings.TrimSpace(line), ",")
	return len(cols) > 1 && cols[1] == "label"
}

// writeJSONAtomic writes v as indented JSON through writeFileAtomic.
func writeJSONAtomic(path string, v any) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	})
}

// writeFileAtomic writes path through a temporary file in the same
// directory, renamed into place only when complete (atomicfile.Write).
func writeFileAtomic(path string, fill func(w io.Writer) error) error {
	return atomicfile.Write(path, fill)
}
