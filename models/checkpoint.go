package models

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// CheckpointFormat identifies a checkpoint directory (checkpoint.json);
// CheckpointVersion is bumped on any incompatible change.
const (
	CheckpointFormat  = "maslda-checkpoint"
	CheckpointVersion = 2
)

// ErrNoCheckpoint marks a run that cannot be checkpointed or resumed.
var ErrNoCheckpoint = errors.New("checkpoints unsupported")

// Position is where Fit stands after an iteration (Run.AfterIter): with
// the run's state, what a resumed Fit needs to continue exactly as the
// uninterrupted run.
type Position struct {
	Iter      int           `json:"iter"`       // updates done, numbered as in history.csv
	BatchIter int           `json:"batch_iter"` // iterations (SVI: updates) done by the current run of the schedule
	Prev      float64       `json:"-"`          // its convergence state (optim.BatchState)
	PrevScale float64       `json:"-"`
	PrevPart  float64       `json:"-"` // optim.BatchState.PrevPart
	Elapsed   time.Duration `json:"elapsed_ns"`

	// SVI is the SVI schedule's state (nil under batch EM): its epoch,
	// the epoch's permutation and where in it the next mini-batch starts,
	// the epoch's ELBO estimates so far and the previous epoch's mean. ρ_t
	// follows from the update count; the random source (Run.Rand, from
	// which each epoch's shuffle draws) is saved with every checkpoint.
	SVI *optim.SVIState `json:"-"`

	// The annotators' classifier start (framework.Starter), when there is one.
	Started     bool `json:"started,omitempty"`      // it has happened
	Seen        int  `json:"seen,omitempty"`         // documents seen in the pass before it
	Second      bool `json:"second,omitempty"`       // in the second run of the schedule (it converged before the start)
	IterOffset  int  `json:"iter_offset,omitempty"`  // the first run's iterations (Second)
	EpochOffset int  `json:"epoch_offset,omitempty"` // and epochs
	// Tuned: in the run after the response re-chose a hyperparameter
	// (framework.Tuner, Stage 3); IterOffset and EpochOffset are then the
	// runs' before it.
	Tuned bool `json:"tuned,omitempty"`

	// The two-stage schedule's stage (1 or 2; 0 under other schedules),
	// with stage 1's iterations and convergence once in stage 2; BatchIter,
	// Prev and PrevScale are then the stage's batch EM state.
	Stage      int  `json:"stage,omitempty"`
	StageDone  int  `json:"stage_done,omitempty"`
	Converged1 bool `json:"stage1_converged,omitempty"`

	// The response's pilot (framework.Piloted) ran before the schedule:
	// a resumed run skips it and reports Stage 2.
	Pilot bool `json:"pilot,omitempty"`

	// The annotators' start marked annotators in the run's first pass
	// (framework.Rewarmer) and this is the second: Marks (per annotator a
	// class, −1 for the others) were handed to the annotators' Init, and
	// the first pass ended after PassIter updates (numbered as in
	// history.csv, Iter includes them), PassEpoch epochs and PassElapsed.
	Marks       []int32       `json:"marks,omitempty"`
	PassIter    int           `json:"pass_iter,omitempty"`
	PassEpoch   int           `json:"pass_epoch,omitempty"`
	PassElapsed time.Duration `json:"pass_elapsed_ns,omitempty"`
}

func newPosition(bs optim.BatchState) Position {
	return Position{Iter: bs.Iter, BatchIter: bs.Iter, Prev: bs.Prev, PrevScale: bs.PrevScale, PrevPart: bs.PrevPart, Elapsed: bs.Elapsed}
}

func (p *Position) batch() optim.BatchState {
	return optim.BatchState{Iter: p.BatchIter, Prev: p.Prev, PrevScale: p.PrevScale, PrevPart: p.PrevPart, Elapsed: p.Elapsed}
}

// checkpointManifest is checkpoint.json.
type checkpointManifest struct {
	Format      string   `json:"format"`
	Version     int      `json:"version"`
	Fingerprint string   `json:"fingerprint"` // Run.Fingerprint of the run that wrote it
	Position    Position `json:"position"`
	// Floats as IEEE-754 bits (exact, and NaN survives).
	Prev         uint64            `json:"prev_bits"`
	PrevScale    uint64            `json:"prev_scale_bits"`
	PrevPart     uint64            `json:"prev_part_bits"`
	RestartELBOs []uint64          `json:"restart_elbo_bits,omitempty"`
	Rand         []byte            `json:"rand"` // the run's PCG state (MarshalBinary)
	SVI          *sviManifest      `json:"svi,omitempty"`
	Files        map[string]string `json:"files"`
	// Sum is the SHA-256 of the manifest itself (its JSON encoding with
	// Sum empty, manifestSum): version 2 on. The other files' checksums
	// are in Files; this one covers the position, the random source and
	// Files, so that an edited "started" or "elapsed_ns" is refused.
	Sum string `json:"sum"`
}

// manifestSum is the SHA-256 (hex) of man's JSON encoding with Sum empty.
// encoding/json writes struct fields in order and map keys sorted, so the
// encoding, hence the sum, is a function of the values.
func manifestSum(man checkpointManifest) (string, error) {
	man.Sum = ""
	b, err := json.Marshal(man)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// check refuses positions that no run writes (negative counts or time,
// a stage other than 0, 1, 2, an SVI state outside the corpus of D
// documents): checkpoint.json's own checksum is the first guard, this the
// second.
func (p *Position) check(D int, svi *sviManifest) error {
	switch {
	case p.Iter < 0 || p.BatchIter < 0 || p.BatchIter > p.Iter:
		return fmt.Errorf("position: iter %d, batch_iter %d: want 0 ≤ batch_iter ≤ iter", p.Iter, p.BatchIter)
	case p.Elapsed < 0:
		return fmt.Errorf("position: elapsed_ns %d is negative", int64(p.Elapsed))
	case p.Seen < 0 || p.Seen > D:
		return fmt.Errorf("position: seen %d, want 0 … %d (the documents)", p.Seen, D)
	case p.IterOffset < 0 || p.EpochOffset < 0 || p.IterOffset > p.Iter:
		return fmt.Errorf("position: iter_offset %d, epoch_offset %d: want 0 ≤ iter_offset ≤ iter and epoch_offset ≥ 0", p.IterOffset, p.EpochOffset)
	case (p.IterOffset != 0 || p.EpochOffset != 0) && !p.Second:
		return fmt.Errorf("position: iter_offset and epoch_offset are set but second is false")
	case p.Stage < 0 || p.Stage > 2 || p.StageDone < 0 || p.StageDone > p.Iter:
		return fmt.Errorf("position: stage %d, stage_done %d: want stage 0, 1 or 2 and 0 ≤ stage_done ≤ iter", p.Stage, p.StageDone)
	case p.PassIter < 0 || p.PassEpoch < 0 || p.PassElapsed < 0 || p.PassIter+p.BatchIter > p.Iter:
		return fmt.Errorf("position: pass_iter %d, pass_epoch %d, pass_elapsed_ns %d: want ≥ 0 and pass_iter + batch_iter ≤ iter", p.PassIter, p.PassEpoch, int64(p.PassElapsed))
	case (p.PassIter != 0 || p.PassEpoch != 0 || p.PassElapsed != 0) && p.Marks == nil:
		return fmt.Errorf("position: pass_iter, pass_epoch or pass_elapsed_ns set without marks")
	}
	if svi != nil {
		switch {
		case svi.Updates < 0 || svi.Epoch < 1 || svi.N < 0 || len(svi.Perm) != D || svi.Next < 0 || svi.Next > D:
			return fmt.Errorf("svi: updates %d, epoch %d, n %d, next %d, a permutation of %d: want a state of the run's %d documents", svi.Updates, svi.Epoch, svi.N, svi.Next, len(svi.Perm), D)
		}
		seen := make([]bool, D)
		for _, d := range svi.Perm {
			if d < 0 || d >= D || seen[d] {
				return fmt.Errorf("svi: perm is not a permutation of the documents 0 … %d", D-1)
			}
			seen[d] = true
		}
	}
	return nil
}

// sviManifest is Position.SVI in checkpoint.json (floats as IEEE-754 bits).
type sviManifest struct {
	Updates int    `json:"updates"`
	Epoch   int    `json:"epoch"`
	Next    int    `json:"next"`
	Sum     uint64 `json:"sum_bits"`
	N       int    `json:"n"`
	Prev    uint64 `json:"prev_bits"`
	Perm    []int  `json:"perm"`
}

func newSVIManifest(s *optim.SVIState) *sviManifest {
	if s == nil {
		return nil
	}
	return &sviManifest{Updates: s.Updates, Epoch: s.Epoch, Next: s.Next, Sum: math.Float64bits(s.Sum), N: s.N, Prev: math.Float64bits(s.Prev), Perm: s.Perm}
}

func (m *sviManifest) state(elapsed time.Duration) *optim.SVIState {
	if m == nil {
		return nil
	}
	return &optim.SVIState{Updates: m.Updates, Epoch: m.Epoch, Next: m.Next, Sum: math.Float64frombits(m.Sum), N: m.N, Prev: math.Float64frombits(m.Prev), Perm: m.Perm, Elapsed: elapsed}
}

// checkpointable says whether Fit can checkpoint and resume this run: the
// batch, SVI and two-stage schedules (not a schedule registered
// elsewhere, whose state Fit cannot see).
func (r *Run) checkpointable() error {
	if r.globals {
		return r.errGlobals("checkpoints")
	}
	switch r.Schedule.(type) {
	case *optim.Batch, *optim.SVI, *optim.TwoStage:
		return nil
	}
	return fmt.Errorf("%w: inference %q: checkpoints and resume work with the batch, SVI and two-stage schedules only (a schedule registered elsewhere keeps state Fit cannot see)", ErrNoCheckpoint, r.Config.Inference.Name)
}

// Checkpointable reports whether the run can be checkpointed and resumed
// (an error wrapping ErrNoCheckpoint saying why not).
func (r *Run) Checkpointable() error { return r.checkpointable() }

// Fingerprint identifies what determines the run's result: the
// configuration's text and seed, whether it was warm-started, the corpus
// (vocabulary size and terms, every document's id and words, the answers
// with their annotators and classes) and extra (strings the caller adds,
// e.g. a hash of the ground truth that history.csv scores). The number of
// workers is left out: results do not depend on it.
func (r *Run) Fingerprint(extra ...string) string {
	h := sha256.New()
	w := func(v any) { binary.Write(h, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); io.WriteString(h, s) }
	str("maslda-fingerprint-1")
	str(string(r.Config.Source))
	w(r.Config.Seed)
	w(r.warm)
	c := r.corpus
	w(uint64(c.V))
	w(uint64(len(c.Vocab)))
	for _, t := range c.Vocab {
		str(t)
	}
	w(uint64(len(c.Docs)))
	for i := range c.Docs {
		d := &c.Docs[i]
		str(d.ID)
		w(uint64(len(d.Words)))
		w(d.Words)
		w(d.Counts)
	}
	if a := c.Answers; a != nil {
		w(uint64(len(a.Annotators)))
		for _, s := range a.Annotators {
			str(s)
		}
		w(uint64(len(a.Classes)))
		for _, s := range a.Classes {
			str(s)
		}
		for _, as := range a.ByDoc {
			w(uint64(len(as)))
			for _, x := range as {
				w(x)
			}
		}
	}
	w(uint64(len(extra)))
	for _, s := range extra {
		str(s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// IsCheckpointDir is the Owner of checkpoints: dir holds a checkpoint.json
// of this format and nothing it does not list.
func IsCheckpointDir(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "checkpoint.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("no checkpoint.json: not a maslda checkpoint")
		}
		return err
	}
	var man checkpointManifest
	if err := json.Unmarshal(raw, &man); err != nil || man.Format != CheckpointFormat {
		return errors.New("its checkpoint.json is not a maslda checkpoint's")
	}
	return onlyListed(dir, "checkpoint", func(name string) bool {
		_, ok := man.Files[name]
		return ok || name == "checkpoint.json"
	})
}

// CheckpointFingerprint is the fingerprint recorded in dir's
// checkpoint.json (that of the run that wrote it; Run.Fingerprint).
func CheckpointFingerprint(dir string) (string, error) {
	mpath := filepath.Join(dir, "checkpoint.json")
	raw, err := os.ReadFile(mpath)
	if err != nil {
		return "", err
	}
	var man checkpointManifest
	if err := json.Unmarshal(raw, &man); err != nil || man.Format != CheckpointFormat {
		return "", framework.Errorf(mpath, 0, "not a maslda checkpoint's manifest")
	}
	return man.Fingerprint, nil
}

// SaveCheckpoint writes the run's complete state at position p (from
// Run.AfterIter) into dir, crash-atomically (PublishDir: dir holds the
// previous checkpoint or this one, whole): the topics (topics.bin), the
// parameters of the response and the annotators (response.params,
// annotators.params, their framework.Persister files) and their
// framework.Checkpointer state (response.state, annotators.state), every
// training document's state (state.bin: γ, q(target), the stored φ of
// warm starts and of the two-stage schedule), and checkpoint.json with the
// position, the random source, the restart phase's bounds, fingerprint and
// the SHA-256 of every file. extra (may be nil) adds files first, such as
// the history so far. dir may be absent, empty or a checkpoint.
func (r *Run) SaveCheckpoint(dir, fingerprint string, p Position, extra func(tmp string) error) error {
	if err := r.checkpointable(); err != nil {
		return err
	}
	return PublishDir(dir, IsCheckpointDir, func(tmp string) error {
		if extra != nil {
			if err := extra(tmp); err != nil {
				return err
			}
		}
		m := r.Model
		if err := writeFile(filepath.Join(tmp, "topics.bin"), func(w io.Writer) error { return writeZeta(w, m.Topics) }); err != nil {
			return err
		}
		for _, c := range checkpointComponents(m) {
			if p, ok := c.comp.(framework.Persister); ok {
				if err := writeFile(filepath.Join(tmp, c.name+".params"), p.SaveParams); err != nil {
					return err
				}
			}
			if p, ok := c.comp.(framework.Checkpointer); ok {
				if err := writeFile(filepath.Join(tmp, c.name+".state"), p.SaveState); err != nil {
					return err
				}
			}
		}
		if err := writeFile(filepath.Join(tmp, "state.bin"), m.saveState); err != nil {
			return err
		}
		rs, err := r.src.MarshalBinary()
		if err != nil {
			return err
		}
		man := checkpointManifest{Format: CheckpointFormat, Version: CheckpointVersion, Fingerprint: fingerprint, Position: p,
			Prev: math.Float64bits(p.Prev), PrevScale: math.Float64bits(p.PrevScale), PrevPart: math.Float64bits(p.PrevPart), Rand: rs, SVI: newSVIManifest(p.SVI)}
		for _, e := range r.RestartELBOs {
			man.RestartELBOs = append(man.RestartELBOs, math.Float64bits(e))
		}
		if man.Files, err = checksums(tmp); err != nil {
			return err
		}
		delete(man.Files, "checkpoint.json")
		if man.Sum, err = manifestSum(man); err != nil {
			return err
		}
		return writeFile(filepath.Join(tmp, "checkpoint.json"), func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(man)
		})
	})
}

type namedComponent struct {
	name string
	comp any
}

func checkpointComponents(m *Model) []namedComponent {
	var cs []namedComponent
	if m.Response != nil {
		cs = append(cs, namedComponent{"response", m.Response})
	}
	if m.Noise != nil {
		cs = append(cs, namedComponent{"annotators", m.Noise})
	}
	return cs
}

// LoadCheckpoint restores the state SaveCheckpoint wrote into dir and
// makes the next Fit continue from it (skipping the restart phase). The
// run must be built (Build, and WarmStart if the checkpointed run had one)
// from the same configuration, seed and inputs: fingerprint (Fingerprint
// with the same extras) must equal the checkpoint's, else an error wrapping
// framework.ErrBadInput. It returns the checkpoint's position.
func (r *Run) LoadCheckpoint(dir, fingerprint string) (*Position, error) {
	if err := r.checkpointable(); err != nil {
		return nil, err
	}
	mpath := filepath.Join(dir, "checkpoint.json")
	raw, err := os.ReadFile(mpath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no checkpoint to resume from in %s (no checkpoint.json)", framework.ErrBadInput, dir)
		}
		return nil, err
	}
	var man checkpointManifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&man); err != nil {
		return nil, framework.Errorf(mpath, 0, "%v", err)
	}
	switch {
	case man.Format != CheckpointFormat:
		return nil, framework.Errorf(mpath, 0, "format %q, want %q", man.Format, CheckpointFormat)
	case man.Version == 1:
		return nil, framework.Errorf(mpath, 0, "checkpoint version 1, written by an earlier maslda without a checksum of checkpoint.json; this maslda reads version %d: start afresh without --resume", CheckpointVersion)
	case man.Version != CheckpointVersion:
		return nil, framework.Errorf(mpath, 0, "checkpoint version %d; this maslda reads version %d", man.Version, CheckpointVersion)
	}
	if sum, err := manifestSum(man); err != nil {
		return nil, err
	} else if man.Sum != sum {
		return nil, framework.Errorf(mpath, 0, "SHA-256 of its contents %s but its \"sum\" records %q: checkpoint.json was edited or damaged after the checkpoint was saved; start afresh without --resume", sum, man.Sum)
	}
	if err := man.Position.check(r.Model.NumDocs(), man.SVI); err != nil {
		return nil, framework.Errorf(mpath, 0, "%v", err)
	}
	switch {
	case man.Fingerprint != fingerprint:
		return nil, framework.Errorf(mpath, 0, "the checkpoint was written by a run with another configuration, seed or inputs (documents, vocabulary, answers, classes, truth, --init-model); resume with exactly the same ones, or start afresh without --resume")
	case len(man.Files) == 0:
		return nil, framework.Errorf(mpath, 0, "no \"files\" checksums")
	}
	if _, two := r.Schedule.(*optim.TwoStage); two != (man.Position.Stage != 0) {
		return nil, framework.Errorf(mpath, 0, "the checkpoint's schedule state does not match inference %q", r.Config.Inference.Name)
	}
	if _, svi := r.Schedule.(*optim.SVI); svi != (man.SVI != nil) {
		return nil, framework.Errorf(mpath, 0, "the checkpoint's schedule state does not match inference %q", r.Config.Inference.Name)
	}
	if err := verifyFiles(dir, "checkpoint.json", man.Files); err != nil {
		return nil, err
	}
	if p := man.Position; p.Marks != nil {
		// The second pass (rewarm.go): the run built again with the first
		// pass's marks handed to the annotators' Init, as Fit built it; the
		// random source is the checkpoint's (below).
		r.marks = nil
		if err := r.rewarm(p.Marks, framework.Progress{Iter: p.PassIter, Epoch: p.PassEpoch, Elapsed: p.PassElapsed}); err != nil {
			return nil, framework.Errorf(mpath, 0, "marks: %v", err)
		}
	}
	m := r.Model
	if err := readFileWith(filepath.Join(dir, "topics.bin"), func(rd io.Reader, name string) error { return readZeta(rd, name, m.Topics) }); err != nil {
		return nil, err
	}
	for _, c := range checkpointComponents(m) {
		if p, ok := c.comp.(framework.Persister); ok {
			if err := readFileWith(filepath.Join(dir, c.name+".params"), func(rd io.Reader, name string) error { return wrapName(name, p.LoadParams(rd)) }); err != nil {
				return nil, err
			}
		}
		if p, ok := c.comp.(framework.Checkpointer); ok {
			if err := readFileWith(filepath.Join(dir, c.name+".state"), func(rd io.Reader, name string) error { return wrapName(name, p.LoadState(rd)) }); err != nil {
				return nil, err
			}
		}
	}
	if err := readFileWith(filepath.Join(dir, "state.bin"), func(rd io.Reader, name string) error { return wrapName(name, m.loadState(rd)) }); err != nil {
		return nil, err
	}
	if err := m.syncWeight(); err != nil { // a response past its exact stage (gaussian)
		return nil, err
	}
	if err := r.src.UnmarshalBinary(man.Rand); err != nil {
		return nil, framework.Errorf(mpath, 0, "rand: %v", err)
	}
	r.RestartELBOs = nil
	for _, b := range man.RestartELBOs {
		r.RestartELBOs = append(r.RestartELBOs, math.Float64frombits(b))
	}
	p := man.Position
	p.Prev, p.PrevScale, p.PrevPart = math.Float64frombits(man.Prev), math.Float64frombits(man.PrevScale), math.Float64frombits(man.PrevPart)
	p.SVI = man.SVI.state(p.Elapsed)
	r.resume = &p
	return &p, nil
}

func wrapName(name string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func readFileWith(path string, read func(r io.Reader, name string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return read(bufio.NewReader(f), path)
}

// stateMagic starts state.bin, the model's per-document state.
// oldStateMagic is that of checkpoints written before the model's φ stores
// were merged into one (format 1: two stores).
const (
	stateMagic    = "MASLDAm2"
	oldStateMagic = "MASLDAm1"
)

// saveState writes every training document's state: D, K and the phase
// (uint64), γ (D×K float64) with one byte per document (γ set), then when
// the model has a response one byte per document (q(target) set) and
// each q(target), then the φ store (a byte 0/1, then the number of values
// as uint64, one byte per document and the float32 φ), little-endian.
func (m *Model) saveState(w io.Writer) error {
	if _, err := io.WriteString(w, stateMagic); err != nil {
		return err
	}
	le := binary.LittleEndian
	D := m.NumDocs()
	if err := binary.Write(w, le, [3]uint64{uint64(D), uint64(m.Topics.K), uint64(m.phase)}); err != nil {
		return err
	}
	if err := binary.Write(w, le, m.gamma); err != nil {
		return err
	}
	if err := binary.Write(w, le, bools(m.seen)); err != nil {
		return err
	}
	if m.targets != nil {
		if err := binary.Write(w, le, bools(m.tseen)); err != nil {
			return err
		}
		for i, t := range m.targets {
			var err error
			switch t := t.(type) {
			case *framework.Categorical:
				if err = binary.Write(w, le, t.Log); err == nil {
					if err = binary.Write(w, le, t.P); err == nil {
						err = binary.Write(w, le, t.LogZ)
					}
				}
			case *framework.Gaussian:
				err = binary.Write(w, le, [4]float64{t.Prec, t.PrecMean, t.Mean, t.Var})
			default:
				return fmt.Errorf("%w: document %d: cannot checkpoint a target of type %T", ErrNoCheckpoint, i, t)
			}
			if err != nil {
				return err
			}
		}
	}
	if f := m.phi; f == nil {
		if _, err := w.Write([]byte{0}); err != nil {
			return err
		}
	} else {
		if _, err := w.Write([]byte{1}); err != nil {
			return err
		}
		if err := binary.Write(w, le, uint64(len(f.phi))); err != nil {
			return err
		}
		if err := binary.Write(w, le, bools(f.done)); err != nil {
			return err
		}
		if err := binary.Write(w, le, f.phi); err != nil {
			return err
		}
	}
	if m.Topics.FreshEvery > 1 {
		// The thinned fresh restarts' state (topics.fresh_every): the
		// byte 'T', the batch E-steps so far and one byte per document
		// (settled). Absent with fresh_every = 1, so that those states
		// are byte for byte what they were.
		if _, err := w.Write([]byte{'T'}); err != nil {
			return err
		}
		if err := binary.Write(w, le, uint64(m.estep)); err != nil {
			return err
		}
		settled := m.settled
		if settled == nil {
			settled = make([]bool, D)
		}
		if err := binary.Write(w, le, bools(settled)); err != nil {
			return err
		}
	}
	return nil
}

// loadState reads what saveState wrote, for the same training corpus.
func (m *Model) loadState(r io.Reader) error {
	magic := make([]byte, len(stateMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != stateMagic {
		if string(magic) == oldStateMagic {
			return fmt.Errorf("%w: a model state of an earlier maslda (two φ stores); train again without --resume", framework.ErrBadInput)
		}
		return fmt.Errorf("%w: not a maslda model state (bad header)", framework.ErrBadInput)
	}
	le := binary.LittleEndian
	var dims [3]uint64
	if err := binary.Read(r, le, &dims); err != nil {
		return fmt.Errorf("%w: truncated header: %v", framework.ErrBadInput, err)
	}
	D := m.NumDocs()
	if dims[0] != uint64(D) || dims[1] != uint64(m.Topics.K) {
		return fmt.Errorf("%w: state of %d documents with K = %d, the run has %d and %d", framework.ErrBadInput, dims[0], dims[1], D, m.Topics.K)
	}
	phase := framework.Phase(dims[2])
	trunc := func(err error) error { return fmt.Errorf("%w: truncated state: %v", framework.ErrBadInput, err) }
	gamma := make([]float64, len(m.gamma))
	seen := make([]byte, D)
	if err := binary.Read(r, le, gamma); err != nil {
		return trunc(err)
	}
	if err := binary.Read(r, le, seen); err != nil {
		return trunc(err)
	}
	var tseen []byte
	targets := make([]framework.Target, len(m.targets))
	if m.targets != nil {
		tseen = make([]byte, D)
		if err := binary.Read(r, le, tseen); err != nil {
			return trunc(err)
		}
		for i := range targets {
			t := m.Response.NewTarget()
			var err error
			switch t := t.(type) {
			case *framework.Categorical:
				if err = binary.Read(r, le, t.Log); err == nil {
					if err = binary.Read(r, le, t.P); err == nil {
						err = binary.Read(r, le, &t.LogZ)
					}
				}
			case *framework.Gaussian:
				var v [4]float64
				err = binary.Read(r, le, &v)
				t.Prec, t.PrecMean, t.Mean, t.Var = v[0], v[1], v[2], v[3]
			default:
				return fmt.Errorf("%w: cannot restore a target of type %T", ErrNoCheckpoint, t)
			}
			if err != nil {
				return trunc(err)
			}
			targets[i] = t
		}
	}
	var flag [1]byte
	if _, err := io.ReadFull(r, flag[:]); err != nil {
		return trunc(err)
	}
	var store *phiStore
	if flag[0] != 0 {
		store = newPhiStore(m.corpus, m.Topics.K)
		var n uint64
		if err := binary.Read(r, le, &n); err != nil {
			return trunc(err)
		}
		if n != uint64(len(store.phi)) {
			return fmt.Errorf("%w: a stored φ of %d values, the run's has %d", framework.ErrBadInput, n, len(store.phi))
		}
		done := make([]byte, D)
		if err := binary.Read(r, le, done); err != nil {
			return trunc(err)
		}
		if err := binary.Read(r, le, store.phi); err != nil {
			return trunc(err)
		}
		for i, b := range done {
			store.done[i] = b != 0
		}
	}
	if store == nil && (m.phiUser || m.phiWarm) {
		return fmt.Errorf("%w: the state has no φ store but the run needs one (another configuration?)", framework.ErrBadInput)
	}
	var extra [1]byte
	estep, settled := 0, []byte(nil)
	if n, _ := io.ReadFull(r, extra[:]); n != 0 {
		if extra[0] != 'T' {
			return fmt.Errorf("%w: unexpected data at the end of the state", framework.ErrBadInput)
		}
		if m.Topics.FreshEvery <= 1 {
			return fmt.Errorf("%w: the state holds topics.fresh_every's settled marks, and the run has fresh_every = %d (another configuration?)", framework.ErrBadInput, m.Topics.FreshEvery)
		}
		var e uint64
		if err := binary.Read(r, le, &e); err != nil {
			return trunc(err)
		}
		settled = make([]byte, D)
		if err := binary.Read(r, le, settled); err != nil {
			return trunc(err)
		}
		if n, _ := r.Read(extra[:]); n != 0 {
			return fmt.Errorf("%w: unexpected data at the end of the state", framework.ErrBadInput)
		}
		estep = int(e)
	}
	copy(m.gamma, gamma)
	for i, b := range seen {
		m.seen[i] = b != 0
	}
	for i, t := range targets {
		m.targets[i].CopyFrom(t)
		m.tseen[i] = tseen[i] != 0
	}
	if store != nil && m.phi != nil {
		// Keep the model's store (the response holds it, framework.PhiUser).
		copy(m.phi.phi, store.phi)
		copy(m.phi.done, store.done)
	} else {
		m.phi = store
	}
	m.phase = phase
	m.estep, m.settled = estep, nil
	if settled != nil {
		m.settled = make([]bool, D)
		for i, b := range settled {
			m.settled[i] = b != 0
		}
	}
	m.bindPhi()
	return nil
}

func bools(b []bool) []byte {
	out := make([]byte, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}
