package confusion

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/maslda/maslda/framework"
)

var (
	_ framework.AgreementRelabeler = (*Model)(nil)
	_ framework.ClassPermuter      = (*Model)(nil)
)

// relabelMaxClasses bounds the exact search over relabellings (a dynamic
// programme over subsets of classes, C²·2^C steps).
const relabelMaxClasses = 12

// Relabeling is framework.Relabeler: with relabel = "agreement", the
// permutation perm of the classes that maximises the answers' agreement
// with the documents' labels, Σ_d Σ_{answers y of d} q_d(c)·[perm[c] = y]
// (the annotators the model ignores left out), when it agrees with more
// answers than the fit's own labelling; nil otherwise, and with more than
// relabelMaxClasses classes or without the training answers. Where the
// bound cannot tell a fit from its twin (ByAgreement) the proposal is
// kept on this agreement alone, so it is made only when the answers
// prefer the twin beyond chance (agreementSignificant).
func (m *Model) Relabeling(targets []framework.Target) []int {
	C := m.nc
	if m.cfg.Relabel != RelabelAgreement || m.byDoc == nil || C < 2 || C > relabelMaxClasses {
		return nil
	}
	// agree[c*C+y]: the answers y on documents weighted by q_d(c).
	agree := make([]float64, C*C)
	m.eachReadAnswer(targets, func(q []float64, y int) {
		for c, p := range q {
			agree[c*C+y] += p
		}
	})
	perm, best := bestAssignment(agree, C)
	own := 0.0
	for c := range C {
		own += agree[c*C+c]
	}
	if !(best > own*(1+1e-9)) {
		return nil
	}
	if m.ByAgreement() && !m.agreementSignificant(targets, perm, best-own) {
		return nil
	}
	return perm
}

// eachReadAnswer calls f with q_d (the document's class posterior) and
// the class y of every answer the model reads: of the training documents
// with a categorical target of C classes, the ignored annotators and
// classes outside 0…C−1 left out.
func (m *Model) eachReadAnswer(targets []framework.Target, f func(q []float64, y int)) {
	for d, as := range m.byDoc {
		if d >= len(targets) {
			break
		}
		t, ok := targets[d].(*framework.Categorical)
		if !ok || t == nil || len(t.P) != m.nc {
			continue
		}
		for _, a := range as {
			if m.ignores(a.Annotator) || a.Class < 0 || int(a.Class) >= m.nc {
				continue
			}
			f(t.P, int(a.Class))
		}
	}
}

// relabelZ is how many standard errors the twin's agreement must exceed
// the fit's by where the agreement alone decides (ByAgreement): a
// one-sided sign test at about the 2.3% level.
const relabelZ = 2

// agreementSignificant reports whether the answers prefer the twin perm
// beyond chance: with x_a = Σ_c q_d(c)·([perm[c] = y_a] − [c = y_a]) for
// every answer a read (eachReadAnswer), Δ = Σ_a x_a (the twin's agreement
// less the fit's, delta) ≥ relabelZ·√(Σ_a x_a²), a paired sign test of
// the twin's agreement against the fit's. Where the bound cannot judge
// the twin, a proposal the answers hardly prefer would trade a fit's
// labelling for majority vote's on classes the crowd confuses.
func (m *Model) agreementSignificant(targets []framework.Target, perm []int, delta float64) bool {
	ss := 0.0
	m.eachReadAnswer(targets, func(q []float64, y int) {
		x := 0.0
		for c, p := range q {
			if perm[c] == y {
				x += p
			}
			if c == y {
				x -= p
			}
		}
		ss += x * x
	})
	return delta > 0 && delta >= relabelZ*math.Sqrt(ss)
}

// ByAgreement is framework.AgreementRelabeler: true where the bound is the
// same for a fit and its twin, so that the answers' agreement decides
// (docs/design.md, "The relabelled twin"): under a learned prior
// (prior = "learned", or communities without the diagonal hyperprior or
// prior_dominant)
// the type-II fit of the prior follows the relabelling, and the fixed
// prior with diagonal = 0 has no diagonal to prefer.
func (m *Model) ByAgreement() bool {
	return (m.comm != nil && m.cfg.PriorDiagonal == 0 && !m.cfg.PriorDominant) || m.cfg.Prior == PriorLearned || (m.comm == nil && m.cfg.Diagonal == 0)
}

// bestAssignment maximises Σ_c w[c*C+perm[c]] over the permutations of
// 0…C−1 (exactly: a dynamic programme over the subsets of the classes
// taken by the first classes), the first maximum in the order of the
// subsets; it returns perm and the maximum.
func bestAssignment(w []float64, C int) ([]int, float64) {
	n := 1 << C
	val := make([]float64, n)
	from := make([]int8, n) // the class taken by the last row in the best way to reach the subset
	for s := 1; s < n; s++ {
		val[s] = -1
	}
	for s := range n - 1 {
		if val[s] < 0 {
			continue
		}
		c := bits.OnesCount(uint(s)) // the next row
		for y := range C {
			if s&(1<<y) != 0 {
				continue
			}
			t := s | 1<<y
			if v := val[s] + w[c*C+y]; v > val[t] {
				val[t], from[t] = v, int8(y)
			}
		}
	}
	perm := make([]int, C)
	for s, c := n-1, C-1; c >= 0; c-- {
		y := int(from[s])
		perm[c] = y
		s &^= 1 << y
	}
	return perm, val[n-1]
}

// PermuteClasses is framework.ClassPermuter: every annotator's row c of ξ
// becomes row perm[c], as do a learned prior's and the communities' rows
// (the fixed prior Dir(ω + diagonal·e_c) stays: it is what tells a fit
// from its twin).
func (m *Model) PermuteClasses(perm []int) error {
	if m.xi == nil {
		return fmt.Errorf("%w: confusion annotators: PermuteClasses before Init", framework.ErrNotTrained)
	}
	C := m.nc
	if err := framework.CheckPermutation(perm, C); err != nil {
		return fmt.Errorf("confusion annotators: %w", err)
	}
	rows := func(v []float64) {
		old := append([]float64(nil), v...)
		for c, to := range perm {
			copy(v[to*C:(to+1)*C], old[c*C:(c+1)*C])
		}
	}
	for r := range m.nr {
		rows(m.xi[r*C*C:][:C*C])
	}
	if m.cfg.Prior == PriorLearned {
		rows(m.alpha)
	}
	if cm := m.comm; cm != nil {
		for k := range cm.m {
			rows(cm.alpha[k*C*C:][:C*C])
		}
		for r := range m.nr {
			rows(cm.pri[r*C*C:][:C*C])
		}
	}
	m.refresh()
	return nil
}
