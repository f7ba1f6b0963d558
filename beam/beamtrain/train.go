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
//	shard-NNNNN.bin        a shard's documents and answers (gob; written once)
//	state-NNNNN.iT.bin     a shard's per-document state before iteration T: γ, φ, q(target) (gob);
//	                       written to a temporary file and renamed, so a retried bundle is harmless
//	globals-SUM.bin        the globals of an iteration (models.Run.Snapshot), named by their SHA-256;
//	                       a worker loads each once (the cache of loadModel)
//	sums.iT.bin            the combined exact sums of iteration T
//
// The driver's memory holds the globals and the statistics (O(K·V)), not
// the documents' state, which stays in the state files.
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

// shardFile is what a shard file holds.
type shardFile struct {
	Index   []int
	Docs    []framework.Doc
	Answers [][]framework.Answer
}

// stateFile is a shard's per-document state.
type stateFile struct {
	Gamma   [][]float64
	Phi     [][]float32
	Targets [][]byte // each gob-encoded (the response's concrete target type); nil: none
}

func shardPath(dir string, s int) string { return filepath.Join(dir, fmt.Sprintf("shard-%05d.bin", s)) }
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
	// FailOnce, when not empty, names a file: the first call that finds
	// it absent creates it and fails (tests of retries).
	FailOnce string
}

func (f *eStepFn) ProcessElement(ctx context.Context, s int) ([]byte, error) {
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
	var sh shardFile
	if err := readGob(shardPath(f.Dir, s), &sh); err != nil {
		return nil, err
	}
	in := &models.Shard{Index: sh.Index, Docs: sh.Docs, Answers: sh.Answers}
	var st stateFile
	if f.Iter > 1 {
		if err := readGob(statePath(f.Dir, s, f.Iter), &st); err != nil {
			return nil, err
		}
		in.Gamma, in.Phi = st.Gamma, st.Phi
		if st.Targets != nil && m.Response != nil {
			in.Targets = make([]framework.Target, len(st.Targets))
			for i, b := range st.Targets {
				if b == nil {
					continue
				}
				t := m.Response.NewTarget()
				if err := gob.NewDecoder(bytes.NewReader(b)).Decode(t); err != nil {
					return nil, fmt.Errorf("shard %d: q(target) of document %d: %w", s, sh.Index[i], err)
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
				return nil, fmt.Errorf("shard %d: q(target) of document %d: %w", s, sh.Index[i], err)
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

// writeFn writes the combined sums to a file.
type writeFn struct{ Path string }

func (f *writeFn) ProcessElement(b []byte) error { return writeAtomic(f.Path, b) }

// Options configure Train.
type Options struct {
	Dir       string  // work directory (created; shards, states, globals)
	ShardSize int     // documents per shard (default models.ShardSize)
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
	ShardSize int      `json:"shard_size"`
	Sum       string   `json:"globals_sha256"` // the globals after Iter (globals-SUM.bin)
	Trace     []uint64 `json:"trace_bits"`     // the bounds so far
	Prev      uint64   `json:"prev_bits"`
	PrevScale uint64   `json:"prev_scale_bits"`
	PrevPart  uint64   `json:"prev_part_bits"`
	ElapsedNS int64    `json:"elapsed_ns"`
}

const checkpointFormat = "maslda-beam-checkpoint-1"

// Result is a finished Train.
type Result struct {
	Iters     int
	ELBO      float64
	Converged bool
	Trace     []float64
	Reruns    int // pipelines run again after a failure
}

// engineModel is the run's model whose E-step is a Beam pipeline over the
// whole corpus (batch EM only); Update, ELBO and the convergence
// capabilities are the model's own.
type engineModel struct {
	*models.Model
	estep func(ctx context.Context) (framework.Stats, error)
}

func (e *engineModel) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	if len(docs) != e.NumDocs() {
		return nil, fmt.Errorf("%w: the Beam E-step covers the whole corpus (batch EM); asked for %d of %d documents", framework.ErrIncompatible, len(docs), e.NumDocs())
	}
	return e.estep(ctx)
}

// Train runs batch variational EM (optim.Batch: the convergence test of
// `maslda train`'s batch schedule) on run's model and training corpus,
// every E-step a Beam pipeline. The run's model ends with the trained
// globals (its in-process per-document state is not updated: the state is
// in the work directory's files). The model must be one that trains by
// shards (models.Model.SumLayout). Not here: restarts, the end of a
// response's pilot, a classifier start (models.Run.Fit's).
func Train(ctx context.Context, run *models.Run, opt Options) (*Result, error) {
	m := run.Model
	if _, err := m.SumLayout(); err != nil {
		return nil, err
	}
	c := m.Corpus()
	if c == nil {
		return nil, fmt.Errorf("%w: no training corpus", framework.ErrNotTrained)
	}
	if opt.ShardSize <= 0 {
		opt.ShardSize = models.ShardSize
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
	D := len(c.Docs)
	nShards := (D + opt.ShardSize - 1) / opt.ShardSize
	for s := range nShards {
		sh := shardFile{}
		for d := s * opt.ShardSize; d < min(D, (s+1)*opt.ShardSize); d++ {
			sh.Index = append(sh.Index, d)
			sh.Docs = append(sh.Docs, c.Docs[d])
			if c.Answers != nil {
				sh.Answers = append(sh.Answers, c.Answers.ByDoc[d])
			}
		}
		if err := writeGob(shardPath(opt.Dir, s), &sh); err != nil {
			return nil, err
		}
	}
	ids := make([]int, nShards)
	for i := range ids {
		ids[i] = i
	}
	res := &Result{}
	var from optim.BatchState
	if opt.Resume {
		var ck checkpoint
		b, err := os.ReadFile(filepath.Join(opt.Dir, "checkpoint.json"))
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		if err := json.Unmarshal(b, &ck); err != nil || ck.Format != checkpointFormat {
			return nil, fmt.Errorf("%w: resume: %s is not a checkpoint of this format (%q)", framework.ErrBadInput, filepath.Join(opt.Dir, "checkpoint.json"), checkpointFormat)
		}
		if ck.Docs != D || ck.ShardSize != opt.ShardSize || len(ck.Trace) != ck.Iter || ck.Iter < 1 {
			return nil, fmt.Errorf("%w: resume: the checkpoint is of %d documents in shards of %d after %d iterations, this run has %d in shards of %d", framework.ErrBadInput, ck.Docs, ck.ShardSize, ck.Iter, D, opt.ShardSize)
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
		from = optim.BatchState{Iter: ck.Iter, Prev: math.Float64frombits(ck.Prev), PrevScale: math.Float64frombits(ck.PrevScale),
			PrevPart: math.Float64frombits(ck.PrevPart), Elapsed: time.Duration(ck.ElapsedNS)}
	}
	iter := from.Iter // E-steps done
	inputs := ""      // the globals file of the last E-step
	estep := func(ctx context.Context) (framework.Stats, error) {
		iter++
		it := iter
		snap, err := run.Snapshot()
		if err != nil {
			return nil, err
		}
		gpath := filepath.Join(opt.Dir, "globals-"+snap.Sum+".bin")
		if err := writeAtomic(gpath, snap.Data); err != nil {
			return nil, err
		}
		inputs = gpath
		for try := 0; ; try++ {
			p, s := beam.NewPipelineWithRoot()
			in := beam.CreateList(s, ids)
			sums := beam.ParDo(s, &eStepFn{Dir: opt.Dir, Globals: gpath, Sum: snap.Sum, Iter: it, FailOnce: opt.FailOnce}, in)
			total := beam.Combine(s, sumsFn{}, sums)
			beam.ParDo0(s, &writeFn{Path: sumsPath(opt.Dir, it)}, total)
			err := opt.Run(ctx, p)
			if err == nil {
				break
			}
			if try >= retries || ctx.Err() != nil {
				return nil, fmt.Errorf("iteration %d: the E-step pipeline (%d runs): %w", it, try+1, err)
			}
			res.Reruns++
		}
		data, err := os.ReadFile(sumsPath(opt.Dir, it))
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		var ex framework.ExactSums
		if err := ex.UnmarshalBinary(data); err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		stats, err := m.Combine(&ex)
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", it, err)
		}
		if err := os.Remove(sumsPath(opt.Dir, it)); err != nil {
			return nil, err
		}
		return stats, nil
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
		ck := checkpoint{Format: checkpointFormat, Iter: bs.Iter, Docs: D, ShardSize: opt.ShardSize, Sum: next.Sum,
			Prev: math.Float64bits(bs.Prev), PrevScale: math.Float64bits(bs.PrevScale), PrevPart: math.Float64bits(bs.PrevPart), ElapsedNS: int64(bs.Elapsed)}
		for _, e := range res.Trace {
			ck.Trace = append(ck.Trace, math.Float64bits(e))
		}
		b, err := json.MarshalIndent(&ck, "", "  ")
		if err != nil {
			return err
		}
		if err := writeAtomic(filepath.Join(opt.Dir, "checkpoint.json"), append(b, '\n')); err != nil {
			return err
		}
		if inputs != "" && inputs != npath {
			if err := os.Remove(inputs); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		for sh := range nShards {
			os.Remove(statePath(opt.Dir, sh, bs.Iter)) // read by iteration bs.Iter, now checkpointed past
		}
		return nil
	}
	obs := func(p framework.Progress) error {
		res.Trace = append(res.Trace, p.ELBO)
		if opt.Progress != nil {
			return opt.Progress(p.Iter, p.ELBO)
		}
		return nil
	}
	fr, err := sched.FitFrom(ctx, &engineModel{Model: m, estep: estep}, obs, from, after)
	if fr != nil {
		res.Iters, res.ELBO, res.Converged = fr.Iters, fr.ELBO, fr.Converged
	}
	if err != nil {
		return res, err
	}
	return res, nil
}
