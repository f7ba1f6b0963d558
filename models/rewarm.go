package models

import (
	"fmt"
	"slices"
	"time"

	"github.com/maslda/maslda/framework"
)

// The second warm-up (framework.Rewarmer; the confusion model's constant
// = "almost"): when the annotators' classifier start marks annotators
// (near-constant answerers), the pass ends there; Fit builds the run again
// from the configuration and the seed with the marks handed to the
// annotators' Init (Setup.Marks) and fits from the beginning: one start
// (no restart candidates, Run.Restarts: the first pass chose among them),
// pilot, warm-up, start (which marks no more), schedule, relabelled twin.
// The warm-up's topics and response then never learn from the marked
// answers. Progress and positions of the second pass are numbered on from
// the first's (passOffset); a checkpoint of the second pass holds the
// marks (Position.Marks), and LoadCheckpoint builds the run with them
// before it loads the state, so that a resumed run neither redoes nor
// loses them.

// rewarmed is the start's signal that it marked annotators: the pass stops
// with it (an error through the schedule's observer) and Fit builds the
// run again.
type rewarmed struct{ marks []int32 }

func (e *rewarmed) Error() string {
	return "the annotators' start marked annotators: the run starts again with them"
}

// passOffset is where the run's first pass ended, when it ended at a
// start that marked annotators: the second pass's progress and positions
// are numbered on from it.
type passOffset struct {
	Iter, Epoch int
	Elapsed     time.Duration
}

// observer is obs (may be nil) with the pass's offset added to every
// update's Iter, Epoch and Elapsed; last records the last update it saw,
// offset (where a pass that ends there ended).
func (o passOffset) observer(obs framework.Observer, last *framework.Progress) framework.Observer {
	return func(p framework.Progress) error {
		p.Iter += o.Iter
		p.Epoch += o.Epoch
		p.Elapsed += o.Elapsed
		*last = p
		if obs != nil {
			return obs(p)
		}
		return nil
	}
}

// position adds the pass's offset and the marks to a position of the
// schedule (Run.AfterIter).
func (r *Run) position(p Position) Position {
	if r.marks == nil {
		return p
	}
	p.Iter += r.pass.Iter
	p.Marks = r.marks
	p.PassIter, p.PassEpoch, p.PassElapsed = r.pass.Iter, r.pass.Epoch, r.pass.Elapsed
	return p
}

// rewarm builds the run again from its configuration and seed with the
// annotators' marks handed to their Init (the second pass). The random
// source is reseeded as Build seeded it, so that the second pass draws
// what the first drew, the marks aside.
func (r *Run) rewarm(marks []int32, at framework.Progress) error {
	if _, ok := r.Model.Noise.(framework.Rewarmer); !ok {
		return fmt.Errorf("%w: marks of an annotators' start for annotators that cannot be handed them (not a framework.Rewarmer)", framework.ErrBadInput)
	}
	if r.marks != nil {
		return fmt.Errorf("%w: the annotators marked annotators at the start of a run built with marks (a third pass)", framework.ErrIncompatible)
	}
	r.src.Seed(r.Config.Seed, randStream)
	r.marks = marks
	r.pass = passOffset{Iter: at.Iter, Epoch: at.Epoch, Elapsed: at.Elapsed}
	r.RestartELBOs, r.piloted, r.Relabelled = nil, false, nil
	m, sched, err := r.assemble()
	if err != nil {
		return err
	}
	r.Model, r.Schedule = m, sched
	return nil
}

// Rewarm builds the run again for its second pass, as Fit does when the
// annotators' start marks annotators (framework.Rewarmer), for an engine
// that runs the passes itself (the Beam driver): from the configuration
// and the seed, with marks handed to the annotators' Init, the random
// source reseeded, the restarts' bounds cleared; at is the first pass's
// last update (where the second pass's positions are numbered on from).
// It fails for annotators that cannot be handed marks and on a run that
// was already built with marks.
func (r *Run) Rewarm(marks []int32, at framework.Progress) error {
	return r.rewarm(slices.Clone(marks), at)
}

// Marks are the annotators the run's first pass marked at its start and
// handed to the second (framework.Rewarmer): per annotator a class, −1 for
// the others; nil when the run had one pass.
func (r *Run) Marks() []int32 { return append([]int32(nil), r.marks...) }
