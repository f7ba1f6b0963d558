package framework

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// Target is the variational posterior of a document's true target, q(c_d)
// or q(x_d). Messages are added to it in natural parameters: the response
// likelihood adds a prior message, each noise model adds evidence; Finalize
// turns the accumulated natural parameters into moments.
type Target interface {
	// Reset zeroes the natural parameters.
	Reset()
	// Finalize computes the moments from the natural parameters.
	Finalize()
	// CopyFrom makes the receiver a copy of src (of the same concrete type).
	CopyFrom(src Target)
}

// Categorical is q(c_d) = Cat(λ_d) over C classes (MODEL.md §2):
// λ_dl ∝ exp(Log[l]).
type Categorical struct {
	Log  []float64 // natural parameters (log-potentials), accumulated by messages
	P    []float64 // λ_d: normalised probabilities, set by Finalize
	LogZ float64   // log Σ_l exp(Log[l]), set by Finalize
}

// NewCategorical returns a categorical target over c classes.
func NewCategorical(c int) *Categorical {
	return &Categorical{Log: make([]float64, c), P: make([]float64, c)}
}

// Reset zeroes the log-potentials.
func (t *Categorical) Reset() {
	for i := range t.Log {
		t.Log[i] = 0
	}
}

// Finalize normalises: P = softmax(Log).
func (t *Categorical) Finalize() {
	t.LogZ = floats.LogSumExp(t.Log)
	for i, l := range t.Log {
		t.P[i] = math.Exp(l - t.LogZ)
	}
}

// CopyFrom copies src, a *Categorical with as many classes.
func (t *Categorical) CopyFrom(src Target) {
	o := src.(*Categorical)
	copy(t.Log, o.Log)
	copy(t.P, o.P)
	t.LogZ = o.LogZ
}

// Entropy is −Σ_l λ_l log λ_l.
func (t *Categorical) Entropy() float64 {
	h := 0.0
	for i, p := range t.P {
		if p > 0 {
			h -= p * (t.Log[i] - t.LogZ)
		}
	}
	return h
}

// Argmax is the most probable class.
func (t *Categorical) Argmax() int { return floats.MaxIdx(t.P) }

// Gaussian is q(x_d) = N(m_d, v_d) (MODEL.md §3), accumulated in natural
// parameters: precision 1/v and precision×mean m/v.
type Gaussian struct {
	Prec     float64 // Σ of message precisions
	PrecMean float64 // Σ of message precision×mean
	Mean     float64 // m_d, set by Finalize
	Var      float64 // v_d, set by Finalize
}

// Reset zeroes the natural parameters.
func (t *Gaussian) Reset() { t.Prec, t.PrecMean = 0, 0 }

// CopyFrom copies src, a *Gaussian.
func (t *Gaussian) CopyFrom(src Target) { *t = *src.(*Gaussian) }

// Finalize sets Var = 1/Prec and Mean = PrecMean/Prec. A target with no
// precision (no message) gets an infinite variance and a zero mean.
func (t *Gaussian) Finalize() {
	if t.Prec > 0 {
		t.Var = 1 / t.Prec
		t.Mean = t.PrecMean / t.Prec
		return
	}
	t.Var = math.Inf(1)
	t.Mean = 0
}

// CheckPermutation reports whether perm is a permutation of 0…n−1
// (framework.ClassPermuter's argument); the error wraps ErrBadInput.
func CheckPermutation(perm []int, n int) error {
	if len(perm) != n {
		return fmt.Errorf("%w: a permutation of %d classes has %d entries", ErrBadInput, n, len(perm))
	}
	seen := make([]bool, n)
	for c, to := range perm {
		if to < 0 || to >= n || seen[to] {
			return fmt.Errorf("%w: %v is not a permutation of 0…%d (entry %d)", ErrBadInput, perm, n-1, c)
		}
		seen[to] = true
	}
	return nil
}
