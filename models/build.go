package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// Run is an assembled model with its schedule and random source: what
// `maslda train` fits and saves.
type Run struct {
	Config     *Config
	Model      *Model
	Schedule   framework.Schedule
	Rand       *rand.Rand
	Classes    []string // class names of a categorical target (nil otherwise)
	Annotators []string // annotator names (nil without answers)
	Result     *framework.Result

	RestartELBOs []float64 // each candidate's ELBO after the restart phase

	// Relabelled, when the run tried the class-permuted twin of its fit
	// (starting.relabel), says which and what came of it.
	Relabelled *Relabelled

	// Choice, when set (by the caller, after Choose picked this run's
	// configuration), is saved in model.json by WriteFiles.
	Choice *Choice

	// Consensus, set by Fit with consensus = N ≥ 2, says which of the N
	// fits it kept and why; saved in model.json by WriteFiles.
	Consensus *Consensus

	// HeldOut, when set (by the caller, after scoring held-out answers with
	// Model.ScoreAnswers), is saved in model.json by WriteFiles.
	HeldOut *HeldOutAnswers

	// AfterIter, when set, is called by Fit after every iteration of the
	// batch schedule, or update of SVI, that does not end the run (not in
	// the restart phase nor the pilot), with where the run stands; the
	// run's state is then complete, and SaveCheckpoint may save it. An
	// error from AfterIter ends Fit with that error. Other schedules refuse
	// it (ErrNoCheckpoint).
	AfterIter func(Position) error

	reg     *framework.Registry
	src     *rand.PCG // Rand's source (its state goes into checkpoints)
	resume  *Position // set by LoadCheckpoint: Fit continues from there
	piloted bool      // the response's pilot ran (framework.Piloted): the schedule's progress is Stage 2
	corpus  *framework.Corpus
	warm    bool // WarmStart: no classifier start
	// marks: the annotators' start marked these in the run's first pass
	// (framework.Rewarmer): the run was built again with them handed to
	// the annotators' Init (Setup.Marks), and pass is where the first
	// pass ended (rewarm). nil: the first pass.
	marks []int32
	pass  passOffset

	// globals: built by BuildGlobals, without the documents (corpus has
	// none; docs is their number, fetch reads the seeded start's).
	globals bool
	docs    int
	fetch   func(idx []int) ([]framework.Doc, error)
}

// NewRand is the run's random source for a seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, randStream)) }

const randStream = 0x6d61736c6461

// components builds the configured plug-ins through reg and initialises
// them with setup.
func components(cfg *Config, reg *framework.Registry, setup *framework.Setup) (framework.Likelihood, framework.NoiseModel, framework.Schedule, error) {
	if err := cfg.Check(reg); err != nil {
		return nil, nil, nil, err
	}
	var (
		resp  framework.Likelihood
		noise framework.NoiseModel
		err   error
	)
	if cfg.Response != nil {
		if resp, err = reg.Likelihood(cfg.Response.Name, cfg.Response.Params); err != nil {
			return nil, nil, nil, at(cfg.Response, err)
		}
		rs := *setup
		rs.Marks = nil // the annotators' (framework.Rewarmer)
		if err = resp.Init(&rs); err != nil {
			return nil, nil, nil, at(cfg.Response, fmt.Errorf("response %q: %w", cfg.Response.Name, err))
		}
	}
	if cfg.Annotators != nil {
		if noise, err = reg.Noise(cfg.Annotators.Name, cfg.Annotators.Params); err != nil {
			return nil, nil, nil, at(cfg.Annotators, err)
		}
		if err = noise.Init(setup); err != nil {
			return nil, nil, nil, at(cfg.Annotators, fmt.Errorf("annotators %q: %w", cfg.Annotators.Name, err))
		}
	}
	sched, err := reg.Schedule(cfg.Inference.Name, cfg.Inference.Params)
	if err != nil {
		return nil, nil, nil, at(&cfg.Inference, err)
	}
	if ff, ok := resp.(framework.FixedFeatures); ok && ff.FixedFeatures() {
		if _, ok := sched.(framework.PhasedSchedule); !ok {
			where := &cfg.Inference
			if where.Where == "" {
				where = cfg.Response
			}
			return nil, nil, nil, at(where, fmt.Errorf("%w: response %q fits φ̄ as fixed features (the topics never see the target), which needs inference %q (topics first, then the response on frozen φ), not %q",
				framework.ErrIncompatible, cfg.Response.Name, optim.TwoStageName, cfg.Inference.Name))
		}
	}
	return resp, noise, sched, nil
}

// at prefixes err with the file:line of the component's block unless the
// message already names it (HCL diagnostics do).
func at(c *Component, err error) error { return c.At(err) }

// At prefixes err with the file:line of the component's block unless the
// message already names it (HCL diagnostics do), for errors of code that
// builds the component itself (the command line does, to look at the
// response's kind of target before Build).
func (c *Component) At(err error) error {
	if err == nil || c.Where == "" || strings.Contains(err.Error(), c.Where) {
		return err
	}
	return fmt.Errorf("%s: %w", c.Where, err)
}

// Build assembles the configured model over a training corpus, drawing the
// initial topics from the configured seed. reg nil means framework.Default.
func Build(cfg *Config, reg *framework.Registry, c *framework.Corpus) (*Run, error) {
	if reg == nil {
		reg = framework.Default
	}
	if err := checkResolved(cfg); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if cfg.Response == nil && c.Answers != nil {
		c = &framework.Corpus{Docs: c.Docs, V: c.V, Vocab: c.Vocab} // plain LDA ignores answers
	}
	if err := CheckMemory(runMemory(cfg, reg, c.V, c)); err != nil {
		return nil, err
	}
	src := rand.NewPCG(cfg.Seed, randStream)
	r := &Run{Config: cfg, Rand: rand.New(src), src: src, reg: reg, corpus: c}
	if c.Answers != nil {
		r.Classes, r.Annotators = c.Answers.Classes, c.Answers.Annotators
	}
	return r.finish()
}

// checkResolved refuses a configuration whose select block has no chosen
// candidate.
func checkResolved(cfg *Config) error {
	if cfg.Unresolved() {
		return fmt.Errorf("%w: %s: the configuration's select block has candidates %s and none is chosen: Choose picks one (maslda train does), or write selected = \"NAME\"", framework.ErrBadInput, cfg.Select.Where, strings.Join(cfg.Select.Candidates, ", "))
	}
	return nil
}

// finish assembles r's model and schedule (Build and BuildGlobals).
func (r *Run) finish() (*Run, error) {
	m, sched, err := r.assemble()
	if err != nil {
		return nil, err
	}
	if cfg := r.Config; cfg.RestartsDefault && m.mayWeigh() {
		// A response with a supervision weight reshapes the topics
		// (MA-sLDAr): from plain LDA's best topics it predicted the movie
		// reviews worse (docs/results-regression.md), so its default is
		// one start.
		c := *cfg
		c.Restarts, r.Config = 1, &c
	}
	clamped, _ := m.Noise.(interface{ ClampedTruth() bool })
	if cfg := r.Config; cfg.ConsensusDefault && (r.Classes == nil || m.mayWeigh() || r.globals || clamped != nil && clamped.ClampedTruth()) {
		// The default consensus is for a class truth that the fit
		// infers (on regression the seeds agree:
		// docs/results-regression.md; the "perfect" annotator clamps
		// it to the answers); an engine's driver runs one fit.
		c := *cfg
		c.Consensus, r.Config = 1, &c
	}
	if n := r.Config.Consensus; n > 1 && !r.globals {
		// fitConsensus keeps every fit until it has chosen.
		mem := runMemory(r.Config, r.reg, r.corpus.V, r.corpus)
		mem.Topics *= float64(n)
		mem.PerDoc *= float64(n)
		if err := CheckMemory(mem); err != nil {
			return nil, fmt.Errorf("consensus = %d keeps %d fits (consensus = 1: one): %w", n, n, err)
		}
	}
	r.Model, r.Schedule = m, sched
	return r, nil
}

// CorpusInfo is what a run built without its documents (BuildGlobals)
// is told of its training corpus: everything the components' Init reads.
type CorpusInfo struct {
	Docs    int                // the number of training documents (≥ 1)
	V       int                // the vocabulary size
	Vocab   []string           // the terms (len V), or nil
	Answers *framework.Answers // the training answers (ByDoc of length Docs), or nil
	// Fetch returns the documents of the given indices, in that order
	// (repeats included): the "seeded" initial topics (the default) read
	// 3·K of them (topics.Layer.InitFrom). nil refuses init "seeded".
	Fetch func(idx []int) ([]framework.Doc, error)
}

// BuildGlobals assembles the configured model as Build does over a
// corpus described by info, without holding its documents or any
// per-document state (γ, q(target), the φ store, the softmax's store):
// the driver of an engine (issue 26), whose memory is then that of the
// globals, O(K·V), plus the answers. Its globals, and after Update on the
// same statistics its bounds, are those of Build over the corpus bit for
// bit; Snapshot, LoadSnapshot, Update, ELBO, Combine, SumLayout and
// SaveAtomic work. The model's E-step fails (no training corpus): an
// engine runs Model.ShardEStep on the documents instead. Fit and
// checkpoints refuse the run (ErrIncompatible).
func BuildGlobals(cfg *Config, reg *framework.Registry, info CorpusInfo) (*Run, error) {
	if reg == nil {
		reg = framework.Default
	}
	if err := checkResolved(cfg); err != nil {
		return nil, err
	}
	if info.Docs < 1 {
		return nil, fmt.Errorf("%w: %d training documents, want ≥ 1", framework.ErrBadInput, info.Docs)
	}
	if cfg.Consensus > 1 && !cfg.ConsensusDefault {
		return nil, fmt.Errorf("%w: %s: consensus = %d: an engine's driver trains one fit; train each seed with consensus = 1 (or use maslda train)", framework.ErrIncompatible, cfg.SourceName, cfg.Consensus)
	}
	c := &framework.Corpus{V: info.V, Vocab: info.Vocab}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if cfg.Response != nil {
		c.Answers = info.Answers // plain LDA ignores answers
	}
	if c.Answers != nil {
		if err := c.Answers.Check(info.Docs); err != nil {
			return nil, err
		}
	}
	if err := CheckMemory(runMemory(cfg, reg, c.V, nil)); err != nil {
		return nil, err
	}
	src := rand.NewPCG(cfg.Seed, randStream)
	r := &Run{Config: cfg, Rand: rand.New(src), src: src, reg: reg, corpus: c, globals: true, docs: info.Docs, fetch: info.Fetch}
	if c.Answers != nil {
		r.Classes, r.Annotators = c.Answers.Classes, c.Answers.Annotators
	}
	return r.finish()
}

// errGlobals is the error of what a run built by BuildGlobals cannot do.
func (r *Run) errGlobals(what string) error {
	return fmt.Errorf("%w: %s: the run was built without its documents (BuildGlobals): its E-step runs on an engine", framework.ErrIncompatible, what)
}

// assemble builds and initialises a model, drawing from r.Rand.
func (r *Run) assemble() (*Model, framework.Schedule, error) {
	cfg, c := r.Config, r.corpus
	layer, err := topics.NewWorkers(cfg.Topics, c.V, workerCount(cfg.Workers)) // its fills and Init's Refresh on the workers
	if err != nil {
		return nil, nil, err
	}
	D := len(c.Docs)
	if r.globals {
		D = r.docs
		fetch := r.fetch
		if fetch == nil {
			if cfg.Topics.Init == "seeded" {
				return nil, nil, fmt.Errorf("%w: topics init = \"seeded\" reads documents, and the run has no way to fetch them (CorpusInfo.Fetch)", framework.ErrIncompatible)
			}
			fetch = func([]int) ([]framework.Doc, error) { return nil, nil }
		}
		if err := layer.InitFrom(D, fetch, r.Rand); err != nil {
			return nil, nil, err
		}
	} else {
		layer.Init(c, r.Rand)
	}
	setup := &framework.Setup{K: cfg.Topics.K, V: c.V, Corpus: c, Docs: D, Rand: r.Rand, Classes: r.Classes, Annotators: r.Annotators, Marks: r.marks}
	resp, noise, sched, err := components(cfg, r.reg, setup)
	if err != nil {
		return nil, nil, err
	}
	mc := c
	if r.globals {
		mc = nil
	}
	m, err := NewModel(layer, resp, noise, mc, cfg.Workers)
	if err != nil {
		return nil, nil, err
	}
	if r.globals {
		if err := m.setGlobals(D, c.Answers != nil); err != nil {
			return nil, nil, err
		}
	}
	if st, ok := noise.(framework.Starter); ok && st.StartIters() > 0 {
		if df, ok := resp.(framework.DocumentFree); ok && df.IgnoresDocuments() {
			return nil, nil, at(cfg.Annotators, fmt.Errorf("%w: annotators %q start from the model's own classifier after %d passes, but response %q ignores the documents and cannot classify them: choose another start (for the confusion annotators, init = \"majority\" or \"uniform\")", framework.ErrIncompatible, cfg.Annotators.Name, st.StartIters(), cfg.Response.Name))
		}
	}
	if sv, ok := sched.(*optim.SVI); ok && sv.BatchTokens > 0 {
		// Mini-batches of batch_tokens tokens (optim.SVI.SizeByTokens).
		if r.globals {
			return nil, nil, at(&cfg.Inference, fmt.Errorf("%w: inference %q: batch_tokens needs the corpus's tokens, and the run is built without its documents", framework.ErrIncompatible, cfg.Inference.Name))
		}
		sv.SizeByTokens(D, c.Tokens())
	}
	if mc, ok := sched.(framework.ModelChecker); ok {
		if err := mc.CheckModel(m); err != nil {
			return nil, nil, at(&cfg.Inference, fmt.Errorf("inference %q: %w", cfg.Inference.Name, err))
		}
	}
	return m, sched, nil
}

// starting drives a framework.Starter (see there) through the schedule's
// observer: after start_iters full passes over the corpus it predicts every
// training document from the topics alone and restarts the annotators from
// those predictions. The bound drops once there (a re-initialisation), so
// the progress before it is reported as Stage 1 and after it as Stage 2;
// each stage is monotone under batch EM.
type starting struct {
	r          *Run
	st         framework.Starter
	obs        framework.Observer
	n, D       int // passes before the start (startPasses), documents
	seen       int
	started    bool
	tuned      bool // the response re-chose a hyperparameter (framework.Tuner): the third run
	relabelled int  // the relabelled twin's runs (relabel): 1 the fit run on (Stage 4), 2 the twin (Stage 5)
	// iter and epoch offset the progress of a second schedule run (see fit);
	// elapsed the time of the relabelled twin's runs (relabel).
	iter, epoch int
	elapsed     time.Duration
}

// newStarting is nil without a Starter, under a phased schedule, with
// start_iters 0 or after a WarmStart.
func (r *Run) newStarting(obs framework.Observer) *starting {
	st, ok := r.Model.Noise.(framework.Starter)
	if !ok || st.StartIters() <= 0 || r.warm {
		return nil
	}
	if _, phased := r.Schedule.(framework.PhasedSchedule); phased {
		return nil
	}
	return &starting{r: r, st: st, obs: obs, n: startPasses(st, r.Schedule, r.Model.NumDocs()), D: r.Model.NumDocs()}
}

// startPasses is the number of passes before the start: StartIters, or
// under a schedule of several updates a pass (an epoch of SVI's
// mini-batches: UpdatesPerEpoch) for a framework.UpdateStarter the first
// pass by whose end StartUpdates updates were made, when that is earlier.
func startPasses(st framework.Starter, sched framework.Schedule, docs int) int {
	n := st.StartIters()
	us, ok := st.(framework.UpdateStarter)
	ps, ok2 := sched.(interface{ UpdatesPerEpoch(d int) int })
	if !ok || !ok2 || us.StartUpdates() <= 0 {
		return n
	}
	if per := ps.UpdatesPerEpoch(docs); per > 1 {
		n = min(n, max(1, (us.StartUpdates()+per-1)/per))
	}
	return n
}

func (s *starting) observe(ctx context.Context) framework.Observer {
	return func(p framework.Progress) error {
		p.Iter += s.iter
		p.Epoch += s.epoch
		p.Elapsed += s.elapsed
		if s.relabelled > 0 {
			p.Stage = 3 + s.relabelled
		} else if s.tuned {
			p.Stage = 3
		} else if s.started {
			p.Stage = 2
		} else {
			p.Stage = 1
		}
		if s.obs != nil {
			if err := s.obs(p); err != nil {
				return err
			}
		}
		if s.started || p.Epoch < s.n {
			return nil
		}
		if s.seen += p.Docs; s.seen < s.D && p.Epoch == s.n {
			return nil // the last pass before the start is not over yet
		}
		return s.start(ctx)
	}
}

func (s *starting) start(ctx context.Context) error {
	s.started = true
	preds, err := s.r.Model.Predict(ctx, s.r.Model.Corpus())
	if err != nil {
		return err
	}
	targets := make([]framework.Target, len(preds))
	for i, q := range preds {
		targets[i] = q.Target
	}
	if err := s.st.StartFrom(targets); err != nil {
		return err
	}
	if rw, ok := s.st.(framework.Rewarmer); ok {
		if marks := rw.Rewarm(); marks != nil {
			return &rewarmed{marks: marks}
		}
	}
	return nil
}

// started2 runs the schedule with the start in its observer. If the schedule
// converges before start_iters passes, the start happens then and the
// schedule runs once more from the restarted annotators, its progress
// numbered on from the first run's. A schedule that runs out of iterations
// first (max_iters < start_iters) ends without the start: the caller asked
// for that few. from (nil: the beginning) is a checkpoint's position.
func (s *starting) started2(ctx context.Context, from *Position) (*framework.Result, error) {
	r := s.r
	var (
		res *framework.Result
		err error
	)
	if from != nil {
		s.started, s.seen = from.Started, from.Seen
	}
	if from != nil && from.Second {
		s.iter, s.epoch = from.IterOffset, from.EpochOffset
		res = &framework.Result{Iters: s.iter, Epochs: s.epoch, Converged: true}
	} else {
		res, err = r.schedule(ctx, s.observe(ctx), from, s.after(false))
		if err != nil || s.started || !res.Converged {
			return res, err
		}
		if err := s.start(ctx); err != nil {
			return res, err
		}
		s.iter, s.epoch = res.Iters, res.Epochs
		from = nil
	}
	res2, err := r.schedule(ctx, s.observe(ctx), from, s.after(true))
	if res2 != nil {
		res2.Iters += res.Iters
		res2.Epochs += res.Epochs
		res2.Elapsed += res.Elapsed
	}
	return res2, err
}

// fit runs started2 (see there) and then, when the response is a
// framework.Tuner and the run converged, lets it re-choose its
// hyperparameter from the training documents' φ̄ predicted by the topics
// alone; when that changes it, the schedule runs once more from there
// (Stage 3), its progress numbered on. A checkpoint of that run resumes
// in it (Position.Tuned), without a second choice.
func (s *starting) fit(ctx context.Context, from *Position) (*framework.Result, error) {
	r := s.r
	if from != nil && from.Tuned {
		s.started, s.seen, s.tuned = true, from.Seen, true
		s.iter, s.epoch = from.IterOffset, from.EpochOffset
		return s.third(ctx, from, &framework.Result{Iters: s.iter, Epochs: s.epoch})
	}
	res2, err := s.started2(ctx, from)
	if err != nil || res2 == nil || !res2.Converged {
		return res2, err
	}
	tu, ok := r.Model.Response.(framework.Tuner)
	if !ok {
		return res2, nil
	}
	preds, err := r.Model.Predict(ctx, r.Model.Corpus())
	if err != nil {
		return res2, err
	}
	bars := make([][]float64, len(preds))
	for i, p := range preds {
		bars[i] = p.PhiBar
	}
	changed, err := tu.Tune(ctx, bars, r.Model.evidence())
	if err != nil || !changed {
		return res2, err
	}
	s.tuned = true
	s.iter, s.epoch = res2.Iters, res2.Epochs
	return s.third(ctx, nil, res2)
}

// evidence is every training document's annotator message (for a
// framework.Tuner): NoiseModel.Evidence onto a zero target, nil for a
// document without answers or a model without annotators or categorical
// targets.
func (m *Model) evidence() [][]float64 {
	c := m.Corpus()
	out := make([][]float64, len(c.Docs))
	if m.Noise == nil || m.Response == nil || c.Answers == nil {
		return out
	}
	ds := &framework.DocState{K: m.Topics.K}
	for i := range c.Docs {
		if i >= len(c.Answers.ByDoc) || len(c.Answers.ByDoc[i]) == 0 {
			continue
		}
		t, ok := m.Response.NewTarget().(*framework.Categorical)
		if !ok {
			return out
		}
		ds.Index, ds.Doc, ds.Answers, ds.Target = i, &c.Docs[i], c.Answers.ByDoc[i], t
		t.Reset()
		m.Noise.Evidence(ds)
		out[i] = append([]float64(nil), t.Log...)
	}
	return out
}

// third runs the schedule after the response's choice (from: a checkpoint
// of that run, or nil), its result added to before's.
func (s *starting) third(ctx context.Context, from *Position, before *framework.Result) (*framework.Result, error) {
	res3, err := s.r.schedule(ctx, s.observe(ctx), from, s.after(true))
	if res3 != nil {
		res3.Iters += before.Iters
		res3.Epochs += before.Epochs
		res3.Elapsed += before.Elapsed
	}
	return res3, err
}

// after is the schedule's hook for Run.AfterIter (nil without one).
func (s *starting) after(second bool) func(Position) error {
	if s.r.AfterIter == nil {
		return nil
	}
	return func(p Position) error {
		p.Pilot = s.r.piloted
		p.Iter += s.iter
		p.Second, p.Started, p.Seen, p.IterOffset, p.EpochOffset, p.Tuned = second, s.started, s.seen, s.iter, s.epoch, s.tuned
		return s.r.AfterIter(s.r.position(p))
	}
}

// schedule runs the configured schedule on the run's model: the batch,
// SVI or two-stage schedule from the position from (nil: the start) with the hook after
// (which may be nil; it gets the schedule's part of the position, Iter
// counting this run of the schedule), any other schedule from its start
// (which checkpointing refuses beforehand).
func (r *Run) schedule(ctx context.Context, obs framework.Observer, from *Position, after func(Position) error) (*framework.Result, error) {
	switch s := r.Schedule.(type) {
	case *optim.Batch:
		var bs optim.BatchState
		if from != nil {
			bs = from.batch()
		}
		var hook func(optim.BatchState) error
		if after != nil {
			hook = func(bs optim.BatchState) error { return after(newPosition(bs)) }
		}
		return s.FitFrom(ctx, r.Model, obs, bs, hook)
	case *optim.SVI:
		var st *optim.SVIState
		if from != nil {
			if st = from.SVI; st == nil {
				return nil, fmt.Errorf("%w: the checkpoint has no SVI state (written under another schedule?)", framework.ErrBadInput)
			}
		}
		var hook func(*optim.SVIState) error
		if after != nil {
			hook = func(st *optim.SVIState) error {
				c := *st
				c.Perm = slices.Clone(st.Perm)
				return after(Position{Iter: c.Updates, BatchIter: c.Updates, Elapsed: c.Elapsed, SVI: &c})
			}
		}
		return s.FitFrom(ctx, r.Model, r.Rand, obs, st, hook)
	case *optim.TwoStage:
		var ts *optim.TwoStageState
		if from != nil {
			if from.Stage == 0 {
				return nil, fmt.Errorf("%w: the checkpoint has no two-stage state (written under another schedule?)", framework.ErrBadInput)
			}
			ts = &optim.TwoStageState{Stage: from.Stage, Done: from.StageDone, Converged1: from.Converged1, Batch: from.batch()}
		}
		var hook func(optim.TwoStageState) error
		if after != nil {
			hook = func(ts optim.TwoStageState) error {
				p := newPosition(ts.Batch)
				p.Iter += ts.Done
				p.Stage, p.StageDone, p.Converged1 = ts.Stage, ts.Done, ts.Converged1
				return after(p)
			}
		}
		return s.FitFrom(ctx, r.Model, obs, ts, hook)
	}
	if after != nil || from != nil {
		return nil, r.checkpointable()
	}
	return r.Schedule.Fit(ctx, r.Model, r.Rand, obs)
}

// BatchFit runs batch EM (b's iterations and tolerance) on run's model,
// obs (may be nil) seeing every iteration; an error from obs ends it with
// that error. Prepare takes one: an engine's runs the E-steps on its
// workers (the Beam driver: docs/design.md, "Beyond one machine"); nil
// is in process (optim.Batch.Fit on the model).
type BatchFit func(ctx context.Context, run *Run, b *optim.Batch, obs framework.Observer) (*framework.Result, error)

// Prepare runs what Fit runs before the configured schedule: the restarts
// (Config.Restarts > 1: restart_iters batch iterations from each
// candidate, the best bound kept in r.Model; RestartELBOs) and then the
// response's pilot (framework.Piloted), every batch EM through fit (nil:
// in process; a candidate's run is a copy of r whose Model is the
// candidate). Afterwards the schedule's first E-step starts every
// document afresh after a pilot or the restarts of a model with a
// response (plain LDA in the restart phase), and from the best
// candidate's per-document state (γ) after the restarts of a model
// without one. It returns the observer of the schedule that follows
// (Stage 2 after a pilot). For an engine's driver (a run of
// BuildGlobals, which Fit refuses): run the schedule on r.Model after
// it. The annotators' classifier start
// (framework.Starter), which runs during the schedule, is not part of
// it.
func (r *Run) Prepare(ctx context.Context, obs framework.Observer, fit BatchFit) (framework.Observer, error) {
	return r.PrepareWith(ctx, obs, fit, nil)
}

// PrepareHooks let an engine checkpoint Prepare between the restarts'
// candidates and resume it (PrepareWith).
type PrepareHooks struct {
	// Candidate, when set, is called after each candidate's batch EM with
	// its number (from 1), its run (whose globals are the candidate's
	// after it) and the bounds of the candidates so far (RestartELBOs);
	// the engine keeps what Restore will need.
	Candidate func(i int, cand *Run, elbos []float64) error
	// Done, when not empty, are the bounds of the candidates an earlier
	// Prepare finished (its Candidate's elbos): those candidates are
	// assembled again, drawing from the run's random source as they did,
	// but not trained; Restore(i, cand) must give the best of them (the
	// first of the greatest bound) the globals it had after its batch EM.
	Done    []float64
	Restore func(i int, cand *Run) error
}

// PrepareWith is Prepare with hooks (nil: none): the restarts resumed
// after the candidates an earlier run finished, and a hook after each.
// The pilot is run whole.
func (r *Run) PrepareWith(ctx context.Context, obs framework.Observer, fit BatchFit, h *PrepareHooks) (framework.Observer, error) {
	if fit == nil && r.globals {
		return nil, r.errGlobals("Prepare in process")
	}
	return r.prepare(ctx, obs, fit, h)
}

func (r *Run) prepare(ctx context.Context, obs framework.Observer, fit BatchFit, h *PrepareHooks) (framework.Observer, error) {
	if h == nil {
		h = &PrepareHooks{}
	}
	if fit == nil {
		fit = func(ctx context.Context, run *Run, b *optim.Batch, obs framework.Observer) (*framework.Result, error) {
			return b.Fit(ctx, run.Model, run.Rand, obs)
		}
	}
	if n := r.Restarts(); n > 1 {
		ps, phased := r.Schedule.(framework.PhasedSchedule)
		best, bestELBO := r.Model, math.Inf(-1)
		if len(h.Done) > n || len(h.Done) > 0 && h.Restore == nil {
			return nil, fmt.Errorf("%w: %d restart candidates done of %d (or nothing to restore them)", framework.ErrBadInput, len(h.Done), n)
		}
		// The best of the candidates done, by the rule below (candidate 1,
		// the run's model, when no bound beats −∞).
		doneBest, doneELBO := 1, math.Inf(-1)
		for i, e := range h.Done {
			if e > doneELBO {
				doneBest, doneELBO = i+1, e
			}
		}
		for i := 1; i <= n; i++ {
			m := r.Model
			if i > 1 {
				var err error
				if m, _, err = r.assemble(); err != nil {
					return nil, err
				}
			}
			if phased {
				if err := m.SetPhase(ps.FirstPhase()); err != nil {
					return nil, err
				}
			} else if m.Response != nil {
				m.setRestartPhase(true)
			}
			b := &optim.Batch{MaxIters: r.Config.RestartIts, Tol: 0}
			cand := r
			if m != r.Model {
				c := *r
				c.Model = m
				cand = &c
			}
			if i <= len(h.Done) {
				e := h.Done[i-1]
				r.RestartELBOs = append(r.RestartELBOs, e)
				if i == doneBest {
					if err := h.Restore(i, cand); err != nil {
						return nil, err
					}
					best, bestELBO = m, doneELBO
				}
				continue
			}
			res, err := fit(ctx, cand, b, func(p framework.Progress) error {
				p.Restart = i
				if obs != nil {
					return obs(p)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			r.RestartELBOs = append(r.RestartELBOs, res.ELBO)
			if res.ELBO > bestELBO {
				best, bestELBO = m, res.ELBO
			}
			if h.Candidate != nil {
				if err := h.Candidate(i, cand, r.RestartELBOs); err != nil {
					return nil, err
				}
			}
		}
		r.Model = best
		if !phased && best.Response != nil {
			best.setRestartPhase(false)
		}
	}
	return r.pilot(ctx, obs, fit)
}

// Restarts is the number of restart candidates of the run's pass (what
// Prepare runs; an engine that runs them itself reads it here):
// Config.Restarts, and one in a second pass (a run built with the marks
// of its first pass's annotators' start, Run.rewarm): the first pass has
// chosen among them already, and a second choice costs as many restart
// iterations again (on issue 27's many-annotators shape, 80 of the 95
// iterations of a 15-iteration run).
func (r *Run) Restarts() int {
	if r.marks != nil {
		return 1
	}
	return r.Config.Restarts
}

// errPilotDone stops the pilot's batch EM when PilotDone.
var errPilotDone = errors.New("pilot done")

// pilot runs a framework.Piloted response's pilot (the gaussian's exact
// pilot) when it has one: batch EM on the model, at most PilotIters
// iterations and until PilotDone (Progress.Stage 1), then EndPilot, the topic layer back to its state
// before the pilot (Model.restartTopics) and the model's weight re-read.
// It returns the observer of what follows, which reports Stage 2; without
// a pilot, obs itself. A run resumed from a checkpoint is past it.
func (r *Run) pilot(ctx context.Context, obs framework.Observer, fit BatchFit) (framework.Observer, error) {
	p, ok := r.Model.Response.(framework.Piloted)
	if !ok || p.PilotIters() <= 0 {
		return obs, nil
	}
	if _, phased := r.Schedule.(framework.PhasedSchedule); phased {
		return obs, nil
	}
	zeta0 := append([]float64(nil), r.Model.Topics.Zeta...)
	b := &optim.Batch{MaxIters: p.PilotIters(), Tol: 0}
	h, holds := p.(framework.CrowdHolder)
	if holds = holds && h.WillHoldCrowd(); holds {
		// The crowd's posterior is the pilot's for good: run it until the
		// exact bound converges.
		b.MinIters, b.Tol = r.pilotTest()
	}
	if _, err := fit(ctx, r, b, func(pr framework.Progress) error {
		pr.Stage = 1
		if obs != nil {
			if err := obs(pr); err != nil {
				return err
			}
		}
		if !holds && p.PilotDone() {
			return errPilotDone
		}
		return nil
	}); err != nil && !errors.Is(err, errPilotDone) {
		return nil, err
	}
	if err := p.EndPilot(); err != nil {
		return nil, fmt.Errorf("response: %w", err)
	}
	if err := r.Model.restartTopics(zeta0); err != nil {
		return nil, err
	}
	r.piloted = true
	return stage2(obs), nil
}

// pilotTest is the convergence test of a pilot that runs until the exact
// bound converges (framework.CrowdHolder): optim.DefaultBatch's min_iters
// and tol (relative change 1e-5), whatever the schedule, so that the
// pilot, and the crowd it holds, is the same under batch EM and SVI.
func (r *Run) pilotTest() (minIters int, tol float64) {
	d := optim.DefaultBatch()
	return d.MinIters, d.Tol
}

// stage2 is obs reporting Stage 2 where the schedule reports none (the
// schedule after a pilot); nil for nil.
func stage2(obs framework.Observer) framework.Observer {
	if obs == nil {
		return nil
	}
	return func(pr framework.Progress) error {
		if pr.Stage == 0 {
			pr.Stage = 2
		}
		return obs(pr)
	}
}

// Fit trains. With restarts > 1 it first runs restart_iters batch EM
// iterations from each of `restarts` initialisations (the first is the one
// Build drew) and keeps the candidate with the highest ELBO; then it runs the
// configured schedule on that candidate. Under a schedule with phases
// (framework.PhasedSchedule: "two-stage") the candidates run in the
// schedule's first phase (PhaseTopics: plain LDA, so the restarts pick
// topics as LDA's would). obs (may be nil) sees every update, the restart
// phase with Progress.Restart set to the candidate's number. An annotator
// model that is a framework.Starter is restarted from the model's own
// classifier during the schedule (starting). A response that is a
// framework.Piloted runs its pilot first (pilot), after the restarts.
// The restarts and the pilot are Prepare's, with batch EM in process.
//
// With consensus = N ≥ 2 it fits the run N times, from seeds Seed, …,
// Seed+N−1, and keeps the medoid of their truths (fitConsensus).
func (r *Run) Fit(ctx context.Context, obs framework.Observer) (*framework.Result, error) {
	if r.globals {
		return nil, r.errGlobals("Fit")
	}
	if n := r.Config.Consensus; n > 1 && !r.warm {
		return r.fitConsensus(ctx, obs, n)
	}
	return r.fitOne(ctx, obs)
}

// fitOne is Fit from the run's own seed.
func (r *Run) fitOne(ctx context.Context, obs framework.Observer) (*framework.Result, error) {
	if r.AfterIter != nil || r.resume != nil {
		if err := r.checkpointable(); err != nil {
			return nil, err
		}
	}
	var (
		res  *framework.Result
		err  error
		last framework.Progress
	)
	for {
		res, err = r.fitPass(ctx, r.pass.observer(obs, &last))
		var rw *rewarmed
		if !errors.As(err, &rw) {
			break
		}
		// The start marked annotators (framework.Rewarmer): the second
		// pass, from the beginning (rewarm.go).
		if err = r.rewarm(rw.marks, last); err != nil {
			res = nil
			break
		}
	}
	if res != nil && r.marks != nil {
		res.Iters += r.pass.Iter
		res.Epochs += r.pass.Epoch
		res.Elapsed += r.pass.Elapsed
	}
	r.resume = nil
	r.Result = res
	r.Model.exactBufs, r.Model.spareTopics = nil, nil // the exact E-step's buffers (K×V sums per worker) are not kept after training
	return res, err
}

// fitPass is one pass of Fit (see there): from r.resume, or the restarts
// and the pilot and then the schedule, with the annotators' start and
// the relabelled twin. It ends early with a *rewarmed error when the
// start marked annotators (framework.Rewarmer).
func (r *Run) fitPass(ctx context.Context, obs framework.Observer) (*framework.Result, error) {
	if r.resume == nil {
		var err error
		if obs, err = r.prepare(ctx, obs, nil, nil); err != nil {
			return nil, err
		}
	} else if r.resume.Pilot {
		r.piloted = true
		obs = stage2(obs)
	}
	if s := r.newStarting(obs); s != nil {
		from := r.resume
		r.resume = nil
		res, err := s.fit(ctx, from)
		if err == nil {
			res, err = s.relabel(ctx, res)
		}
		return res, err
	}
	var after func(Position) error
	if r.AfterIter != nil {
		after = func(p Position) error {
			p.Pilot = r.piloted
			return r.AfterIter(r.position(p))
		}
	}
	from := r.resume
	r.resume = nil
	return r.schedule(ctx, obs, from, after)
}
