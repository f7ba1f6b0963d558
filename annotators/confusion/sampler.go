package confusion

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

// SimulateParams are the simulated annotators of an `annotators
// "confusion" {}` block of `maslda simulate` (framework.Sampler): exactly
// one of
//
//	accuracies      = [0.9, 0.6]   # one accuracy per annotator, the rest of each row spread evenly (FromAccuracies)
//	confusions      = [[[0.9, 0.1], [0.2, 0.8]]]   # one C×C row-stochastic matrix per annotator, rows in class order
//	confusions_file = "conf.json"  # the same as a JSON file (ReadMatrices)
type SimulateParams struct {
	Accuracies     []float64     `hcl:"accuracies,optional"`
	Confusions     [][][]float64 `hcl:"confusions,optional"`
	ConfusionsFile string        `hcl:"confusions_file,optional"`
}

// SampleKind is "categorical": the annotators answer a class.
func (m *Model) SampleKind() string { return "categorical" }

// Simulate decodes SimulateParams and checks the matrices against the
// truth's classes; the simulation answers y ~ Cat(π^r_{c_d}) (Sample).
func (m *Model) Simulate(p framework.Params, truth *framework.Truth) (framework.Simulation, error) {
	var sp SimulateParams
	if err := p.Decode(&sp); err != nil {
		return nil, err
	}
	given := 0
	for _, g := range []bool{sp.Accuracies != nil, sp.Confusions != nil, sp.ConfusionsFile != ""} {
		if g {
			given++
		}
	}
	if given != 1 {
		return nil, fmt.Errorf("%w: simulated confusion-matrix annotators: give one of accuracies, confusions, confusions_file", framework.ErrBadInput)
	}
	C := len(truth.Classes)
	var (
		pis  [][][]float64
		name string
		err  error
	)
	switch {
	case sp.ConfusionsFile != "":
		name = sp.ConfusionsFile
		pis, err = synth.ReadMatrices(sp.ConfusionsFile)
	case sp.Confusions != nil:
		name = "confusions"
		pis, err = sp.Confusions, synth.CheckMatrices(sp.Confusions, "confusions")
	default:
		pis, err = synth.FromAccuracies(sp.Accuracies, C)
	}
	if err != nil {
		return nil, err
	}
	if len(pis[0]) != C {
		return nil, fmt.Errorf("%w: %s has %d×%d matrices but there are %d classes (%s)", framework.ErrBadInput, name, len(pis[0]), len(pis[0]), C, strings.Join(truth.Classes, ", "))
	}
	classes := make([]int, len(truth.Class))
	for d, c := range truth.Class {
		classes[d] = int(c)
	}
	return &simulation{truth: classes, pis: pis}, nil
}

type simulation struct {
	truth []int
	pis   [][][]float64
}

func (s *simulation) Annotators() int { return len(s.pis) }

// Sample draws with Sample; perDoc 0 means every annotator (Sample's own
// 0 gives no answer).
func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	if perDoc == 0 {
		perDoc = len(s.pis)
	}
	return Sample(s.truth, s.pis, perDoc, rng)
}
