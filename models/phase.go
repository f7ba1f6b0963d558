package models

import (
	"fmt"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

var _ framework.Phased = (*Model)(nil)

// Phase is the model's current phase (framework.PhaseJoint unless a
// schedule set another).
func (m *Model) Phase() framework.Phase { return m.phase }

// SetPhase restricts the model's E-step, statistics, updates and ELBO to a
// phase (framework.Phased; the `two-stage` schedule calls it between
// stages):
//
//   - framework.PhaseJoint: the whole model (the default).
//   - framework.PhaseTopics: plain LDA (MODEL.md §1, the topic terms of §4);
//     the response and the annotators take no part. The first call
//     allocates the frozen φ (float32 per document, distinct word and
//     topic: 4·K·Σ_d L_d bytes); every PhaseTopics E-step then records the
//     final φ of each document it visits, so the store holds the φ of the
//     last PhaseTopics E-step. The E-step itself is exactly plain LDA's
//     (bit-identical to a model without response and annotators).
//   - framework.PhaseResponse: the topics and every training document's φ
//     stay as the last PhaseTopics E-step left them; the local step is one
//     target update on the frozen φ (no topic sweep), and only the response
//     and the annotators accumulate statistics, update and contribute to
//     the ELBO. It needs a response (else framework.ErrIncompatible) and a
//     PhaseTopics E-step that has covered every training document (else
//     framework.ErrNotTrained).
func (m *Model) SetPhase(p framework.Phase) error {
	switch p {
	case framework.PhaseJoint:
	case framework.PhaseTopics:
		if m.corpus == nil {
			return fmt.Errorf("%w: phase %v: no training corpus", framework.ErrNotTrained, p)
		}
		if m.frozen == nil {
			m.frozen = newFrozenPhi(m.corpus, m.Topics.K)
		}
	case framework.PhaseResponse:
		if m.Response == nil {
			return fmt.Errorf("%w: phase %v: the model has no response to fit (give a response block)", framework.ErrIncompatible, p)
		}
		if m.corpus == nil {
			return fmt.Errorf("%w: phase %v: no training corpus", framework.ErrNotTrained, p)
		}
		if m.frozen == nil || !m.frozen.complete() {
			return fmt.Errorf("%w: phase %v needs the φ of every training document from a %v-phase E-step; run that phase first", framework.ErrNotTrained, p, framework.PhaseTopics)
		}
	default:
		return fmt.Errorf("%w: unknown model phase %v", framework.ErrBadInput, p)
	}
	m.phase = p
	return nil
}

// supervised reports whether the local step runs the response's
// supervision and the target posterior (MODEL.md §2, §3) around the topic
// sweeps: only in PhaseJoint, with a response.
func (m *Model) supervised() bool {
	return m.Response != nil && m.phase == framework.PhaseJoint
}

// ready checks that the model can run a local pass over its training
// corpus in its phase.
func (m *Model) ready() error {
	if m.corpus == nil {
		return fmt.Errorf("%w: no training corpus", framework.ErrNotTrained)
	}
	if m.fixed && m.phase == framework.PhaseJoint {
		return fmt.Errorf("%w: the response treats φ̄ as fixed features and cannot be fitted jointly with the topics: use inference \"two-stage\"", framework.ErrIncompatible)
	}
	return nil
}

// answers is the training corpus's answers by document (nil without).
func (m *Model) answers() [][]framework.Answer {
	if m.corpus.Answers == nil {
		return nil
	}
	return m.corpus.Answers.ByDoc
}

// trainingStep runs training document i's local step as the phase says,
// leaving the result in w.ds.
func (m *Model) trainingStep(w *worker, i int, a []framework.Answer) {
	if m.phase == framework.PhaseResponse {
		m.frozenStep(w, i, a)
		return
	}
	var warm []float64
	if m.seen[i] {
		K := m.Topics.K
		warm = m.gamma[i*K : (i+1)*K]
	}
	m.localStep(w, i, &m.corpus.Docs[i], a, warm)
}

// frozenStep is the local step of PhaseResponse: φ_d restored from the
// frozen store, γ_d (and E[log θ_d]) from the last PhaseTopics E-step,
// φ̄_d from φ, then one target update (Begin, TargetTerm, Evidence,
// Finalize): with φ fixed, q(target) is then the exact coordinate maximiser
// of the bound, so no iteration is needed. O(L_d·K) plus the response's
// Begin.
func (m *Model) frozenStep(w *worker, i int, a []framework.Answer) {
	ds, K := w.ds, m.Topics.K
	ds.Bind(i, &m.corpus.Docs[i], a)
	m.frozen.restore(ds)
	copy(ds.Gamma, m.gamma[i*K:(i+1)*K])
	topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
	ds.UpdatePhiBar()
	m.updateTarget(w)
}

// frozenPhi is every training document's φ as the last PhaseTopics E-step
// left it: float32, Len_d×K per document, 4·K·Σ_d L_d bytes in all (the
// same layout as the softmax response's store). A document's slot is
// written only by the goroutine running its local step (shards are
// disjoint), and read only in another E-step, so no locking is needed.
type frozenPhi struct {
	k    int
	off  []int     // off[i]..off[i+1]: document i's φ in phi (len D+1)
	phi  []float32 // Σ_d Len_d·K
	done []bool    // document i's slot was written
}

func newFrozenPhi(c *framework.Corpus, k int) *frozenPhi {
	D := len(c.Docs)
	f := &frozenPhi{k: k, off: make([]int, D+1), done: make([]bool, D)}
	for i := range c.Docs {
		f.off[i+1] = f.off[i] + c.Docs[i].Len()*k
	}
	f.phi = make([]float32, f.off[D])
	return f
}

// Bytes is the memory the frozen φ takes.
func (f *frozenPhi) Bytes() int { return 4 * len(f.phi) }

func (f *frozenPhi) complete() bool {
	for _, d := range f.done {
		if !d {
			return false
		}
	}
	return true
}

// record stores document d.Index's φ.
func (f *frozenPhi) record(d *framework.DocState) {
	i := d.Index
	dst := f.phi[f.off[i]:f.off[i+1]]
	for j, p := range d.Phi[:len(dst)] {
		dst[j] = float32(p)
	}
	f.done[i] = true
}

// restore sets d.Phi to document d.Index's stored φ, each row renormalised
// (float32 rounding) so that it sums to 1.
func (f *frozenPhi) restore(d *framework.DocState) {
	i, K := d.Index, f.k
	src := f.phi[f.off[i]:f.off[i+1]]
	for j := range d.Doc.Words {
		row := d.PhiRow(j)
		s := 0.0
		for k := range row {
			row[k] = float64(src[j*K+k])
			s += row[k]
		}
		if s > 0 {
			inv := 1 / s
			for k := range row {
				row[k] *= inv
			}
		}
	}
}

// FrozenPhiBytes is the memory held by the frozen φ of the two-stage
// schedule (0 before the model first entered framework.PhaseTopics).
func (m *Model) FrozenPhiBytes() int {
	if m.frozen == nil {
		return 0
	}
	return m.frozen.Bytes()
}

// FrozenPhi returns a copy of training document d's frozen φ (Len_d×K,
// float32 as stored; nil when none was recorded). Tests and diagnostics use
// it.
func (m *Model) FrozenPhi(d int) []float32 {
	if m.frozen == nil || !m.frozen.done[d] {
		return nil
	}
	f := m.frozen
	return append([]float32(nil), f.phi[f.off[d]:f.off[d+1]]...)
}
