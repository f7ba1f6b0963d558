package softmax

import (
	"math"
	"sync/atomic"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
)

// local is one goroutine's part of the local step (MODEL.md §2): the
// caches h̃_l, log B_dl and φ_dv·h̃_l of the current document.
type local struct {
	s    *Softmax
	C, K int

	doc    *framework.Doc // the document Begin cached
	n      float64        // N_d
	h      []float64      // h̃_lk = exp(η_lk/N_d − m_l), C×K
	m      []float64      // m_l
	logB   []float64      // log B_dl (including N_d·m_l), C, but for the pending increments
	logZ   float64        // log Σ_l B_dl
	dots   []float64      // φ_dv·h̃_l, Len×C
	p      []float64      // B_dl/Σ_t B_dt, C
	lamEta []float64      // (1/N_d) Σ_l λ_dl η_lk, K
	fresh  bool           // lamEta holds the λ of the current target

	// Safeguard (see WordChanged): the topic-layer logits of the word last
	// given to PhiTerm.
	a     []float64 // E[log θ_dk] + E[log β_kv]
	aDoc  *framework.Doc
	aWord int
	nw    []float64 // the proposed φ_dv
	nd    []float64 // φ_new·h̃_l, C
	lb    []float64 // trial log B, C
	pt    []float64 // trial B_dl/Σ_t B_dt, C (from lb, set by trial)
	q     []float64 // PhiTerm's B_dl/Σ_t B_dt/(φ_dv·h̃_l), C
	u     []float64 // WordChanged's relative change of φ_dv·h̃_l, C
	lu    []float64 // log1p(u), C
	e     []float64 // (1+u)^n − 1, C
	tmp   []float64 // C

	// h̃ and m were computed by setH for N_d = hN from η = hEta (Begin
	// reuses them while both are unchanged: within an E-step, η is fixed
	// and every target update of a document has the same N_d).
	hEta []float64
	hN   float64
	pl   prodLogs // Begin's log B_dl
	// The accepted word changes whose increments n·log1p(u_l) have not
	// been added into logB yet: only the safeguard's rare paths read log
	// B_dl (the accepted path keeps p and log Σ_l B_dl from the ratios),
	// so WordChanged defers the C logarithms a word, and flushLogB adds
	// them in the order of the changes (the same sums, bit for bit).
	// pendLU holds, per change, C values: log1p(u_l) when trialRatio
	// took them (takesLog(n)), else u_l.
	pendN  []float64
	pendLU []float64
	// snap is the φ of the document the caches hold (Begin's, then each
	// row WordChanged was told of): DocELBO reads log Σ_l B_dl from the
	// caches when d.Phi still equals it.
	snap []float64

	sc *evalScratch // DocELBO
}

func newLocal(s *Softmax) *local {
	C, K := s.C, s.K
	return &local{s: s, C: C, K: K, h: make([]float64, C*K), m: make([]float64, C), logB: make([]float64, C),
		p: make([]float64, C), lamEta: make([]float64, K), a: make([]float64, K), aWord: -1,
		nw: make([]float64, K), nd: make([]float64, C), lb: make([]float64, C), pt: make([]float64, C), q: make([]float64, C), u: make([]float64, C), lu: make([]float64, C), e: make([]float64, C), tmp: make([]float64, C),
		sc: newEvalScratch(C, K), pl: newProdLogs(C)}
}

// Begin caches, from d.Phi, h̃_l and log B_dl = Σ_v n_dv log(φ_dv·h_l)
// (kept as log B, MODEL.md §2) with the dots φ_dv·h̃_l of every word.
// λ_d is read from d.Target at the first PhiTerm after Begin.
func (lc *local) Begin(d *framework.DocState) {
	C := lc.C
	doc := d.Doc
	lc.doc, lc.n, lc.fresh, lc.aDoc = doc, doc.N, false, nil
	lc.dropPending()
	if !(doc.N > 0) {
		for l := range lc.logB {
			lc.logB[l] = 0
		}
		return
	}
	lc.ensureH(doc.N)
	if n := doc.Len() * C; cap(lc.dots) < n {
		lc.dots = make([]float64, n)
	} else {
		lc.dots = lc.dots[:n]
	}
	for l := range lc.logB {
		lc.logB[l] = doc.N * lc.m[l]
	}
	pl := &lc.pl
	pl.reset()
	for j, n := range doc.Counts {
		dts := lc.dots[j*C : (j+1)*C]
		dotsC(dts, d.PhiRow(j), lc.h)
		pl.addAll(lc.logB, n, dts)
	}
	pl.flush(lc.logB)
	lc.setP()
	lc.snap = append(lc.snap[:0], d.Phi...)
}

// Resume is Begin after a sweep of d through lc (framework.LocalResumer):
// WordChanged has kept the dots, log B_dl and B_dl/Σ_t B_dt of d's current
// φ (log B by increments n_dv·log1p(u), so up to their rounding), and only
// λ_d is read afresh. Begin when the caches are not d's at the current η.
func (lc *local) Resume(d *framework.DocState) {
	doc := d.Doc
	if lc.doc != doc || !(doc.N > 0) || lc.hN != doc.N || len(lc.dots) != doc.Len()*lc.C || !equal(lc.hEta, lc.s.Eta) {
		lc.Begin(d)
		return
	}
	lc.fresh, lc.aDoc = false, nil
}

// ensureH sets h̃ and m for N_d = n at the current η, unless they hold
// them already.
func (lc *local) ensureH(n float64) {
	if lc.hEta == nil || lc.hN != n || !equal(lc.hEta, lc.s.Eta) {
		setH(lc.s.Eta, lc.C, lc.K, n, lc.h, lc.m)
		lc.hEta = append(lc.hEta[:0], lc.s.Eta...)
		lc.hN = n
	}
}

// DocTerm sets dst to PhiTerm's ρ_dvk with every φ_dv replaced by φ̄_d
// (framework.PhiDocTerm):
//
//	ρ̄_dk = (1/N_d) Σ_l λ_dl η_lk − Σ_l p̄_l h_lk/(φ̄_d·h_l),  p̄_l ∝ (φ̄_d·h_l)^N_d
//
// (B_dl = Π_v (φ_dv·h_l)^n_dv at φ_dv = φ̄_d), exact when every word has
// φ̄_d. O(K·C). An empty document gets 0.
func (lc *local) DocTerm(dst []float64, d *framework.DocState) {
	K := lc.K
	clear(dst)
	n := d.Doc.N
	if !(n > 0) {
		return
	}
	lc.ensureH(n)
	t := d.Target.(*framework.Categorical)
	for l, lam := range t.P {
		if lam == 0 {
			continue
		}
		for k, e := range lc.s.Eta[l*K : (l+1)*K] {
			dst[k] += lam * e
		}
	}
	for k := range dst {
		dst[k] /= n
	}
	dts, lb := lc.nd, lc.lb
	dotsC(dts, d.PhiBar, lc.h)
	for l, dt := range dts {
		lb[l] = n * (math.Log(dt) + lc.m[l])
	}
	normalize(lc.pt, lb)
	for l, dt := range dts {
		q := lc.pt[l] / dt
		for k, h := range lc.h[l*K : (l+1)*K] {
			dst[k] -= q * h
		}
	}
}

// TargetTerm adds the prior message η_l·φ̄_d onto Log[l] of d.Target.
func (lc *local) TargetTerm(d *framework.DocState) { priorMessage(lc.s.Eta, lc.K, d) }

// priorMessage adds η_l·φ̄_d onto Log[l] of d.Target.
func priorMessage(eta []float64, K int, d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	for l := range t.Log {
		t.Log[l] += dot(eta[l*K:(l+1)*K], d.PhiBar)
	}
}

// PhiTerm adds, for word j (v = Words[j]) of d,
//
//	ρ_dvk = (1/N_d) Σ_l λ_dl η_lk − Σ_l B_dl h_lk/(φ_dv·h_l) / Σ_l B_dl
//
// into dst (MODEL.md §2): the derivative of the response's part of the
// ELBO with respect to φ_dvk, divided by n_dv. O(K·C).
func (lc *local) PhiTerm(dst []float64, d *framework.DocState, j int) {
	C, K := lc.C, lc.K
	if !lc.fresh {
		t := d.Target.(*framework.Categorical)
		for k := range lc.lamEta {
			lc.lamEta[k] = 0
		}
		for l, lam := range t.P {
			if lam == 0 {
				continue
			}
			row := lc.s.Eta[l*K : (l+1)*K]
			for k, e := range row {
				lc.lamEta[k] += lam * e
			}
		}
		for k := range lc.lamEta {
			lc.lamEta[k] /= lc.n
		}
		lc.fresh = true
	}
	copy(lc.a, dst)
	lc.aDoc, lc.aWord = d.Doc, j
	dots := lc.dots[j*C : (j+1)*C]
	q := lc.q
	for l := 0; l < C; l++ {
		q[l] = lc.p[l] / dots[l]
	}
	// Four topics at a time: four independent sums, each in the order of
	// the loop over one topic (the same bits), so that consecutive
	// multiply-adds do not wait on each other.
	h := lc.h
	k := 0
	for ; k+4 <= K; k += 4 {
		r0, r1, r2, r3 := lc.lamEta[k], lc.lamEta[k+1], lc.lamEta[k+2], lc.lamEta[k+3]
		for l, ql := range q {
			hl := h[l*K+k:][:4]
			r0 -= ql * hl[0]
			r1 -= ql * hl[1]
			r2 -= ql * hl[2]
			r3 -= ql * hl[3]
		}
		dst[k] += r0
		dst[k+1] += r1
		dst[k+2] += r2
		dst[k+3] += r3
	}
	for ; k < K; k++ {
		r := lc.lamEta[k]
		for l, ql := range q {
			r -= ql * h[l*K+k]
		}
		dst[k] += r
	}
}

// maxHalvings bounds the safeguard's backtracking; past it the word keeps
// its old φ.
const maxHalvings = 30

// WordChanged updates the caches after φ_dv (word j) changed from old:
// log B_dl += n_dv (log(φ_new·h_l) − log(φ_old·h_l)), and B_dl/Σ_t B_dt.
//
// Safeguard. The φ update φ_dv ∝ exp(E[log θ_d] + E[log β_v] + ρ_dv)
// maximises the ELBO with G(φ_dv) = log Σ_l B_dl linearised at the old
// φ_dv; the linearisation is not an upper bound of G (a log-sum of powers
// (φ·h_l)^{n_dv}, neither convex nor concave), so the step can lower the
// ELBO. When the word went through PhiTerm just before (as in
// topics.Layer.Sweep), the exact change of the document's ELBO as a
// function of φ_dv is
//
//	ΔF = n_dv KL(φ_old ‖ φ_new) − D_G,   D_G = G(φ_new) − G(φ_old) − ∇G(φ_old)·(φ_new − φ_old)
//
// (the surrogate gains n_dv KL; D_G is G's Bregman divergence, O(C) to
// evaluate from the caches). The step is accepted when ΔF ≥ 0, checked
// first with Pinsker's KL ≥ ½‖Δφ‖₁² (no logarithms), then exactly. Otherwise
// WordChanged backtracks along the segment from old to the proposal (t =
// 1/2, 1/4, …; an ascent direction, since the surrogate is tangent to the
// ELBO at old), writing the accepted point into d's φ row; after
// maxHalvings it restores old. Every φ step then raises the ELBO (up to a
// rounding tolerance of 1e-12 relative).
func (lc *local) WordChanged(d *framework.DocState, j int, old []float64) {
	if !(lc.n > 0) || lc.doc != d.Doc {
		return
	}
	row := d.PhiRow(j)
	lc.wordChanged(d, j, row, old)
	copy(lc.snap[j*lc.K:(j+1)*lc.K], row)
}

// wordChanged is WordChanged's update of the caches (row is d's φ row of
// word j, which the safeguard may move back towards old).
func (lc *local) wordChanged(d *framework.DocState, j int, row, old []float64) {
	C := lc.C
	n := d.Doc.Counts[j]
	dots := lc.dots[j*C : (j+1)*C]
	nd, u := lc.nd, lc.u
	dotsC(nd, row, lc.h)
	for l := 0; l < C; l++ {
		u[l] = (nd[l] - dots[l]) / dots[l]
	}
	guard := lc.s.guard && lc.aDoc == d.Doc && lc.aWord == j
	lc.aWord = -1
	pr := lc.s.probe
	if pr != nil {
		pr.words.Add(1)
	}
	if !guard {
		lc.setLB(n, false)
		lc.commit(dots)
		return
	}
	dG, zOK := lc.trialRatio(n)
	z := lc.logZ + dG
	for l := 0; l < C; l++ {
		dG -= n * lc.p[l] * u[l]
	}
	l1 := 0.0
	tol := 1e-12 * (1 + math.Abs(lc.logZ) + n)
	ok := dG <= tol
	if !ok {
		for k, x := range row {
			l1 += math.Abs(x - old[k])
		}
		ok = 0.5*n*l1*l1-dG >= -tol
	}
	if !ok {
		kl := 0.0
		for k, o := range old {
			if o > 0 {
				kl += o * math.Log(o/row[k]) // +Inf when row[k] underflowed: accept
			}
		}
		ok = n*kl-dG >= -tol
		if !ok && pr != nil {
			pr.decreases.Add(1)
			pr.addWorst(n*kl - dG)
		}
	}
	if ok {
		if zOK {
			copy(dots, lc.nd)
			lc.deferLogB(n)
			copy(lc.p, lc.pt)
			lc.logZ = z
		} else {
			lc.commit(dots) // trialRatio's fallback set lb
		}
		return
	}
	d.PhiChanged() // row is no longer the topic layer's softmax
	lc.flushLogB()
	lc.backtrack(row, old, n, dots, tol)
}

// setLB sets lb_l = log B_dl + n·log1p(u_l), the trial log B of the word's
// change (u in lc.u, or log1p(u) in lc.lu when hasLU), after adding the
// pending increments into logB.
func (lc *local) setLB(n float64, hasLU bool) {
	lc.flushLogB()
	for l, x := range lc.u {
		lu := lc.lu[l]
		if !hasLU {
			lu = math.Log1p(x)
		}
		lc.lb[l] = lc.logB[l] + n*lu
	}
}

// maxPending bounds the queued changes (memory: maxPending·C numbers a
// goroutine, whatever the document's length and sweeps); flushing earlier
// gives the same bits, as the increments are added in order either way.
var maxPending = 4096 // a variable for the tests

// deferLogB records the accepted change's increments of log B (lc.lu
// when trialRatio took them, else lc.u) for flushLogB.
func (lc *local) deferLogB(n float64) {
	if len(lc.pendN) >= maxPending {
		lc.flushLogB()
	}
	lc.pendN = append(lc.pendN, n)
	if takesLog(n) {
		lc.pendLU = append(lc.pendLU, lc.lu...)
	} else {
		lc.pendLU = append(lc.pendLU, lc.u...)
	}
}

// flushLogB adds the pending increments into logB, change by change:
// log B_dl + n·log1p(u_l), as WordChanged computed it when it kept log B
// current.
func (lc *local) flushLogB() {
	C := lc.C
	for i, n := range lc.pendN {
		v := lc.pendLU[i*C : (i+1)*C]
		for l, x := range v {
			lu := x
			if !takesLog(n) {
				lu = math.Log1p(x)
			}
			lc.logB[l] = lc.logB[l] + n*lu
		}
	}
	lc.dropPending()
}

// dropPending forgets the pending increments (Begin recomputes log B).
func (lc *local) dropPending() {
	lc.pendN, lc.pendLU = lc.pendN[:0], lc.pendLU[:0]
}

// backtrack finds t ∈ {1/2, 1/4, …} such that φ_t = old + t(new − old)
// (new is row) does not lower the word's ELBO, evaluated exactly, writes it
// into row and commits it; after maxHalvings it restores old.
func (lc *local) backtrack(row, old []float64, n float64, dots []float64, tol float64) {
	C, K := lc.C, lc.K
	nd, lb, nw := lc.nd, lc.lb, lc.nw
	copy(nw, row)
	newDots := append(lc.tmp[:0], nd...)
	hOld := entropy(old)
	lin := 0.0 // Σ_k Δφ_k (a_k + lamEta_k)
	for k, x := range nw {
		lin += (x - old[k]) * (lc.a[k] + lc.lamEta[k])
	}
	pr := lc.s.probe
	t := 0.5
	for try := 1; try <= maxHalvings; try++ {
		ht := 0.0
		for k, x := range nw {
			if p := old[k] + t*(x-old[k]); p > 0 {
				ht -= p * math.Log(p)
			}
		}
		for l := 0; l < C; l++ {
			lb[l] = lc.logB[l] + n*math.Log1p(t*(newDots[l]-dots[l])/dots[l])
		}
		if n*(t*lin+ht-hOld)-(special.LogSumExp(lb)-lc.logZ) >= -tol {
			for k, x := range nw {
				row[k] = old[k] + t*(x-old[k])
			}
			for l := 0; l < C; l++ {
				nd[l] = dot(row, lc.h[l*K:(l+1)*K])
				lb[l] = lc.logB[l] + n*math.Log1p((nd[l]-dots[l])/dots[l])
			}
			lc.commit(dots)
			if pr != nil {
				pr.backtracked.Add(1)
			}
			return
		}
		t /= 2
	}
	copy(row, old)
	if pr != nil {
		pr.reverted.Add(1)
	}
}

// commit makes the trial caches (nd, lb) current: dots of the word,
// log B, log Σ_l B_l and B_l/Σ_t B_t.
func (lc *local) commit(dots []float64) {
	copy(dots, lc.nd)
	copy(lc.logB, lc.lb)
	lc.setP()
}

// setP sets logZ = log Σ_l B_dl and p_l = B_dl/Σ_t B_dt from logB.
func (lc *local) setP() { lc.logZ = normalize(lc.p, lc.logB) }

// takesLog reports whether trialRatio takes log1p(u_l) into lc.lu for a
// word of count n (for (1+u)^n − 1 = expm1(n·log1p u)); for n = 1 and 2 it
// multiplies instead.
func takesLog(n float64) bool { return n != 1 && n != 2 }

// trialRatio sets pt to the class probabilities after the word's change
// and returns the change of log Σ_l B_dl, multiplicatively from the
// ratios B'_l/B_l = (1 + u_l)^n (u_l = Δ(φ·h̃_l)/(φ·h̃_l), lu_l = log1p(u_l)):
// pt_l = p_l (1+e_l)/(1+a) and Δ log Σ B = log1p(a), with e_l = (1+u_l)^n − 1
// and a = Σ_l p_l e_l; no exponential of the C classes. It falls back to
// trial (from lb) when 1+a is not a positive finite number (ok reports
// whether pt is set).
func (lc *local) trialRatio(n float64) (dz float64, ok bool) {
	a := 0.0
	for l, x := range lc.u {
		e := x
		switch {
		case n == 1:
		case n == 2:
			e = x * (2 + x)
		default:
			lc.lu[l] = math.Log1p(x)
			e = math.Expm1(n * lc.lu[l])
		}
		lc.e[l] = e
		a += lc.p[l] * e
	}
	if !(1+a > 0) || math.IsInf(a, 0) {
		lc.setLB(n, takesLog(n))
		z, ok := lc.trial()
		return z - lc.logZ, ok
	}
	inv := 1 / (1 + a)
	for l, e := range lc.e {
		lc.pt[l] = lc.p[l] * (1 + e) * inv
	}
	return math.Log1p(a), true
}

// trial returns log Σ_l exp(lb_l) (= special.LogSumExp(lb)) and sets pt to
// softmax(lb), the p that commit would compute from lb, bit for bit; ok is
// false (pt not set) when the maximum of lb is infinite.
func (lc *local) trial() (z float64, ok bool) {
	mx := maxOf(lc.lb)
	if math.IsInf(mx, 0) {
		return mx, false
	}
	return normalize(lc.pt, lc.lb), true
}

// normalize sets p = exp(x − max x)/Σ exp(x − max x) and returns
// log Σ exp(x).
func normalize(p, x []float64) float64 {
	mx := maxOf(x)
	s := 0.0
	for l, v := range x {
		e := math.Exp(v - mx)
		p[l] = e
		s += e
	}
	for l := range p {
		p[l] /= s
	}
	return mx + math.Log(s)
}

// maxOf is the largest element of x (−Inf for an empty x), with NaNs
// propagated as math.Max does. Inlined compares rather than math.Max (a
// function call); the result differs from math.Max's only in the sign of a
// zero maximum, which no caller can see (it is only subtracted or added).
func maxOf(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		if v > mx || v != v {
			mx = v
			if v != v {
				return v
			}
		}
	}
	return mx
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i, x := range a {
		if x != b[i] {
			return false
		}
	}
	return true
}

func entropy(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log(x)
		}
	}
	return h
}

// DocELBO is the same as Softmax.DocELBO, with this goroutine's scratch.
// When the caches are d's at the current η and d.Phi is the φ they
// follow (snap), log Σ_l B_dl is read from them (logZ, up to the rounding
// of WordChanged's increments) instead of being recomputed over every
// word (O(Len_d·C·K)): the local step compares the bound of its warm and
// fresh starts right after their last target update.
func (lc *local) DocELBO(d *framework.DocState) float64 {
	doc := d.Doc
	if lc.doc != doc || !(doc.N > 0) || lc.hN != doc.N || len(lc.snap) != len(d.Phi) || !equal(lc.hEta, lc.s.Eta) {
		return docELBO(lc.s, d, lc.sc)
	}
	K, eta := lc.K, lc.s.Eta
	bar := lc.sc.bar
	clear(bar)
	for j, n := range doc.Counts {
		row, was := d.PhiRow(j), lc.snap[j*K:(j+1)*K]
		for k, p := range row {
			if p != was[k] {
				return docELBO(lc.s, d, lc.sc)
			}
			bar[k] += n * p
		}
	}
	for k := range bar {
		bar[k] /= doc.N
	}
	t := d.Target.(*framework.Categorical)
	lin := 0.0
	for l, lam := range t.P {
		if lam != 0 {
			lin += lam * dot(eta[l*K:(l+1)*K], bar)
		}
	}
	return lin - lc.logZ + t.Entropy()
}

// probe counts what the safeguard does (tests only).
type probe struct {
	words, decreases, backtracked, reverted atomic.Int64
	worst                                   atomic.Uint64 // math.Float64bits of the most negative ΔF
}

func (p *probe) addWorst(dF float64) {
	for {
		o := p.worst.Load()
		if o != 0 && math.Float64frombits(o) <= dF {
			return
		}
		if p.worst.CompareAndSwap(o, math.Float64bits(dF)) {
			return
		}
	}
}
