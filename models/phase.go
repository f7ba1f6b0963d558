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
//     the response and the annotators take no part. The model's φ store
//     (phiStore: float32, 4·K·Σ_d L_d bytes) is allocated by the first call
//     if nothing else needed it, and emptied when coming from
//     PhaseJoint; every PhaseTopics E-step then records the final φ of
//     each document it visits, so the store holds the φ of the last
//     PhaseTopics E-step. The E-step itself is exactly plain LDA's
//     (bit-identical to a model without response and annotators).
//   - framework.PhaseResponse: the topics and every training document's φ
//     stay as the last PhaseTopics E-step left them; the local step is one
//     target update on the frozen φ (no topic sweep), and only the response
//     and the annotators accumulate statistics, update and contribute to
//     the ELBO. It needs a response (else framework.ErrIncompatible) and a
//     PhaseTopics E-step that has covered every training document (else
//     framework.ErrNotTrained).
func (m *Model) SetPhase(p framework.Phase) error {
	clear(m.settled) // settled under another phase's local step
	switch p {
	case framework.PhaseJoint:
	case framework.PhaseTopics:
		if m.corpus == nil {
			return fmt.Errorf("%w: phase %v: no training corpus", framework.ErrNotTrained, p)
		}
		if m.phi == nil {
			m.phi = newPhiStore(m.corpus, m.Topics.K)
		} else if m.phase == framework.PhaseJoint {
			clear(m.phi.done) // what joint E-steps stored is not the topics phase's φ
		}
	case framework.PhaseResponse:
		if m.Response == nil {
			return fmt.Errorf("%w: phase %v: the model has no response to fit (give a response block)", framework.ErrIncompatible, p)
		}
		if m.corpus == nil {
			return fmt.Errorf("%w: phase %v: no training corpus", framework.ErrNotTrained, p)
		}
		if m.phi == nil || !m.phi.complete() || m.phase == framework.PhaseJoint {
			return fmt.Errorf("%w: phase %v needs the φ of every training document from a %v-phase E-step; run that phase first", framework.ErrNotTrained, p, framework.PhaseTopics)
		}
	default:
		return fmt.Errorf("%w: unknown model phase %v", framework.ErrBadInput, p)
	}
	m.phase = p
	m.bindPhi()
	return nil
}

// setRestartPhase runs the model as plain LDA for the restarts' candidates
// (Run.Fit, restarts > 1): on, it is in framework.PhaseTopics without the
// two-stage schedule's φ store (none is allocated; a store the model has
// for its response records nothing that outlives the restarts); off, it is
// back in framework.PhaseJoint with fresh local steps, as if the topics the
// candidate reached were the configured start. The response and the
// annotators take no part in between, so they start the joint phase from
// their initialisation.
func (m *Model) setRestartPhase(on bool) {
	if on {
		m.phase = framework.PhaseTopics
	} else {
		m.phase = framework.PhaseJoint
		clear(m.seen)
		clear(m.settled)
		if m.phi != nil {
			clear(m.phi.done)
		}
	}
	m.bindPhi()
}

// bindPhi gives a response whose M-step reads φ (framework.PhiUser) the
// model's store, except in PhaseResponse. There each document's φ is the
// stored float32 row renormalised (frozenStep), and the response copies it
// into its statistics (as the softmax did with its own store before the
// stores were merged, which keeps two-stage results bit-identical, and
// EvalELBO's copy equal to the E-step's).
func (m *Model) bindPhi() {
	if !m.phiUser {
		return
	}
	if m.phase == framework.PhaseResponse {
		m.Response.(framework.PhiUser).UsePhi(nil)
	} else {
		m.Response.(framework.PhiUser).UsePhi(m.phi)
	}
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
	m.phi.restore(ds, false)
	copy(ds.Gamma, m.gamma[i*K:(i+1)*K])
	topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
	ds.UpdatePhiBar()
	m.updateTarget(w)
}

// PhiBytes is the memory held by the model's φ store (0 when the model
// keeps none: see phiStore).
func (m *Model) PhiBytes() int {
	if m.phi == nil {
		return 0
	}
	return m.phi.Bytes()
}

// FrozenPhi returns a copy of training document d's stored φ (Len_d×K,
// float32 as stored; nil when none was recorded). Tests and diagnostics use
// it.
func (m *Model) FrozenPhi(d int) []float32 {
	if m.phi == nil {
		return nil
	}
	return append([]float32(nil), m.phi.Phi(d)...)
}
