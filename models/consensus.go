package models

import (
	"context"
	"fmt"
	"math"

	"github.com/maslda/maslda/framework"
)

// Consensus is how a run with `consensus = N` (N ≥ 2) chose its fit among
// N fits from seeds Seed, Seed+1, …, Seed+N−1 (docs/design.md, "Consensus
// among seeds"): the medoid, the fit whose truth differs least from the
// others'. Saved in model.json as "consensus".
type Consensus struct {
	Seeds []uint64 `json:"seeds"` // each fit's seed, the configured one first
	// Distance[i][j] is how far fit i's truth is from fit j's: the share
	// of training documents whose most probable class differs
	// (categorical targets), or the mean squared difference of the truth
	// means (gaussian targets).
	Distance [][]float64 `json:"distance"`
	ELBO     []float64   `json:"elbo"`       // each fit's final bound
	Iters    []int       `json:"iterations"` // each fit's iterations
	Chosen   int         `json:"chosen"`     // the index of the medoid (0: the configured seed's fit)
}

// fitConsensus is Fit with Config.Consensus = n ≥ 2: it fits n−1 runs
// built like r with seeds Seed+1, …, Seed+n−1 (their progress reaches obs
// with Progress.Fit = 2, …, n; they take no checkpoints, and a resumed run
// fits them again, as deterministic as the first time), then r itself
// (fitOne: its progress has Fit 0; checkpoints, resume), and keeps the
// medoid of the n fits' truths (consensusChoice): when it is another
// seed's fit, r takes that fit's model, schedule, result, restart bounds,
// relabelling and marks. r.Consensus records the choice.
func (r *Run) fitConsensus(ctx context.Context, obs framework.Observer, n int) (*framework.Result, error) {
	runs := make([]*Run, n)
	runs[0] = r
	for i := 1; i < n; i++ {
		c := *r.Config
		c.Seed = r.Config.Seed + uint64(i)
		c.Consensus = 1
		s, err := Build(&c, r.reg, r.corpus)
		if err != nil {
			return nil, fmt.Errorf("consensus fit %d (seed %d): %w", i+1, c.Seed, err)
		}
		fit := i + 1
		var o framework.Observer
		if obs != nil {
			o = func(p framework.Progress) error {
				p.Fit = fit
				return obs(p)
			}
		}
		if _, err := s.fitOne(ctx, o); err != nil {
			return nil, fmt.Errorf("consensus fit %d (seed %d): %w", i+1, c.Seed, err)
		}
		runs[i] = s
	}
	if _, err := r.fitOne(ctx, obs); err != nil {
		return nil, err
	}
	info := &Consensus{Seeds: make([]uint64, n), ELBO: make([]float64, n), Iters: make([]int, n)}
	truths := make([][]framework.Target, n)
	for i, s := range runs {
		post, err := s.Model.Posterior(ctx)
		if err != nil {
			return nil, fmt.Errorf("consensus fit %d: %w", i+1, err)
		}
		truths[i] = make([]framework.Target, len(post))
		for d, p := range post {
			truths[i][d] = p.Target
		}
		info.Seeds[i] = s.Config.Seed
		info.ELBO[i], info.Iters[i] = s.Result.ELBO, s.Result.Iters
	}
	chosen, dist, err := consensusChoice(truths)
	if err != nil {
		return nil, err
	}
	info.Distance, info.Chosen = dist, chosen
	if s := runs[chosen]; s != r {
		r.Model, r.Schedule, r.Result = s.Model, s.Schedule, s.Result
		r.RestartELBOs, r.Relabelled, r.marks = s.RestartELBOs, s.Relabelled, s.marks
	}
	r.Consensus = info
	return r.Result, nil
}

// consensusChoice returns the medoid of the fits' truths: the index i
// with the least Σ_j d(i, j), the first on a tie, and the distances.
// truths[i][d] is fit i's posterior of training document d.
func consensusChoice(truths [][]framework.Target) (int, [][]float64, error) {
	n := len(truths)
	dist := make([][]float64, n)
	for i := range dist {
		dist[i] = make([]float64, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			d, err := truthDistance(truths[i], truths[j])
			if err != nil {
				return 0, nil, err
			}
			dist[i][j], dist[j][i] = d, d
		}
	}
	best, bestSum := 0, math.Inf(1)
	for i := range n {
		s := 0.0
		for j := range n {
			s += dist[i][j]
		}
		if s < bestSum {
			best, bestSum = i, s
		}
	}
	return best, dist, nil
}

// truthDistance is how far two fits' truths are apart (Consensus.Distance).
func truthDistance(a, b []framework.Target) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("%w: consensus: truths of %d and %d documents", framework.ErrIncompatible, len(a), len(b))
	}
	if len(a) == 0 {
		return 0, nil
	}
	s := 0.0
	for d := range a {
		switch x := a[d].(type) {
		case *framework.Categorical:
			y, ok := b[d].(*framework.Categorical)
			if !ok {
				return 0, fmt.Errorf("%w: consensus: document %d: a categorical and a %T truth", framework.ErrIncompatible, d, b[d])
			}
			if x.Argmax() != y.Argmax() {
				s++
			}
		case *framework.Gaussian:
			y, ok := b[d].(*framework.Gaussian)
			if !ok {
				return 0, fmt.Errorf("%w: consensus: document %d: a gaussian and a %T truth", framework.ErrIncompatible, d, b[d])
			}
			s += (x.Mean - y.Mean) * (x.Mean - y.Mean)
		default:
			return 0, fmt.Errorf("%w: consensus compares categorical or gaussian truths, not %T", framework.ErrIncompatible, a[d])
		}
	}
	return s / float64(len(a)), nil
}
