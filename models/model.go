package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// ShardSize is the number of documents whose statistics are accumulated
// together before being merged, in shard order, into the total. It is fixed
// (independent of the number of workers), which makes results bit-identical
// for any number of workers.
const ShardSize = 32

// freeShardSize is the number of documents a worker takes at a time when
// nothing is merged shard by shard (the exact E-step, Posterior,
// Predict): the results do not depend on it, and a smaller share leaves
// less of the last one to a single worker at the end of the pass.
const freeShardSize = 8

// Model composes the topic layer with an optional response likelihood and
// an optional annotator noise model. It implements framework.Model.
type Model struct {
	Topics   *topics.Layer
	Response framework.Likelihood // nil for plain LDA
	Noise    framework.NoiseModel // nil when there are no annotators

	corpus  *framework.Corpus
	nDocs   int // training documents: len(corpus.Docs), or those of a run built without them (BuildGlobals)
	workers int
	gamma   []float64          // D×K: each training document's last γ_d (warm start)
	seen    []bool             // gamma[d] holds a value
	targets []framework.Target // each training document's q(target) from its last E-step (nil for plain LDA)
	tseen   []bool             // targets[d] holds a value
	maxLen  int

	phase  framework.Phase // framework.PhaseJoint unless a schedule set another (phase.go)
	mini   bool            // during an E-step of fewer documents than the corpus (a mini-batch): local_init "auto" is "fresh"
	fixed  bool            // the response has fixed features (framework.FixedFeatures): no PhaseJoint
	weight float64         // the supervision weight w (framework.Weighted; 1 without it)
	hold   bool            // the crowd is held (framework.CrowdHolder): training documents' q(target) restored, annotators not updated

	// The thinned fresh restarts of topics.fresh_every > 1 (localStep):
	// batch E-steps so far (estep, counted by EStep) and each training
	// document's settled mark; settled is nil until the first batch E-step
	// and with fresh_every = 1. Saved with checkpoints.
	estep    int
	settled  []bool
	thinning bool // during a batch E-step with fresh_every > 1

	// phi is every training document's φ from its last E-step (phistore.go;
	// nil when nothing needs it): for a response's M-step (phiUser), for
	// warm starts (phiWarm) and for the two-stage schedule's frozen φ
	// (allocated at SetPhase(PhaseTopics)).
	phi     *phiStore
	phiUser bool // the response reads phi in its M-step (framework.PhiUser)
	phiWarm bool // warm starts resume from phi

	exactMemo [3]int8 // per phase: 0 not asked, 1 the statistics are Summable, 2 not (seam.go, exact)

	// The exact E-step's layout and the workers' buffers, kept from one
	// pass to the next (seam.go, exactLayout; exactPass) and dropped at
	// the end of Run.Fit.
	exactKey  exactKey
	exactLay  []framework.SumPart
	exactBufs []exactBuf
	// spareTopics is the topic layer's part of statistics a schedule
	// handed back (RecycleStats), filled again by the next exact pass
	// instead of a new K×V allocation; dropped with exactBufs.
	spareTopics *topics.Stats
}

// NewModel assembles a model over a training corpus (which may be nil for a
// model used only to predict). workers ≤ 0 means runtime.NumCPU().
func NewModel(t *topics.Layer, resp framework.Likelihood, noise framework.NoiseModel, c *framework.Corpus, workers int) (*Model, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: a model needs a topic layer", framework.ErrIncompatible)
	}
	if noise != nil && resp == nil {
		return nil, fmt.Errorf("%w: annotators need a response (the true target they answer about)", framework.ErrIncompatible)
	}
	for _, c := range []struct {
		what string
		comp any
	}{{"response", resp}, {"annotator model", noise}} {
		if err := checkContract(c.what, c.comp); err != nil {
			return nil, err
		}
	}
	if noise != nil {
		if err := noise.Accepts(resp.NewTarget()); err != nil {
			return nil, err
		}
	}
	m := &Model{Topics: t, Response: resp, Noise: noise, weight: 1}
	if ff, ok := resp.(framework.FixedFeatures); ok && ff.FixedFeatures() {
		m.fixed = true
	}
	if err := m.syncWeight(); err != nil {
		return nil, err
	}
	m.SetWorkers(workers)
	if c != nil {
		if err := m.setCorpus(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// checkContract refuses a plug-in (response or annotator model; nil is
// allowed) that lacks a capability the model relies on: DocScorer (its part
// of a document's bound, for the local step's choice of start) and either
// Persister or Parameterless (what a saved model holds of it).
func checkContract(what string, comp any) error {
	if comp == nil {
		return nil
	}
	if v := reflect.ValueOf(comp); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	if _, ok := comp.(framework.DocScorer); !ok {
		return fmt.Errorf("%w: %s %T does not implement framework.DocScorer (DocELBO: its part of a document's bound; docs/extending.md)", framework.ErrIncompatible, what, comp)
	}
	_, p := comp.(framework.Persister)
	_, n := comp.(framework.Parameterless)
	if !p && !n {
		return fmt.Errorf("%w: %s %T implements neither framework.Persister (SaveParams/LoadParams) nor framework.Parameterless: a saved model would predict with its initial parameters (docs/extending.md)", framework.ErrIncompatible, what, comp)
	}
	return nil
}

// syncWeight reads the supervision weight in use from the response
// (framework.Weighted; 1 without it). A response may change it at the
// end of its pilot (framework.Piloted, the gaussian's exact pilot): the
// run calls syncWeight then and after loading parameters.
func (m *Model) syncWeight() error {
	m.weight = 1
	h, ok := m.Response.(framework.CrowdHolder)
	m.hold = ok && h.HoldsCrowd()
	if wr, ok := m.Response.(framework.Weighted); ok {
		w := wr.SupervisionWeight()
		if !(w >= 1) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: supervision weight %v, want a finite number ≥ 1", framework.ErrBadInput, w)
		}
		m.weight = w
	}
	return nil
}

// mayWeigh reports whether the supervision weight is or may become
// greater than 1 (a response with a pilot, framework.Piloted).
func (m *Model) mayWeigh() bool {
	if m.weight > 1 {
		return true
	}
	p, ok := m.Response.(framework.Piloted)
	return ok && p.PilotIters() > 0
}

// restartTopics puts the topic layer back to ζ (the state before a
// response's pilot, framework.Piloted) with fresh local steps: no stored
// γ_d or φ_d of training documents is used by the next E-step (the stored
// q(target)s stay, for observers). It re-reads the supervision weight.
func (m *Model) restartTopics(zeta []float64) error {
	copy(m.Topics.Zeta, zeta)
	m.Topics.Refresh()
	clear(m.seen)
	clear(m.settled)
	if m.phi != nil && m.phase == framework.PhaseJoint {
		clear(m.phi.done)
	}
	return m.syncWeight()
}

// SetWorkers sets the size of the E-step's goroutine pool (≤ 0: all cores),
// and the goroutines of the components' updates (framework.Parallel).
func (m *Model) SetWorkers(n int) {
	n = workerCount(n)
	m.workers = n
	for _, c := range []any{m.Topics, m.Response, m.Noise} {
		if p, ok := c.(framework.Parallel); ok {
			p.SetWorkers(n)
		}
	}
}

// workerCount is the number of workers n means (≤ 0: every core).
func workerCount(n int) int {
	if n <= 0 {
		return runtime.NumCPU()
	}
	return n
}

func (m *Model) setCorpus(c *framework.Corpus) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.V > m.Topics.V {
		return fmt.Errorf("%w: corpus vocabulary %d exceeds the model's %d", framework.ErrBadInput, c.V, m.Topics.V)
	}
	if m.Noise != nil && c.Answers == nil {
		return fmt.Errorf("%w: the model has annotators but the corpus has no answers", framework.ErrBadInput)
	}
	m.corpus, m.nDocs = c, len(c.Docs)
	m.gamma = make([]float64, len(c.Docs)*m.Topics.K)
	m.seen = make([]bool, len(c.Docs))
	if m.Response != nil {
		m.targets = make([]framework.Target, len(c.Docs))
		for i := range m.targets {
			m.targets[i] = m.Response.NewTarget()
		}
		m.tseen = make([]bool, len(c.Docs))
		m.setPhiFlags()
		if m.phiUser || m.phiWarm {
			m.phi = newPhiStore(c, m.Topics.K)
		}
		m.bindPhi()
	}
	m.maxLen = maxLen(c)
	return nil
}

// setPhiFlags decides whether the response's M-step reads every
// document's φ (phiUser) and whether warm starts resume from the stored φ
// (phiWarm); it allocates nothing.
func (m *Model) setPhiFlags() {
	m.phi, m.phiUser, m.phiWarm = nil, false, false
	if pu, ok := m.Response.(framework.PhiUser); ok && pu.NeedsPhi() {
		// The response's M-step reads every document's φ; warm
		// starts then resume from it too, so that the unsupervised
		// first sweep of firstPhi cannot lower the bound.
		m.phiUser, m.phiWarm = true, true
	} else if _, ok := m.Response.NewLocal().(framework.TargetRestorer); !ok && !m.fixed && m.mayWeigh() {
		// A strong supervision weight makes the unsupervised first
		// sweep of a warm start (firstPhi) lower the bound noticeably:
		// resume from the stored φ instead (float32, 4·K·Σ_d L_d bytes).
		m.phiWarm = true
	}
}

// setGlobals makes m the model of a training corpus of D documents that
// it does not hold (BuildGlobals): NumDocs is D, the flags that depend on
// the response are set as setCorpus sets them, and no per-document state
// is allocated. Its E-step fails (no training corpus); an engine runs the
// shard-level E-step on the documents instead.
func (m *Model) setGlobals(D int, answers bool) error {
	if D < 1 {
		return fmt.Errorf("%w: %d training documents, want ≥ 1", framework.ErrBadInput, D)
	}
	if m.Noise != nil && !answers {
		return fmt.Errorf("%w: the model has annotators but the corpus has no answers", framework.ErrBadInput)
	}
	m.nDocs = D
	if m.Response != nil {
		m.setPhiFlags()
		m.bindPhi()
	}
	return nil
}

func maxLen(c *framework.Corpus) int {
	n := 0
	for i := range c.Docs {
		n = max(n, c.Docs[i].Len())
	}
	return n
}

// Corpus is the training corpus.
func (m *Model) Corpus() *framework.Corpus { return m.corpus }

// NumDocs is the number of training documents.
func (m *Model) NumDocs() int { return m.nDocs }

// Gamma returns training document d's last γ_d (nil before its first E-step).
func (m *Model) Gamma(d int) []float64 {
	if !m.seen[d] {
		return nil
	}
	K := m.Topics.K
	return m.gamma[d*K : (d+1)*K]
}

// Target is training document d's q(target) from its last E-step that
// computed one (nil for plain LDA, before the document's first such
// E-step, and during framework.PhaseTopics until the response phase).
// Observers use it to follow truth inference across iterations; it is
// read-only.
func (m *Model) Target(d int) framework.Target {
	if m.targets == nil || !m.tseen[d] {
		return nil
	}
	return m.targets[d]
}

// stats bundles the components' statistics. A component whose statistics
// are nil takes no part in the phase the statistics were made in (see
// NewStats).
type stats struct {
	topics, resp, noise framework.Stats
}

func (s *stats) Merge(o framework.Stats) {
	t := o.(*stats)
	if s.topics != nil {
		s.topics.Merge(t.topics)
	}
	if s.resp != nil {
		s.resp.Merge(t.resp)
	}
	if s.noise != nil {
		s.noise.Merge(t.noise)
	}
}

func (s *stats) Reset() {
	if s.topics != nil {
		s.topics.Reset()
	}
	if s.resp != nil {
		s.resp.Reset()
	}
	if s.noise != nil {
		s.noise.Reset()
	}
}

// NewStats returns empty statistics of every component taking part in the
// current phase: all of them (PhaseJoint), the topic layer's
// (PhaseTopics), the response's and the annotators' (PhaseResponse).
func (m *Model) NewStats() framework.Stats { return m.newStats(nil) }

// newStats is NewStats with the topic layer's part ts when it is not nil
// (statistics of m.Topics).
func (m *Model) newStats(ts *topics.Stats) framework.Stats {
	s := &stats{}
	if m.phase != framework.PhaseResponse {
		if ts != nil {
			s.topics = ts
		} else {
			s.topics = m.Topics.NewStats()
		}
	}
	if m.phase == framework.PhaseTopics {
		return s
	}
	if m.Response != nil {
		s.resp = m.Response.NewStats()
	}
	if m.Noise != nil {
		s.noise = m.Noise.NewStats()
	}
	return s
}

// worker is one goroutine's scratch.
type worker struct {
	ds        *framework.DocState
	scr       *topics.Scratch
	local     framework.LikelihoodLocal
	stats     framework.Stats
	doc       framework.Stats      // one document's statistics (exact E-step, seam.go)
	sums      *framework.ExactSums // the worker's exact sums (exact E-step)
	shard     bool                 // the shard-level E-step: the warm φ is phiIn, not the model's store
	phiIn     []float32            // the document's stored φ in a shard (nil: none)
	targetIn  framework.Target     // the document's q(target) of its last E-step in a shard (nil: none)
	gw        []float64            // the warm sweep's γ (local_init "best")
	phiW      []float64            // the warm sweep's φ (local_init "best", supervised)
	logsW     framework.PhiLogs    // and its normalisers
	kept      int                  // local steps that went on from the warm sweep's saved state (tests)
	thinned   int                  // local steps of settled documents that skipped the fresh restart (tests)
	confirmed int                  // fresh restarts whose cheap half ended at the warm sweep (fresh_exact = "unsettled"; tests)
	term      []float64            // framework.PhiDocTerm's ρ̄_d

	// topicELBO is the topic layer's DocELBO at the last docELBO; topicOK
	// says that the document's state has not changed since, so that
	// accumulateWorker passes it on instead of computing it again.
	topicELBO float64
	topicOK   bool
}

func (m *Model) newWorker(withStats bool, maxLen int) *worker {
	w := &worker{ds: framework.NewDocState(m.Topics.K, maxLen), scr: m.Topics.NewScratch()}
	if m.Response != nil {
		w.local = m.Response.NewLocal()
		w.ds.Target = m.Response.NewTarget()
	}
	if withStats {
		w.stats = m.NewStats()
	}
	return w
}

// localStep runs document i's local step, starting as topics.local_init
// says: "fresh" from γ = α + N_d/K (Blei's lda-c, Hoffman's online LDA);
// "warm" from the document's last γ_d, which makes the ELBO monotone across
// EM iterations (the first φ update from the stored γ can only raise the
// bound) but tends to lock documents into their first assignments; "best"
// (default) runs one warm sweep, whose ELBO is at least the previous
// iteration's, then a fresh restart to convergence, and keeps the fresh
// result only if its document ELBO is at least the warm sweep's (otherwise
// it continues from the warm sweep). "best" is monotone and explores.
// "auto" (default) is "best" in an E-step over every training document
// and "fresh" in a mini-batch's (m.mini): SVI is not monotone anyway, and
// under it the warm sweep and the two document bounds of "best" cost a
// third of an epoch for no accuracy (docs/performance.md, "SVI against
// batch: what makes an epoch pay"); SVI whose mini-batch is the corpus
// still performs the batch iterations.
func (m *Model) localStep(w *worker, i int, doc *framework.Doc, answers []framework.Answer, warm []float64) {
	w.topicOK = false
	w.ds.Bind(i, doc, answers)
	if len(doc.Words) == 0 && doc.N == 0 && m.supervised() {
		m.emptyStep(w)
		return
	}
	policy := m.Topics.LocalInit
	if policy == "auto" {
		policy = "best"
		if m.mini {
			policy = "fresh"
		}
	}
	if warm == nil || policy == "fresh" {
		m.infer(w, nil)
		return
	}
	if policy == "warm" {
		m.infer(w, warm)
		return
	}
	thin := m.thinning && !w.shard
	if thin && m.settled[i] && (m.estep+i)%m.Topics.FreshEvery != 0 {
		// A settled document between its fresh restarts: the warm start
		// to convergence (the policy "warm", which cannot lower the
		// document's bound).
		w.thinned++
		m.infer(w, warm)
		return
	}
	change, restored := m.sweepOnce(w, warm)
	ew := m.docELBO(w)
	if cap(w.gw) < m.Topics.K {
		w.gw = make([]float64, m.Topics.K)
	}
	gw := w.gw[:m.Topics.K]
	copy(gw, w.ds.Gamma)
	if restored {
		w.phiW = append(w.phiW[:0], w.ds.Phi...)
		w.logsW.CopyFrom(&w.ds.Logs)
	}
	if m.supervised() && restored && !m.mini && m.Topics.FreshExact == "unsettled" && m.Topics.FreshStart == "lda" {
		// The fresh restart's cheap half first (m.infer is firstPhi then
		// inferFrom): where it ends at the warm sweep's γ it found nothing
		// the warm sweep did not, and its exact sweeps are skipped. Only
		// in an E-step over every document (batch EM, as fresh_every):
		// a mini-batch's "best" restarts in full.
		m.firstPhi(w, nil)
		if settledAt(w.ds.Gamma, gw, doc.N) {
			w.confirmed++
			if thin {
				m.settled[i] = true
			}
			m.resumeWarm(w, gw, change)
			return
		}
		m.inferFrom(w, 1, math.Inf(1))
	} else {
		m.infer(w, nil)
	}
	if m.docELBO(w) >= ew {
		w.topicOK = true // the state docELBO saw is the one kept
		if thin {
			m.settled[i] = settledAt(w.ds.Gamma, gw, doc.N)
		}
		return
	}
	if thin {
		m.settled[i] = true // the fresh restart ended below the warm sweep
	}
	if !restored {
		m.infer(w, gw)
		return
	}
	// infer(w, gw) would restore the same φ (the stored state does not
	// change during the local step) and repeat the warm sweep exactly as
	// its first sweep: continue from the warm sweep's state instead (the
	// same result, bit for bit, one sweep cheaper).
	m.resumeWarm(w, gw, change)
}

// resumeWarm puts back the warm sweep's state (its φ, saved in w.phiW,
// and γ = gw) and continues the local step from it to convergence (change:
// the warm sweep's mean |Δγ|). The warm sweep's normalisers come back
// with its φ, so that a converged warm state does not take the K
// logarithms a word of DocELBO without them.
func (m *Model) resumeWarm(w *worker, gw []float64, change float64) {
	ds := w.ds
	copy(ds.Phi, w.phiW)
	copy(ds.Gamma, gw)
	topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
	ds.UpdatePhiBar()
	ds.Logs.CopyFrom(&w.logsW)
	w.kept++
	m.inferFrom(w, 2, change)
}

// settledTol is how close a fresh restart must end to the warm sweep's γ
// for its document to be settled: Σ_k |γ_fresh,k − γ_warm,k| below 1% of
// the document's tokens (at least one token's worth).
const settledTol = 0.01

// settledAt reports whether a fresh restart that ended at γ (and was kept)
// ended where the warm sweep was (gw), for a document of n tokens: it
// found no other optimum, so the next E-steps may skip it (FreshEvery).
func settledAt(gamma, gw []float64, n float64) bool {
	d := 0.0
	for k, g := range gamma {
		d += math.Abs(g - gw[k])
	}
	return d < settledTol*max(1, n)
}

// emptyStep is the supervised local step of a document without words (the
// tasks of `train --answers` without `--docs`): γ_d = α, φ̄_d = 0 and one
// target update. It is what every local_init policy ends with, bit for
// bit, on such a document: a sweep sets γ_d = α + Σ (nothing) = α from any
// start, so the fresh restart and the warm sweep reach the same state
// and the target updates around the sweeps repeat the same computation
// (docs/performance.md, "Label-only Dawid–Skene"; models' TestEmptyStep).
func (m *Model) emptyStep(w *worker) {
	ds := w.ds
	m.Topics.Start(ds, nil)
	ds.UpdatePhiBar()
	m.updateTarget(w)
}

// infer runs the local step to convergence from warm (nil: fresh):
// unsupervised, φ/γ sweeps until the mean |Δγ| < local_tol; supervised,
// alternating the target posterior (prior message + evidence) with
// supervised φ sweeps, ending with a target update so that q(target) is the
// exact coordinate maximiser for the final φ.
func (m *Model) infer(w *worker, warm []float64) {
	ds, t := w.ds, m.Topics
	if !m.supervised() {
		t.Infer(ds, warm, w.scr)
		return
	}
	m.firstPhi(w, warm)
	m.inferFrom(w, 1, math.Inf(1))
}

// inferFrom continues a supervised local step at sweep number first, after
// a sweep whose mean |Δγ| was change (+Inf when no sweep ran): target
// updates and supervised sweeps until the mean |Δγ| < local_tol or
// local_iters sweeps, then a final target update.
func (m *Model) inferFrom(w *worker, first int, change float64) {
	ds, t := w.ds, m.Topics
	swept := false
	if !(change < t.LocalTol) {
		for it := first; it <= t.LocalIters; it++ {
			m.retarget(w, swept)
			swept = true
			if t.SweepWeighted(ds, w.local, m.weight, w.scr) < t.LocalTol {
				break
			}
		}
	}
	m.retarget(w, swept)
}

// sweepOnce runs a single sweep from warm (with the target updates around
// it when supervised) and returns the sweep's mean |Δγ| and whether the
// supervised start restored the document's stored φ (firstPhi).
func (m *Model) sweepOnce(w *worker, warm []float64) (change float64, restored bool) {
	ds, t := w.ds, m.Topics
	if !m.supervised() {
		t.Start(ds, warm)
		return t.Sweep(ds, nil, w.scr), false
	}
	restored = m.firstPhi(w, warm)
	m.updateTarget(w)
	change = t.SweepWeighted(ds, w.local, m.weight, w.scr)
	m.retarget(w, true)
	return change, restored
}

// firstPhi starts a supervised local step: γ from warm (nil: fresh), then
// a first φ from which the supervision caches start (from a fresh start,
// topics.fresh_start: one unsupervised sweep, or "lda": unsupervised sweeps
// to convergence). From a warm start the
// model restores the document's φ of its last E-step from its store
// (phiWarm) and sets γ = α + Σ_v n_dv φ_dv, so the local step resumes from
// the previous state and cannot end below the previous E-step's ELBO (an
// unsupervised sweep ignores the response and can lower it); a response
// implementing framework.TargetRestorer restores q(target) instead, and φ
// is solved for it (solvePhi). Otherwise one unsupervised sweep. It
// reports whether φ was restored.
func (m *Model) firstPhi(w *worker, warm []float64) (restored bool) {
	ds, t := w.ds, m.Topics
	t.Start(ds, warm)
	if warm != nil {
		if w.shard {
			if m.phiWarm && w.phiIn != nil {
				restored = restorePhi(ds, w.phiIn, t.K, m.phiUser)
			} else if r, ok := w.local.(framework.TargetRestorerFrom); ok && w.targetIn != nil && r.RestoreTargetFrom(ds, w.targetIn) {
				m.solvePhi(w)
				restored = true
			}
		} else if m.phiWarm && m.phi.has(ds) {
			restored = m.phi.restore(ds, m.phiUser)
		} else if r, ok := w.local.(framework.TargetRestorer); ok && r.RestoreTarget(ds) {
			m.solvePhi(w)
			restored = true
		}
	}
	if restored {
		for k := range ds.Gamma {
			ds.Gamma[k] = t.Alpha
		}
		for j, n := range ds.Doc.Counts {
			for k, p := range ds.PhiRow(j) {
				ds.Gamma[k] += n * p
			}
		}
		topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
		ds.UpdatePhiBar()
		return true
	}
	if warm == nil && t.FreshStart == "lda" {
		// Plain LDA's local step first (multiplicative sweeps, no
		// exponentials), then, when the response approximates its term
		// per document (framework.PhiDocTerm), sweeps of the same cost
		// with that term: the supervised sweeps that follow start near
		// their fixed point.
		t.FreshSweeps(ds, w.scr)
		if dt, ok := w.local.(framework.PhiDocTerm); ok && !docTermOff {
			if cap(w.term) < t.K {
				w.term = make([]float64, t.K)
			}
			term := w.term[:t.K]
			for it := 1; it <= t.LocalIters; it++ {
				m.approxTarget(w)
				dt.DocTerm(term, ds)
				if t.SweepDoc(ds, term, m.weight, w.scr) < t.LocalTol {
					break
				}
			}
		}
		return false
	}
	t.Sweep(ds, nil, w.scr)
	return false
}

// docTermOff disables the sweeps with framework.PhiDocTerm (tests).
var docTermOff = false

// phiTol is solvePhi's convergence test: the largest change of a
// component of φ̄_d in one sweep.
const phiTol = 1e-6

// solvePhi maximises the bound over φ_d with γ_d (from the warm start) and
// q(target) (restored, framework.TargetRestorer) fixed: φ_d given E[log θ_d]
// without supervision, then supervised φ sweeps (topics.Layer.SweepPhi)
// until φ̄_d changes by less than phiTol or local_iters sweeps. The
// response's part being concave in φ_d for fixed q(target), the sweeps
// approach the maximiser, which is at least the last E-step's φ_d: the warm
// start keeps batch EM monotone without storing φ.
func (m *Model) solvePhi(w *worker) {
	ds, t := w.ds, m.Topics
	t.SweepPhi(ds, nil, 1, w.scr)
	w.local.Begin(ds)
	for it := 0; it < t.LocalIters; it++ {
		if t.SweepPhi(ds, w.local, m.weight, w.scr) < phiTol {
			break
		}
	}
}

// docELBO is document d's part of the bound L_w at the current globals:
// the topic layer's terms plus w times those of the components that
// implement framework.DocScorer (w = 1 unless the response is
// framework.Weighted).
func (m *Model) docELBO(w *worker) float64 {
	ds := w.ds
	w.topicELBO = m.Topics.DocELBO(ds)
	e := w.topicELBO + m.Topics.WordELBO(ds)
	if !m.supervised() {
		return e
	}
	return e + m.weight*m.supDocELBO(w)
}

// supDocELBO is the response's and the annotators' part of document d's
// bound (unweighted).
func (m *Model) supDocELBO(w *worker) float64 {
	ds := w.ds
	e := 0.0
	if sc, ok := w.local.(framework.DocScorer); ok {
		e += sc.DocELBO(ds)
	} else if sc, ok := m.Response.(framework.DocScorer); ok {
		e += sc.DocELBO(ds)
	}
	if m.Noise != nil {
		if sc, ok := m.Noise.(framework.DocScorer); ok {
			e += sc.DocELBO(ds)
		}
	}
	return e
}

// approxTarget is updateTarget without Begin, for the sweeps with a
// per-document term (framework.PhiDocTerm: such a response's TargetTerm
// reads no cache of Begin).
func (m *Model) approxTarget(w *worker) {
	ds := w.ds
	if m.heldTarget(w) {
		return
	}
	ds.Target.Reset()
	w.local.TargetTerm(ds)
	if m.Noise != nil {
		m.Noise.Evidence(ds)
	}
	ds.Target.Finalize()
}

func (m *Model) updateTarget(w *worker) { m.retarget(w, false) }

// retarget is updateTarget, after a supervised sweep through w.local of
// the same document when swept: the response's caches are then resumed
// (framework.LocalResumer) rather than recomputed by Begin.
func (m *Model) retarget(w *worker, swept bool) {
	ds := w.ds
	ds.Target.Reset()
	if r, ok := w.local.(framework.LocalResumer); ok && swept {
		r.Resume(ds)
	} else {
		w.local.Begin(ds)
	}
	if m.heldTarget(w) {
		return
	}
	w.local.TargetTerm(ds)
	if m.Noise != nil {
		m.Noise.Evidence(ds)
	}
	ds.Target.Finalize()
}

// HoldsCrowd reports whether the model holds the crowd
// (framework.CrowdHolder: the gaussian's truth = "exact", after its
// pilot): each training document's q(target) stays that of its last
// E-step and the annotators are not updated. An engine that runs
// ShardEStep must then give every document its q(target) (Shard.Targets).
func (m *Model) HoldsCrowd() bool { return m.hold }

// heldTarget sets w.ds.Target to the document's held q(target) when the
// crowd is held (framework.CrowdHolder): its q(target) of the last E-step
// (the model's store, or in a shard the state it carries, w.targetIn),
// which is the pilot's last. It reports whether it did; a document without
// a stored q(target) (never visited) gets the usual update.
func (m *Model) heldTarget(w *worker) bool {
	if !m.hold || m.phase != framework.PhaseJoint {
		return false
	}
	ds := w.ds
	switch {
	case w.shard:
		if w.targetIn == nil {
			return false
		}
		ds.Target.CopyFrom(w.targetIn)
	case ds.Index >= 0 && ds.Index < len(m.tseen) && m.tseen[ds.Index]:
		ds.Target.CopyFrom(m.targets[ds.Index])
	default:
		return false
	}
	return true
}

// EStep runs the local step on docs (training indices, increasing) with a
// pool of workers and returns the merged statistics. Documents are cut into
// shards of ShardSize; each shard's statistics are accumulated in document
// order and merged into the total in shard order, so the result does not
// depend on the number of workers. It updates the stored warm-start γ.
//
// The local step depends on the phase (framework.Phased, phase.go): the
// whole model (PhaseJoint); plain LDA, recording each document's φ
// (PhaseTopics); the target alone on the frozen φ (PhaseResponse, no
// sweep).
func (m *Model) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	m.mini = len(docs) < m.NumDocs()
	defer func() { m.mini = false }()
	if !m.mini && m.Topics.FreshEvery > 1 {
		if m.settled == nil {
			m.settled = make([]bool, m.NumDocs())
		}
		m.estep++
		m.thinning = true
		defer func() { m.thinning = false }()
	}
	K := m.Topics.K
	ans := m.answers()
	step := func(w *worker, pos int) {
		i := docs[pos]
		var a []framework.Answer
		if ans != nil {
			a = ans[i]
		}
		m.trainingStep(w, i, a)
		if m.phase != framework.PhaseResponse {
			copy(m.gamma[i*K:(i+1)*K], w.ds.Gamma)
			m.seen[i] = true
		}
		if m.phase == framework.PhaseJoint && m.phiWarm || m.phase == framework.PhaseTopics && m.phi != nil {
			m.phi.record(w.ds)
		}
		if m.phase != framework.PhaseTopics && m.targets != nil {
			m.targets[i].CopyFrom(w.ds.Target)
			m.tseen[i] = true
		}
	}
	if m.exact() {
		return m.exactPass(ctx, len(docs), step)
	}
	total := m.NewStats()
	err := m.shards(ctx, len(docs), m.maxLen, true,
		func(w *worker, pos int) {
			step(w, pos)
			m.accumulateWorker(w)
		},
		func(s framework.Stats) { total.Merge(s) })
	if err != nil {
		return nil, err
	}
	return total, nil
}

// exactPass runs step(w, pos) for pos in [0, n) on the pool and adds the
// statistics of each document, as step leaves it in w.ds, exactly into
// its worker's sums (seam.go); the workers' sums are merged and rounded
// once (Combine). The result does not depend on the number of workers,
// the shards or the order of anything.
//
// The workers' buffers (their ExactSums and one document's statistics)
// are the model's, kept from one pass to the next (exactBufs, seam.go):
// a pass allocates nothing of size K×V but the statistics it returns (and
// not those when the schedule handed the last ones back, RecycleStats),
// and each worker empties its sums itself (ExactSums.Reset, the blocks it
// touched). The buffers are taken in the order of the last pass, so the
// first, all[0], is the one merged into before and holds every block's
// pages. The total is the first buffer's sums, the others merged into
// it, and rounded (Combine's bits), on the workers' goroutines
// (ExactSums.MergeRound: each a range of the numbers).
func (m *Model) exactPass(ctx context.Context, n int, step func(w *worker, pos int)) (framework.Stats, error) {
	layout := m.exactLayout()
	free := m.exactBufs
	m.exactBufs = nil
	var (
		mu     sync.Mutex
		all    []*framework.ExactSums
		addErr error
	)
	err := m.shards(ctx, n, m.maxLen, false, func(w *worker, pos int) {
		if w.sums == nil {
			mu.Lock()
			var b exactBuf
			if len(free) > 0 {
				// In the order of the last pass: the first buffer taken is
				// the one the others were merged into (all[0]), which
				// keeps every block's memory, so it is again.
				b, free = free[0], free[1:]
			} else {
				// A new buffer's K×V numbers are allocated (and zeroed)
				// without the lock, so that workers do not wait for each
				// other's (topics.Layer.NewStats allocates and nothing else).
				mu.Unlock()
				var ts *topics.Stats
				if m.phase != framework.PhaseResponse {
					ts = m.Topics.NewStats().(*topics.Stats)
				}
				sums := framework.NewExactSums(layout)
				mu.Lock()
				b = exactBuf{sums, m.newStats(ts)}
			}
			all = append(all, b.sums)
			m.exactBufs = append(m.exactBufs, b)
			mu.Unlock()
			b.sums.Reset()
			w.sums, w.doc = b.sums, b.doc
		}
		step(w, pos)
		if err := m.addDoc(w, w.sums); err != nil {
			mu.Lock()
			addErr = err
			mu.Unlock()
		}
	}, nil)
	// Keep at most one buffer per worker (SetWorkers may have lowered it).
	m.exactBufs = append(m.exactBufs, free[:max(0, min(len(free), m.workers-len(m.exactBufs)))]...)
	if err == nil {
		err = addErr
	}
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return m.Combine(framework.NewExactSums(layout))
	}
	// MergeRound sets every number of s (SetSums), so the topic layer's
	// statistics handed back by the schedule (RecycleStats) serve as well
	// as new ones.
	s := m.newStats(m.spareTopics)
	m.spareTopics = nil
	if err := all[0].MergeRound(s.(*stats), all[1:], m.workers); err != nil {
		return nil, err
	}
	return s, nil
}

// RecycleStats keeps the topic layer's part of s, statistics of an
// EStep the caller is done with, for the next exact pass to fill
// (framework.StatsRecycler): that pass then allocates nothing of size K×V.
func (m *Model) RecycleStats(s framework.Stats) {
	st, ok := s.(*stats)
	if !ok || st.topics == nil || !m.exact() { // only the exact pass fills them again: do not hold K×V numbers for nothing
		return
	}
	if ts, ok := st.topics.(*topics.Stats); ok && ts.K == m.Topics.K && ts.V == m.Topics.V {
		m.spareTopics = ts
	}
}

// accumulateWorker adds w's document, after its local step, to w.stats
// (every component's Accumulate). The topic layer's DocELBO is the one
// localStep's last docELBO computed when the document's state is still the
// one it saw (w.topicOK): one evaluation of the topic layer's document
// bound fewer per document (of three) under local_init = "best", the same
// sum bit for bit.
func (m *Model) accumulateWorker(w *worker) { m.accumulateInto(w, w.stats) }

// accumulateInto is accumulateWorker into s (w.stats, or w.doc for the
// exact E-step's one document).
func (m *Model) accumulateInto(w *worker, s framework.Stats) {
	st, d := s.(*stats), w.ds
	if st.topics != nil {
		if w.topicOK {
			m.Topics.AccumulateDocELBO(st.topics, d, w.topicELBO)
		} else {
			m.Topics.Accumulate(st.topics, d)
		}
	}
	w.topicOK = false
	if st.resp != nil {
		m.Response.Accumulate(st.resp, d)
	}
	if st.noise != nil {
		m.Noise.Accumulate(st.noise, d)
	}
}

// shards runs visit(w, pos) for pos in [0, n) on a pool of workers, shard by
// shard (of ShardSize documents when withStats, otherwise freeShardSize).
// When withStats, each shard accumulates into its own statistics
// buffer (w.stats during visit) and merge is called with the buffers in
// shard order, one at a time, whichever worker finishes them: a worker
// deposits its finished shard and goes on with a fresh buffer, and the
// worker that completes the next shard in order merges every ready one.
// At most 2·workers buffers exist. A buffer is taken before the shard
// number, so the shard next in order always holds one (no deadlock).
func (m *Model) shards(ctx context.Context, n, maxLen int, withStats bool, visit func(w *worker, pos int), merge func(s framework.Stats)) error {
	size := ShardSize
	if !withStats {
		size = freeShardSize
	}
	nShards := (n + size - 1) / size
	nw := min(m.workers, max(nShards, 1))
	var (
		next      atomic.Int64
		mu        sync.Mutex
		cond      = sync.NewCond(&mu)
		turn      int
		pending   = map[int]framework.Stats{}
		free      []framework.Stats
		allocated int
		wg        sync.WaitGroup
		failed    atomic.Bool
	)
	// getBuf returns a free buffer, or nil when the caller is to allocate
	// one (counted already): a new buffer's K×V numbers are allocated and
	// zeroed without the lock, so that the other workers do not wait.
	getBuf := func() framework.Stats { // with mu held
		for len(free) == 0 && allocated >= 2*nw {
			cond.Wait()
		}
		if k := len(free); k > 0 {
			b := free[k-1]
			free = free[:k-1]
			return b
		}
		allocated++
		return nil
	}
	for range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := m.newWorker(false, maxLen)
			for {
				if withStats {
					mu.Lock()
					w.stats = getBuf()
					mu.Unlock()
					if w.stats == nil {
						w.stats = m.NewStats()
					}
				}
				s := int(next.Add(1) - 1)
				if s >= nShards {
					if withStats {
						mu.Lock()
						free = append(free, w.stats)
						cond.Broadcast()
						mu.Unlock()
					}
					return
				}
				if withStats {
					w.stats.Reset()
				}
				for pos := s * size; pos < min(n, (s+1)*size); pos++ {
					if failed.Load() {
						break
					}
					if ctx.Err() != nil {
						failed.Store(true)
						break
					}
					visit(w, pos)
				}
				if !withStats {
					continue
				}
				mu.Lock()
				pending[s] = w.stats
				for {
					b, ok := pending[turn]
					if !ok {
						break
					}
					delete(pending, turn)
					if !failed.Load() {
						merge(b)
					}
					free = append(free, b)
					turn++
				}
				cond.Broadcast()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		if err := ctx.Err(); err != nil {
			return err
		}
		return errors.New("models: E-step stopped")
	}
	return nil
}

// Update applies the global step of every component that has statistics
// in s (those of the phase s was made in).
func (m *Model) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	t := s.(*stats)
	if t.topics != nil {
		if err := m.Topics.Update(ctx, t.topics, st); err != nil {
			return err
		}
	}
	if t.resp != nil {
		if err := m.Response.Update(ctx, t.resp, st); err != nil {
			return fmt.Errorf("response: %w", err)
		}
	}
	if t.noise != nil && !m.hold {
		if err := m.Noise.Update(ctx, t.noise, st); err != nil {
			return fmt.Errorf("annotators: %w", err)
		}
	}
	return nil
}

// ELBO is the sum of the bounds after Update (MODEL.md §4) of the
// components that have statistics in s: in PhaseTopics LDA's ELBO, in
// PhaseResponse the response's and the annotators' terms (with the target's
// entropy) at the frozen φ. In the joint phase it is L_w = L_topics +
// w·(response + annotators), w the supervision weight (1 unless the
// response is framework.Weighted; docs/design.md).
func (m *Model) ELBO(s framework.Stats, st framework.Step) float64 {
	t := s.(*stats)
	sup := 0.0
	if t.resp != nil {
		sup += m.Response.ELBO(t.resp, st)
	}
	if t.noise != nil {
		sup += m.Noise.ELBO(t.noise, st)
	}
	if t.topics == nil {
		return sup
	}
	return m.Topics.ELBO(t.topics, st) + m.weight*sup
}

var _ framework.ConvergenceScaler = (*Model)(nil)

// ConvergenceScale is the magnitude against which the batch schedule
// judges the bound's relative change (framework.ConvergenceScaler): with
// one topic (k = 1) the topic layer's part of the bound is the same after
// every update (φ ≡ 1 and E[log θ_d] = 0 whatever the response, so its
// statistics are the word counts and ζ = τ + counts from the first update
// on), so the scale is |w·(response + annotators)|, the part that moves;
// otherwise (k > 1, or a phase of a two-stage fit whose bound is one part
// alone) ok is false: the whole bound.
func (m *Model) ConvergenceScale(s framework.Stats, st framework.Step) (float64, bool) {
	t := s.(*stats)
	if t.topics == nil || m.Topics.K != 1 || (t.resp == nil && t.noise == nil) {
		return 0, false // the bound is the supervised part alone, or the topics' alone
	}
	sup := 0.0
	if t.resp != nil {
		sup += m.Response.ELBO(t.resp, st)
	}
	if t.noise != nil {
		sup += m.Noise.ELBO(t.noise, st)
	}
	return math.Abs(m.weight * sup), true
}

var _ framework.ConvergencePart = (*Model)(nil)

// ConvergencePart is the supervised part of the bound, w·(response +
// annotators), which the batch schedule also requires to settle
// (framework.ConvergencePart): with k > 1 the topic layer's part is
// orders of magnitude larger and its relative tolerance alone stopped EM
// while the crowd's part was still moving. ok is false without topics,
// with one topic (ConvergenceScale then judges the whole change against
// this part already) or without a response and annotators (plain LDA, a
// two-stage phase of one part).
func (m *Model) ConvergencePart(s framework.Stats, st framework.Step) (float64, bool) {
	t := s.(*stats)
	if t.topics == nil || m.Topics.K == 1 || (t.resp == nil && t.noise == nil) {
		return 0, false
	}
	sup := 0.0
	if t.resp != nil {
		sup += m.Response.ELBO(t.resp, st)
	}
	if t.noise != nil {
		sup += m.Noise.ELBO(t.noise, st)
	}
	return m.weight * sup, true
}

var _ framework.Evaluator = (*Model)(nil)

// EvalELBO is the bound over every training document at the current global
// parameters (framework.Evaluator): the local step of each document runs as
// in EStep, in the current phase and warm-started from the stored state
// (γ, the stored φ), which it reads but never writes; the
// statistics are merged into fresh buffers as EStep's are, and the result
// is ELBO(stats, Step{Rho: 1, Scale: 1, Full: true}) — what EStep over
// every document followed by ELBO would return, without an update in
// between. Nothing of the pass is kept: the stored γ, targets and frozen φ
// are untouched, and the documents are accumulated with DocState.Index = −1,
// which tells the components to keep nothing about them outside the
// statistics (framework.Global.Accumulate; the softmax then copies φ into
// its statistics instead of reading the model's φ store, so the pass
// temporarily needs as much memory again as that store). Training
// afterwards is bit-identical to training without the call. It costs one
// E-step over the corpus; results do not depend on the number of workers.
func (m *Model) EvalELBO(ctx context.Context) (float64, error) {
	if err := m.ready(); err != nil {
		return math.NaN(), err
	}
	ans := m.answers()
	step := func(w *worker, i int) {
		var a []framework.Answer
		if ans != nil {
			a = ans[i]
		}
		m.trainingStep(w, i, a)
		w.ds.Index = -1 // evaluation only: nothing about the document is to be kept
	}
	var total framework.Stats
	var err error
	if m.exact() {
		total, err = m.exactPass(ctx, len(m.corpus.Docs), step)
	} else {
		total = m.NewStats()
		err = m.shards(ctx, len(m.corpus.Docs), m.maxLen, true,
			func(w *worker, i int) {
				step(w, i)
				m.accumulateWorker(w)
			},
			func(s framework.Stats) { total.Merge(s) })
	}
	if err != nil {
		return math.NaN(), err
	}
	return m.ELBO(total, framework.Step{Rho: 1, Scale: 1, Full: true, Iter: 0}), nil
}

// Posterior runs the local step on every training document with the
// current global parameters (no statistics, no update) and returns each
// document's q(target) (nil entries for plain LDA) and E[θ_d]. It is what
// `maslda train` writes to posterior.csv after training.
//
// After a two-stage fit (the model left in framework.PhaseResponse) the
// pass is the response phase's: each document's frozen φ with the final
// response and annotators. In PhaseTopics the targets are nil.
func (m *Model) Posterior(ctx context.Context) ([]Prediction, error) {
	if err := m.ready(); err != nil {
		return nil, err
	}
	ans := m.answers()
	out := make([]Prediction, len(m.corpus.Docs))
	err := m.shards(ctx, len(m.corpus.Docs), m.maxLen, false, func(w *worker, i int) {
		var a []framework.Answer
		if ans != nil {
			a = ans[i]
		}
		m.trainingStep(w, i, a)
		out[i] = m.prediction(w.ds)
		if m.Response != nil && m.phase != framework.PhaseTopics {
			out[i].Target = w.ds.Target
			w.ds.Target = m.Response.NewTarget()
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (m *Model) prediction(ds *framework.DocState) Prediction {
	p := Prediction{Theta: make([]float64, m.Topics.K), PhiBar: append([]float64(nil), ds.PhiBar...)}
	gs := 0.0
	for _, g := range ds.Gamma {
		gs += g
	}
	for k, g := range ds.Gamma {
		p.Theta[k] = g / gs
	}
	return p
}

// Prediction is the result of the local step on a new document.
type Prediction struct {
	Theta  []float64        // E[θ_d] = γ_d / Σ_k γ_dk
	PhiBar []float64        // φ̄_d
	Target framework.Target // the response's predictive distribution; nil for plain LDA
}

// Predict runs the topic layer with no supervision and fixed topics on the
// documents of c (MODEL.md §2, §3 "Prediction") and, when the model has a
// response, its predictive distribution. Results are in document order and
// do not depend on the number of workers.
func (m *Model) Predict(ctx context.Context, c *framework.Corpus) ([]Prediction, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.V > m.Topics.V {
		return nil, fmt.Errorf("%w: documents use word ids up to %d but the model's vocabulary has %d words", framework.ErrBadInput, c.V-1, m.Topics.V)
	}
	out := make([]Prediction, len(c.Docs))
	err := m.shards(ctx, len(c.Docs), maxLen(c), false, func(w *worker, i int) {
		ds := w.ds
		ds.Bind(i, &c.Docs[i], nil)
		m.Topics.Infer(ds, nil, w.scr)
		p := m.prediction(ds)
		if m.Response != nil {
			ds.Target = m.Response.NewTarget()
			m.Response.Predict(ds)
			p.Target = ds.Target
		}
		out[i] = p
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}
