package softmax

import "github.com/maslda/maslda/framework"

// store holds, for every training document, what the M-step needs from its
// last local step: φ_d (float32, Len_d×K), λ_d (C) and φ̄_d (K). It is
// allocated once at Init from the training corpus. During an E-step each
// document's slot is written only by the goroutine running that document's
// local step (shards are disjoint), and read only after the E-step has
// returned, so no locking is needed.
type store struct {
	K, C int
	off  []int             // off[i]..off[i+1]: document i's φ in phi (len D+1)
	phi  []float32         // Σ_d Len_d·K
	lam  []float64         // D×C
	bar  []float64         // D×K
	doc  []*framework.Doc  // the document last accumulated into slot i (nil: none yet)
	c    *framework.Corpus // the training corpus (nil: none)
	word bool              // φ is stored (the product bound); otherwise phi is empty
}

// newStore allocates the store for corpus c; φ only when perWord.
func newStore(c *framework.Corpus, K, C int, perWord bool) *store {
	s := &store{K: K, C: C, c: c, word: perWord}
	D := 0
	if c != nil {
		D = len(c.Docs)
	}
	s.off = make([]int, D+1)
	for i := 0; i < D && perWord; i++ {
		s.off[i+1] = s.off[i] + c.Docs[i].Len()*K
	}
	s.phi = make([]float32, s.off[D])
	s.lam = make([]float64, D*C)
	s.bar = make([]float64, D*K)
	s.doc = make([]*framework.Doc, D)
	return s
}

// fits reports whether document state d has a slot of the right size.
func (s *store) fits(d *framework.DocState) bool {
	i := d.Index
	if s == nil || i < 0 || i >= len(s.doc) {
		return false
	}
	if !s.word {
		return s.c.Docs[i].Len() == d.Doc.Len()
	}
	return s.off[i+1]-s.off[i] == d.Doc.Len()*s.K
}

// view is slot i as the M-step sees it.
func (s *store) view(i int) docView[float32] {
	return docView[float32]{doc: s.doc[i], phi: s.phi[s.off[i]:s.off[i+1]],
		lam: s.lam[i*s.C : (i+1)*s.C], bar: s.bar[i*s.K : (i+1)*s.K]}
}

// Stats are the softmax response's sufficient statistics: which documents a
// (mini-)batch covers (their φ, λ, φ̄ are in the response's per-document
// store, written by Accumulate) and Σ_d H(λ_d). Documents without a slot in
// the store (not part of the training corpus given to Init) are copied into
// the statistics themselves. Merge appends, so merged statistics are those
// of the union (as a sequence, in merge order).
//
// Statistics refer to the store's contents: they are valid until the same
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

// Accumulate records document d after its local step: φ_d (as float32),
// λ_d and φ̄_d into its store slot, its index into s, and H(λ_d).
func (s *Softmax) Accumulate(st framework.Stats, d *framework.DocState) {
	stats := st.(*Stats)
	t := d.Target.(*framework.Categorical)
	stats.Entropy += t.Entropy()
	if s.quad {
		addCov(stats.Cov, d, s.K)
	}
	stats.version++
	var v docView[float32]
	if s.st.fits(d) {
		i := d.Index
		s.st.doc[i] = d.Doc
		v = s.st.view(i)
		stats.Index = append(stats.Index, i)
	} else {
		v = docView[float32]{doc: d.Doc, lam: make([]float64, s.C), bar: make([]float64, s.K)}
		if !s.quad {
			v.phi = make([]float32, len(d.Phi))
		}
		stats.extra = append(stats.extra, v)
	}
	if !s.quad {
		for i, p := range d.Phi {
			v.phi[i] = float32(p)
		}
	}
	copy(v.lam, t.P)
	copy(v.bar, d.PhiBar)
}

// records lists the documents of stats for the M-step: store slots in
// index order, then the copied documents.
func (s *Softmax) records(stats *Stats) []docView[float32] {
	recs := make([]docView[float32], 0, stats.Docs())
	for _, i := range stats.Index {
		recs = append(recs, s.st.view(i))
	}
	return append(recs, stats.extra...)
}
