package models

import (
	"context"
	"fmt"
	"reflect"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// The seam (issue 26, docs/design.md "Beyond one machine: the seam"): the
// shard-level E-step that the in-process pool and an engine (Apache Beam)
// call alike. A model whose components' statistics are all
// framework.Summable accumulates every document's statistics on its own
// and adds them into framework.ExactSums, so the E-step's totals do not
// depend on how the documents are split into shards, bundles or workers,
// nor on the order in which partial sums are merged: bit for bit.

var _ framework.Summable = (*stats)(nil)

// parts are the components' statistics of s in order (nil ones left out).
func (s *stats) parts() []framework.Stats {
	var ps []framework.Stats
	for _, p := range []framework.Stats{s.topics, s.resp, s.noise} {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// summable reports whether every component's statistics in s are
// framework.Summable, and otherwise names the first that is not.
func (s *stats) summable() (bool, string) {
	for _, c := range []struct {
		what string
		st   framework.Stats
	}{{"topic layer's", s.topics}, {"response's", s.resp}, {"annotators'", s.noise}} {
		if c.st == nil {
			continue
		}
		if _, ok := c.st.(framework.Summable); !ok {
			return false, fmt.Sprintf("the %s statistics (%T) are not fixed-size sums", c.what, c.st)
		}
	}
	return true, ""
}

// SumLayout concatenates the components' layouts.
func (s *stats) SumLayout() []framework.SumPart {
	var l []framework.SumPart
	for _, p := range s.parts() {
		l = append(l, p.(framework.Summable).SumLayout()...)
	}
	return l
}

// Sums visits each component's numbers, its parts numbered after the
// previous components'.
func (s *stats) Sums(visit func(part, off int, xs []float64)) {
	base := 0
	for _, p := range s.parts() {
		sp := p.(framework.Summable)
		b := base
		sp.Sums(func(part, off int, xs []float64) { visit(b+part, off, xs) })
		base += len(sp.SumLayout())
	}
}

// SetSums sets each component's numbers.
func (s *stats) SetSums(get func(part int, dst []float64)) {
	base := 0
	for _, p := range s.parts() {
		sp := p.(framework.Summable)
		b := base
		sp.SetSums(func(part int, dst []float64) { get(b+part, dst) })
		base += len(sp.SumLayout())
	}
}

// exact reports whether the model's E-step sums its statistics exactly,
// document by document (every component's statistics are
// framework.Summable in the current phase).
func (m *Model) exact() bool {
	if exactOff {
		return false
	}
	if p := int(m.phase); p >= 0 && p < len(m.exactMemo) {
		if m.exactMemo[p] == 0 { // the components never change: ask once per phase
			m.exactMemo[p] = 2
			if ok, _ := m.NewStats().(*stats).summable(); ok {
				m.exactMemo[p] = 1
			}
		}
		return m.exactMemo[p] == 1
	}
	ok, _ := m.NewStats().(*stats).summable()
	return ok
}

// exactKey is what the layout of the model's statistics depends on: the
// phase and the components.
type exactKey struct {
	phase    framework.Phase
	topics   *topics.Layer
	response framework.Likelihood
	noise    framework.NoiseModel
}

// exactBuf is one worker's buffers of the exact E-step: its sums and one
// document's statistics (worker.sums, worker.doc).
type exactBuf struct {
	sums *framework.ExactSums
	doc  framework.Stats
}

// exactLayout is the layout of the model's statistics in the current
// phase (SumLayout of exact statistics), computed once for the phase and
// components; when it changes, the exact E-step's buffers of the former
// layout are dropped.
// Components that cannot be compared (a plug-in of a non-comparable
// value type) are taken to change at every pass.
func (m *Model) exactLayout() []framework.SumPart {
	key := exactKey{m.phase, m.Topics, m.Response, m.Noise}
	if m.exactLay == nil || !sameComponent(m.exactKey.response, key.response) || !sameComponent(m.exactKey.noise, key.noise) || m.exactKey.phase != key.phase || m.exactKey.topics != key.topics {
		m.exactKey, m.exactLay, m.exactBufs, m.spareTopics = key, m.NewStats().(*stats).SumLayout(), nil, nil
	}
	return m.exactLay
}

// sameComponent reports whether a and b are the same comparable
// component (false when either cannot be compared).
func sameComponent(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Type() == vb.Type() && va.Comparable() && vb.Comparable() && a == b
}

// exactOff makes the E-step merge float64 statistics shard by shard, as
// before the seam (tests and benchmarks: the cost of exact sums).
var exactOff = false

// SumLayout is the layout of the model's statistics as exact sums in its
// current phase (the ShardResult's Sums). It fails, wrapping
// framework.ErrIncompatible, when a component's statistics are not
// fixed-size sums (the softmax, logreg and ordinal responses keep
// per-document lists; GLAD keeps per-task lists): such a model trains on
// one machine only.
func (m *Model) SumLayout() ([]framework.SumPart, error) {
	s := m.NewStats().(*stats)
	if ok, why := s.summable(); !ok {
		return nil, fmt.Errorf("%w: the model cannot be trained by shards: %s (it trains on one machine only)", framework.ErrIncompatible, why)
	}
	return s.SumLayout(), nil
}

// Shard is the input of the shard-level E-step: documents, their answers
// and the per-document state they carry between E-steps.
type Shard struct {
	Index   []int                // each document's index in the training corpus
	Docs    []framework.Doc      // the documents
	Answers [][]framework.Answer // each document's answers (nil without annotators)
	Gamma   [][]float64          // each document's γ_d from its last E-step (a nil entry, or a nil slice: none, a fresh start)
	// Phi is each document's φ_d from its last E-step (Len_d×K, float32,
	// word-major), for a model that warm-starts from it (a supervision
	// weight above 1, or a response with an exact pilot: Model.ShardPhi);
	// nil entries (or a nil slice): none. Ignored by other models.
	Phi [][]float32
	// Targets is each document's q(target) from its last E-step, for a
	// response that warm-starts from it (framework.TargetRestorerFrom: the
	// softmax's quadratic bound); nil entries (or a nil slice): none.
	// Ignored by other responses.
	Targets []framework.Target
}

// ShardResult is the output of the shard-level E-step.
type ShardResult struct {
	// Sums are the documents' statistics, each document's added exactly
	// (layout: Model.SumLayout). Merge the Sums of every shard in any
	// order and give the total to Model.Combine.
	Sums *framework.ExactSums
	// Gamma is each document's new γ_d (the state of its next E-step).
	Gamma [][]float64
	// Targets is each document's new q(target) (nil for plain LDA).
	Targets []framework.Target
	// Phi is each document's new φ_d (float32) when Model.ShardPhi, else nil.
	Phi [][]float32
}

// ShardPhi reports whether the model's warm starts resume from each
// document's φ of its last E-step (Shard.Phi, ShardResult.Phi): with a
// supervision weight above 1, or a response with an exact pilot, an
// unsupervised first sweep could lower the bound.
func (m *Model) ShardPhi() bool { return m.phiWarm }

// checkSeam refuses a model that keeps per-document state outside a
// Shard (a φ store, a response's store of q(target)) or whose statistics
// are not fixed-size sums, and a phase other than PhaseJoint and
// PhaseTopics (plain LDA: the restarts' candidates, Run.Prepare; the
// shard returns γ only, no φ for a two-stage schedule's store).
func (m *Model) checkSeam() error {
	if _, err := m.SumLayout(); err != nil {
		return err
	}
	if m.phase != framework.PhaseJoint && m.phase != framework.PhaseTopics {
		return fmt.Errorf("%w: the shard-level E-step runs the joint phase and plain LDA's (the restarts' candidates) only (the model is in phase %v)", framework.ErrIncompatible, m.phase)
	}
	if m.fixed {
		return fmt.Errorf("%w: the response treats φ̄ as fixed features (two-stage only)", framework.ErrIncompatible)
	}
	if m.Topics.FreshEvery > 1 {
		return fmt.Errorf("%w: topics.fresh_every = %d keeps a settled mark per document outside the shards; the shard-level E-step restarts every document afresh (fresh_every = 1)", framework.ErrIncompatible, m.Topics.FreshEvery)
	}
	if m.phiUser {
		return fmt.Errorf("%w: the response's M-step reads every document's φ (the softmax's product bound): not fixed-size statistics", framework.ErrIncompatible)
	}
	if m.Response != nil {
		l := m.Response.NewLocal()
		_, tr := l.(framework.TargetRestorer)
		_, from := l.(framework.TargetRestorerFrom)
		if tr && !from {
			return fmt.Errorf("%w: the response restores every document's q(target) from its own store for its warm start, and cannot take it from a shard (framework.TargetRestorerFrom)", framework.ErrIncompatible)
		}
	}
	return nil
}

// ShardEStep runs the local step of the shard's documents at the model's
// current global parameters and returns their statistics as exact sums
// and their new per-document state. It reads nothing else of the model
// that an E-step changes (no stored γ, φ or target) and changes nothing:
// a pure function of the globals and the shard, which any engine may run
// on any split of the corpus, retry or run twice. Summing the Sums of
// every shard of a corpus, in any order, gives the statistics of
// Model.EStep on the corpus, bit for bit, and the γ and targets it would
// store (for documents whose Gamma is the model's stored γ). The model
// needs no training corpus (an engine's worker builds it from a snapshot).
// The documents run one after another; run shards in parallel.
func (m *Model) ShardEStep(ctx context.Context, sh *Shard) (*ShardResult, error) {
	if err := m.checkSeam(); err != nil {
		return nil, err
	}
	n := len(sh.Docs)
	if len(sh.Index) != n || sh.Answers != nil && len(sh.Answers) != n || sh.Gamma != nil && len(sh.Gamma) != n || sh.Phi != nil && len(sh.Phi) != n || sh.Targets != nil && len(sh.Targets) != n {
		return nil, fmt.Errorf("%w: shard of %d documents with %d indices, %d answer lists, %d γ, %d φ, %d targets", framework.ErrBadInput, n, len(sh.Index), len(sh.Answers), len(sh.Gamma), len(sh.Phi), len(sh.Targets))
	}
	if m.Noise != nil && sh.Answers == nil {
		return nil, fmt.Errorf("%w: the model has annotators but the shard has no answers", framework.ErrBadInput)
	}
	K := m.Topics.K
	if err := (&framework.Corpus{V: m.Topics.V, Docs: sh.Docs}).Validate(); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	ml := 0
	for i := range sh.Docs {
		d := &sh.Docs[i]
		if sh.Gamma != nil && sh.Gamma[i] != nil && len(sh.Gamma[i]) != K {
			return nil, fmt.Errorf("%w: shard document %d (index %d): γ of %d topics, want %d", framework.ErrBadInput, i, sh.Index[i], len(sh.Gamma[i]), K)
		}
		if m.hold && m.phase == framework.PhaseJoint && (sh.Targets == nil || sh.Targets[i] == nil) {
			return nil, fmt.Errorf("%w: shard document %d (index %d): the crowd is held (the gaussian's truth = \"exact\", after its pilot) but the shard carries no q(target) of its last E-step", framework.ErrBadInput, i, sh.Index[i])
		}
		if m.phiWarm && sh.Phi != nil && sh.Phi[i] != nil && len(sh.Phi[i]) != d.Len()*K {
			return nil, fmt.Errorf("%w: shard document %d (index %d): φ of %d numbers, want %d words × %d topics", framework.ErrBadInput, i, sh.Index[i], len(sh.Phi[i]), d.Len(), K)
		}
		ml = max(ml, d.Len())
	}
	layout, err := m.SumLayout()
	if err != nil {
		return nil, err
	}
	w := m.newWorker(false, ml)
	w.doc, w.shard = m.NewStats(), true
	res := &ShardResult{Sums: framework.NewExactSums(layout), Gamma: make([][]float64, n)}
	if m.Response != nil && m.phase == framework.PhaseJoint {
		res.Targets = make([]framework.Target, n)
	}
	if m.phiWarm && m.phase == framework.PhaseJoint {
		res.Phi = make([][]float32, n)
	}
	for i := range sh.Docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var a []framework.Answer
		if sh.Answers != nil {
			a = sh.Answers[i]
		}
		var warm []float64
		if sh.Gamma != nil {
			warm = sh.Gamma[i]
		}
		w.phiIn, w.targetIn = nil, nil
		if sh.Phi != nil {
			w.phiIn = sh.Phi[i]
		}
		if sh.Targets != nil {
			w.targetIn = sh.Targets[i]
		}
		m.localStep(w, sh.Index[i], &sh.Docs[i], a, warm)
		res.Gamma[i] = append([]float64(nil), w.ds.Gamma...)
		if res.Phi != nil {
			p := make([]float32, sh.Docs[i].Len()*K)
			for j := range p {
				p[j] = float32(w.ds.Phi[j])
			}
			res.Phi[i] = p
		}
		if res.Targets != nil {
			res.Targets[i] = m.Response.NewTarget()
			res.Targets[i].CopyFrom(w.ds.Target)
		}
		w.ds.Index = -1 // nothing about the document is to be kept outside the statistics (framework.Global.Accumulate)
		if err := m.addDoc(w, res.Sums); err != nil {
			return nil, fmt.Errorf("shard document %d (index %d): %w", i, sh.Index[i], err)
		}
	}
	return res, nil
}

// addDoc accumulates w.ds's statistics alone (into w.doc) and adds them
// exactly into sums.
func (m *Model) addDoc(w *worker, sums *framework.ExactSums) error {
	w.doc.Reset()
	m.accumulateInto(w, w.doc)
	return sums.Add(w.doc.(*stats))
}

// Combine turns the exact sums of every document's statistics (the Sums
// of ShardEStep merged over the corpus, or a mini-batch) into the
// statistics that Update and ELBO take, each number rounded once to the
// nearest float64. It fails, wrapping framework.ErrInexact, when a sum
// is out of range (an addend that was NaN or infinite, a total of
// magnitude 2^63 or more).
func (m *Model) Combine(sums *framework.ExactSums) (framework.Stats, error) {
	s := m.NewStats()
	if err := sums.Round(s.(*stats)); err != nil {
		return nil, err
	}
	return s, nil
}
