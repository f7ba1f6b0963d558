package confusion

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"gonum.org/v1/gonum/stat/distuv"
)

// SimulateParams are the simulated annotators of an `annotators
// "confusion" {}` block of `maslda simulate` (framework.Sampler): exactly
// one of
//
//	accuracies      = [0.9, 0.6]   # one accuracy per annotator, the rest of each row spread evenly (FromAccuracies)
//	confusions      = [[[0.9, 0.1], [0.2, 0.8]]]   # one C×C row-stochastic matrix per annotator, rows in class order
//	confusions_file = "conf.json"  # the same as a JSON file (ReadMatrices)
//
// or a crowd drawn from communities (the generative model of prior =
// "communities"): count annotators, each in a community in proportion to
// the shares, its rows drawn π^r_c ~ Dir(concentration·Π_c) around its
// community's matrix Π (given by accuracy or confusion; entries 0 stay 0):
//
//	count = 200
//	community "good"    { share = 0.7  accuracy = 0.85  concentration = 50 }
//	community "spammer" { share = 0.3  confusion = [[1, 0], [1, 0]] }
type SimulateParams struct {
	Accuracies     []float64      `hcl:"accuracies,optional"`
	Confusions     [][][]float64  `hcl:"confusions,optional"`
	ConfusionsFile string         `hcl:"confusions_file,optional"`
	Count          int            `hcl:"count,optional"`
	Communities    []SimCommunity `hcl:"community,block"`
}

// SimCommunity is one `community "NAME" {}` block of SimulateParams.
type SimCommunity struct {
	Name string `hcl:"name,label"`
	// Share is the community's share of the annotators (> 0; the shares
	// are normalised).
	Share float64 `hcl:"share"`
	// Accuracy (the rest of each row spread evenly) or Confusion (C×C,
	// row-stochastic): the community's matrix Π.
	Accuracy  *float64    `hcl:"accuracy,optional"`
	Confusion [][]float64 `hcl:"confusion,optional"`
	// Concentration of the members' rows around Π (> 0; default 100).
	Concentration float64 `hcl:"concentration,optional"`
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
	for _, g := range []bool{sp.Accuracies != nil, sp.Confusions != nil, sp.ConfusionsFile != "", sp.Communities != nil} {
		if g {
			given++
		}
	}
	if given != 1 {
		return nil, fmt.Errorf("%w: simulated confusion-matrix annotators: give one of accuracies, confusions, confusions_file, community blocks (with count)", framework.ErrBadInput)
	}
	C := len(truth.Classes)
	classes := make([]int, len(truth.Class))
	for d, c := range truth.Class {
		classes[d] = int(c)
	}
	if sp.Communities != nil {
		comms, member, err := communityCrowd(sp, C)
		if err != nil {
			return nil, err
		}
		return &simulation{truth: classes, comms: comms, member: member}, nil
	}
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
	return &simulation{truth: classes, pis: pis}, nil
}

// communityCrowd checks the community blocks and assigns count annotators
// to them by largest remainder of count·share (in block order, so the
// assignment is deterministic); it returns the communities (matrix and
// concentration) and every annotator's community.
func communityCrowd(sp SimulateParams, C int) ([]simCommunity, []int, error) {
	if sp.Count < 1 {
		return nil, nil, fmt.Errorf("%w: simulated communities: count = %d, want the number of annotators (≥ 1)", framework.ErrBadInput, sp.Count)
	}
	total := 0.0
	comms := make([]simCommunity, len(sp.Communities))
	for k, b := range sp.Communities {
		if !(b.Share > 0) || math.IsInf(b.Share, 0) {
			return nil, nil, fmt.Errorf("%w: community %q: share = %v, want a finite number > 0", framework.ErrBadInput, b.Name, b.Share)
		}
		total += b.Share
		conc := b.Concentration
		if conc == 0 {
			conc = 100
		}
		if !(conc > 0) || math.IsInf(conc, 0) {
			return nil, nil, fmt.Errorf("%w: community %q: concentration = %v, want a finite number > 0", framework.ErrBadInput, b.Name, b.Concentration)
		}
		var pi [][]float64
		switch {
		case b.Confusion != nil && b.Accuracy != nil:
			return nil, nil, fmt.Errorf("%w: community %q: give accuracy or confusion, not both", framework.ErrBadInput, b.Name)
		case b.Confusion == nil && b.Accuracy == nil:
			return nil, nil, fmt.Errorf("%w: community %q: give its accuracy (a number in [0, 1]) or its confusion matrix", framework.ErrBadInput, b.Name)
		case b.Confusion != nil:
			if err := CheckMatrices([][][]float64{b.Confusion}, "community "+strconv.Quote(b.Name)); err != nil {
				return nil, nil, err
			}
			if len(b.Confusion) != C {
				return nil, nil, fmt.Errorf("%w: community %q: a %d×%d confusion matrix for %d classes", framework.ErrBadInput, b.Name, len(b.Confusion), len(b.Confusion), C)
			}
			pi = b.Confusion
		default:
			pis, err := FromAccuracies([]float64{*b.Accuracy}, C)
			if err != nil {
				return nil, nil, fmt.Errorf("community %q: %w", b.Name, err)
			}
			pi = pis[0]
		}
		comms[k] = simCommunity{pi: pi, conc: conc}
	}
	// Largest remainder: floor(count·share/total) each, the rest to the
	// largest fractional parts (earlier blocks first on ties).
	member := make([]int, 0, sp.Count)
	sizes := make([]int, len(comms))
	frac := make([]float64, len(comms))
	left := sp.Count
	for k, b := range sp.Communities {
		x := float64(sp.Count) * b.Share / total
		sizes[k] = int(math.Floor(x))
		frac[k] = x - float64(sizes[k])
		left -= sizes[k]
	}
	for ; left > 0; left-- {
		best := 0
		for k := range frac {
			if frac[k] > frac[best] {
				best = k
			}
		}
		sizes[best]++
		frac[best] = -1
	}
	for k, n := range sizes {
		for range n {
			member = append(member, k)
		}
	}
	return comms, member, nil
}

type simCommunity struct {
	pi   [][]float64
	conc float64
}

type simulation struct {
	truth []int
	pis   [][][]float64

	comms  []simCommunity // community crowds: the members' matrices are drawn at the first Sample
	member []int
}

func (s *simulation) Annotators() int {
	if s.member != nil {
		return len(s.member)
	}
	return len(s.pis)
}

// Sample draws with Sample; perDoc 0 means every annotator (Sample's own
// 0 gives no answer). A community crowd first draws its members'
// matrices, each row Dir(concentration·Π_c) over the nonzero entries of
// Π_c, from rng.
func (s *simulation) Sample(perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	if s.member != nil && s.pis == nil {
		s.pis = make([][][]float64, len(s.member))
		for r, k := range s.member {
			c := s.comms[k]
			s.pis[r] = make([][]float64, len(c.pi))
			for i, row := range c.pi {
				s.pis[r][i] = dirichletAround(row, c.conc, rng)
			}
		}
	}
	if perDoc == 0 {
		perDoc = len(s.pis)
	}
	return Sample(s.truth, s.pis, perDoc, rng)
}

// dirichletAround draws from Dir(conc·p) over p's nonzero entries (the
// others stay 0).
func dirichletAround(p []float64, conc float64, rng *rand.Rand) []float64 {
	out := make([]float64, len(p))
	sum := 0.0
	for i, x := range p {
		if x > 0 {
			out[i] = distuv.Gamma{Alpha: conc * x, Beta: 1, Src: rng}.Rand()
			sum += out[i]
		}
	}
	if !(sum > 0) { // every draw underflowed: the mean
		return slices.Clone(p)
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}
