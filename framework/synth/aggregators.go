package synth

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// AggregatorKinds are the simulated crowds of AggregatorAnswers: the
// kinds of annotator that tell label aggregators apart (issue 16).
var AggregatorKinds = []string{"mixed", "spammers", "adversaries", "hard-tasks"}

// AggregatorAnswers simulates perDoc answers per task (from distinct
// annotators drawn at random) about the true classes truth (C classes)
// by a crowd of one of AggregatorKinds; wrong answers are uniform over the
// other classes unless said otherwise:
//
//   - "mixed": 8 annotators of accuracies 0.9, 0.85, 0.8, 0.7, 0.6, 0.5,
//     0.45, 0.4 (a good/bad mix);
//   - "spammers": 3 good annotators (0.8), 4 who always answer the first
//     class and 3 who answer uniformly at random (MACE's spammers);
//   - "adversaries": 4 good annotators (0.75) and 3 adversaries who give
//     the next class (c + 1 mod C) 85% of the time, the truth otherwise:
//     worse than chance but informative (a confusion matrix can invert
//     them, an accuracy cannot);
//   - "hard-tasks": 8 annotators of accuracy 0.9 on easy tasks; 35% of the
//     tasks are hard, where every answer is uniform over the C classes
//     (GLAD's per-task difficulty).
//
// It returns the answers (workers a0, a1, …; classes named by classes)
// and, for "hard-tasks", which tasks are hard (nil otherwise).
func AggregatorAnswers(kind string, truth []int, classes []string, perDoc int, rng *rand.Rand) (*framework.Answers, []bool, error) {
	C := len(classes)
	if C < 2 {
		return nil, nil, fmt.Errorf("%w: synth.AggregatorAnswers: %d classes, want ≥ 2", framework.ErrBadInput, C)
	}
	// Each annotator: p(answer | truth c) as a sampler.
	type annotator func(c int, hard bool) int
	uniformWrong := func(acc float64) annotator {
		return func(c int, hard bool) int {
			if hard {
				return rng.IntN(C)
			}
			if rng.Float64() < acc {
				return c
			}
			return (c + 1 + rng.IntN(C-1)) % C
		}
	}
	var anns []annotator
	hardShare := 0.0
	switch kind {
	case "mixed":
		for _, a := range []float64{0.9, 0.85, 0.8, 0.7, 0.6, 0.5, 0.45, 0.4} {
			anns = append(anns, uniformWrong(a))
		}
	case "spammers":
		for range 3 {
			anns = append(anns, uniformWrong(0.8))
		}
		for range 4 {
			anns = append(anns, func(int, bool) int { return 0 })
		}
		for range 3 {
			anns = append(anns, func(int, bool) int { return rng.IntN(C) })
		}
	case "adversaries":
		for range 4 {
			anns = append(anns, uniformWrong(0.75))
		}
		for range 3 {
			anns = append(anns, func(c int, _ bool) int {
				if rng.Float64() < 0.85 {
					return (c + 1) % C
				}
				return c
			})
		}
	case "hard-tasks":
		for range 8 {
			anns = append(anns, uniformWrong(0.9))
		}
		hardShare = 0.35
	default:
		return nil, nil, fmt.Errorf("%w: synth.AggregatorAnswers: kind %q; valid: %v", framework.ErrBadInput, kind, AggregatorKinds)
	}
	if perDoc < 1 || perDoc > len(anns) {
		return nil, nil, fmt.Errorf("%w: synth.AggregatorAnswers: %d answers per task, want 1 to %d", framework.ErrBadInput, perDoc, len(anns))
	}
	a := &framework.Answers{Classes: append([]string(nil), classes...), ByDoc: make([][]framework.Answer, len(truth))}
	for r := range anns {
		a.Annotators = append(a.Annotators, "a"+strconv.Itoa(r))
	}
	var hard []bool
	if hardShare > 0 {
		hard = make([]bool, len(truth))
	}
	for d, c := range truth {
		if c < 0 || c >= C {
			return nil, nil, fmt.Errorf("%w: synth.AggregatorAnswers: task %d has class %d of %d", framework.ErrBadInput, d, c, C)
		}
		h := hardShare > 0 && rng.Float64() < hardShare
		if hard != nil {
			hard[d] = h
		}
		who := rng.Perm(len(anns))[:perDoc]
		sortInts(who)
		for _, r := range who {
			y := anns[r](c, h)
			a.ByDoc[d] = append(a.ByDoc[d], framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)})
		}
	}
	return a, hard, nil
}

func sortInts(x []int) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}
