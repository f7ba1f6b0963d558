// Package beamtrain trains a maslda model with batch variational EM on
// Apache Beam (issue 26, item 2): the E-step of every iteration is one
// pipeline whose ParDo runs models.Model.ShardEStep on shards of the
// corpus and whose CombineFn merges the shards' exact sums
// (framework.ExactSums) in whatever order the runner chooses; the M-step,
// the bound and the convergence test run in the driver. The results are
// those of the in-process E-step, bit for bit (the seam: docs/design.md,
// "Beyond one machine: the seam").
//
// Files in the work directory:
//
//	shards.json            the shards' layout (Layout: each shard's file, first document, size)
//	shard-NNNNN.ldac       a shard's documents (LDA-C; written once, or the user's own shard files)
//	answers-NNNNN.bin      a shard's answers (gob), with answers
//	state-NNNNN.iT.bin     a shard's per-document state before iteration T: γ, φ, q(target) (gob);
//	                       written to a temporary file and renamed, so a retried bundle is harmless
//	globals-SUM.bin        the globals of an iteration (models.Run.Snapshot), named by their SHA-256;
//	                       a worker loads each once (the cache of loadModel)
//	sums.iT.bin            the combined exact sums of iteration T
//
// The driver's memory holds the globals and the statistics (O(K·V)) and
// the list of shards, not the documents nor their state, which stay in
// the files, when its run is built without the documents
// (models.BuildGlobals) and the documents are streamed into shards
// (ShardLDAC) or already are (ScanShards).
package beamtrain

import (
	"bytes"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
)

func init() {
	register.DoFn2x2[context.Context, int, []byte, error](&eStepFn{})
	register.Combiner3[*framework.ExactSums, []byte, []byte](&sumsFn{})
	register.DoFn1x1[[]byte, error](&writeFn{})
	register.DoFn2x1[context.Context, int, error](&predictFn{})
	beam.RegisterCoder(reflect.TypeOf((*framework.ExactSums)(nil)), encodeSums, decodeSums)
}

// encodeSums and decodeSums are the Beam coder of the combiner's
// accumulator (framework.ExactSums' own encoding; nil: no sums yet).
func encodeSums(e *framework.ExactSums) ([]byte, error) {
	if e == nil || len(e.Layout()) == 0 {
		return []byte{}, nil
	}
	return e.MarshalBinary()
}

func decodeSums(b []byte) (*framework.ExactSums, error) {
	if len(b) == 0 {
		return nil, nil
	}
	e := new(framework.ExactSums)
	if err := e.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return e, nil
}

// stateFile is a shard's per-document state.
type stateFile struct {
	Gamma   [][]float64
	Phi     [][]float32
	Targets [][]byte // each gob-encoded (the response's concrete target type); nil: none
}

func statePath(dir string, s, it int) string {
	return filepath.Join(dir, fmt.Sprintf("state-%05d.i%d.bin", s, it))
}
func sumsPath(dir string, it int) string { return filepath.Join(dir, fmt.Sprintf("sums.i%d.bin", it)) }

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

func writeGob(path string, v any) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}

func readGob(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// models loaded by workers, by the SHA-256 of their snapshot: each
// snapshot is read and rebuilt once per worker process.
var (
	cacheMu sync.Mutex
	cache   = map[string]*models.Model{}
	loads   int // snapshots loaded (tests)
)

func loadModel(path, sum string) (*models.Model, error) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if m, ok := cache[sum]; ok {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := models.FromSnapshot(data, sum, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	clear(cache) // one iteration's globals at a time
	cache[sum] = m
	loads++
	return m, nil
}

// eStepFn runs the shard-level E-step of one shard and emits its exact
// sums (encoded).
type eStepFn struct {
	Dir, Globals, Sum string
	Iter              int
	// WarmDir, when set, holds the state iteration 1 reads
	// (state-N.iWARMITER.bin: the restarts' best candidate's).
	WarmDir  string
	WarmIter int
	// WarmTargets reads only the documents' q(target) of that state, not
	// their γ and φ (the pilot's, for a model that holds the crowd after
	// it: models.Model.HoldsCrowd; every document starts afresh).
	WarmTargets bool
	Shards      []Shard
	// FailOnce, when not empty, names a file: the first call that finds
	// it absent creates it and fails (tests of retries).
	FailOnce string
	// Delay, when positive, is slept before each shard (tests: prism
	// splits a bundle whose element takes longer than its progress ticks).
	Delay time.Duration
	// BundleLog, when not empty, names a file to which each bundle
	// appends the shards it processed, one line (tests).
	BundleLog string
	bundle    []int
}

// StartBundle begins the record of a bundle's shards (with BundleLog).
func (f *eStepFn) StartBundle() { f.bundle = f.bundle[:0] }

// FinishBundle appends the bundle's shards, one line, to BundleLog.
func (f *eStepFn) FinishBundle() error {
	if f.BundleLog == "" {
		return nil
	}
	line := fmt.Sprintln(f.bundle)
	fh, err := os.OpenFile(f.BundleLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fh.WriteString(line)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

func (f *eStepFn) ProcessElement(ctx context.Context, s int) ([]byte, error) {
	if f.BundleLog != "" {
		f.bundle = append(f.bundle, s)
	}
	if f.Delay > 0 {
		time.Sleep(f.Delay)
	}
	if f.FailOnce != "" {
		if fh, err := os.OpenFile(f.FailOnce, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
			fh.Close()
			return nil, fmt.Errorf("shard %d: a failure injected once (%s)", s, f.FailOnce)
		}
	}
	m, err := loadModel(f.Globals, f.Sum)
	if err != nil {
		return nil, err
	}
	if s < 0 || s >= len(f.Shards) {
		return nil, fmt.Errorf("%w: shard %d of %d", framework.ErrBadInput, s, len(f.Shards))
	}
	l := Layout{Shards: f.Shards}
	docs, ans, err := l.readShard(s)
	if err != nil {
		return nil, err
	}
	in := &models.Shard{Index: make([]int, len(docs)), Docs: docs, Answers: ans}
	for i := range in.Index {
		in.Index[i] = f.Shards[s].Offset + i
	}
	if m.Noise != nil && ans == nil {
		return nil, fmt.Errorf("%w: shard %d (%s): the model has annotators but the shard has no answers file", framework.ErrBadInput, s, f.Shards[s].Path)
	}
	var st stateFile
	if f.Iter > 1 || f.WarmDir != "" {
		path := statePath(f.Dir, s, f.Iter)
		if f.Iter == 1 {
			path = statePath(f.WarmDir, s, f.WarmIter)
		}
		if err := readGob(path, &st); err != nil {
			return nil, err
		}
		in.Gamma, in.Phi = st.Gamma, st.Phi
		if f.Iter == 1 && f.WarmTargets {
			in.Gamma, in.Phi = nil, nil
		}
		if st.Targets != nil && m.Response != nil {
			in.Targets = make([]framework.Target, len(st.Targets))
			for i, b := range st.Targets {
				if b == nil {
					continue
				}
				t := m.Response.NewTarget()
				if err := gob.NewDecoder(bytes.NewReader(b)).Decode(t); err != nil {
					return nil, fmt.Errorf("shard %d: q(target) of document %d: %w", s, in.Index[i], err)
				}
				in.Targets[i] = t
			}
		}
	}
	res, err := m.ShardEStep(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("shard %d: %w", s, err)
	}
	next := stateFile{Gamma: res.Gamma, Phi: res.Phi}
	if res.Targets != nil {
		next.Targets = make([][]byte, len(res.Targets))
		for i, t := range res.Targets {
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(t); err != nil {
				return nil, fmt.Errorf("shard %d: q(target) of document %d: %w", s, in.Index[i], err)
			}
			next.Targets[i] = buf.Bytes()
		}
	}
	if err := writeGob(statePath(f.Dir, s, f.Iter+1), &next); err != nil {
		return nil, err
	}
	return res.Sums.MarshalBinary()
}

// sumsFn merges the shards' exact sums (encoded) into an accumulator that
// stays decoded between inputs; nil is no sums yet.
type sumsFn struct{}

func (sumsFn) CreateAccumulator() *framework.ExactSums { return nil }

func (sumsFn) AddInput(a *framework.ExactSums, b []byte) (*framework.ExactSums, error) {
	e, err := decodeSums(b)
	if err != nil || e == nil {
		return a, err
	}
	return mergeSums(a, e)
}

func (sumsFn) MergeAccumulators(a, b *framework.ExactSums) (*framework.ExactSums, error) {
	return mergeSums(a, b)
}

func mergeSums(a, b *framework.ExactSums) (*framework.ExactSums, error) {
	if a == nil {
		return b, nil
	}
	if b == nil {
		return a, nil
	}
	if err := a.Merge(b); err != nil {
		return nil, err
	}
	return a, nil
}

func (sumsFn) ExtractOutput(a *framework.ExactSums) ([]byte, error) { return encodeSums(a) }

// predictFn predicts a shard's documents with the topics alone
// (models.Model.Predict: no answers), for the annotators' classifier
// start, and writes their targets (gob-encoded, in document order) to
// pred-N.bin in Dir.
type predictFn struct {
	Dir, Globals, Sum string
	Shards            []Shard
	// Counts: write the shard's start counts (framework.StartCounter: the
	// annotators' StartCount of each document's prediction and answers)
	// instead of the predictions.
	Counts bool
}

func predPath(dir string, s int) string {
	return filepath.Join(dir, fmt.Sprintf("pred-%05d.bin", s))
}

func (f *predictFn) ProcessElement(ctx context.Context, s int) error {
	m, err := loadModel(f.Globals, f.Sum)
	if err != nil {
		return err
	}
	if s < 0 || s >= len(f.Shards) {
		return fmt.Errorf("%w: shard %d of %d", framework.ErrBadInput, s, len(f.Shards))
	}
	docs, ans, err := (&Layout{Shards: f.Shards}).readShard(s)
	if err != nil {
		return err
	}
	preds, err := m.Predict(ctx, &framework.Corpus{V: m.Topics.V, Docs: docs})
	if err != nil {
		return fmt.Errorf("shard %d: %w", s, err)
	}
	if f.Counts {
		sc, ok := m.Noise.(framework.StartCounter)
		if !ok || ans == nil {
			return fmt.Errorf("%w: shard %d: start counts without annotators that count them or without answers", framework.ErrBadInput, s)
		}
		counts := make([]float64, sc.StartCounts())
		for i, p := range preds {
			if err := sc.StartCount(counts, p.Target, ans[i]); err != nil {
				return fmt.Errorf("shard %d, document %d: %w", s, f.Shards[s].Offset+i, err)
			}
		}
		return writeGob(predPath(f.Dir, s), counts)
	}
	out := make([][]byte, len(preds))
	for i, p := range preds {
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(p.Target); err != nil {
			return fmt.Errorf("shard %d: the prediction of document %d: %w", s, f.Shards[s].Offset+i, err)
		}
		out[i] = buf.Bytes()
	}
	return writeGob(predPath(f.Dir, s), out)
}

// writeFn writes the combined sums to a file.
type writeFn struct{ Path string }

func (f *writeFn) ProcessElement(b []byte) error { return writeAtomic(f.Path, b) }

// Options configure Train.
type Options struct {
	Dir string // work directory (created; shards, states, globals)
	// Layout is the corpus as shards (ShardLDAC, ScanShards); nil: the
	// run's training corpus is written into shards of ShardSize documents
	// (WriteCorpusShards).
	Layout    *Layout
	ShardSize int     // documents per shard when Layout is nil (default models.ShardSize)
	MaxIters  int     // batch iterations (default 100)
	MinIters  int     // iterations before convergence is tested (optim.Batch's min_iters; at least 2)
	Tol       float64 // optim.Batch's tol: the relative change of the bound (and of a model's ConvergencePart); 0 runs MaxIters
	// Run executes a pipeline (default beam.Run with the "prism" runner).
	Run func(ctx context.Context, p *beam.Pipeline) error
	// Progress, when set, is called after every iteration.
	Progress func(iter int, elbo float64) error
	// Retries is how many times an iteration's pipeline is run again after
	// it failed (prism does not retry a failed bundle; other runners
	// retry bundles themselves). A rerun is harmless: each shard reads the
	// state of the iteration and writes that of the next by rename, and the
	// combined sums are written by rename. Default (0): 2; < 0: none.
	Retries int
	// FailOnce, when not empty, makes one E-step call fail once (tests).
	FailOnce string
	// Prelude, when set, sees every iteration of the restarts
	// (Progress.Restart: the candidate) and of the response's pilot
	// (Progress.Stage 1), which run before the schedule (Progress does not
	// see them).
	Prelude framework.Observer
	// Delay, when positive, is slept before each shard's E-step, and
	// BundleLog, when not empty, names a file to which each bundle of the
	// E-step appends its shards, one line (tests of bundle splitting).
	Delay     time.Duration
	BundleLog string
	// startTargets makes the classifier start go through the D
	// predictions even when the annotators count (tests).
	startTargets bool
	// Resume continues from the work directory's checkpoint (written after
	// every iteration: checkpoint.json and the globals it names), which
	// must be of a run built the same way over the same corpus.
	Resume bool
}

// checkpoint is checkpoint.json: where a driver stands after an iteration
// (optim.BatchState, floats as IEEE bits).
type checkpoint struct {
	Format    string   `json:"format"`
	Iter      int      `json:"iter"`
	Docs      int      `json:"docs"`
	Shards    []int    `json:"shard_docs"`     // each shard's documents
	Sum       string   `json:"globals_sha256"` // the globals after Iter (globals-SUM.bin)
	Trace     []uint64 `json:"trace_bits"`     // the bounds so far
	Prev      uint64   `json:"prev_bits"`
	PrevScale uint64   `json:"prev_scale_bits"`
	PrevPart  uint64   `json:"prev_part_bits"`
	ElapsedNS int64    `json:"elapsed_ns"`
	// Restarts are the restart candidates' bounds (Result.RestartELBOs).
	Restarts []uint64 `json:"restart_elbo_bits,omitempty"`
	// The annotators' classifier start (framework.Starter): it has
	// happened; the schedule runs a second time (it converged before
	// the start) after Offset iterations of its first run. Iter counts
	// the iterations of the run it is in.
	Started bool `json:"started,omitempty"`
	Second  bool `json:"second,omitempty"`
	Offset  int  `json:"iter_offset,omitempty"`
	// Pass is 2 in the run's second pass (rewarm.json), omitted in the
	// first.
	Pass int `json:"pass,omitempty"`
}

const checkpointFormat = "maslda-beam-checkpoint-2"

// preludeCheckpoint is prelude.json: the restarts' candidates done before
// the schedule, the best of them (its globals in globals-SUM.bin, its
// shards' last state restart-BEST/state-N.iSTATE.bin).
type preludeCheckpoint struct {
	Format   string   `json:"format"`
	Docs     int      `json:"docs"`
	Shards   []int    `json:"shard_docs"`
	Restarts []uint64 `json:"restart_elbo_bits"` // the bounds of the candidates done
	Best     int      `json:"best"`              // the best of them (from 1)
	Sum      string   `json:"globals_sha256"`    // its globals after its batch EM
	State    int      `json:"state_iter"`        // its last state's number
	Pass     int      `json:"pass,omitempty"`    // as checkpoint.Pass
}

const (
	preludeFormat = "maslda-beam-prelude-1"
	preludeFile   = "prelude.json"
)

// Result is a finished Train.
type Result struct {
	Iters     int
	ELBO      float64
	Converged bool
	Trace     []float64
	Reruns    int // pipelines run again after a failure
	// RestartELBOs is each restart candidate's bound (models.Run's).
	RestartELBOs []float64
	// Marks are the annotators the first pass's start marked and the
	// second pass was built with (models.Run.Marks); nil: one pass.
	Marks []int32
}

// engineModel is the run's model whose E-step is a Beam pipeline over the
// whole corpus (batch EM only); Update, ELBO and the convergence
// capabilities are the model's own.
type engineModel struct {
	*models.Model
	docs  int
	estep func(ctx context.Context) (framework.Stats, error)
}

// NumDocs is the corpus's (the model of a run built without its
// documents has it too; one built over them, its own).
func (e *engineModel) NumDocs() int { return e.docs }

func (e *engineModel) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	if len(docs) != e.docs {
		return nil, fmt.Errorf("%w: the Beam E-step covers the whole corpus (batch EM); asked for %d of %d documents", framework.ErrIncompatible, len(docs), e.docs)
	}
	return e.estep(ctx)
}

// Train runs batch variational EM (optim.Batch: the convergence test of
// `maslda train`'s batch schedule) on run's model over the shards of
// opt.Layout (a run built without its documents, models.BuildGlobals, so
// that the driver holds no per-document memory), or over the run's own
// training corpus written into shards, every E-step a Beam pipeline. The
// run's model ends with the trained globals (its in-process per-document
// state, if any, is not updated: the state is in the work directory's
// files). The model must be one that trains by
// shards (models.Model.SumLayout). Unless it resumes, Train first runs
// the configuration's restarts and the response's pilot as
// models.Run.Fit does (models.Run.Prepare, every iteration a pipeline),
// so that the result is Fit's with the batch schedule; so is the
// annotators' classifier start (framework.Starter), during the schedule.
//
// When the annotators' start marks annotators (framework.Rewarmer: the
// confusion model's constant = "almost"), Train builds the run again with
// the marks (models.Run.Rewarm) and trains it from the beginning, as Fit
// does: the second pass's one start (no restart candidates,
// models.Run.Restarts), pilot, start and schedule, its
// iterations numbered on from the first pass's. rewarm.json in the work
// directory holds the marks and the first pass's bounds, so that a driver
// stopped in the second pass resumes in it (a driver stopped before the
// second pass's first checkpoint starts the second pass again).
func Train(ctx context.Context, run *models.Run, opt Options) (*Result, error) {
	rpath := filepath.Join(opt.Dir, rewarmFile)
	var pass *rewarmCheckpoint
	if opt.Resume {
		b, err := os.ReadFile(rpath)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("resume: %w", err)
		default:
			pass = new(rewarmCheckpoint)
			if err := json.Unmarshal(b, pass); err != nil || pass.Format != rewarmFormat {
				return nil, fmt.Errorf("%w: resume: %s is not of this format (%q)", framework.ErrBadInput, rpath, rewarmFormat)
			}
			if err := run.Rewarm(pass.Marks, framework.Progress{Iter: pass.iters()}); err != nil {
				return nil, fmt.Errorf("resume: %s: %w", rpath, err)
			}
			if !secondPassSaved(opt.Dir) {
				// Stopped before the second pass's first checkpoint:
				// the first pass's files (if any are left) go, and the
				// second pass starts from its beginning.
				cleanPass(opt.Dir)
				opt.Resume = false
			}
		}
	} else if err := os.Remove(rpath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	res, err := trainPass(ctx, run, opt, pass)
	var rw *rewarmedError
	if pass == nil && errors.As(err, &rw) {
		pass = &rewarmCheckpoint{Format: rewarmFormat, Marks: rw.marks, Reruns: res.Reruns}
		for _, e := range res.Trace {
			pass.Trace = append(pass.Trace, math.Float64bits(e))
		}
		b, jerr := json.MarshalIndent(pass, "", "  ")
		if jerr != nil {
			return nil, jerr
		}
		if err := writeAtomic(rpath, append(b, '\n')); err != nil {
			return nil, err
		}
		cleanPass(opt.Dir)
		if err := run.Rewarm(pass.Marks, framework.Progress{Iter: pass.iters()}); err != nil {
			return nil, err
		}
		opt.Resume = false
		res, err = trainPass(ctx, run, opt, pass)
		if res == nil {
			return res, err
		}
	}
	if res != nil && pass != nil {
		trace := make([]float64, 0, len(pass.Trace)+len(res.Trace))
		for _, b := range pass.Trace {
			trace = append(trace, math.Float64frombits(b))
		}
		res.Trace = append(trace, res.Trace...)
		res.Iters += pass.iters()
		res.Reruns += pass.Reruns
		res.Marks = slices.Clone(pass.Marks)
	}
	return res, err
}

// rewarmedError ends the first pass at a start that marked annotators
// (framework.Rewarmer); the pass's Result.Trace holds a bound for each of
// its schedule's iterations.
type rewarmedError struct {
	marks []int32
}

func (e *rewarmedError) Error() string {
	return "the annotators' start marked annotators: the run starts again with them"
}

// rewarmCheckpoint is rewarm.json: the first pass ended at an annotators'
// start that marked annotators; the run is in its second pass.
type rewarmCheckpoint struct {
	Format string  `json:"format"`
	Marks  []int32 `json:"marks"` // per annotator its class, −1 for the others
	// Trace is the bounds of the first pass's iterations (the second
	// pass's progress is numbered on from their number, iters), Reruns
	// its pipelines run again.
	Trace  []uint64 `json:"trace_bits"`
	Reruns int      `json:"reruns,omitempty"`
}

const (
	rewarmFormat = "maslda-beam-rewarm-1"
	rewarmFile   = "rewarm.json"
)

// iters is the number of the first pass's iterations.
func (p *rewarmCheckpoint) iters() int { return len(p.Trace) }

// secondPassSaved reports whether the work directory holds a checkpoint
// or a prelude checkpoint of the second pass.
func secondPassSaved(dir string) bool {
	for _, f := range []string{"checkpoint.json", preludeFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		var p struct {
			Pass int `json:"pass"`
		}
		if json.Unmarshal(b, &p) == nil && p.Pass == 2 {
			return true
		}
	}
	return false
}

// cleanPass removes a pass's files from the work directory (checkpoints,
// globals, the documents' states, the restarts' and the pilot's, the
// start's predictions), leaving the shards, their layout and rewarm.json.
func cleanPass(dir string) {
	os.Remove(filepath.Join(dir, "checkpoint.json"))
	os.Remove(filepath.Join(dir, preludeFile))
	for _, pat := range []string{"globals-*.bin", "state-*.bin", "sums.i*.bin", "pred-*.bin", "restart-*", "pilot"} {
		ms, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, p := range ms {
			os.RemoveAll(p)
		}
	}
}

// trainPass is a pass of Train: pass is nil in the first, rewarm.json's
// in the second.
func trainPass(ctx context.Context, run *models.Run, opt Options, pass *rewarmCheckpoint) (*Result, error) {
	passNo := 0 // checkpoint.json's and prelude.json's "pass": 0 the first (omitted), 2 the second
	if pass != nil {
		passNo = 2
	}
	m := run.Model
	if _, err := m.SumLayout(); err != nil {
		return nil, err
	}
	if opt.MaxIters <= 0 {
		opt.MaxIters = 100
	}
	sched := &optim.Batch{MaxIters: opt.MaxIters, MinIters: opt.MinIters, Tol: opt.Tol}
	if err := sched.Validate(); err != nil {
		return nil, err
	}
	retries := opt.Retries
	if retries == 0 {
		retries = 2
	}
	if opt.Run == nil {
		opt.Run = func(ctx context.Context, p *beam.Pipeline) error {
			_, err := beam.Run(ctx, "prism", p)
			return err
		}
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	l := opt.Layout
	if l == nil {
		c := m.Corpus()
		if c == nil {
			return nil, fmt.Errorf("%w: no shards (Options.Layout) and no training corpus to write them from", framework.ErrBadInput)
		}
		size := opt.ShardSize
		if size <= 0 {
			size = models.ShardSize
		}
		var err error
		if l, err = WriteCorpusShards(c, opt.Dir, size); err != nil {
			return nil, err
		}
	}
	if err := l.check(); err != nil {
		return nil, err
	}
	if n := m.NumDocs(); n != l.Docs {
		return nil, fmt.Errorf("%w: the run was built for %d documents, the shards hold %d", framework.ErrBadInput, n, l.Docs)
	}
	if err := l.write(opt.Dir); err != nil {
		return nil, err
	}
	D, nShards := l.Docs, len(l.Shards)
	shardDocs := make([]int, nShards)
	for s, sh := range l.Shards {
		shardDocs[s] = sh.Docs
	}
	ids := make([]int, nShards)
	for i := range ids {
		ids[i] = i
	}
	res := &Result{}
	var from optim.BatchState
	var pre *preludeCheckpoint // resuming the restarts (prelude.json)
	// The annotators' classifier start (models.Run.Fit's starting): it
	// has happened; the schedule's second run; the first run's iterations.
	var (
		started, second bool
		offset          int
	)
	if opt.Resume {
		// A driver killed in the middle of writing a file (its LOOPBACK
		// workers with it) leaves its temporary file behind.
		if tmp, err := filepath.Glob(filepath.Join(opt.Dir, ".*.tmp-*")); err == nil {
			for _, p := range tmp {
				os.Remove(p)
			}
		}
		var ck checkpoint
		b, err := os.ReadFile(filepath.Join(opt.Dir, "checkpoint.json"))
		switch {
		case errors.Is(err, os.ErrNotExist):
			// Stopped before the schedule's first checkpoint: during the
			// restarts (prelude.json: the candidates done), or before.
			pb, perr := os.ReadFile(filepath.Join(opt.Dir, preludeFile))
			if errors.Is(perr, os.ErrNotExist) {
				return nil, fmt.Errorf("resume: %w, and no %s (a driver stopped before its first restart candidate ended, or before the schedule's first iteration ended without restarts, has nothing to resume: start again without resuming)", err, preludeFile)
			}
			if perr != nil {
				return nil, fmt.Errorf("resume: %w", perr)
			}
			pre = new(preludeCheckpoint)
			if err := json.Unmarshal(pb, pre); err != nil || pre.Format != preludeFormat || pre.Docs != D || !slices.Equal(pre.Shards, shardDocs) || pre.Best < 1 || pre.Best > len(pre.Restarts) || pre.Pass != passNo {
				return nil, fmt.Errorf("%w: resume: %s is not of this format (%q) or of another corpus", framework.ErrBadInput, filepath.Join(opt.Dir, preludeFile), preludeFormat)
			}
		case err != nil:
			return nil, fmt.Errorf("resume: %w", err)
		default:
			if err := json.Unmarshal(b, &ck); err != nil || ck.Format != checkpointFormat {
				return nil, fmt.Errorf("%w: resume: %s is not a checkpoint of this format (%q)", framework.ErrBadInput, filepath.Join(opt.Dir, "checkpoint.json"), checkpointFormat)
			}
			if ck.Pass != passNo {
				return nil, fmt.Errorf("%w: resume: %s is of pass %d of the run, and %s says it is in pass %d", framework.ErrBadInput, filepath.Join(opt.Dir, "checkpoint.json"), max(1, ck.Pass), rewarmFile, max(1, passNo))
			}
			if ck.Docs != D || !slices.Equal(ck.Shards, shardDocs) || len(ck.Trace) != ck.Offset+ck.Iter || ck.Iter < 1 {
				return nil, fmt.Errorf("%w: resume: the checkpoint is of %d documents in %d shards after %d iterations, this run has %d in %d shards (or shards of other sizes)", framework.ErrBadInput, ck.Docs, len(ck.Shards), ck.Iter, D, nShards)
			}
			data, err := os.ReadFile(filepath.Join(opt.Dir, "globals-"+ck.Sum+".bin"))
			if err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
			if err := run.LoadSnapshot(data, ck.Sum); err != nil {
				return nil, fmt.Errorf("resume: %w", err)
			}
			for _, b := range ck.Trace {
				res.Trace = append(res.Trace, math.Float64frombits(b))
			}
			for _, b := range ck.Restarts {
				res.RestartELBOs = append(res.RestartELBOs, math.Float64frombits(b))
			}
			from = optim.BatchState{Iter: ck.Iter, Prev: math.Float64frombits(ck.Prev), PrevScale: math.Float64frombits(ck.PrevScale),
				PrevPart: math.Float64frombits(ck.PrevPart), Elapsed: time.Duration(ck.ElapsedNS)}
			started, second, offset = ck.Started, ck.Second, ck.Offset
		}
	}
	// runPipeline runs a pipeline over the shard numbers (in), again
	// after a failure, up to retries times.
	runPipeline := func(ctx context.Context, build func(s beam.Scope, in beam.PCollection)) error {
		for try := 0; ; try++ {
			p, s := beam.NewPipelineWithRoot()
			// The Reshuffle is a fusion break: without it the ParDo is
			// fused with Create's one element (the impulse) into a single
			// bundle that no runner can split; after it, the shard numbers
			// are the stage's input elements, which prism (and
			// distributed runners) split into bundles run at once.
			build(s, beam.Reshuffle(s, beam.CreateList(s, ids)))
			err := opt.Run(ctx, p)
			if err == nil {
				return nil
			}
			if try >= retries || ctx.Err() != nil {
				return fmt.Errorf("(%d runs): %w", try+1, err)
			}
			res.Reruns++
		}
	}
	// An E-step of batch EM on a model (the run's, or a restart's
	// candidate) whose shards' state is in dir; phase.inputs is the
	// globals file of its last E-step.
	type phase struct {
		run    *models.Run
		dir    string
		iter   int // E-steps done
		inputs string
		// The first E-step reads the state warmDir/state-N.iWARMITER.bin
		// (the restarts' best candidate's), when warmDir is set.
		warmDir     string
		warmIter    int
		warmTargets bool // read only the documents' q(target) of warmDir's state
	}
	estep := func(ctx context.Context, ph *phase) (framework.Stats, error) {
		ph.iter++
		it := ph.iter
		snap, err := ph.run.Snapshot()
		if err != nil {
			return nil, err
		}
		gpath := filepath.Join(opt.Dir, "globals-"+snap.Sum+".bin")
		if err := writeAtomic(gpath, snap.Data); err != nil {
			return nil, err
		}
		ph.inputs = gpath
		if err := runPipeline(ctx, func(s beam.Scope, in beam.PCollection) {
			sums := beam.ParDo(s, &eStepFn{Dir: ph.dir, Globals: gpath, Sum: snap.Sum, Iter: it, WarmDir: ph.warmDir, WarmIter: ph.warmIter, WarmTargets: ph.warmTargets, Shards: l.Shards,
				FailOnce: opt.FailOnce, Delay: opt.Delay, BundleLog: opt.BundleLog}, in)
			total := beam.Combine(s, sumsFn{}, sums)
			beam.ParDo0(s, &writeFn{Path: sumsPath(ph.dir, it)}, total)
		}); err != nil {
			return nil, fmt.Errorf("iteration %d: the E-step pipeline %w", it, err)
		}
		data, err := os.ReadFile(sumsPath(ph.dir, it))
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		var ex framework.ExactSums
		if err := ex.UnmarshalBinary(data); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		stats, err := ph.run.Model.Combine(&ex)
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		if err := os.Remove(sumsPath(ph.dir, it)); err != nil {
			return nil, err
		}
		return stats, nil
	}
	// The restarts and the response's pilot (models.Run.Prepare, as
	// maslda train's Fit runs them) before the schedule, unless resuming
	// it: each candidate's batch EM with its shards' state in
	// restart-I, the pilot's in pilot. After each candidate, prelude.json
	// records the candidates' bounds and the best one, whose globals
	// (globals-SUM.bin) and last state (restart-BEST) are kept until the
	// schedule's first checkpoint: a driver stopped during the restarts
	// resumes after the last candidate done.
	removePrelude := func(keep ...string) {
		dirs, _ := filepath.Glob(filepath.Join(opt.Dir, "restart-*"))
		for _, d := range append(dirs, filepath.Join(opt.Dir, "pilot")) {
			os.RemoveAll(d)
		}
		if pre != nil && pre.Sum != "" {
			g := filepath.Join(opt.Dir, "globals-"+pre.Sum+".bin")
			if !slices.Contains(keep, g) {
				os.Remove(g)
			}
		}
		os.Remove(filepath.Join(opt.Dir, preludeFile))
	}
	main := &phase{run: run, dir: opt.Dir, iter: offset + from.Iter}
	// passIter numbers the second pass's progress on from the first's (as
	// models.Run.Fit does).
	passIter := 0
	if pass != nil {
		passIter = pass.iters()
	}
	if !opt.Resume || pre != nil {
		if pre == nil {
			removePrelude() // a run started again in the same directory
		}
		n := run.Restarts()
		if n < 2 {
			n = 0
		}
		fits := 0 // candidates done, then the pilot
		var done []float64
		if pre != nil {
			for _, b := range pre.Restarts {
				done = append(done, math.Float64frombits(b))
			}
			fits = len(done)
		}
		var last *phase  // the last candidate's
		var pilot *phase // the pilot's, kept when the crowd is to be held after it
		holder, _ := run.Model.Response.(framework.CrowdHolder)
		fit := func(ctx context.Context, cand *models.Run, b *optim.Batch, obs framework.Observer) (*framework.Result, error) {
			fits++
			name := fmt.Sprintf("restart-%d", fits)
			if fits > n {
				name = "pilot"
			}
			ph := &phase{run: cand, dir: filepath.Join(opt.Dir, name)}
			last = ph
			if err := os.RemoveAll(ph.dir); err != nil {
				return nil, err
			}
			if err := os.MkdirAll(ph.dir, 0o755); err != nil {
				return nil, err
			}
			em := &engineModel{Model: cand.Model, docs: D, estep: func(ctx context.Context) (framework.Stats, error) { return estep(ctx, ph) }}
			fr, err := b.FitFrom(ctx, em, obs, optim.BatchState{}, func(optim.BatchState) error {
				// The globals of an E-step are not read again, nor the
				// state it read.
				for sh := range nShards {
					os.Remove(statePath(ph.dir, sh, ph.iter))
				}
				if err := os.Remove(ph.inputs); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				return nil
			})
			if ph.inputs != "" {
				os.Remove(ph.inputs)
			}
			if name == "pilot" {
				if err == nil && holder != nil && holder.WillHoldCrowd() {
					pilot = ph // its documents' last q(target) are held
				} else {
					os.RemoveAll(ph.dir)
				}
			}
			return fr, err
		}
		// candidate records candidate i, just trained: the new best keeps
		// its globals and state, the others are removed.
		candidate := func(i int, cand *models.Run, elbos []float64) error {
			best, bestELBO := 1, math.Inf(-1)
			for j, e := range elbos {
				if e > bestELBO {
					best, bestELBO = j+1, e
				}
			}
			if best != i {
				return os.RemoveAll(last.dir)
			}
			snap, err := cand.Snapshot()
			if err != nil {
				return err
			}
			if err := writeAtomic(filepath.Join(opt.Dir, "globals-"+snap.Sum+".bin"), snap.Data); err != nil {
				return err
			}
			old := pre
			pre = &preludeCheckpoint{Format: preludeFormat, Docs: D, Shards: shardDocs, Best: i, Sum: snap.Sum, State: last.iter + 1, Pass: passNo}
			for _, e := range elbos {
				pre.Restarts = append(pre.Restarts, math.Float64bits(e))
			}
			b, err := json.MarshalIndent(pre, "", "  ")
			if err != nil {
				return err
			}
			if err := writeAtomic(filepath.Join(opt.Dir, preludeFile), append(b, '\n')); err != nil {
				return err
			}
			if old != nil && old.Best != i {
				os.RemoveAll(filepath.Join(opt.Dir, fmt.Sprintf("restart-%d", old.Best)))
				if old.Sum != snap.Sum {
					os.Remove(filepath.Join(opt.Dir, "globals-"+old.Sum+".bin"))
				}
			}
			return nil
		}
		// A candidate that is not the best gets only its bounds recorded.
		record := func(i int, cand *models.Run, elbos []float64) error {
			if err := candidate(i, cand, elbos); err != nil {
				return err
			}
			if pre == nil || len(pre.Restarts) == len(elbos) {
				return nil
			}
			pre.Restarts = pre.Restarts[:0]
			for _, e := range elbos {
				pre.Restarts = append(pre.Restarts, math.Float64bits(e))
			}
			b, err := json.MarshalIndent(pre, "", "  ")
			if err != nil {
				return err
			}
			return writeAtomic(filepath.Join(opt.Dir, preludeFile), append(b, '\n'))
		}
		restore := func(i int, cand *models.Run) error {
			if pre == nil || i != pre.Best {
				return fmt.Errorf("%w: resume: %s keeps restart candidate %d, not %d", framework.ErrBadInput, preludeFile, pre.Best, i)
			}
			data, err := os.ReadFile(filepath.Join(opt.Dir, "globals-"+pre.Sum+".bin"))
			if err != nil {
				return fmt.Errorf("resume: %w", err)
			}
			if err := cand.LoadSnapshot(data, pre.Sum); err != nil {
				return fmt.Errorf("resume: restart candidate %d: %w", i, err)
			}
			return nil
		}
		prog := func(p framework.Progress) error {
			if opt.Prelude != nil {
				// A second pass runs no restart candidates
				// (models.Run.Restarts), so its prelude could only be a
				// pilot, which no response of a categorical target (the
				// only kind whose annotators mark, framework.Rewarmer)
				// has today: numbered on for one that would.
				p.Iter += passIter
				return opt.Prelude(p)
			}
			return nil
		}
		if _, err := run.PrepareWith(ctx, prog, fit, &models.PrepareHooks{Candidate: record, Done: done, Restore: restore}); err != nil {
			return nil, err
		}
		res.RestartELBOs = run.RestartELBOs
		m = run.Model // the restarts' best candidate
		main.run = run
		// A model without a response runs its restarts' candidates as
		// itself, and Fit goes on from the best one's documents (their
		// γ): the schedule's first E-step reads the state the best
		// candidate's last one wrote. After a restart phase with a
		// response (plain LDA in PhaseTopics) or a pilot, every document
		// starts afresh.
		if m.Response == nil && pre != nil {
			main.warmDir, main.warmIter = filepath.Join(opt.Dir, fmt.Sprintf("restart-%d", pre.Best)), pre.State
		}
		// A model that holds the crowd after its pilot (models.Model.
		// HoldsCrowd) starts afresh too, but with every document's
		// q(target) of the pilot's last E-step.
		if pilot != nil {
			if m.HoldsCrowd() {
				main.warmDir, main.warmIter, main.warmTargets = pilot.dir, pilot.iter+1, true
			} else {
				os.RemoveAll(pilot.dir)
			}
		}
	}
	// dropPilot removes the pilot's state once the schedule no longer
	// needs it (after its first checkpoint, or at the end).
	dropPilot := func() {
		if main.warmTargets {
			os.RemoveAll(main.warmDir)
			main.warmDir, main.warmTargets = "", false
		}
	}
	// after writes the checkpoint of an iteration that does not end the run
	// (the new globals, then checkpoint.json naming them, both by rename)
	// and removes what only an earlier checkpoint needed.
	after := func(bs optim.BatchState) error {
		next, err := run.Snapshot()
		if err != nil {
			return err
		}
		npath := filepath.Join(opt.Dir, "globals-"+next.Sum+".bin")
		if err := writeAtomic(npath, next.Data); err != nil {
			return err
		}
		ck := checkpoint{Format: checkpointFormat, Iter: bs.Iter, Docs: D, Shards: shardDocs, Sum: next.Sum,
			Prev: math.Float64bits(bs.Prev), PrevScale: math.Float64bits(bs.PrevScale), PrevPart: math.Float64bits(bs.PrevPart), ElapsedNS: int64(bs.Elapsed),
			Started: started, Second: second, Offset: offset, Pass: passNo}
		for _, e := range res.Trace {
			ck.Trace = append(ck.Trace, math.Float64bits(e))
		}
		for _, e := range res.RestartELBOs {
			ck.Restarts = append(ck.Restarts, math.Float64bits(e))
		}
		b, err := json.MarshalIndent(&ck, "", "  ")
		if err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(opt.Dir, "checkpoint.json"), append(b, '\n')); err != nil {
			return err
		}
		if main.inputs != "" && main.inputs != npath {
			if err := os.Remove(main.inputs); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		if pre != nil {
			removePrelude(npath, main.inputs)
			pre, main.warmDir = nil, ""
		}
		dropPilot()
		for sh := range nShards {
			os.Remove(statePath(opt.Dir, sh, main.iter)) // read by the last E-step, now checkpointed past
		}
		return nil
	}
	// The annotators' classifier start (framework.Starter), as
	// models.Run.Fit runs it under batch EM: after start_iters
	// iterations, every training document is predicted with the topics
	// alone (a pipeline over the shards) and the annotators restart from
	// the predictions: from the sum of the shards' start counts
	// (framework.StartCounter: fixed-size, what the confusion annotators
	// have), or else from the D predictions themselves (StartFrom; the
	// driver holds them for that call); a schedule that converges before
	// runs again after the start, its iterations numbered on.
	starter, _ := run.Model.Noise.(framework.Starter)
	if starter != nil && starter.StartIters() <= 0 {
		starter = nil
	}
	start := func(ctx context.Context) error {
		started = true
		snap, err := run.Snapshot()
		if err != nil {
			return err
		}
		gpath := filepath.Join(opt.Dir, "globals-"+snap.Sum+".bin")
		if err := writeAtomic(gpath, snap.Data); err != nil {
			return err
		}
		sc, counts := starter.(framework.StartCounter)
		counts = counts && !opt.startTargets
		if err := runPipeline(ctx, func(s beam.Scope, in beam.PCollection) {
			beam.ParDo0(s, &predictFn{Dir: opt.Dir, Globals: gpath, Sum: snap.Sum, Shards: l.Shards, Counts: counts}, in)
		}); err != nil {
			return fmt.Errorf("the classifier start's prediction pipeline %w", err)
		}
		if counts {
			// Whole numbers: their sum is exact in any order.
			total := make([]float64, sc.StartCounts())
			for sh := range nShards {
				var c []float64
				if err := readGob(predPath(opt.Dir, sh), &c); err != nil {
					return err
				}
				if len(c) != len(total) {
					return fmt.Errorf("%w: %s: %d start counts, want %d", framework.ErrBadInput, predPath(opt.Dir, sh), len(c), len(total))
				}
				for i, v := range c {
					total[i] += v
				}
			}
			if err := sc.StartFromCounts(total); err != nil {
				return fmt.Errorf("annotators: %w", err)
			}
		} else {
			targets := make([]framework.Target, 0, D)
			for sh := range nShards {
				var enc [][]byte
				if err := readGob(predPath(opt.Dir, sh), &enc); err != nil {
					return err
				}
				if len(enc) != l.Shards[sh].Docs {
					return fmt.Errorf("%w: %s: %d predictions for %d documents", framework.ErrBadInput, predPath(opt.Dir, sh), len(enc), l.Shards[sh].Docs)
				}
				for i, b := range enc {
					t := run.Model.Response.NewTarget()
					if err := gob.NewDecoder(bytes.NewReader(b)).Decode(t); err != nil {
						return fmt.Errorf("the prediction of document %d: %w", l.Shards[sh].Offset+i, err)
					}
					targets = append(targets, t)
				}
			}
			if err := starter.StartFrom(targets); err != nil {
				return fmt.Errorf("annotators: %w", err)
			}
		}
		if rw, ok := starter.(framework.Rewarmer); ok {
			if marks := rw.Rewarm(); marks != nil {
				// The second warm-up (Train): the pass ends here.
				return &rewarmedError{marks: marks}
			}
		}
		for sh := range nShards {
			os.Remove(predPath(opt.Dir, sh))
		}
		if gpath != main.inputs {
			os.Remove(gpath)
		}
		return nil
	}
	obs := func(p framework.Progress) error {
		p.Iter += offset
		res.Trace = append(res.Trace, p.ELBO)
		if opt.Progress != nil {
			if err := opt.Progress(p.Iter+passIter, p.ELBO); err != nil {
				return err
			}
		}
		if starter == nil || started || p.Iter < starter.StartIters() {
			return nil
		}
		return start(ctx)
	}
	em := &engineModel{Model: m, docs: D, estep: func(ctx context.Context) (framework.Stats, error) { return estep(ctx, main) }}
	fr, err := sched.FitFrom(ctx, em, obs, from, after)
	if fr != nil {
		res.Iters, res.ELBO, res.Converged = offset+fr.Iters, fr.ELBO, fr.Converged
	}
	if err != nil {
		return res, err
	}
	if starter != nil && !started && !second && fr.Converged {
		if err := start(ctx); err != nil {
			return res, err
		}
		second, offset = true, fr.Iters
		fr, err = sched.FitFrom(ctx, em, obs, optim.BatchState{}, after)
		if fr != nil {
			res.Iters, res.ELBO, res.Converged = offset+fr.Iters, fr.ELBO, fr.Converged
		}
		if err != nil {
			return res, err
		}
	}
	if pre != nil { // a run of one iteration wrote no checkpoint
		removePrelude(main.inputs)
		pre = nil
	}
	dropPilot()
	if tu, ok := run.Model.Response.(framework.Tuner); ok && starter != nil && res.Converged {
		// Fit lets the response re-choose a hyperparameter from every
		// training document's φ̄ now (framework.Tuner). The one Tuner,
		// the softmax, chooses only with text_l2_folds, which needs its
		// L-BFGS M-step (refused here): without inputs it must not change.
		changed, err := tu.Tune(ctx, nil, nil)
		if err != nil {
			return res, err
		}
		if changed {
			return res, fmt.Errorf("%w: the response re-chose a hyperparameter from every training document's φ̄ (framework.Tuner), which the Beam driver cannot give it", framework.ErrIncompatible)
		}
	}
	return res, nil
}
