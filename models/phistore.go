package models

import "github.com/maslda/maslda/framework"

// phiStore is every training document's φ_d from its last local step of a
// training E-step: float32, Len_d×K per document, 4·K·Σ_d L_d bytes in all.
// A model keeps at most one (Model.phi), allocated when something needs it:
//
//   - a response whose M-step reads φ (framework.PhiUser, the softmax
//     under its product bound), which gets it through UsePhi;
//   - warm starts that resume from the stored φ (Model.phiWarm: a response
//     that may weigh its supervision w > 1 and cannot restore its state
//     otherwise, or a PhiUser);
//   - the two-stage schedule's frozen φ (framework.PhaseTopics records it,
//     framework.PhaseResponse reads it).
//
// A document's slot is written only by the goroutine running its local step
// (shards are disjoint), and read only in another E-step or in the M-step
// after the E-step has returned, so no locking is needed.
type phiStore struct {
	k    int
	off  []int     // off[i]..off[i+1]: document i's φ in phi (len D+1)
	phi  []float32 // Σ_d Len_d·K
	done []bool    // document i's slot was written
}

var _ framework.PhiStore = (*phiStore)(nil)

func newPhiStore(c *framework.Corpus, k int) *phiStore {
	D := len(c.Docs)
	f := &phiStore{k: k, off: make([]int, D+1), done: make([]bool, D)}
	for i := range c.Docs {
		f.off[i+1] = f.off[i] + c.Docs[i].Len()*k
	}
	f.phi = make([]float32, f.off[D])
	return f
}

// Bytes is the memory the φ values take.
func (f *phiStore) Bytes() int { return 4 * len(f.phi) }

// Phi returns document i's stored φ (framework.PhiStore), nil when none.
func (f *phiStore) Phi(i int) []float32 {
	if i < 0 || i >= len(f.done) || !f.done[i] {
		return nil
	}
	return f.phi[f.off[i]:f.off[i+1]]
}

func (f *phiStore) complete() bool {
	for _, d := range f.done {
		if !d {
			return false
		}
	}
	return true
}

// has reports whether document state d has a stored φ of its size.
func (f *phiStore) has(d *framework.DocState) bool {
	i := d.Index
	return i >= 0 && i < len(f.done) && f.done[i] && f.off[i+1]-f.off[i] == len(d.Phi)
}

// record stores document d.Index's φ.
func (f *phiStore) record(d *framework.DocState) {
	i := d.Index
	dst := f.phi[f.off[i]:f.off[i+1]]
	for j, p := range d.Phi[:len(dst)] {
		dst[j] = float32(p)
	}
	f.done[i] = true
}

// restore sets d.Phi to document d.Index's stored φ, each row renormalised
// (float32 rounding) so that it sums to 1, and reports whether it could: a
// row of zeros is not restored. div chooses how a row is renormalised,
// dividing each entry by the row's sum or multiplying it by the sum's
// inverse: the same numbers up to rounding, kept apart so that results
// recorded before the stores were merged (the softmax's warm start
// divided, the model's own stores multiplied) stay bit-identical.
func (f *phiStore) restore(d *framework.DocState, div bool) bool {
	i := d.Index
	return restorePhi(d, f.phi[f.off[i]:f.off[i+1]], f.k, div)
}

// restorePhi is phiStore.restore from src, a document's stored φ
// (Len_d×K float32): the store's, or a shard's (Shard.Phi).
func restorePhi(d *framework.DocState, src []float32, K int, div bool) bool {
	for j := range d.Doc.Words {
		row := d.PhiRow(j)
		s := 0.0
		for k := range row {
			row[k] = float64(src[j*K+k])
			s += row[k]
		}
		switch {
		case !(s > 0):
			if div {
				return false
			}
		case div:
			for k := range row {
				row[k] /= s
			}
		default:
			inv := 1 / s
			for k := range row {
				row[k] *= inv
			}
		}
	}
	return true
}
