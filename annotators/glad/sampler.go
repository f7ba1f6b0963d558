package glad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/maslda/maslda/framework"
)

// SimulateParams are the simulated annotators of an `annotators "glad" {}`
// block of `maslda simulate` (framework.Sampler):
//
//	abilities     = [3, 1, 0.2, -1]   # one ability a_r per annotator (required)
//	log_beta_mean = 1                 # each task's b_d = log β_d ~ N(log_beta_mean, log_beta_sd²)
//	log_beta_sd   = 1
//
// A task's difficulty is drawn once, shared by all its answers; an answer
// is right with probability σ(a_r e^{b_d}), otherwise any other class
// with equal probability.
type SimulateParams struct {
	Abilities   []float64 `hcl:"abilities"`
	LogBetaMean *float64  `hcl:"log_beta_mean,optional"`
	LogBetaSD   *float64  `hcl:"log_beta_sd,optional"`
}

var _ framework.Sampler = (*Model)(nil)

// SampleKind is "categorical": the annotators answer a class.
func (m *Model) SampleKind() string { return "categorical" }

// Simulate decodes SimulateParams and checks them against the truth's
// classes (at least 2).
func (m *Model) Simulate(p framework.Params, truth *framework.Truth) (framework.Simulation, error) {
	var sp SimulateParams
	if err := p.Decode(&sp); err != nil {
		return nil, err
	}
	mu, sd := 1.0, 1.0
	if sp.LogBetaMean != nil {
		mu = *sp.LogBetaMean
	}
	if sp.LogBetaSD != nil {
		sd = *sp.LogBetaSD
	}
	switch {
	case len(sp.Abilities) == 0:
		return nil, fmt.Errorf("%w: simulated GLAD annotators: abilities is empty, want one ability per annotator", framework.ErrBadInput)
	case len(truth.Classes) < 2:
		return nil, fmt.Errorf("%w: simulated GLAD annotators need at least 2 classes, the truth has %d", framework.ErrBadInput, len(truth.Classes))
	case math.IsNaN(mu) || math.Abs(mu) > 10:
		return nil, fmt.Errorf("%w: simulated GLAD annotators: log_beta_mean = %v, want a number in [−10, 10]", framework.ErrBadInput, mu)
	case !(sd >= 0 && sd <= 5):
		return nil, fmt.Errorf("%w: simulated GLAD annotators: log_beta_sd = %v, want a number in [0, 5]", framework.ErrBadInput, sd)
	}
	for r, a := range sp.Abilities {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("%w: simulated GLAD annotators: ability %d is %v, want a finite number", framework.ErrBadInput, r, a)
		}
	}
	classes := make([]int, len(truth.Class))
	for d, c := range truth.Class {
		classes[d] = int(c)
	}
	return &simulation{truth: classes, C: len(truth.Classes), abilities: slices.Clone(sp.Abilities), mu: mu, sd: sd}, nil
}

type simulation struct {
	truth     []int
	C         int
	abilities []float64
	mu, sd    float64
}

func (s *simulation) Annotators() int { return len(s.abilities) }

// Sample draws, per document, its difficulty b_d ~ N(mu, sd²), perDoc
// distinct annotators (0: every one) and their answers, from rng only.
func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	R := len(s.abilities)
	if perDoc == 0 {
		perDoc = R
	}
	if perDoc < 0 || perDoc > R {
		return nil, fmt.Errorf("%w: %d answers per document from %d annotators", framework.ErrBadInput, perDoc, R)
	}
	perm := make([]int, R)
	for i := range perm {
		perm[i] = i
	}
	out := make([][]framework.Answer, len(s.truth))
	for d, c := range s.truth {
		if c < 0 || c >= s.C {
			return nil, fmt.Errorf("%w: document %d: true class %d outside [0, %d)", framework.ErrBadInput, d, c, s.C)
		}
		beta := math.Exp(s.mu + s.sd*rng.NormFloat64())
		for i := 0; i < perDoc; i++ {
			j := i + rng.IntN(R-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		chosen := slices.Clone(perm[:perDoc])
		slices.Sort(chosen)
		as := make([]framework.Answer, perDoc)
		for i, r := range chosen {
			y := c
			if rng.Float64() >= sigmoid(s.abilities[r]*beta) {
				y = (c + 1 + rng.IntN(s.C-1)) % s.C
			}
			as[i] = framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)}
		}
		out[d] = as
	}
	return out, nil
}
