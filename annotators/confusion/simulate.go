package confusion

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
)

// MajorityVote sets dst (length C) to the majority vote of answers as a
// distribution: 1/m on each of the m most frequent classes (ties split
// evenly), 0 elsewhere. It returns false, leaving dst zero, when there are
// no answers. Σ_d dst_d[truth_d] is the expected accuracy of majority vote
// with ties broken uniformly at random.
func MajorityVote(dst []float64, answers []framework.Answer) bool {
	clear(dst)
	if len(answers) == 0 {
		return false
	}
	for _, a := range answers {
		dst[a.Class]++
	}
	top := slices.Max(dst)
	m := 0
	for c, v := range dst {
		if v == top {
			m++
		} else {
			dst[c] = 0
		}
	}
	for c, v := range dst {
		if v != 0 {
			dst[c] = 1 / float64(m)
		}
	}
	return true
}

// RowTol is how far from 1 a row of a confusion matrix may sum
// (synth.RowTol).
const RowTol = synth.RowTol

// FromAccuracies is synth.FromAccuracies: one C×C confusion matrix per
// accuracy, the rest of each row spread evenly.
func FromAccuracies(acc []float64, C int) ([][][]float64, error) { return synth.FromAccuracies(acc, C) }

// CheckMatrices is synth.CheckMatrices.
func CheckMatrices(pis [][][]float64, file string) error { return synth.CheckMatrices(pis, file) }

// ReadMatrices is synth.ReadMatrices: confusion matrices from a JSON file.
func ReadMatrices(path string) ([][][]float64, error) { return synth.ReadMatrices(path) }

// ParseMatrices is synth.ParseMatrices.
func ParseMatrices(r io.Reader, name string) ([][][]float64, error) {
	return synth.ParseMatrices(r, name)
}

// Sample simulates crowd answers (MODEL.md §7): document d gets answers
// from perDoc distinct annotators chosen uniformly at random, annotator r
// answering y ~ Cat(π^r_{truth[d]}). Answers of a document are ordered by
// annotator. Errors (framework.ErrBadInput): invalid matrices
// (CheckMatrices), perDoc outside [0, R], a true class outside [0, C), a
// nil rng.
func Sample(truth []int, pis [][][]float64, perDoc int, rng *rand.Rand) ([][]framework.Answer, error) {
	if err := CheckMatrices(pis, ""); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: Sample needs a random source", framework.ErrBadInput)
	}
	R, C := len(pis), len(pis[0])
	if perDoc < 0 || perDoc > R {
		return nil, fmt.Errorf("%w: %d answers per document from %d annotators", framework.ErrBadInput, perDoc, R)
	}
	perm := make([]int, R)
	for i := range perm {
		perm[i] = i
	}
	out := make([][]framework.Answer, len(truth))
	for d, c := range truth {
		if c < 0 || c >= C {
			return nil, fmt.Errorf("%w: document %d: true class %d outside [0, %d)", framework.ErrBadInput, d, c, C)
		}
		// A partial Fisher–Yates shuffle: perm[:perDoc] is a uniform
		// random subset whatever order perm is in.
		for i := 0; i < perDoc; i++ {
			j := i + rng.IntN(R-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		chosen := slices.Clone(perm[:perDoc])
		slices.Sort(chosen)
		as := make([]framework.Answer, perDoc)
		for i, r := range chosen {
			y := draw(pis[r][c], rng)
			as[i] = framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)}
		}
		out[d] = as
	}
	return out, nil
}

// draw samples an index from p (summing to 1 ± RowTol), never one with p = 0.
func draw(p []float64, rng *rand.Rand) int {
	u := rng.Float64()
	acc := 0.0
	last := 0
	for i, x := range p {
		if x == 0 {
			continue
		}
		acc += x
		last = i
		if u < acc {
			return i
		}
	}
	return last
}
