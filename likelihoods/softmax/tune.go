package softmax

import (
	"context"
	"fmt"
	"math"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// TextL2Grid is the grid of μ_t that text_l2_folds chooses from (besides
// l2 itself): from a nearly flat prior on the text's say to none.
var TextL2Grid = []float64{0.01, 0.1, 1, 10, 100, 1000}

// cvTarget is one document of the cross-validation: its topic proportions
// φ̄_d and its answers' likelihood per class q_d(c) (up to a factor).
type cvTarget struct {
	bar []float64
	q   []float64
}

// Tune chooses μ_t (text_l2) by F-fold cross-validation when text_l2_folds
// is set (framework.Tuner). bars holds every training document's φ̄_d as
// the topics alone give it (no answers, no response: as for a new
// document), evidence the annotators' message e_d(c) about its answers.
// For each μ_t of {l2} ∪ TextL2Grid it fits η on F−1 folds (document i
// of those with answers in fold i mod F; the split penalty: μ_t about the
// rows' means, l2 on the means) to the answers' likelihood through the
// annotators, Σ_d log Σ_c softmax(ηφ̄_d)_c exp(e_d(c)), and scores that
// likelihood on the held-out fold: how well the text, read by a classifier
// of the true class and passed through the annotator model as it stands,
// predicts answers it was not fitted on. The μ_t of greatest held-out
// likelihood is kept (the smaller on a tie); changed reports whether it
// differs from the one in use. The choice is saved with η (SaveParams)
// and described by LastTune.
func (s *Softmax) Tune(ctx context.Context, bars, evidence [][]float64) (changed bool, err error) {
	F := s.textL2Folds()
	if F == 0 {
		return false, nil
	}
	C, K := s.C, s.K
	var data []cvTarget
	for i, e := range evidence {
		if i >= len(bars) || len(bars[i]) != K || len(e) != C {
			continue
		}
		mx, mn := math.Inf(-1), math.Inf(1)
		for _, v := range e {
			mx, mn = math.Max(mx, v), math.Min(mn, v)
		}
		if !(mx-mn > 1e-12) || math.IsInf(mx, 0) || math.IsNaN(mx) {
			continue // no answers, or answers that tell the classes nowhere apart
		}
		q := make([]float64, C)
		for c, v := range e {
			q[c] = math.Exp(v - mx) // the answers' likelihood per class, up to a factor
		}
		data = append(data, cvTarget{bar: bars[i], q: q})
	}
	tu, ok, err := chooseTextL2(ctx, data, C, K, s.Mu, F)
	if err != nil || !ok {
		return false, err
	}
	changed = tu.Chosen != s.MuText
	s.MuText, s.tuned, s.lastTune = tu.Chosen, true, tu
	return changed, nil
}

// chooseTextL2 is Tune's cross-validation on the documents data (false
// when there are fewer than 2F of them).
func chooseTextL2(ctx context.Context, data []cvTarget, C, K int, mu float64, F int) (Tuning, bool, error) {
	if len(data) < 2*F {
		return Tuning{}, false, nil
	}
	grid := append([]float64{mu}, TextL2Grid...)
	losses := make([]float64, len(grid))
	for gi, mt := range grid {
		pen := &Softmax{C: C, K: K, Mu: mu, MuText: mt}
		for f := 0; f < F; f++ {
			if err := ctx.Err(); err != nil {
				return Tuning{}, false, err
			}
			var train, test []cvTarget
			for i, d := range data {
				if i%F == f {
					test = append(test, d)
				} else {
					train = append(train, d)
				}
			}
			eta, err := fitCV(ctx, pen, train)
			if err != nil {
				return Tuning{}, false, fmt.Errorf("softmax text_l2 cross-validation: %w", err)
			}
			losses[gi] += cvLoss(eta, C, K, test, nil)
		}
	}
	best := 0
	for i, l := range losses {
		if l < losses[best] {
			best = i
		}
	}
	return Tuning{Grid: grid, Loss: losses, Chosen: grid[best], Docs: len(data)}, true, nil
}

// Tuning describes the last Tune.
type Tuning struct {
	Grid, Loss []float64 // the μ_t tried and their held-out cross-entropies (summed over folds)
	Chosen     float64
	Docs       int // documents with a non-uniform crowd posterior
}

// LastTune returns the last Tune's grid, losses and choice (zero before one).
func (s *Softmax) LastTune() Tuning { return s.lastTune }

// fitCV fits η of softmax(ηφ̄_d) to the targets with pen's split penalty.
func fitCV(ctx context.Context, pen *Softmax, data []cvTarget) ([]float64, error) {
	C, K := pen.C, pen.K
	W := math.Max(1, float64(len(data)))
	pg := make([]float64, C*K)
	f := func(x, g []float64) float64 {
		v := cvLoss(x, C, K, data, g)
		p := pen.penalty(x, pg)
		if g != nil {
			for i := range g {
				g[i] = (g[i] + pg[i]) / W
			}
		}
		return (v + 0.5*p) / W
	}
	res, err := optim.Minimize(ctx, f, make([]float64, C*K), optim.LBFGSOptions{MaxIters: 200, GradTol: 1e-7, FuncTol: 1e-12})
	if err != nil && (ctx.Err() != nil || math.IsNaN(res.F)) {
		return nil, err
	}
	return res.X, nil
}

// cvLoss is −Σ_d log Σ_c softmax(ηφ̄_d)_c q_dc and, when g is non-nil,
// its gradient in g (overwritten): Σ_d (p_d − r_d)φ̄_dᵀ with r_dc ∝
// p_dc q_dc. With one-hot q it is the cross-entropy.
func cvLoss(eta []float64, C, K int, data []cvTarget, g []float64) float64 {
	if g != nil {
		clear(g)
	}
	a := make([]float64, C)
	p := make([]float64, C)
	loss := 0.0
	for _, d := range data {
		mx := math.Inf(-1)
		for c := range a {
			a[c] = dot(eta[c*K:(c+1)*K], d.bar)
			mx = math.Max(mx, a[c])
		}
		z := 0.0
		for c, v := range a {
			p[c] = math.Exp(v - mx)
			z += p[c]
		}
		m := 0.0
		for c := range p {
			p[c] /= z
			m += p[c] * d.q[c]
		}
		loss -= math.Log(m)
		if g != nil {
			for c := range p {
				r := p[c] - p[c]*d.q[c]/m
				for k, b := range d.bar {
					g[c*K+k] += r * b
				}
			}
		}
	}
	return loss
}

var _ framework.Tuner = (*Softmax)(nil)
