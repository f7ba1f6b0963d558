package optim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/maslda/maslda/framework"
)

func init() {
	framework.RegisterSchedule("batch", func(p framework.Params) (framework.Schedule, error) {
		b := DefaultBatch()
		if err := p.Decode(&b); err != nil {
			return nil, err
		}
		return &b, b.Validate()
	})
	framework.RegisterSchedule("svi", func(p framework.Params) (framework.Schedule, error) {
		s := DefaultSVI()
		if err := p.Decode(&s); err != nil {
			return nil, err
		}
		return &s, s.Validate()
	})
}

// Batch is batch variational EM (the `inference "batch" { ... }` block).
type Batch struct {
	MaxIters int     `hcl:"max_iters,optional"` // default 100
	MinIters int     `hcl:"min_iters,optional"` // iterations before convergence is tested (default 2)
	Tol      float64 `hcl:"tol,optional"`       // relative ELBO change (default 1e-5); 0 runs max_iters
}

// The batch schedule stops when |L_t − L_{t−1}| ≤ tol·scale_{t−1}, where
// the scale is |L_{t−1}|, or for a model with
// framework.ConvergenceScaler the magnitude of the part of its bound that
// moves (the supervised part when k = 1); and, for a model with
// framework.ConvergencePart, when also |P_t − P_{t−1}| ≤ tol·|P_{t−1}| for
// that part P (the supervised part, which the words' part would hide).

// DefaultBatch returns the documented defaults.
func DefaultBatch() Batch { return Batch{MaxIters: 100, MinIters: 2, Tol: 1e-5} }

// Validate checks the settings.
func (b *Batch) Validate() error {
	if b.MaxIters < 1 {
		return fmt.Errorf("%w: inference.max_iters = %d, want ≥ 1", framework.ErrBadInput, b.MaxIters)
	}
	if b.MinIters < 0 {
		return fmt.Errorf("%w: inference.min_iters = %d, want ≥ 0", framework.ErrBadInput, b.MinIters)
	}
	if !(b.Tol >= 0) {
		return fmt.Errorf("%w: inference.tol = %v, want ≥ 0", framework.ErrBadInput, b.Tol)
	}
	return nil
}

// Fit runs batch EM. rng is unused (batch is deterministic given the
// initialisation) but kept for the Schedule contract.
func (b *Batch) Fit(ctx context.Context, m framework.Model, _ *rand.Rand, obs framework.Observer) (*framework.Result, error) {
	return b.FitFrom(ctx, m, obs, BatchState{}, nil)
}

// BatchState is where batch EM stands after an iteration that did not end
// the run: all that a resumed Fit needs besides the model (checkpoints).
type BatchState struct {
	Iter      int           // iterations done (0: none)
	Prev      float64       // the bound after iteration Iter (ignored when Iter is 0)
	PrevScale float64       // the scale of its convergence test (framework.ConvergenceScaler)
	PrevPart  float64       // the part of the bound judged on its own after iteration Iter (framework.ConvergencePart; NaN: none)
	Elapsed   time.Duration // time spent so far, added to Progress.Elapsed and Result.Elapsed
}

// FitFrom runs batch EM from state from (the zero BatchState: from the
// start, as Fit) and calls after (when not nil) with the state after every
// iteration that does not end the run; an error from after ends the run
// with that error. A model in the state a run had after iteration
// from.Iter, resumed with that iteration's BatchState, continues exactly as
// the run would have: the same updates, bounds, convergence test and
// Progress (but Elapsed).
func (b *Batch) FitFrom(ctx context.Context, m framework.Model, obs framework.Observer, from BatchState, after func(BatchState) error) (*framework.Result, error) {
	start := time.Now().Add(-from.Elapsed)
	all := make([]int, m.NumDocs())
	for i := range all {
		all[i] = i
	}
	res := &framework.Result{ELBO: math.NaN()}
	prev, prevScale, prevPart := math.NaN(), math.NaN(), math.NaN()
	if from.Iter > 0 {
		prev, prevScale, prevPart = from.Prev, from.PrevScale, from.PrevPart
		res.Iters, res.Epochs = from.Iter, from.Iter
	}
	scaler, _ := m.(framework.ConvergenceScaler)
	parter, _ := m.(framework.ConvergencePart)
	recycler, _ := m.(framework.StatsRecycler)
	for it := from.Iter + 1; it <= b.MaxIters; it++ {
		s, err := m.EStep(ctx, all)
		if err != nil {
			return res, err
		}
		st := framework.BatchStep(it)
		if err := m.Update(ctx, s, st); err != nil {
			return res, err
		}
		e := m.ELBO(s, st)
		res.Iters, res.Epochs, res.ELBO = it, it, e
		res.Elapsed = time.Since(start)
		if obs != nil {
			// The batch ELBO is already the bound over every document.
			if err := obs(framework.Progress{Iter: it, Epoch: it, Rho: 1, ELBO: e, FullELBO: e, Docs: len(all), Elapsed: res.Elapsed}); err != nil {
				return res, err
			}
		}
		scale := math.Abs(e)
		if scaler != nil {
			if v, ok := scaler.ConvergenceScale(s, st); ok {
				scale = v
			}
		}
		part, hasPart := math.NaN(), false
		if parter != nil {
			part, hasPart = parter.ConvergencePart(s, st)
		}
		if recycler != nil {
			recycler.RecycleStats(s)
		}
		if it >= max(b.MinIters, 2) && convergedAt(prev, e, b.Tol, prevScale) &&
			(!hasPart || convergedAt(prevPart, part, b.Tol, math.Abs(prevPart))) {
			res.Converged = true
			break
		}
		prev, prevScale, prevPart = e, scale, part
		if !hasPart {
			prevPart = math.NaN()
		}
		if after != nil && it < b.MaxIters {
			if err := after(BatchState{Iter: it, Prev: prev, PrevScale: prevScale, PrevPart: prevPart, Elapsed: time.Since(start)}); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func converged(prev, cur, tol float64) bool { return convergedAt(prev, cur, tol, math.Abs(prev)) }

// convergedAt: |cur − prev| ≤ tol·scale.
func convergedAt(prev, cur, tol, scale float64) bool {
	if tol <= 0 || math.IsNaN(prev) {
		return false
	}
	return math.Abs(cur-prev) <= tol*scale
}

// SVI is stochastic variational inference (the `inference "svi" { ... }`
// block).
type SVI struct {
	BatchSize int     `hcl:"batch_size,optional"` // documents per mini-batch (default 500)
	Kappa     float64 `hcl:"kappa,optional"`      // forgetting rate κ ∈ [0, 1]; (0.5, 1] for convergence (default 0.6)
	Delay     float64 `hcl:"delay,optional"`      // delay τ₀ ≥ 0 (default 1)
	Epochs    int     `hcl:"epochs,optional"`     // passes over the corpus (default 20)
	MinEpochs int     `hcl:"min_epochs,optional"` // epochs before convergence is tested (default 2)
	Tol       float64 `hcl:"tol,optional"`        // relative change of the epoch's mean ELBO estimate (default 1e-4); 0 runs all epochs
	EvalEvery int     `hcl:"eval_every,optional"` // evaluate the bound over the whole corpus after every eval_every-th epoch and the last (Progress.FullELBO); 0 (default) never
	// BatchTokens sizes the mini-batches by tokens instead of documents:
	// when > 0, batch_size is replaced, once the corpus is known, by
	// max(1, round(batch_tokens·D/N)) documents, N the corpus's tokens
	// (SizeByTokens; models.Build calls it). The noise of a mini-batch's
	// estimate of the topics is set by its tokens, not its documents
	// (docs/design.md "Mini-batches of tokens"). 0 (default): batch_size.
	BatchTokens float64 `hcl:"batch_tokens,optional"`
}

// SizeByTokens sets BatchSize from BatchTokens for a corpus of d
// documents and n tokens: max(1, round(BatchTokens·d/n)), the number of
// documents of average length that hold BatchTokens tokens. It does
// nothing when BatchTokens is 0 or the corpus has no tokens.
func (s *SVI) SizeByTokens(d int, n float64) {
	if s.BatchTokens <= 0 || !(n > 0) || d < 1 {
		return
	}
	s.BatchSize = max(1, int(math.Round(s.BatchTokens*float64(d)/n)))
}

// DefaultSVI returns the documented defaults (the paper's settings).
func DefaultSVI() SVI {
	return SVI{BatchSize: 500, Kappa: 0.6, Delay: 1, Epochs: 20, MinEpochs: 2, Tol: 1e-4}
}

// Validate checks the settings.
func (s *SVI) Validate() error {
	switch {
	case s.BatchSize < 1:
		return fmt.Errorf("%w: inference.batch_size = %d, want ≥ 1", framework.ErrBadInput, s.BatchSize)
	case !(s.Kappa >= 0 && s.Kappa <= 1):
		return fmt.Errorf("%w: inference.kappa = %v, want in [0, 1] ((0.5, 1] guarantees convergence)", framework.ErrBadInput, s.Kappa)
	case !(s.Delay >= 0) || math.IsInf(s.Delay, 0):
		return fmt.Errorf("%w: inference.delay = %v, want ≥ 0", framework.ErrBadInput, s.Delay)
	case s.Epochs < 1:
		return fmt.Errorf("%w: inference.epochs = %d, want ≥ 1", framework.ErrBadInput, s.Epochs)
	case s.MinEpochs < 0:
		return fmt.Errorf("%w: inference.min_epochs = %d, want ≥ 0", framework.ErrBadInput, s.MinEpochs)
	case !(s.Tol >= 0):
		return fmt.Errorf("%w: inference.tol = %v, want ≥ 0", framework.ErrBadInput, s.Tol)
	case s.EvalEvery < 0:
		return fmt.Errorf("%w: inference.eval_every = %d, want ≥ 0 (0: never)", framework.ErrBadInput, s.EvalEvery)
	case !(s.BatchTokens >= 0) || math.IsInf(s.BatchTokens, 0):
		return fmt.Errorf("%w: inference.batch_tokens = %v, want a finite number ≥ 0 (0: batch_size documents)", framework.ErrBadInput, s.BatchTokens)
	}
	return nil
}

// Rho is the step size of update t (t ≥ 1): (t + delay)^(−κ).
func (s *SVI) Rho(t int) float64 { return math.Pow(float64(t)+s.Delay, -s.Kappa) }

// Fit runs SVI, drawing the permutations from rng.
//
// With eval_every > 0 the model must be a framework.Evaluator (else
// framework.ErrIncompatible): after the last update of epoch ep, when ep is
// a multiple of eval_every or the epoch is the run's last (convergence, or
// the last of the epochs), EvalELBO's bound over the whole corpus at that
// update's globals is reported in the update's Progress.FullELBO (NaN at
// every other update). The evaluation changes nothing of the training (not
// the updates, not the ELBO estimates, not the convergence test, which
// stays on the estimates), and its time is left out of Progress.Elapsed
// and Result.Elapsed, which therefore measure training alone.
func (s *SVI) Fit(ctx context.Context, m framework.Model, rng *rand.Rand, obs framework.Observer) (*framework.Result, error) {
	return s.FitFrom(ctx, m, rng, obs, nil, nil)
}

// SVIState is where SVI stands after an update that did not end the run:
// all that a resumed Fit needs besides the model and the random source
// (checkpoints).
type SVIState struct {
	Updates int     // updates done (t)
	Epoch   int     // the epoch of update Updates
	Next    int     // where the epoch's next mini-batch starts in Perm (len(Perm): the epoch is over)
	Sum     float64 // the epoch's ELBO estimates so far, summed
	N       int     // and counted
	Prev    float64 // the previous epoch's mean estimate (NaN before the first epoch's end)
	// Perm is the epoch's permutation of the documents. Each epoch
	// shuffles the previous one's, drawing from the random source.
	Perm    []int
	Elapsed time.Duration // training time so far (Progress.Elapsed)
}

// CheckModel refuses (framework.ErrIncompatible) a model that eval_every
// > 0 cannot evaluate: one without framework.Evaluator.
func (s *SVI) CheckModel(m framework.Model) error {
	if s.EvalEvery > 0 {
		if _, ok := m.(framework.Evaluator); !ok {
			return fmt.Errorf("%w: inference.eval_every = %d needs a model that evaluates the bound over the whole corpus (framework.Evaluator); %T does not: set eval_every = 0", framework.ErrIncompatible, s.EvalEvery, m)
		}
	}
	return nil
}

// FitFrom runs SVI from state from (nil: from the start, as Fit) and calls
// after (when not nil) with the state after every update that does not
// end the run; an error from after ends the run with that error, and after
// must not keep the state's Perm. A model and random source in the state
// they had after update from.Updates, resumed with that update's SVIState,
// continue exactly as the run would have: the same mini-batches, steps ρ_t,
// bounds, convergence test and Progress (but Elapsed).
func (s *SVI) FitFrom(ctx context.Context, m framework.Model, rng *rand.Rand, obs framework.Observer, from *SVIState, after func(*SVIState) error) (*framework.Result, error) {
	var elapsed0 time.Duration
	if from != nil {
		elapsed0 = from.Elapsed
	}
	start := time.Now().Add(-elapsed0)
	D := m.NumDocs()
	res := &framework.Result{ELBO: math.NaN()}
	if D == 0 {
		return res, fmt.Errorf("%w: no documents to train on", framework.ErrBadInput)
	}
	if err := s.CheckModel(m); err != nil {
		return res, err
	}
	var ev framework.Evaluator
	if s.EvalEvery > 0 {
		ev = m.(framework.Evaluator)
	}
	var evalTime time.Duration // spent in EvalELBO, not counted in Elapsed
	bs := min(s.BatchSize, D)
	perm := make([]int, D)
	for i := range perm {
		perm[i] = i
	}
	t := 0
	prev := math.NaN()
	ep0, lo0, sum0, n0 := 1, 0, 0.0, 0
	if from != nil {
		if len(from.Perm) != D || from.Epoch < 1 || from.Next < 0 || from.Next > D {
			return res, fmt.Errorf("%w: SVI state of %d documents (epoch %d, next %d), the model has %d", framework.ErrBadInput, len(from.Perm), from.Epoch, from.Next, D)
		}
		copy(perm, from.Perm)
		t, prev = from.Updates, from.Prev
		res.Iters, res.Epochs = from.Updates, from.Epoch
		if from.Next >= D {
			ep0 = from.Epoch + 1
		} else {
			ep0, lo0, sum0, n0 = from.Epoch, from.Next, from.Sum, from.N
		}
	}
	for ep := ep0; ep <= s.Epochs; ep++ {
		lo := 0
		sum, n := 0.0, 0
		if ep == ep0 && lo0 > 0 {
			lo, sum, n = lo0, sum0, n0
		} else if bs < D {
			rng.Shuffle(D, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		}
		done := false // the epoch's convergence test, made at its last update
		for ; lo < D; lo += bs {
			batch := slices.Clone(perm[lo:min(D, lo+bs)])
			slices.Sort(batch) // canonical order: merging does not depend on the permutation
			st, err := m.EStep(ctx, batch)
			if err != nil {
				return res, err
			}
			t++
			last := lo+bs >= D // the epoch's last update
			step := framework.Step{Rho: s.Rho(t), Scale: float64(D) / float64(len(batch)), Full: len(batch) == D, Iter: t, EpochEnd: last}
			if err := m.Update(ctx, st, step); err != nil {
				return res, err
			}
			e := m.ELBO(st, step)
			sum += e
			n++
			res.Iters, res.Epochs, res.ELBO = t, ep, e
			res.Elapsed = time.Since(start) - evalTime
			full := math.NaN()
			if last {
				done = ep >= max(s.MinEpochs, 2) && converged(prev, sum/float64(n), s.Tol)
				if ev != nil && (ep%s.EvalEvery == 0 || ep == s.Epochs || done) {
					t0 := time.Now()
					full, err = ev.EvalELBO(ctx)
					evalTime += time.Since(t0)
					if err != nil {
						return res, fmt.Errorf("evaluating the bound over the corpus after update %d (epoch %d): %w", t, ep, err)
					}
				}
			}
			if obs != nil {
				if err := obs(framework.Progress{Iter: t, Epoch: ep, Rho: step.Rho, ELBO: e, FullELBO: full, Docs: len(batch), Elapsed: res.Elapsed}); err != nil {
					return res, err
				}
			}
			if after == nil || done || (last && ep == s.Epochs) {
				continue
			}
			state := &SVIState{Updates: t, Epoch: ep, Next: min(D, lo+bs), Sum: sum, N: n, Prev: prev, Perm: perm, Elapsed: time.Since(start) - evalTime}
			if last {
				state.Sum, state.N, state.Prev = 0, 0, sum/float64(n)
			}
			if err := after(state); err != nil {
				return res, err
			}
		}
		if done {
			res.Converged = true
			break
		}
		prev = sum / float64(n)
	}
	return res, nil
}

// MaxUpdates is the largest number of updates Fit can make on d documents
// (for progress bars).
func (b *Batch) MaxUpdates(d int) int { return b.MaxIters }

// MaxUpdates is the largest number of updates Fit can make on d documents.
func (s *SVI) MaxUpdates(d int) int { return s.Epochs * s.UpdatesPerEpoch(d) }

// UpdatesPerEpoch is the number of updates an epoch makes on d documents
// (its mini-batches; 1 when the mini-batch is the corpus).
func (s *SVI) UpdatesPerEpoch(d int) int {
	bs := max(1, min(s.BatchSize, d))
	return (d + bs - 1) / bs
}
