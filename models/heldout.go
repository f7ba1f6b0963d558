package models

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// heldOutStream is the PCG stream of SplitAnswers' draws (distinct from
// the run's own).
const heldOutStream = 0x4e1d

// SplitAnswers moves a share of the answers out of a: every answer is held
// out independently with probability share (the draws come from seed
// alone, so the same seed holds out the same answers whatever the model).
// kept has a's annotators and classes and the answers not held out; held
// has, per document, the answers held out (in a's order). An annotator
// whose answers are all held out stays in kept's names (its model is then
// its prior). share must be in [0, 1).
func SplitAnswers(a *framework.Answers, share float64, seed uint64) (kept *framework.Answers, held [][]framework.Answer, err error) {
	if a == nil {
		return nil, nil, fmt.Errorf("%w: no answers to hold out", framework.ErrBadInput)
	}
	if !(share >= 0 && share < 1) {
		return nil, nil, fmt.Errorf("%w: held-out share of the answers %v, want 0 ≤ share < 1", framework.ErrBadInput, share)
	}
	kept, held = splitBy(a, seed, func(rng *rand.Rand) bool { return rng.Float64() < share })
	return kept, held, nil
}

// splitBy moves the answers for which hold (one call per answer, in
// order, from the seed's PCG stream) is true out of a.
func splitBy(a *framework.Answers, seed uint64, hold func(*rand.Rand) bool) (kept *framework.Answers, held [][]framework.Answer) {
	rng := rand.New(rand.NewPCG(seed, heldOutStream))
	kept = &framework.Answers{Annotators: a.Annotators, Classes: a.Classes, ByDoc: make([][]framework.Answer, len(a.ByDoc))}
	held = make([][]framework.Answer, len(a.ByDoc))
	for d, as := range a.ByDoc {
		for _, x := range as {
			if hold(rng) {
				held[d] = append(held[d], x)
			} else {
				kept.ByDoc[d] = append(kept.ByDoc[d], x)
			}
		}
	}
	return kept, held
}

// FoldAnswers is SplitAnswers for cross-validation: every answer is given
// one of folds folds at random (from seed alone), and fold f is held out.
// Over f = 0…folds−1 every answer is held out exactly once.
func FoldAnswers(a *framework.Answers, folds, f int, seed uint64) (kept *framework.Answers, held [][]framework.Answer, err error) {
	if a == nil {
		return nil, nil, fmt.Errorf("%w: no answers to hold out", framework.ErrBadInput)
	}
	if folds < 2 || f < 0 || f >= folds {
		return nil, nil, fmt.Errorf("%w: fold %d of %d, want 0 ≤ fold < folds, folds ≥ 2", framework.ErrBadInput, f, folds)
	}
	kept, held = splitBy(a, seed, func(rng *rand.Rand) bool { return rng.IntN(folds) == f })
	return kept, held, nil
}

// AnswerScore is the held-out answers criterion: the log predictive
// probability of answers the model did not see, under the model's
// posterior of each document's target and its annotators
// (framework.AnswerPredictor). Higher is better; Mean compares models
// fitted on the same split.
type AnswerScore struct {
	Sum float64 // Σ log p(answer | q(target_d), annotator)
	N   int     // answers scored
}

// HeldOutAnswers records, in model.json, how a model trained with a share
// of its answers held out scored on them.
type HeldOutAnswers struct {
	Share             float64 `json:"share"`               // the share held out (SplitAnswers)
	Seed              uint64  `json:"seed"`                // SplitAnswers' seed
	Answers           int     `json:"answers"`             // answers scored
	MeanLogPredictive float64 `json:"mean_log_predictive"` // AnswerScore.Mean
}

// Mean is Sum/N (NaN without answers).
func (s AnswerScore) Mean() float64 {
	if s.N == 0 {
		return math.NaN()
	}
	return s.Sum / float64(s.N)
}

// ScoreAnswers scores held (per training document, answers the model was
// not trained on, as from SplitAnswers) against the model's posterior of
// each training document (Posterior: the topics, the response's prior and
// the answers it was trained on) and its annotator model, which must be a
// framework.AnswerPredictor.
func (m *Model) ScoreAnswers(ctx context.Context, held [][]framework.Answer) (AnswerScore, error) {
	var s AnswerScore
	ap, ok := m.Noise.(framework.AnswerPredictor)
	if !ok {
		return s, fmt.Errorf("%w: the annotator model %T cannot score held-out answers (it is not a framework.AnswerPredictor)", framework.ErrIncompatible, m.Noise)
	}
	if len(held) != len(m.corpus.Docs) {
		return s, fmt.Errorf("%w: held-out answers for %d documents, the model has %d", framework.ErrBadInput, len(held), len(m.corpus.Docs))
	}
	post, err := m.Posterior(ctx)
	if err != nil {
		return s, err
	}
	for d, as := range held {
		for _, a := range as {
			lp := ap.LogPredictive(post[d].Target, a)
			if math.IsNaN(lp) {
				return s, fmt.Errorf("%w: held-out answer of document %d (annotator %d) outside the model's annotators or classes", framework.ErrBadInput, d, a.Annotator)
			}
			s.Sum += lp
			s.N++
		}
	}
	return s, nil
}
