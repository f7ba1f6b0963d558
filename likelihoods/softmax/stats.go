package softmax

import (
	"slices"

	"github.com/maslda/maslda/framework"
)

// store holds, for every training document, what the M-step needs from its
// last local step besides φ: λ_d (C) and φ̄_d (K). φ_d, which the product
// bound's M-step reads too, is in the model's store (framework.PhiStore,
// given by UsePhi). It is allocated once at Init from the training corpus.
// During an E-step each document's slot is written only by the goroutine
// running that document's local step (shards are disjoint), and read only
// after the E-step has returned, so no locking is needed.
type store struct {
	K, C int
	lam  []float64         // D×C
	bar  []float64         // D×K
	doc  []*framework.Doc  // the document last accumulated into slot i (nil: none yet)
	c    *framework.Corpus // the training corpus (nil: none)
}

// newStore allocates the store for corpus c.
func newStore(c *framework.Corpus, K, C int) *store {
	s := &store{K: K, C: C, c: c}
	D := 0
	if c != nil {
		D = len(c.Docs)
	}
	s.lam = make([]float64, D*C)
	s.bar = make([]float64, D*K)
	s.doc = make([]*framework.Doc, D)
	return s
}

// fits reports whether document state d has a slot.
func (s *store) fits(d *framework.DocState) bool {
	i := d.Index
	if s == nil || i < 0 || i >= len(s.doc) {
		return false
	}
	return s.c.Docs[i].Len() == d.Doc.Len()
}

// view is slot i as the M-step sees it, with φ_d from phi (nil under the
// quadratic bound).
func (s *store) view(i int, phi framework.PhiStore) docView[float32] {
	v := docView[float32]{doc: s.doc[i], lam: s.lam[i*s.C : (i+1)*s.C], bar: s.bar[i*s.K : (i+1)*s.K]}
	if phi != nil {
		v.phi = phi.Phi(i)
	}
	return v
}

// Stats are the softmax response's sufficient statistics: which documents a
// (mini-)batch covers (their λ, φ̄ are in the response's per-document
// store, written by Accumulate, and their φ in the model's, framework.PhiStore)
// and Σ_d H(λ_d). Documents without a slot in the stores (not part of the
// training corpus given to Init, DocState.Index < 0, or, under the product
// bound, a response not given the model's store by UsePhi) are copied into
// the statistics themselves. Merge appends, so merged statistics are those
// of the union (as a sequence, in merge order).
//
// Statistics refer to the stores' contents: they are valid until the same
// documents go through another E-step.
type Stats struct {
	st      *store
	Index   []int // documents accumulated into the store, in order
	extra   []docView[float32]
	Entropy float64 // Σ_d H(λ_d) = −Σ_d Σ_l λ_dl log λ_dl
	// Cov is S = Σ_d Cov z̄_d (K×K) under the quadratic bound; nil under
	// the product bound.
	Cov     []float64
	version uint64 // bumped by every change, so ELBO knows whether Update saw these statistics
}

// NewStats returns empty statistics.
func (s *Softmax) NewStats() framework.Stats {
	if s.mm {
		return &mmStats{C: s.C, K: s.K, G: make([]float64, s.C*s.K), X: make([]float64, s.K*s.K), Cov: make([]float64, s.K*s.K), Eta0: slices.Clone(s.Eta)}
	}
	st := &Stats{st: s.st}
	if s.quad {
		st.Cov = make([]float64, s.K*s.K)
	}
	return st
}

// Merge appends o (a *Stats of the same response) to s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	s.Index = append(s.Index, t.Index...)
	s.extra = append(s.extra, t.extra...)
	s.Entropy += t.Entropy
	for i, v := range t.Cov {
		s.Cov[i] += v
	}
	s.version++
}

// Reset empties s.
func (s *Stats) Reset() {
	s.Index = s.Index[:0]
	s.extra = nil
	s.Entropy = 0
	clear(s.Cov)
	s.version++
}

// Docs is the number of documents in s.
func (s *Stats) Docs() int { return len(s.Index) + len(s.extra) }

// Accumulate records document d after its local step: λ_d and φ̄_d into its
// store slot, its index into s, and H(λ_d). Under the product bound φ_d is
// read from the model's store, which the model wrote before calling
// Accumulate; a document the stores cannot serve is copied (φ as float32).
func (s *Softmax) Accumulate(st framework.Stats, d *framework.DocState) {
	if s.mm {
		s.accumulateMM(st.(*mmStats), d)
		return
	}
	stats := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	stats.Entropy += t.Entropy()
	if s.quad {
		addCov(stats.Cov, d, s.K)
	}
	stats.version++
	var v docView[float32]
	if s.st.fits(d) && (s.quad || s.phis != nil && len(s.phis.Phi(d.Index)) == len(d.Phi)) {
		i := d.Index
		s.st.doc[i] = d.Doc
		v = s.st.view(i, nil)
		stats.Index = append(stats.Index, i)
	} else {
		v = docView[float32]{doc: d.Doc, lam: make([]float64, s.C), bar: make([]float64, s.K)}
		if !s.quad {
			v.phi = make([]float32, len(d.Phi))
			for i, p := range d.Phi {
				v.phi[i] = float32(p)
			}
		}
		stats.extra = append(stats.extra, v)
	}
	copy(v.lam, t.P)
	copy(v.bar, d.PhiBar)
}

// records lists the documents of stats for the M-step: store slots in
// index order, then the copied documents.
func (s *Softmax) records(stats *Stats) []docView[float32] {
	recs := make([]docView[float32], 0, stats.Docs())
	phi := s.phis
	if s.quad {
		phi = nil
	}
	for _, i := range stats.Index {
		recs = append(recs, s.st.view(i, phi))
	}
	return append(recs, stats.extra...)
}
