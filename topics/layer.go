package topics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// Config holds the topic layer's settings (the `topics { ... }` block).
type Config struct {
	K          int     `hcl:"k,optional"`           // number of topics (default 20)
	Alpha      float64 `hcl:"alpha,optional"`       // Dirichlet prior of θ_d (default 0.1)
	Tau        float64 `hcl:"tau,optional"`         // Dirichlet prior of β_k (default 0.1)
	LocalIters int     `hcl:"local_iters,optional"` // max φ/γ sweeps per document and E-step (default 100)
	LocalTol   float64 `hcl:"local_tol,optional"`   // stop sweeping when mean |Δγ_dk| < local_tol (default 1e-3; for long documents see LocalTolTokens)
	// LocalTolTokens makes the local convergence test of a document of
	// N_d > local_tol_tokens tokens relative: mean |Δγ_dk| <
	// local_tol·N_d/local_tol_tokens, the precision in topic proportions
	// (Δγ = N_d·Δφ̄) of a document of local_tol_tokens tokens. Without it
	// a document of 58,000 tokens (bags of visual words) was swept until
	// its proportions moved by less than 1e-3·K/58,000: 12–13 supervised
	// sweeps per document where short ones take 2 (docs/performance.md).
	// Default 100; 0: the absolute test for every document (before
	// 2026-11-27). Documents of at most local_tol_tokens tokens are swept
	// exactly as before.
	LocalTolTokens float64 `hcl:"local_tol_tokens,optional"`
	Init           string  `hcl:"init,optional"` // initial topics: "seeded" (default) or "random"
	// LocalInit is each E-step's start for a document: "auto" (default:
	// "best" in an E-step over every training document, as batch EM's,
	// "fresh" in a mini-batch's E-step under SVI), "best", "fresh" or
	// "warm" (models.Model.localStep).
	LocalInit string `hcl:"local_init,optional"`
	// FreshStart is how a supervised local step starts from scratch (a
	// fresh restart of "best", every step of "fresh", a document's first
	// E-step): "lda" (default: unsupervised sweeps to convergence, plain
	// LDA's local step, then supervised sweeps to convergence; the
	// supervised sweeps are the dear ones) or "supervised" (one
	// unsupervised sweep, then supervised sweeps to convergence: the
	// default before 2026-11-26).
	FreshStart string `hcl:"fresh_start,optional"`
	// FreshEvery thins the fresh restarts of local_init "best" in batch
	// E-steps (models.Model.localStep): a document whose last fresh
	// restart ended where its warm sweep was, or below it, is settled,
	// and a settled document restarts afresh only at every FreshEvery-th
	// E-step (staggered: E-step t restarts document d when (t + d) mod
	// FreshEvery = 0); otherwise its warm sweep goes on to convergence.
	// Default 1: a fresh restart at every E-step (the behaviour before
	// 2026-11-29).
	FreshEvery int `hcl:"fresh_every,optional"`
	// FreshAccel is how a fresh local step's plain sweeps (Infer from
	// scratch, and the unsupervised first half of a supervised fresh
	// start) reach their fixed point: "squarem" (default) extrapolates
	// every two sweeps (Varadhan and Roland's SQUAREM, FreshSweeps);
	// "none" sweeps plainly (the behaviour before 2026-11-29). A warm
	// local step always sweeps plainly, so that it cannot lower the
	// document's bound.
	FreshAccel string `hcl:"fresh_accel,optional"`
	// FreshExact is when a fresh restart of local_init "best" in a
	// supervised batch E-step runs its exact supervised sweeps
	// (models.Model.localStep): "always" (default: the behaviour before
	// 2026-11-29) or "unsettled": only when its cheap first half
	// (fresh_start "lda": plain LDA's sweeps, then the sweeps with the
	// response's per-document term) ends away from the warm sweep's γ
	// (Σ_k |Δγ_dk| ≥ 1% of the document's tokens); where it ends there,
	// the local step goes on from the warm sweep, as it does when a fresh
	// restart loses.
	FreshExact string `hcl:"fresh_exact,optional"`
}

// Defaults returns the documented defaults.
func Defaults() Config {
	return Config{K: 20, Alpha: 0.1, Tau: 0.1, LocalIters: 100, LocalTol: 1e-3, LocalTolTokens: 100, Init: "seeded", LocalInit: "auto", FreshStart: "lda", FreshEvery: 1, FreshAccel: "squarem", FreshExact: "always"}
}

// Validate checks the settings.
func (c Config) Validate() error {
	switch {
	case c.K < 1:
		return fmt.Errorf("%w: topics.k = %d, want ≥ 1", framework.ErrBadInput, c.K)
	case !(c.Alpha > 0) || math.IsInf(c.Alpha, 0):
		return fmt.Errorf("%w: topics.alpha = %v, want > 0", framework.ErrBadInput, c.Alpha)
	case !(c.Tau > 0) || math.IsInf(c.Tau, 0):
		return fmt.Errorf("%w: topics.tau = %v, want > 0", framework.ErrBadInput, c.Tau)
	case c.LocalIters < 1:
		return fmt.Errorf("%w: topics.local_iters = %d, want ≥ 1", framework.ErrBadInput, c.LocalIters)
	case !(c.LocalTol >= 0):
		return fmt.Errorf("%w: topics.local_tol = %v, want ≥ 0", framework.ErrBadInput, c.LocalTol)
	case !(c.LocalTolTokens >= 0) || math.IsInf(c.LocalTolTokens, 0):
		return fmt.Errorf("%w: topics.local_tol_tokens = %v, want a finite number ≥ 0", framework.ErrBadInput, c.LocalTolTokens)
	case c.FreshEvery < 1:
		return fmt.Errorf("%w: topics.fresh_every = %d, want ≥ 1 (1: a fresh restart at every E-step)", framework.ErrBadInput, c.FreshEvery)
	}
	for _, o := range []struct {
		key, v string
		valid  []string
	}{
		{"init", c.Init, []string{"seeded", "random"}},
		{"local_init", c.LocalInit, []string{"auto", "best", "fresh", "warm"}},
		{"fresh_start", c.FreshStart, []string{"supervised", "lda"}},
		{"fresh_accel", c.FreshAccel, []string{"squarem", "none"}},
		{"fresh_exact", c.FreshExact, []string{"always", "unsettled"}},
	} {
		if !slices.Contains(o.valid, o.v) {
			return fmt.Errorf("%w: topics.%s = %q; valid: %s", framework.ErrBadInput, o.key, o.v, strings.Join(o.valid, ", "))
		}
	}
	return nil
}

// Layer is the topic layer: ζ and its cached expectations. Its parameters
// are read-only during the E-step, but for the rows of ExpElogBeta that a
// mini-batch's Update left to be filled (ensureExp, safe on the E-step's
// goroutines).
type Layer struct {
	Config
	V        int
	Zeta     []float64 // ζ, word-major V×K: Zeta[v*K+k] = ζ_kv
	ElogBeta []float64 // E[log β_kv], V×K
	// ExpElogBeta is exp(E[log β_kv]), V×K. After a mini-batch's Update
	// a word's row holds it only once a sweep of a document with that
	// word has read it (ensureExp); read it through the layer's sweeps.
	ExpElogBeta []float64
	TopicSum    []float64 // Σ_v ζ_kv, K

	empty   emptyDoc // the fresh start of a document without words
	workers int      // goroutines of the passes over ζ (SetWorkers; parallel.go)
	version uint64   // E[log β]'s version: a new one (versions) at every refresh
	// expVer is the version whose exponentials every word's row of
	// ExpElogBeta holds (an eager refresh sets it to version). After a
	// lazy one (a mini-batch's Update) it is older, and a word's row holds
	// them when expStamp[w] is version: ensureExp fills the rows of a
	// document's words before a sweep reads them (parallel.go).
	expVer   uint64
	expStamp []atomic.Uint64
	eager    bool // every refresh eager (tests: the lazy one's reference)
}

// versions numbers the refreshes of E[log β] of every Layer, so that a
// DocState's cached normalisers (framework.PhiLogs) taken at one layer's
// topics are never used at another's.
var versions atomic.Uint64

// VerifyLogs makes DocELBO evaluate every document both from the cached
// normalisers of the last sweep (framework.PhiLogs) and with K logarithms
// per word, and panic when they differ by more than 1e-9 relative: for
// tests (models' and this package's -short runs set it), never in use.
var VerifyLogs bool

// emptyDoc caches, for the α it was computed with, the fresh start of a
// document without words (γ = α, E[log θ]) and its DocELBO: computed by
// the same code as Start and DocELBO, once per Refresh, so that documents
// without words (`train --answers` without `--docs`) skip the digamma and
// log-gamma calls with bit-identical results. It is read-only during the
// E-step.
type emptyDoc struct {
	ok          bool
	alpha       float64
	gamma, elog []float64
	elbo        float64
}

// refreshEmpty recomputes the cache from the current α.
func (l *Layer) refreshEmpty() {
	K := l.K
	e := &l.empty
	if len(e.gamma) != K {
		e.gamma, e.elog = make([]float64, K), make([]float64, K)
	}
	g := l.Alpha + 0/float64(K) // Start's α + N_d/K with N_d = 0
	for k := range e.gamma {
		e.gamma[k] = g
	}
	ElogDirichlet(e.elog, e.gamma)
	e.elbo = l.thetaELBO(e.gamma, e.elog)
	e.alpha, e.ok = l.Alpha, true
}

// emptyHit reports whether the cache applies to d: a document without
// words at the cached fresh start, with α unchanged since Refresh.
func (l *Layer) emptyHit(d *framework.DocState) bool {
	e := &l.empty
	if !e.ok || e.alpha != l.Alpha || d.Doc.N != 0 || len(d.Doc.Words) != 0 || len(d.Gamma) != len(e.gamma) {
		return false
	}
	for k, g := range d.Gamma {
		if g != e.gamma[k] || d.ElogTheta[k] != e.elog[k] {
			return false
		}
	}
	return true
}

// New returns a layer of the given configuration over V words with ζ = τ
// (call Init or SetZeta before use).
func New(cfg Config, v int) (*Layer, error) { return NewWorkers(cfg, v, 1) }

// NewWorkers is New with the layer's passes over ζ on the given number of
// workers (SetWorkers) from the start: its own fills of the K·V numbers
// too.
func NewWorkers(cfg Config, v, workers int) (*Layer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if v < 1 {
		return nil, fmt.Errorf("%w: vocabulary size %d, want ≥ 1", framework.ErrBadInput, v)
	}
	l := &Layer{Config: cfg, V: v, workers: workers}
	n := v * cfg.K
	l.Zeta = make([]float64, n)
	l.ElogBeta = make([]float64, n)
	l.ExpElogBeta = make([]float64, n)
	l.expStamp = make([]atomic.Uint64, v)
	l.TopicSum = make([]float64, cfg.K)
	l.forRange(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			l.Zeta[i] = cfg.Tau
		}
	})
	l.refreshUniform()
	return l, nil
}

// Init draws initial topics from rng. "random": ζ_kv = τ + g_kv with
// g ~ Gamma(100, 1/100) (mean 1, s.d. 0.1; Hoffman et al. 2010). "seeded":
// each topic starts from the word counts of a few documents drawn at random,
// ζ_kv = τ + g_kv + Σ_{d∈seeds(k)} n_dv, which breaks the symmetry between
// topics from the first E-step (Blei's lda-c "seeded" initialisation).
func (l *Layer) Init(c *framework.Corpus, rng *rand.Rand) {
	D := 0
	if c != nil {
		D = len(c.Docs)
	}
	// The corpus's own documents cannot fail to be read.
	_ = l.InitFrom(D, func(idx []int) ([]framework.Doc, error) {
		docs := make([]framework.Doc, len(idx))
		for i, d := range idx {
			docs[i] = c.Docs[d]
		}
		return docs, nil
	}, rng)
}

// SeedsPerTopic is the number of documents the "seeded" initialisation
// adds to each topic.
const SeedsPerTopic = 3

// InitFrom is Init for a corpus of D documents that the layer does not
// hold (an engine's driver, models.BuildGlobals): "seeded" draws the
// indices of its K·SeedsPerTopic documents first, asks docs for them
// (in the order drawn, repeats included) and adds their counts as Init
// does, so that the topics equal Init's bit for bit. An error from docs,
// or documents that are not the ones asked for (their number, a word id
// outside [0, V)), leaves ζ partly initialised and is returned.
func (l *Layer) InitFrom(D int, docs func(idx []int) ([]framework.Doc, error), rng *rand.Rand) error {
	K := l.K
	g := newInitGamma(100, 100) // distuv.Gamma{Alpha: 100, Beta: 100, Src: rng}.Rand, bit for bit
	for i := range l.Zeta {
		l.Zeta[i] = l.Tau + g.rand(rng)
	}
	if l.Config.Init == "seeded" && D > 0 {
		idx := make([]int, 0, K*SeedsPerTopic)
		for range K * SeedsPerTopic {
			idx = append(idx, rng.IntN(D))
		}
		got, err := docs(idx)
		if err != nil {
			return fmt.Errorf("the seeded initial topics: %w", err)
		}
		if len(got) != len(idx) {
			return fmt.Errorf("%w: the seeded initial topics: %d documents asked for, %d given", framework.ErrBadInput, len(idx), len(got))
		}
		for i := range got {
			k := i / SeedsPerTopic
			d := &got[i]
			if len(d.Counts) != len(d.Words) {
				return fmt.Errorf("%w: the seeded initial topics: document %d: %d words, %d counts", framework.ErrBadInput, idx[i], len(d.Words), len(d.Counts))
			}
			for j, w := range d.Words {
				if w < 0 || int(w) >= l.V {
					return fmt.Errorf("%w: the seeded initial topics: document %d: word id %d outside [0, %d)", framework.ErrBadInput, idx[i], w, l.V)
				}
				l.Zeta[int(w)*K+k] += d.Counts[j]
			}
		}
	}
	l.Refresh()
	return nil
}

// Refresh recomputes TopicSum, E[log β] and exp(E[log β]) from ζ, and the
// fresh start of a document without words (emptyDoc).
func (l *Layer) Refresh() {
	K := l.K
	for k := range l.TopicSum {
		l.TopicSum[k] = 0
	}
	for v := 0; v < l.V; v++ {
		row := l.Zeta[v*K : (v+1)*K]
		for k, z := range row {
			l.TopicSum[k] += z
		}
	}
	l.refreshFromSums(false)
}

// refreshFromSums is Refresh after the topics' sums (TopicSum); lazy
// leaves exp(E[log β]) to ensureExp.
func (l *Layer) refreshFromSums(lazy bool) {
	K := l.K
	psiSum := make([]float64, K)
	for k, s := range l.TopicSum {
		psiSum[k] = mathext.Digamma(s)
	}
	l.refreshElog(psiSum, lazy)
	l.refreshEmpty()
}

// Scratch is one goroutine's working memory for the local step.
type Scratch struct {
	expTheta []float64
	logit    []float64
	old      []float64
	prev     []float64
	bar      []float64 // SweepPhi's φ̄_d on entry
	logf     []float64 // SweepDoc's E[log θ_d] + w·term
	ref      []float64 // solveQuadratic's softmax at its last full evaluation
	g        []float64 // sweepQuad's supervised exponent of a word at t0
	gRef     []float64 // sweepQuad's exponent whose exponentials eRef holds
	eRef     []float64
	g0, g1   []float64 // FreshSweeps' last two iterates of γ_d
}

// NewScratch allocates scratch for K topics.
func (l *Layer) NewScratch() *Scratch {
	K := l.K
	return &Scratch{expTheta: make([]float64, K), logit: make([]float64, K), old: make([]float64, K), prev: make([]float64, K), bar: make([]float64, K), logf: make([]float64, K), ref: make([]float64, K),
		g: make([]float64, K), gRef: make([]float64, K), eRef: make([]float64, K), g0: make([]float64, K), g1: make([]float64, K)}
}

// Start initialises γ_d from warm (a previous γ_d; copied) or, when warm is
// nil, to α + N_d/K, and sets E[log θ_d].
func (l *Layer) Start(d *framework.DocState, warm []float64) {
	if e := &l.empty; warm == nil && d.Doc.N == 0 && e.ok && e.alpha == l.Alpha && len(d.Gamma) == len(e.gamma) {
		copy(d.Gamma, e.gamma)
		copy(d.ElogTheta, e.elog)
		return
	}
	if warm != nil {
		copy(d.Gamma, warm)
	} else {
		g := l.Alpha + d.Doc.N/float64(l.K)
		for k := range d.Gamma {
			d.Gamma[k] = g
		}
	}
	ElogDirichlet(d.ElogTheta, d.Gamma)
}

// ElogDirichlet sets dst_k = ψ(a_k) − ψ(Σ_j a_j).
func ElogDirichlet(dst, a []float64) {
	s := 0.0
	for _, x := range a {
		s += x
	}
	ps := mathext.Digamma(s)
	for k, x := range a {
		dst[k] = mathext.Digamma(x) - ps
	}
}

// Sweep runs one coordinate-ascent pass of the local step: φ for every word
// of d given E[log θ_d] (plus the supervision term of sup when sup is not
// nil), then γ_d and E[log θ_d] from the new φ, then φ̄_d. It returns the
// mean absolute change of γ_d, the local convergence measure.
//
// With sup == nil all words are updated from the same E[log θ_d] (they are
// conditionally independent, so this is an exact block update); with a
// supervision term the words are updated one at a time and sup.WordChanged
// is told of each change, so its caches stay exact.
func (l *Layer) Sweep(d *framework.DocState, sup framework.LikelihoodLocal, s *Scratch) float64 {
	return l.SweepWeighted(d, sup, 1, s)
}

// SweepWeighted is Sweep with the supervision term multiplied by w:
// φ_dvk ∝ exp(E[log θ_dk] + E[log β_kv] + w·ρ_dvk), the exact coordinate
// maximiser of L_topics + w·L_supervised, w = weight (the supervision
// weight; see docs/design.md). w = 1 is Sweep; w is ignored when sup is nil.
func (l *Layer) SweepWeighted(d *framework.DocState, sup framework.LikelihoodLocal, weight float64, s *Scratch) float64 {
	if sup == nil {
		for k, e := range d.ElogTheta {
			s.expTheta[k] = math.Exp(e)
		}
		l.beginGamma(d, s)
		l.mulPhi(d, d.ElogTheta, s, true)
		return l.endGamma(d, s)
	}
	l.sweepPhi(d, sup, weight, s)
	return l.updateGamma(d, s)
}

// SweepDoc is a sweep at plain LDA's cost with a supervision term that is
// the same for every word of d: φ_dvk ∝ exp(E[log θ_dk] + w·term_k +
// E[log β_kv]) (w = weight; term from framework.PhiDocTerm, the response's
// approximation of ρ_dvk up to a constant per word), multiplicatively (K
// exponentials per document, none per word), then γ_d, E[log θ_d] and φ̄_d
// as in SweepWeighted. It returns the mean |Δγ_dk|. Its fixed point is
// not the supervised sweeps' (models' fresh start runs those after it).
func (l *Layer) SweepDoc(d *framework.DocState, term []float64, weight float64, s *Scratch) float64 {
	for k, e := range d.ElogTheta {
		s.logf[k] = e + weight*term[k]
		s.expTheta[k] = math.Exp(s.logf[k])
	}
	l.beginGamma(d, s)
	l.mulPhi(d, s.logf, s, true)
	return l.endGamma(d, s)
}

// updateGamma ends a sweep: γ_d = α + Σ_v n_dv φ_dv, E[log θ_d] and φ̄_d;
// it returns the mean |Δγ_dk|.
func (l *Layer) updateGamma(d *framework.DocState, s *Scratch) float64 {
	l.beginGamma(d, s)
	for j, n := range d.Doc.Counts {
		addWord(d, n, d.PhiRow(j))
	}
	return l.endGamma(d, s)
}

// beginGamma starts the accumulation of γ_d and φ̄_d (the previous γ_d
// kept in s.prev): γ_d = α, φ̄_d = 0.
func (l *Layer) beginGamma(d *framework.DocState, s *Scratch) {
	copy(s.prev, d.Gamma)
	for k := range d.Gamma {
		d.Gamma[k] = l.Alpha
	}
	clear(d.PhiBar)
}

// addWord adds n_dv φ_dv to γ_d and to φ̄_d's sum, the words taken in
// order: the same sums as updating γ and then DocState.UpdatePhiBar.
func addWord(d *framework.DocState, n float64, row []float64) {
	g, b := d.Gamma[:len(row)], d.PhiBar[:len(row)]
	for k, p := range row {
		v := n * p
		g[k] += v
		b[k] += v
	}
}

// endGamma ends the accumulation: φ̄_d divided by N_d (0 for an empty
// document, as DocState.UpdatePhiBar), E[log θ_d]; it returns the mean
// |Δγ_dk| (divided by N_d/LocalTolTokens for a longer document: tolScale).
func (l *Layer) endGamma(d *framework.DocState, s *Scratch) float64 {
	if n := d.Doc.N; n == 0 {
		clear(d.PhiBar)
	} else {
		inv := 1 / n
		for k := range d.PhiBar {
			d.PhiBar[k] *= inv
		}
	}
	ElogDirichlet(d.ElogTheta, d.Gamma)
	change := 0.0
	for k, g := range d.Gamma {
		change += math.Abs(g - s.prev[k])
	}
	return change / float64(l.K) / l.tolScale(d)
}

// tolScale is what the mean |Δγ_dk| of a sweep of d is divided by before
// it is compared with LocalTol: N_d/LocalTolTokens for a document of more
// tokens than LocalTolTokens (> 0), otherwise 1.
func (l *Layer) tolScale(d *framework.DocState) float64 {
	if n := d.Doc.N; l.LocalTolTokens > 0 && n > l.LocalTolTokens {
		return n / l.LocalTolTokens
	}
	return 1
}

// SweepPhi is the φ half of SweepWeighted: every word's φ given the
// current E[log θ_d] (γ_d is not changed), then φ̄_d. It returns the
// largest change of a component of φ̄_d (from d.PhiBar on entry): with γ_d
// and q(target) fixed, repeated supervised SweepPhi calls are coordinate
// ascent on the bound as a function of φ_d alone (framework.TargetRestorer).
func (l *Layer) SweepPhi(d *framework.DocState, sup framework.LikelihoodLocal, weight float64, s *Scratch) float64 {
	copy(s.bar, d.PhiBar)
	l.sweepPhi(d, sup, weight, s)
	d.PhiBarOnly()
	change := 0.0
	for k, p := range d.PhiBar {
		change = max(change, math.Abs(p-s.bar[k]))
	}
	return change
}

// sweepPhi sets every word's φ as SweepWeighted does, leaving γ_d, E[log
// θ_d] and φ̄_d as they are.
func (l *Layer) sweepPhi(d *framework.DocState, sup framework.LikelihoodLocal, weight float64, s *Scratch) {
	K := l.K
	doc := d.Doc
	if sup == nil {
		for k, e := range d.ElogTheta {
			s.expTheta[k] = math.Exp(e)
		}
		l.mulPhi(d, d.ElogTheta, s, false)
	} else if q, ok := sup.(framework.PhiQuadraticAffine); ok {
		l.sweepAffine(d, sup, q, weight, s)
	} else if q, ok := sup.(framework.PhiQuadratic); ok {
		l.sweepQuad(d, sup, q, weight, s)
	} else {
		lg := l.beginLogs(d)
		cs, zs := lg.C[:len(doc.Words)], lg.Z[:len(doc.Words)]
		for j, w := range doc.Words {
			row := d.PhiRow(j)
			eb := l.ElogBeta[int(w)*K : (int(w)+1)*K]
			if weight == 1 {
				for k := range s.logit {
					s.logit[k] = d.ElogTheta[k] + eb[k]
				}
				sup.PhiTerm(s.logit, d, j)
			} else {
				for k := range s.logit {
					s.logit[k] = 0
				}
				sup.PhiTerm(s.logit, d, j)
				for k, r := range s.logit {
					s.logit[k] = d.ElogTheta[k] + eb[k] + weight*r
				}
			}
			copy(s.old, row)
			cs[j], zs[j] = softmaxLogs(row, s.logit)
			sup.WordChanged(d, j, s.old) // may write row and call d.PhiChanged
		}
	}
}

// sweepQuad is sweepPhi for a supervision term with an exact quadratic
// part (framework.PhiQuadratic): φ_dv = softmax(a − 2c·t·u), t = u·φ_dv,
// a_k = E[log θ_dk] + E[log β_kv] + w·ρ_k (solveQuadratic), each word in
// turn. The softmax at the current t0 = u·φ_dv, where the Newton steps
// start, is taken multiplicatively as plain LDA's sweep takes φ:
// exp(E[log θ_dk])·exp(E[log β_kv])·exp(g_k), g_k = w·ρ_k − 2w·c·t0·u_k,
// with exp(g_k) = exp(g'_k)·exp(g_k − g'_k) from the last word's g' whose
// K exponentials were taken (the Taylor polynomial of solveQuadratic when
// every |g_k − g'_k| ≤ taylorMax, else K new exponentials). For the
// Gaussian response g_k = w(c₁η_k − c₂η_k² − 2c₂(η·s_d − η·φ_dv)η_k)
// (PhiTermQuad: the count n_dv cancels), which moves from word to word by
// O(w/(N_d²σ²)), so on long documents a sweep takes K exponentials, not
// K per word (docs/performance.md, "MA-sLDAr on long documents and two
// workers"). The reference starts afresh at every sweep, so a document's
// φ does not depend on the documents swept before it on the goroutine.
// A word whose product underflows or overflows is taken in log space.
func (l *Layer) sweepQuad(d *framework.DocState, sup framework.LikelihoodLocal, q framework.PhiQuadratic, weight float64, s *Scratch) {
	K := l.K
	doc := d.Doc
	l.ensureExp(doc.Words)
	lg := l.beginLogs(d)
	cs, zs := lg.C[:len(doc.Words)], lg.Z[:len(doc.Words)]
	et := s.expTheta[:K]
	for k, e := range d.ElogTheta[:K] {
		et[k] = math.Exp(e)
	}
	g, gRef, eRef, p0 := s.g[:K], s.gRef[:K], s.eRef[:K], s.ref[:K]
	logit := s.logit[:K]
	haveRef := false
	for j, w := range doc.Words {
		row := d.PhiRow(j)[:K]
		eb := l.ElogBeta[int(w)*K:][:K]
		xb := l.ExpElogBeta[int(w)*K:][:K]
		clear(logit)
		c, u := q.PhiTermQuad(logit, d, j)
		copy(s.old, row)
		cw := weight * c
		t0 := 0.0
		if c > 0 {
			t0 = dot(u, s.old)
		}
		far := !haveRef
		for k, r := range logit {
			x := weight * r
			if c > 0 {
				x -= 2 * cw * t0 * u[k]
			}
			g[k] = x
			if !(math.Abs(x-gRef[k]) <= taylorMax) {
				far = true
			}
			logit[k] = d.ElogTheta[k] + eb[k] + weight*r
		}
		if far {
			for k, x := range g {
				gRef[k] = x
				eRef[k] = math.Exp(x)
			}
			haveRef = true
		}
		norm := 0.0
		for k, t := range et {
			e := g[k] - gRef[k]
			p := t * xb[k] * eRef[k] * (1 + e*(1+e*(0.5+e*(1.0/6+e*(1.0/24)))))
			p0[k] = p
			norm += p
		}
		t := 0.0 // row = softmax(logit − 2·cw·t·u)
		switch {
		case !(norm > 1e-280 && !math.IsInf(norm, 0)):
			for k := range s.prev {
				s.prev[k] = logit[k]
				if c > 0 {
					s.prev[k] -= 2 * cw * t0 * u[k]
				}
			}
			softmaxInto(p0, s.prev)
			if c > 0 {
				t = solveQuadratic(row, logit, cw, u, t0, s.prev, p0, true)
			} else {
				copy(row, p0)
			}
		case c > 0: // p0 is the softmax up to the factor norm
			t = solveQuadratic(row, logit, cw, u, t0, s.prev, p0, true)
		default:
			inv := 1 / norm
			for k, p := range p0 {
				row[k] = p * inv
			}
		}
		cs[j], zs[j] = softmaxRowLogs(row, logit, 2*cw*t, u, c > 0)
		sup.WordChanged(d, j, s.old)
	}
}

// sweepAffine is sweepQuad for a supervision term whose ρ_dv is base_d +
// s_dv·u (framework.PhiQuadraticAffine). With x_k = E[log θ_dk] +
// w·base_dk, the same for every word of the sweep, word v's maximiser is
//
//	φ_dvk ∝ exp(x_k) · exp(E[log β_kv]) · exp(λ u_k),  λ = w(s_dv − 2c_dv t),  t = u·φ_dv,
//
// so the sweep takes B_k = exp(x_k − max x) once, and a word's Newton
// iteration on t (newtonRoot, safeguarded in [min u, max u]) only
// moves the scalar λ: every evaluation is one pass over
// r_k = B_k·exp(E[log β_kv])·E_k times exp((λ − λ_ref)·u_k), the
// exponentials E_k = exp(λ_ref u_k − max_k λ_ref u_k) taken again only
// when |λ − λ_ref|·max|u| > taylorMax (else the Taylor polynomial: of
// degree 2 up to 1e-6, of degree 4 above, as in sweepQuad). A word then
// costs about four passes of K (its moments t₀ and q₀ = Σ φ u², r with
// the first evaluation, any further Newton evaluation, the normalisation
// with PhiLogs' c and z; the new moments are the last evaluation's)
// against sweepQuad's fifteen, for the same maximiser up to rounding
// (TestSweepQuadIsExact runs every case through both; TestSweepAffineTaylor
// checks the polynomials to 1e-14 of each component). A word whose sum
// underflows or overflows is solved in log space (affineLogSpace).
func (l *Layer) sweepAffine(d *framework.DocState, sup framework.LikelihoodLocal, q framework.PhiQuadraticAffine, weight float64, s *Scratch) {
	K := l.K
	doc := d.Doc
	if len(doc.Words) == 0 {
		l.beginLogs(d)
		return
	}
	x := s.logf[:K]
	u := q.QuadBase(x, d)
	if len(u) < K { // no supervision of φ (fixed features)
		l.sweepQuad(d, sup, q, weight, s)
		return
	}
	u = u[:K]
	l.ensureExp(doc.Words)
	lg := l.beginLogs(d)
	cs, zs := lg.C[:len(doc.Words)], lg.Z[:len(doc.Words)]
	bk := s.expTheta[:K]
	xmax := math.Inf(-1)
	for k, e := range d.ElogTheta[:K] {
		x[k] = e + weight*x[k]
		xmax = max(xmax, x[k])
	}
	for k, v := range x {
		bk[k] = math.Exp(v - xmax)
	}
	lo, hi := uBounds(u)
	scale := max(math.Abs(lo), math.Abs(hi))
	ek, r, p := s.eRef[:K], s.ref[:K], s.prev[:K]
	lamRef, haveRef := 0.0, false
	setRef := func(lam float64) {
		shift := max(lam*lo, lam*hi)
		for k, v := range u {
			ek[k] = math.Exp(lam*v - shift)
		}
		lamRef, haveRef = lam, true
	}
	for j, w := range doc.Words {
		row := d.PhiRow(j)[:K]
		xb := l.ExpElogBeta[int(w)*K:][:K]
		t0, q0 := 0.0, 0.0
		for k, v := range row {
			y := v * u[k]
			t0 += y
			q0 += y * u[k]
		}
		sv, c := q.QuadWord(d, j, t0)
		ws, cw := weight*sv, weight*c
		fresh := true           // r is to be computed with the next evaluation
		var inv, pt, pq float64 // the last evaluation's 1/Σp, u·p and Σ p u² (p normalised)
		// eval sets p ∝ softmax at t (inv its normaliser's inverse) and
		// returns f(t) = u·p − t and f'(t); ok is false when the sum
		// underflows or overflows.
		eval := func(t float64) (f, fp float64, ok bool) {
			lam := ws - 2*cw*t
			dl := lam - lamRef
			if !haveRef || !(math.Abs(dl)*scale <= taylorMax) {
				setRef(lam)
				fresh, dl = true, 0
			}
			if fresh {
				for k, b := range bk {
					r[k] = b * xb[k] * ek[k]
				}
				fresh = false
			}
			sum, mean, sq := 0.0, 0.0, 0.0
			if math.Abs(dl)*scale <= 1e-6 {
				// Degree 2 is enough: e³/6 ≤ 1.7e-19. On long documents
				// most evaluations are here (BenchmarkSweepLong: 0.85× the
				// sweep's time of degree 4 throughout).
				for k, v := range r {
					e := dl * u[k] // 0 right after setRef: the factor is 1
					v *= 1 + e*(1+e*0.5)
					p[k] = v
					sum += v
					y := v * u[k]
					mean += y
					sq += y * u[k]
				}
			} else {
				for k, v := range r {
					e := dl * u[k]
					v *= 1 + e*(1+e*(0.5+e*(1.0/6+e*(1.0/24))))
					p[k] = v
					sum += v
					y := v * u[k]
					mean += y
					sq += y * u[k]
				}
			}
			if !(sum > 1e-280 && !math.IsInf(sum, 0)) {
				return 0, 0, false
			}
			inv = 1 / sum
			mean *= inv
			sq *= inv
			pt, pq = mean, sq
			return mean - t, -2*cw*max(0, sq-mean*mean) - 1, true
		}
		t := min(max(t0, lo), hi)
		ok := true
		if c > 0 {
			t, ok = newtonRoot(t, lo, hi, scale, eval)
		} else {
			t = 0
			_, _, ok = eval(0)
		}
		var t1, q1 float64
		if ok {
			lam := ws - 2*cw*t
			eb := l.ElogBeta[int(w)*K:][:K]
			m, pm, acc := 0, -1.0, 0.0
			for k, v := range p {
				v *= inv
				row[k] = v
				if v > pm {
					m, pm = k, v
				}
				acc += v * (x[k] + eb[k])
			}
			t1, q1 = pt, pq
			cs[j] = acc + lam*t1 - (x[m] + eb[m] + lam*u[m])
			zs[j] = 1 / pm
		} else {
			cs[j], zs[j], t1, q1 = l.affineLogSpace(row, x, int(w), u, ws, cw, t0, s)
		}
		q.QuadMoved(d, j, t0, q0, t1, q1)
	}
}

// affineLogSpace is sweepAffine's word in log space (its multiplicative
// sum underflowed or overflowed): row = softmax(a − 2cw·t·u), a_k = x_k +
// E[log β_kv] + ws·u_k, by solveQuadratic (softmaxInto when cw is 0). It
// returns PhiLogs' c and z and the row's new t and q.
func (l *Layer) affineLogSpace(row, x []float64, w int, u []float64, ws, cw, t0 float64, s *Scratch) (c, z, t1, q1 float64) {
	K := l.K
	eb := l.ElogBeta[w*K:][:K]
	a := s.logit[:K]
	for k := range a {
		a[k] = x[k] + eb[k] + ws*u[k]
	}
	t := 0.0
	if cw > 0 {
		t = solveQuadratic(row, a, cw, u, t0, s.g[:K], s.gRef[:K], false)
	} else {
		softmaxInto(row, a)
	}
	c, z = softmaxRowLogs(row, a, 2*cw*t, u, cw > 0)
	for k, v := range row {
		y := v * u[k]
		t1 += y
		q1 += y * u[k]
	}
	return c, z, t1, q1
}

// mulPhi sets every word's φ_dvk ∝ s.expTheta_k · exp(E[log β_kv])
// (multiplicative: no exponential per word), where s.expTheta_k =
// exp(logf_k) was set by the caller; a word whose normaliser underflows or
// overflows is redone in log space from logf_k + E[log β_kv]. With acc,
// each word's new φ is also added to γ_d and φ̄_d (addWord, between
// beginGamma and endGamma).
func (l *Layer) mulPhi(d *framework.DocState, logf []float64, s *Scratch, acc bool) {
	K := l.K
	doc := d.Doc
	l.ensureExp(doc.Words)
	et := s.expTheta[:K]
	lg := l.beginLogs(d)
	lg.Logf = append(lg.Logf[:0], logf[:K]...)
	lg.Deferred, lg.Version = true, l.version
	cs, zs := lg.C[:len(doc.Words)], lg.Z[:len(doc.Words)]
	for j, w := range doc.Words {
		row := d.PhiRow(j)
		row = row[:len(et)]
		eb := l.ExpElogBeta[int(w)*K:][:len(et)]
		norm := 0.0
		for k, t := range et {
			p := t * eb[k]
			row[k] = p
			norm += p
		}
		if norm > 1e-280 && !math.IsInf(norm, 0) {
			cs[j], zs[j] = math.NaN(), norm
			inv := 1 / norm
			if acc {
				n := doc.Counts[j]
				g, b := d.Gamma[:len(row)], d.PhiBar[:len(row)]
				for k := range row {
					p := row[k] * inv
					row[k] = p
					v := n * p
					g[k] += v
					b[k] += v
				}
				continue
			}
			for k := range row {
				row[k] *= inv
			}
			continue
		}
		// Underflow: redo this word in log space.
		lb := l.ElogBeta[int(w)*K : (int(w)+1)*K]
		for k := range row {
			s.logit[k] = logf[k] + lb[k]
		}
		cs[j], zs[j] = softmaxLogs(row, s.logit)
		if acc {
			addWord(d, doc.Counts[j], row)
		}
	}
}

// solveQuadratic sets dst to the maximiser over the simplex of
// Σ_k p_k (a_k − log p_k) − c (u·p)², c > 0: p = softmax(a − 2c·t·u) with
// t = u·p, the root of f(t) = u·softmax(a − 2c·t·u) − t, which is strictly
// decreasing (f'(t) = −2c·Var_p(u) − 1) and lies in [min u, max u]. Newton
// steps from t0 (the current u·φ), kept inside a bisection bracket
// (newtonRoot); tmp
// and ref (length K) are scratch. (The built-in min and max, which the
// compiler inlines, have math.Min's and math.Max's results for NaNs,
// infinities and signed zeros: the Go specification's table.)
//
// With haveRef, ref holds softmax(a − 2c·t0·u) on entry, up to a positive
// factor (the caller's multiplicative evaluation, sweepQuad, not
// normalised); it is scratch either way.
// Evaluations whose t is near the last full one's (t_ref, p_ref in ref)
// take no exponential: softmax(a − 2c·t·u) is p_ref ∘ exp(e) renormalised,
// e_k = −2c(t − t_ref)·u_k, and when every |e_k| ≤ taylorMax exp(e_k) is
// its Taylor polynomial of degree 4 (relative error below e⁵/120 ≤ 1e-17,
// under half an ulp). A Newton step from a warm t0 is that small on long
// documents, where the quadratic term is weak (c ∝ n_dv/N_d²), so such a
// word costs no exponential at all (docs/performance.md, "MA-sLDAr on long
// documents and two workers").
func solveQuadratic(dst, a []float64, c float64, u []float64, t0 float64, tmp, ref []float64, haveRef bool) (tFinal float64) {
	lo, hi := uBounds(u)
	tRef := t0
	t := min(max(t0, lo), hi)
	scale := max(math.Abs(lo), math.Abs(hi))
	ref = ref[:len(dst)]
	inv := 1.0 // dst times inv is the softmax at the last t evaluated
	eval := func(t float64) (f, fp float64, ok bool) {
		mean, sq := 0.0, 0.0
		if d := -2 * c * (t - tRef); haveRef && math.Abs(d)*scale <= taylorMax {
			sum := 0.0
			if d == 0 {
				for k, p := range ref {
					dst[k] = p
					sum += p
					x := p * u[k]
					mean += x
					sq += x * u[k]
				}
			} else {
				for k, p := range ref {
					e := d * u[k]
					q := p * (1 + e*(1+e*(0.5+e*(1.0/6+e*(1.0/24)))))
					dst[k] = q
					sum += q
					x := q * u[k]
					mean += x
					sq += x * u[k]
				}
			}
			inv = 1 / sum
			mean *= inv
			sq *= inv
		} else {
			for k := range tmp {
				tmp[k] = a[k] - 2*c*t*u[k]
			}
			softmaxInto(dst, tmp)
			copy(ref, dst)
			tRef, haveRef, inv = t, true, 1
			for k, p := range dst {
				x := p * u[k]
				mean += x
				sq += x * u[k]
			}
		}
		return mean - t, -2*c*max(0, sq-mean*mean) - 1, true
	}
	t, _ = newtonRoot(t, lo, hi, scale, eval)
	if inv != 1 {
		for k := range dst {
			dst[k] *= inv
		}
	}
	return t
}

// newtonRoot finds the root of the decreasing f in [lo, hi] (scale =
// max(|lo|, |hi|)) by Newton steps from t, kept inside a bisection
// bracket, until |f| ≤ 1e-14·scale or the bracket is narrower than
// 1e-15·scale (at most 100 steps); eval(t) returns f(t), f'(t) and
// whether it could be evaluated. The last call of eval is at the returned
// t (the callers keep what it computed there). It returns false when an
// evaluation failed.
func newtonRoot(t, lo, hi, scale float64, eval func(float64) (float64, float64, bool)) (float64, bool) {
	for it := 0; it < 100 && hi-lo > 1e-15*scale; it++ {
		f, fp, ok := eval(t)
		if !ok {
			return t, false
		}
		if math.Abs(f) <= 1e-14*max(scale, 1e-300) {
			return t, true
		}
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t - f/fp
		if !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		t = next
	}
	_, _, ok := eval(t)
	return t, ok
}

// uBounds returns the smallest and the largest element of u (non-empty,
// no NaN) by plain comparisons: the built-in min and max, whose NaN and
// signed-zero rules cost branches, made this loop 40% of solveQuadratic
// on long documents (docs/performance.md).
func uBounds(u []float64) (lo, hi float64) {
	lo, hi = u[0], u[0]
	for _, x := range u[1:] {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	return lo, hi
}

// taylorMax is the largest |e| for which solveQuadratic takes exp(e) as
// 1 + e + e²/2 + e³/6 + e⁴/24.
const taylorMax = 1e-3

func dot(a, b []float64) float64 {
	s := 0.0
	for k, x := range a {
		s += x * b[k]
	}
	return s
}

// softmaxInto sets dst = exp(x − logsumexp(x)).
func softmaxInto(dst, x []float64) {
	_, sum := softmaxExp(dst, x)
	inv := 1 / sum
	for k := range dst {
		dst[k] *= inv
	}
}

// softmaxExp sets dst = exp(x − m), m = max x, and returns m and Σ dst.
func softmaxExp(dst, x []float64) (m, sum float64) {
	m = math.Inf(-1)
	for _, v := range x {
		if v > m {
			m = v
		}
	}
	for k, v := range x {
		e := math.Exp(v - m)
		dst[k] = e
		sum += e
	}
	return m, sum
}

// softmaxLogs is softmaxInto (the same dst, bit for bit) that also
// returns c = Σ_k dst_k (x_k − max x) and z = Σ_k exp(x_k − max x), so
// that Σ_k dst_k log dst_k = c − log z (framework.PhiLogs).
func softmaxLogs(dst, x []float64) (c, z float64) {
	m, sum := softmaxExp(dst, x)
	inv := 1 / sum
	for k, v := range x {
		p := dst[k] * inv
		dst[k] = p
		c += p * (v - m)
	}
	return c, sum
}

// softmaxRowLogs returns PhiLogs' c and z of row = softmax(y), y_k = a_k −
// b·u_k (b·u left out unless quad): with m the largest entry of row,
// Σ_k row_k log row_k = Σ_k row_k (y_k − y_m) + log row_m, so c = Σ_k
// row_k (y_k − y_m) and z = 1/row_m, no logarithm (sweepQuad, whose rows
// come from a Newton solve or Taylor steps, not from one softmax).
func softmaxRowLogs(row, a []float64, b float64, u []float64, quad bool) (c, z float64) {
	m, pm := 0, row[0]
	for k, p := range row {
		if p > pm {
			m, pm = k, p
		}
	}
	ym := a[m]
	if quad {
		ym -= b * u[m]
		for k, p := range row {
			c += p * (a[k] - b*u[k] - ym)
		}
	} else {
		for k, p := range row {
			c += p * (a[k] - ym)
		}
	}
	return c, 1 / pm
}

// beginLogs starts the cached normalisers of a sweep of every word of d:
// valid from here unless φ_d is written other than by the sweep
// (DocState.PhiChanged, for example by a WordChanged that backtracks), no
// word deferred, C and Z of d's length.
func (l *Layer) beginLogs(d *framework.DocState) *framework.PhiLogs {
	lg := &d.Logs
	n := len(d.Doc.Words)
	if cap(lg.C) < n {
		lg.C, lg.Z = make([]float64, n), make([]float64, n)
	}
	lg.C, lg.Z = lg.C[:n], lg.Z[:n]
	lg.Valid, lg.Deferred = true, false
	return lg
}

// Infer runs the unsupervised local step to convergence (at most
// LocalIters sweeps, stopping when the mean |Δγ| falls below LocalTol): the
// topic layer of prediction and of plain LDA. It returns the sweeps run.
// From scratch (warm nil) it is FreshSweeps (SQUAREM under the default
// FreshAccel); from a warm start it sweeps plainly (plainSweeps), so that
// it cannot lower the document's bound.
func (l *Layer) Infer(d *framework.DocState, warm []float64, s *Scratch) int {
	l.Start(d, warm)
	if warm == nil {
		return l.FreshSweeps(d, s)
	}
	return l.plainSweeps(d, s)
}

// plainSweeps sweeps d without supervision until a sweep's mean |Δγ_dk|
// falls below LocalTol, at most LocalIters sweeps, and returns the sweeps
// run.
func (l *Layer) plainSweeps(d *framework.DocState, s *Scratch) int {
	for it := 1; it <= l.LocalIters; it++ {
		if l.Sweep(d, nil, s) < l.LocalTol {
			return it
		}
	}
	return l.LocalIters
}

// DocELBO is the part of the ELBO of document d that does not involve β
// (MODEL.md §4, topic layer):
//
//	E[log p(θ_d|α)] − E[log q(θ_d)] + E[log p(z_d|θ_d)] − E[log q(z_d)]
//
// evaluated at the current γ_d, E[log θ_d] and φ_d.
func (l *Layer) DocELBO(d *framework.DocState) float64 {
	if l.emptyHit(d) {
		return l.empty.elbo
	}
	e := l.thetaELBO(d.Gamma, d.ElogTheta)
	if lg := &d.Logs; lg.Valid && (!lg.Deferred || lg.Version == l.version) && len(lg.Z) == len(d.Doc.Counts) {
		c := e + l.wordsFromLogs(d)
		if VerifyLogs {
			if want := e + l.wordsWithLogs(d); !(math.Abs(c-want) <= 1e-9*(1+math.Abs(want))) {
				panic(fmt.Sprintf("topics: document %d: DocELBO from the sweep's normalisers %v, with logarithms %v", d.Index, c, want))
			}
		}
		return c
	}
	return e + l.wordsWithLogs(d)
}

// wordsWithLogs is Σ_v n_dv Σ_k φ_dvk (E[log θ_dk] − log φ_dvk), DocELBO's
// words, with a logarithm per word and topic.
func (l *Layer) wordsWithLogs(d *framework.DocState) float64 {
	e := 0.0
	for j, n := range d.Doc.Counts {
		row := d.PhiRow(j)
		t := 0.0
		for k, p := range row {
			if p > 0 {
				t += p * (d.ElogTheta[k] - math.Log(p))
			}
		}
		e += n * t
	}
	return e
}

// wordsFromLogs is wordsWithLogs from the last sweep's normalisers
// (d.Logs, valid): Σ_k φ_k log φ_k = C_j − log Z_j, or for a deferred word
// Σ_k φ_k (Logf_k + E[log β_kv]) − log Z_j; a logarithm per word.
func (l *Layer) wordsFromLogs(d *framework.DocState) float64 {
	K := l.K
	lg := &d.Logs
	et := d.ElogTheta[:K]
	e := 0.0
	for j, n := range d.Doc.Counts {
		row := d.PhiRow(j)[:K]
		t := 0.0
		c := lg.C[j]
		if c != c { // NaN: deferred
			lb := l.ElogBeta[int(d.Doc.Words[j])*K:][:K]
			lf := lg.Logf[:K]
			for k, p := range row {
				t += p * (et[k] - lf[k] - lb[k])
			}
		} else {
			for k, p := range row {
				t += p * et[k]
			}
			t -= c
		}
		e += n * (t + math.Log(lg.Z[j]))
	}
	return e
}

// thetaELBO is E[log p(θ_d|α)] − E[log q(θ_d)] at γ_d = gamma, E[log θ_d] =
// elog: DocELBO's part without words.
func (l *Layer) thetaELBO(gamma, elog []float64) float64 {
	K := float64(l.K)
	a := l.Alpha
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	e := lg(K*a) - K*lg(a)
	gs := 0.0
	for k, g := range gamma {
		e += (a-g)*elog[k] + lg(g)
		gs += g
	}
	e -= lg(gs)
	return e
}

// WordELBO is E[log p(w_d | z_d, β)] = Σ_v n_dv Σ_k φ_dvk E[log β_kv] at the
// current topics: with DocELBO, the topic layer's whole ELBO of document d.
func (l *Layer) WordELBO(d *framework.DocState) float64 {
	K := l.K
	e := 0.0
	for j, w := range d.Doc.Words {
		eb := l.ElogBeta[int(w)*K : (int(w)+1)*K]
		t := 0.0
		for k, p := range d.PhiRow(j) {
			t += p * eb[k]
		}
		e += d.Doc.Counts[j] * t
	}
	return e
}

// Stats are the topic layer's sufficient statistics: Word[v*K+k] =
// Σ_d n_dv φ_dvk, the sum of DocELBO, and the number of documents. Rows
// touched since the last Reset are tracked so that merging and resetting cost
// O(touched words × K), not O(V × K).
type Stats struct {
	K, V    int
	Word    []float64
	DocELBO float64
	Docs    int
	touched []int32
	mark    []bool
	workers int // SetSums' goroutines (the layer's)
}

// NewStats returns empty statistics.
func (l *Layer) NewStats() framework.Stats {
	s := newStats(l.K, l.V)
	s.workers = l.workers
	return s
}

func newStats(k, v int) *Stats {
	return &Stats{K: k, V: v, Word: make([]float64, k*v), mark: make([]bool, v)}
}

func (s *Stats) touch(w int32) {
	if !s.mark[w] {
		s.mark[w] = true
		s.touched = append(s.touched, w)
	}
}

// Merge adds o (a *Stats of the same shape) into s.
func (s *Stats) Merge(o framework.Stats) {
	t := o.(*Stats)
	K := s.K
	for _, w := range t.touched {
		s.touch(w)
		dst := s.Word[int(w)*K : (int(w)+1)*K]
		src := t.Word[int(w)*K : (int(w)+1)*K]
		for k, x := range src {
			dst[k] += x
		}
	}
	s.DocELBO += t.DocELBO
	s.Docs += t.Docs
}

// Reset empties s.
func (s *Stats) Reset() {
	K := s.K
	for _, w := range s.touched {
		s.mark[w] = false
		row := s.Word[int(w)*K : (int(w)+1)*K]
		for k := range row {
			row[k] = 0
		}
	}
	s.touched = s.touched[:0]
	s.DocELBO = 0
	s.Docs = 0
}

// Accumulate adds document d's φ-weighted counts and DocELBO to s.
func (l *Layer) Accumulate(st framework.Stats, d *framework.DocState) {
	l.AccumulateDocELBO(st, d, l.DocELBO(d))
}

// AccumulateDocELBO is Accumulate with document d's DocELBO already known
// (docELBO = l.DocELBO(d) at d's current state, as a caller that has just
// evaluated it has it), so that it is not computed again.
func (l *Layer) AccumulateDocELBO(st framework.Stats, d *framework.DocState, docELBO float64) {
	s := st.(*Stats)
	K := l.K
	for j, w := range d.Doc.Words {
		s.touch(w)
		n := d.Doc.Counts[j]
		dst := s.Word[int(w)*K : (int(w)+1)*K]
		for k, p := range d.PhiRow(j) {
			dst[k] += n * p
		}
	}
	s.DocELBO += docELBO
	s.Docs++
}

// Update blends ζ toward τ + S·Word (MODEL.md §5) and refreshes E[log β].
// After a mini-batch's update (step.Full false) the exponentials
// exp(E[log β]) are filled lazily, for the words of the documents swept
// next (ensureExp): a mini-batch holds a small part of a large vocabulary.
// The numbers are those of an eager refresh, bit for bit.
func (l *Layer) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s := st.(*Stats)
	l.blendRefresh(s.Word, step.Rho, step.Scale, !step.Full && !l.eager)
	return nil
}

// ELBO is the topic layer's bound after Update: Scale·(Σ_d DocELBO +
// Σ_kv Word_kv E[log β_kv]) + Σ_k (E[log p(β_k|τ)] − E[log q(β_k)]).
func (l *Layer) ELBO(st framework.Stats, step framework.Step) float64 {
	s := st.(*Stats)
	return step.Scale*(s.DocELBO+l.wordTerm(s)) + l.GlobalELBO()
}

// wordTermChunk is the number of touched words whose part of wordTerm is
// summed apart before the parts are added in order: a fixed size, so that
// the sum's bits do not depend on the number of workers.
const wordTermChunk = 512

// wordTerm is Σ_kv Word_kv E[log β_kv] over the words s touched, summed
// per wordTermChunk words (on the layer's workers when there are many,
// pipeline) and the parts added in order.
func (l *Layer) wordTerm(s *Stats) float64 {
	K := l.K
	n := len(s.touched)
	part := make([]float64, (n+wordTermChunk-1)/wordTermChunk)
	total := 0.0
	l.pipeline(n, wordTermChunk, 4*max(1, l.workers), func(c, lo, hi int) {
		p := 0.0
		for _, w := range s.touched[lo:hi] {
			row := s.Word[int(w)*K : (int(w)+1)*K]
			eb := l.ElogBeta[int(w)*K : (int(w)+1)*K]
			for k, x := range row {
				p += x * eb[k]
			}
		}
		part[c] = p
	}, func(c, _, _ int) { total += part[c] })
	return total
}

// GlobalELBO is Σ_k (E[log p(β_k|τ)] − E[log q(β_k)]).
func (l *Layer) GlobalELBO() float64 {
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	V := float64(l.V)
	e := float64(l.K) * (lg(V*l.Tau) - V*lg(l.Tau))
	for _, s := range l.TopicSum {
		e -= lg(s)
	}
	return l.sumZetaTerms(e)
}

// Beta returns the posterior mean topics E[β_kv] = ζ_kv / Σ_u ζ_ku as K rows.
func (l *Layer) Beta() [][]float64 {
	K := l.K
	b := make([][]float64, K)
	for k := range b {
		b[k] = make([]float64, l.V)
		for v := 0; v < l.V; v++ {
			b[k][v] = l.Zeta[v*K+k] / l.TopicSum[k]
		}
	}
	return b
}

var _ framework.Summable = (*Stats)(nil)

// SumLayout is the statistics as fixed-size sums (framework.Summable):
// "topics.word" (V×K, word-major) and "topics.doc" (DocELBO and Docs).
func (s *Stats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "topics.word", Len: s.K * s.V}, {Name: "topics.doc", Len: 2}}
}

// Sums visits the rows of the words touched since the last Reset (the
// others are zero), then DocELBO and Docs.
func (s *Stats) Sums(visit func(part, off int, xs []float64)) {
	K := s.K
	for _, w := range s.touched {
		visit(0, int(w)*K, s.Word[int(w)*K:(int(w)+1)*K])
	}
	docs := float64(s.Docs)
	framework.ScalarSums(1, visit, &s.DocELBO, &docs)
}

// SetSums sets every number; the touched rows are then those with a
// non-zero entry, in increasing word order.
func (s *Stats) SetSums(get func(part int, dst []float64)) {
	for _, w := range s.touched { // Reset but for the rows, which get sets
		s.mark[w] = false
	}
	s.touched = s.touched[:0]
	get(0, s.Word)
	// Mark the rows with a non-zero entry on the workers (each row's mark
	// by one goroutine), then list them in word order.
	K := s.K
	forRange(s.workers, s.V*K, func(lo, hi int) {
		for w := lo / K; w*K < hi; w++ {
			if w*K < lo {
				continue // the row's first entry is in another range: its mark is that range's
			}
			for _, x := range s.Word[w*K : (w+1)*K] {
				if x != 0 {
					s.mark[w] = true
					break
				}
			}
		}
	})
	for w, m := range s.mark {
		if m {
			s.touched = append(s.touched, int32(w))
		}
	}
	var docs float64
	framework.SetScalarSums(1, get, &s.DocELBO, &docs)
	s.Docs = int(docs)
}
