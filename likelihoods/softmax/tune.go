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
// φ̄_d and the crowd's posterior without the text, q_d(c) ∝ λ_dc·exp(−η_c·φ̄_d).
type cvTarget struct {
	bar []float64
	q   []float64
}

// Tune chooses μ_t (text_l2) by F-fold cross-validation when text_l2_folds
// is set (framework.Tuner; the model calls it at the annotators' classifier
// start, a stage boundary). From the last statistics it takes every
// document's φ̄_d and λ_d, removes the text's message η_E·φ̄_d (η_E the η of
// the E-step that made λ_d) to leave the crowd's posterior q_d, and, for
// each μ_t of {l2} ∪ TextL2Grid, fits a multinomial logistic regression
// softmax(ηφ̄_d) to q_d on F−1 folds (document i in fold i mod F, the same
// split penalty: μ_t about the rows' means, l2 on the means) and scores
// the held-out cross-entropy −Σ_d Σ_c q_dc log softmax(ηφ̄_d)_c. The μ_t
// with the least held-out loss is kept (the smaller on a tie). Documents
// whose q_d is uniform (no answers) are left out. The choice is the
// response's to keep: it is saved with η (SaveParams) and reported by
// LastTune.
func (s *Softmax) Tune(ctx context.Context) error {
	F := s.params.TextL2Folds
	if F == 0 {
		return nil
	}
	if s.lastStats == nil || s.etaE == nil {
		return nil // no batch statistics yet: keep μ_t
	}
	C, K := s.C, s.K
	var data []cvTarget
	if s.params.TextL2Targets != "crowd" {
		data = s.answerTargets()
	}
	for _, v := range s.records(s.lastStats) {
		if s.params.TextL2Targets != "crowd" {
			break
		}
		if len(v.bar) != K || len(v.lam) != C {
			continue
		}
		q := make([]float64, C)
		mx := math.Inf(-1)
		for c := range q {
			q[c] = math.Log(math.Max(v.lam[c], 1e-300)) - dot(s.etaE[c*K:(c+1)*K], v.bar)
			mx = math.Max(mx, q[c])
		}
		sum, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
		for c := range q {
			q[c] = math.Exp(q[c] - mx)
			sum += q[c]
		}
		for c := range q {
			q[c] /= sum
			lo, hi = math.Min(lo, q[c]), math.Max(hi, q[c])
		}
		if hi-lo < 1e-9 {
			continue
		}
		data = append(data, cvTarget{bar: append([]float64(nil), v.bar...), q: q})
	}
	tu, ok, err := chooseTextL2(ctx, data, C, K, s.Mu, F)
	if err != nil || !ok {
		return err
	}
	s.MuText, s.tuned, s.lastTune = tu.Chosen, true, tu
	return nil
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

// answerTargets are the documents of the last statistics with their
// answers' shares per class as targets (documents without answers left
// out).
func (s *Softmax) answerTargets() []cvTarget {
	if s.answers == nil {
		return nil
	}
	var data []cvTarget
	for _, i := range s.lastStats.Index {
		if i < 0 || i >= len(s.answers.ByDoc) || len(s.answers.ByDoc[i]) == 0 {
			continue
		}
		v := s.st.view(i, nil)
		if len(v.bar) != s.K {
			continue
		}
		q := make([]float64, s.C)
		n := 0.0
		for _, a := range s.answers.ByDoc[i] {
			if a.Class >= 0 && int(a.Class) < s.C {
				q[a.Class]++
				n++
			}
		}
		if n == 0 {
			continue
		}
		for c := range q {
			q[c] /= n
		}
		data = append(data, cvTarget{bar: append([]float64(nil), v.bar...), q: q})
	}
	return data
}

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

// cvLoss is −Σ_d Σ_c q_dc log softmax(ηφ̄_d)_c and, when g is non-nil, its
// gradient in g (overwritten): Σ_d (p_d − q_d)φ̄_dᵀ.
func cvLoss(eta []float64, C, K int, data []cvTarget, g []float64) float64 {
	if g != nil {
		clear(g)
	}
	a := make([]float64, C)
	loss := 0.0
	for _, d := range data {
		mx := math.Inf(-1)
		for c := range a {
			a[c] = dot(eta[c*K:(c+1)*K], d.bar)
			mx = math.Max(mx, a[c])
		}
		z := 0.0
		for _, v := range a {
			z += math.Exp(v - mx)
		}
		lse := mx + math.Log(z)
		for c, q := range d.q {
			loss -= q * (a[c] - lse)
			if g != nil {
				r := math.Exp(a[c]-lse) - q
				for k, b := range d.bar {
					g[c*K+k] += r * b
				}
			}
		}
	}
	return loss
}

var _ framework.Tuner = (*Softmax)(nil)
