package optim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/maslda/maslda/framework"
)

// TwoStageName is the registered name of the two-stage schedule.
const TwoStageName = "two-stage"

func init() {
	framework.RegisterSchedule(TwoStageName, func(p framework.Params) (framework.Schedule, error) {
		s := DefaultTwoStage()
		if err := p.Decode(&s); err != nil {
			return nil, err
		}
		return &s, s.Validate()
	})
}

// TwoStage fits the topics first and the response afterwards (the
// `inference "two-stage" { ... }` block; MODEL.md §6's "LDA, then a
// regression on φ̄" baselines). Stage 1 is batch EM with the model in
// framework.PhaseTopics (plain LDA: LDA's ELBO, monotone); stage 2 is batch
// EM in framework.PhaseResponse (topics and every document's φ frozen as
// stage 1's last E-step left them; the target, response and annotators
// fitted on them; their bound, monotone). The model must implement
// framework.Phased; it is left in PhaseResponse, so that a posterior pass
// after Fit is the response stage's.
type TwoStage struct {
	TopicsIters   int     `hcl:"topics_iters,optional"`   // stage 1's maximum iterations (default 100)
	TopicsTol     float64 `hcl:"topics_tol,optional"`     // stage 1's relative ELBO change (default 1e-5); 0 runs topics_iters
	ResponseIters int     `hcl:"response_iters,optional"` // stage 2's maximum iterations (default 100)
	ResponseTol   float64 `hcl:"response_tol,optional"`   // stage 2's relative change of its bound (default 1e-5); 0 runs response_iters
	MinIters      int     `hcl:"min_iters,optional"`      // iterations of each stage before convergence is tested (default 2)
}

// DefaultTwoStage returns the documented defaults (each stage as
// DefaultBatch).
func DefaultTwoStage() TwoStage {
	b := DefaultBatch()
	return TwoStage{TopicsIters: b.MaxIters, TopicsTol: b.Tol, ResponseIters: b.MaxIters, ResponseTol: b.Tol, MinIters: b.MinIters}
}

// Validate checks the settings.
func (s *TwoStage) Validate() error {
	switch {
	case s.TopicsIters < 1:
		return fmt.Errorf("%w: inference.topics_iters = %d, want ≥ 1", framework.ErrBadInput, s.TopicsIters)
	case s.ResponseIters < 1:
		return fmt.Errorf("%w: inference.response_iters = %d, want ≥ 1", framework.ErrBadInput, s.ResponseIters)
	case !(s.TopicsTol >= 0):
		return fmt.Errorf("%w: inference.topics_tol = %v, want ≥ 0", framework.ErrBadInput, s.TopicsTol)
	case !(s.ResponseTol >= 0):
		return fmt.Errorf("%w: inference.response_tol = %v, want ≥ 0", framework.ErrBadInput, s.ResponseTol)
	case s.MinIters < 0:
		return fmt.Errorf("%w: inference.min_iters = %d, want ≥ 0", framework.ErrBadInput, s.MinIters)
	}
	return nil
}

// FirstPhase is framework.PhaseTopics: restarts pick topics as plain LDA.
func (s *TwoStage) FirstPhase() framework.Phase { return framework.PhaseTopics }

// MaxUpdates is the largest number of updates Fit can make (for progress
// bars).
func (s *TwoStage) MaxUpdates(int) int { return s.TopicsIters + s.ResponseIters }

// CheckModel refuses (framework.ErrIncompatible) a model without phases
// (framework.Phased).
func (s *TwoStage) CheckModel(m framework.Model) error {
	if _, ok := m.(framework.Phased); !ok {
		return fmt.Errorf("%w: inference %q needs a model with phases (framework.Phased); %T has none", framework.ErrIncompatible, TwoStageName, m)
	}
	return nil
}

// Fit runs both stages. Progress.Stage is 1 or 2; Iter and Epoch count on
// across the stages (stage 2's first update is stage 1's last plus one),
// Elapsed is since Fit started; Progress.ELBO is the current stage's
// objective (LDA's ELBO, then the response and annotators' bound), so the
// two stages' values are not comparable (Progress.FullELBO is the same
// value: each stage is batch EM). The Result's Iters and Epochs are
// the totals, its ELBO stage 2's last, Converged whether both stages
// converged. rng is unused (both stages are deterministic given the
// initialisation).
func (s *TwoStage) Fit(ctx context.Context, m framework.Model, rng *rand.Rand, obs framework.Observer) (*framework.Result, error) {
	return s.FitFrom(ctx, m, obs, nil, nil)
}

// TwoStageState is where the two-stage schedule stands after an iteration
// that did not end its stage (checkpoints): the stage (1 or 2), the
// iterations of stage 1 and whether it converged (when in stage 2), and
// the stage's batch EM state.
type TwoStageState struct {
	Stage      int
	Done       int  // iterations of stage 1 (Stage 2 only)
	Converged1 bool // stage 1 converged (Stage 2 only)
	Batch      BatchState
}

// FitFrom runs the stages from state from (nil: from the start, as Fit)
// and calls after (when not nil) with the state after every iteration
// that does not end a stage; an error from after ends the run with it. A
// model in the state a run had at from, resumed with it, continues exactly
// as the run would have (but Elapsed).
func (s *TwoStage) FitFrom(ctx context.Context, m framework.Model, obs framework.Observer, from *TwoStageState, after func(TwoStageState) error) (*framework.Result, error) {
	var elapsed time.Duration
	if from != nil {
		elapsed = from.Batch.Elapsed
	}
	start := time.Now().Add(-elapsed)
	res := &framework.Result{ELBO: math.NaN()}
	if from != nil && (from.Stage < 1 || from.Stage > 2) {
		return res, fmt.Errorf("%w: %s: resumed at stage %d, want 1 or 2", framework.ErrBadInput, TwoStageName, from.Stage)
	}
	if err := s.CheckModel(m); err != nil {
		return res, err
	}
	pm := m.(framework.Phased)
	stages := []struct {
		phase     framework.Phase
		name      string
		iters     int
		tol       float64
		converged bool
	}{
		{framework.PhaseTopics, "stage 1 (topics)", s.TopicsIters, s.TopicsTol, false},
		{framework.PhaseResponse, "stage 2 (response)", s.ResponseIters, s.ResponseTol, false},
	}
	done := 0
	for n, st := range stages {
		var bs BatchState
		if from != nil {
			if n+1 < from.Stage {
				done, stages[n].converged = from.Done, from.Converged1
				res.Iters, res.Epochs = done, done
				continue
			}
			if n+1 == from.Stage {
				bs = from.Batch
				bs.Elapsed = 0 // counted in start
			}
		}
		if err := pm.SetPhase(st.phase); err != nil {
			return res, fmt.Errorf("%s %s: %w", TwoStageName, st.name, err)
		}
		b := Batch{MaxIters: st.iters, MinIters: s.MinIters, Tol: st.tol}
		stage, offset := n+1, done
		var hook func(BatchState) error
		if after != nil {
			conv1 := stages[0].converged
			hook = func(b BatchState) error {
				b.Elapsed = time.Since(start)
				return after(TwoStageState{Stage: stage, Done: offset, Converged1: conv1 && stage == 2, Batch: b})
			}
		}
		r, err := b.FitFrom(ctx, m, func(p framework.Progress) error {
			p.Stage = stage
			p.Iter += offset
			p.Epoch += offset
			p.Elapsed = time.Since(start)
			if obs != nil {
				return obs(p)
			}
			return nil
		}, bs, hook)
		if r != nil {
			res.Iters, res.Epochs, res.ELBO = done+r.Iters, done+r.Epochs, r.ELBO
			stages[n].converged = r.Converged
			done += r.Iters
		}
		res.Elapsed = time.Since(start)
		if err != nil {
			return res, fmt.Errorf("%s %s: %w", TwoStageName, st.name, err)
		}
	}
	res.Converged = stages[0].converged && stages[1].converged
	return res, nil
}
