package ordinalshift

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// SimulateParams are the simulated annotators of an `annotators
// "ordinal-shift" {}` block of `maslda simulate` (framework.Sampler): one
// shift, stretch and precision per annotator, who perceives x = stretch·m_c
// + shift + ε/precision for an item of true level c and answers the level
// whose interval holds x (Sample), e.g. one accurate annotator, one who
// rates a level high, one who uses the extremes and two noisy ones:
//
//	shift     = [0, 1, 0, 0, 0]
//	stretch   = [1, 1, 2.5, 1, 1]   # optional: 1 for every annotator
//	precision = [6, 6, 6, 1, 0.7]
type SimulateParams struct {
	Shift     []float64 `hcl:"shift"`
	Stretch   []float64 `hcl:"stretch,optional"`
	Precision []float64 `hcl:"precision"`
}

// SampleKind is "ordinal": the annotators answer ordered levels.
func (m *Model) SampleKind() string { return "ordinal" }

// Simulate decodes SimulateParams: as many shifts as precisions (and
// stretches, when given), finite shifts, positive finite stretches and
// precisions, at least two levels.
func (m *Model) Simulate(p framework.Params, truth *framework.Truth) (framework.Simulation, error) {
	var sp SimulateParams
	if err := p.Decode(&sp); err != nil {
		return nil, err
	}
	R := len(sp.Shift)
	if R == 0 || len(sp.Precision) != R || (sp.Stretch != nil && len(sp.Stretch) != R) {
		return nil, fmt.Errorf("%w: %d shifts, %d stretches and %d precisions (one of each per annotator, stretch optional, at least one annotator)", framework.ErrBadInput, R, len(sp.Stretch), len(sp.Precision))
	}
	ann := make([]Annotator, R)
	for r := range ann {
		a := Annotator{Shift: sp.Shift[r], Stretch: 1, Precision: sp.Precision[r]}
		if sp.Stretch != nil {
			a.Stretch = sp.Stretch[r]
		}
		switch {
		case math.IsNaN(a.Shift) || math.IsInf(a.Shift, 0):
			return nil, fmt.Errorf("%w: shift %v, want finite numbers", framework.ErrBadInput, a.Shift)
		case !(a.Stretch > 0) || math.IsInf(a.Stretch, 0):
			return nil, fmt.Errorf("%w: stretch %v, want positive finite numbers", framework.ErrBadInput, a.Stretch)
		case !(a.Precision > 0) || math.IsInf(a.Precision, 0):
			return nil, fmt.Errorf("%w: precision %v, want positive finite numbers", framework.ErrBadInput, a.Precision)
		}
		ann[r] = a
	}
	C := len(truth.Classes)
	if C < 2 {
		return nil, fmt.Errorf("%w: %d levels, want at least 2 ordered levels", framework.ErrBadInput, C)
	}
	levels := make([]int, len(truth.Class))
	for d, c := range truth.Class {
		if c < 0 || int(c) >= C {
			return nil, fmt.Errorf("%w: document %d: true level %d outside the %d levels", framework.ErrBadInput, d, c, C)
		}
		levels[d] = int(c)
	}
	return &simulation{truth: levels, C: C, ann: ann}, nil
}

type simulation struct {
	truth []int
	C     int
	ann   []Annotator
}

func (s *simulation) Annotators() int { return len(s.ann) }

func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	return Sample(s.truth, s.C, s.ann, perDoc, rng), nil
}
