package softmax

import (
	"math"

	"github.com/maslda/maslda/framework"
)

// The quadratic bound (bound = "quadratic"). With x = ηz̄ (C numbers),
// Böhning's bound on the Hessian of log-sum-exp, ∇²lse ≼ A = ½(I − 11ᵀ/C),
// gives E[lse(x)] ≤ lse(E x) + ½ tr(A Cov x) (the expansion point that
// minimises the bound is E x). Under the mean field
// Cov z̄_d = (1/N_d²) Σ_v n_dv (diag φ_dv − φ_dv φ_dvᵀ), so with
// B = ηᵀAη (K×K, positive semi-definite, rank ≤ C − 1):
//
//	E[log Σ_l exp(η_l·z̄_d)] ≤ lse(ηφ̄_d) + ½ tr(B Cov z̄_d)
//	½ tr(B Cov z̄_d) = (1/(2N_d²)) Σ_v n_dv (φ_dv·a − φ_dvᵀBφ_dv),   a_k = B_kk
//	B = ½(ηᵀη − s sᵀ/C),  s_k = Σ_l η_lk,  so  φᵀBφ = ½(‖ηφ‖² − (s·φ)²/C).
//
// The response's part of document d's bound is
//
//	f_d = λ_d·ηφ̄_d − lse(ηφ̄_d) − ½ tr(B Cov z̄_d) + H(λ_d).
//
// The covariance term is linear in Cov z̄_d with a coefficient that depends
// on η alone, so the M-step needs λ_d and φ̄_d per document and one global
// K×K matrix, S = Σ_d Cov z̄_d (Stats.Cov): no per-word store. The M-step
// objective Σ_d [λ_d·ηφ̄_d − lse(ηφ̄_d)] − ½ tr(ηᵀAη S) is concave in η.

// setA sets a_k = B_kk = ½(Σ_l η_lk² − s_k²/C) and s_k = Σ_l η_lk.
func setA(eta []float64, C, K int, a, sum []float64) {
	for k := 0; k < K; k++ {
		s, sq := 0.0, 0.0
		for l := 0; l < C; l++ {
			e := eta[l*K+k]
			s += e
			sq += e * e
		}
		a[k] = 0.5 * (sq - s*s/float64(C))
		sum[k] = s
	}
}

// evalDocQ is evalDoc for the quadratic bound without its covariance term
// (covTerm adds that for a whole batch): document r's λ_d·ηφ̄_d − lse(ηφ̄_d)
// and, when grad is non-nil, adds its gradient (λ_dl − p_dl) φ̄_dk,
// p_d = softmax(ηφ̄_d). An empty document has φ̄ = 0: −log C, gradient 0.
// Cost O(C·K).
func evalDocQ[T float32 | float64](eta []float64, C, K int, r docView[T], sc *evalScratch, grad []float64) float64 {
	if !(r.doc.N > 0) {
		return -math.Log(float64(C))
	}
	x := sc.logB // C scratch
	lin := 0.0
	for l := 0; l < C; l++ {
		x[l] = dot(eta[l*K:(l+1)*K], r.bar)
		lin += r.lam[l] * x[l]
	}
	p := sc.m // C scratch
	z := normalize(p, x)
	if grad != nil {
		for l := 0; l < C; l++ {
			w := r.lam[l] - p[l]
			g := grad[l*K : (l+1)*K]
			for k, b := range r.bar {
				g[k] += w * b
			}
		}
	}
	return lin - z
}

// covTerm returns −½ tr(ηᵀAη S) for the K×K matrix S and, when grad is
// non-nil, adds its gradient −AηS = −½(M − 1(1ᵀM)/C), M = ηS.
func covTerm(eta []float64, C, K int, S, grad []float64) float64 {
	M := make([]float64, C*K)
	for l := 0; l < C; l++ {
		row := eta[l*K : (l+1)*K]
		ml := M[l*K : (l+1)*K]
		for i, e := range row {
			if e == 0 {
				continue
			}
			for k, v := range S[i*K : (i+1)*K] {
				ml[k] += e * v
			}
		}
	}
	tr, col := 0.0, make([]float64, K) // tr(ηSηᵀ); col = 1ᵀM
	for l := 0; l < C; l++ {
		tr += dot(M[l*K:(l+1)*K], eta[l*K:(l+1)*K])
		for k, v := range M[l*K : (l+1)*K] {
			col[k] += v
		}
	}
	sSs := 0.0 // sᵀSs = (1ᵀη) S (ηᵀ1) = col·s
	for k := 0; k < K; k++ {
		s := 0.0
		for l := 0; l < C; l++ {
			s += eta[l*K+k]
		}
		sSs += col[k] * s
	}
	if grad != nil {
		for l := 0; l < C; l++ {
			for k := 0; k < K; k++ {
				grad[l*K+k] -= 0.5 * (M[l*K+k] - col[k]/float64(C))
			}
		}
	}
	return -0.25 * (tr - sSs/float64(C))
}

// addCov adds Cov z̄_d = (1/N_d²) Σ_v n_dv (diag φ_dv − φ_dv φ_dvᵀ) of
// document d into S (K×K).
func addCov(S []float64, d *framework.DocState, K int) {
	N := d.Doc.N
	if !(N > 0) {
		return
	}
	inv := 1 / (N * N)
	for j, n := range d.Doc.Counts {
		row := d.PhiRow(j)
		c := n * inv
		for i, pi := range row {
			if pi == 0 {
				continue
			}
			ci := c * pi
			Si := S[i*K : (i+1)*K]
			for k, pk := range row {
				Si[k] -= ci * pk
			}
			Si[i] += ci
		}
	}
}

// docCov is ½ tr(B Cov z̄_d) from d.Phi: (1/(2N²)) Σ_v n_v (φ_v·a − ½(‖ηφ_v‖² − (s·φ_v)²/C)).
func docCov(eta []float64, C, K int, d *framework.DocState, a, sum []float64) float64 {
	N := d.Doc.N
	if !(N > 0) {
		return 0
	}
	t := 0.0
	for j, n := range d.Doc.Counts {
		row := d.PhiRow(j)
		q := 0.0
		for l := 0; l < C; l++ {
			y := dot(eta[l*K:(l+1)*K], row)
			q += y * y
		}
		sp := dot(sum, row)
		t += n * (dot(a, row) - 0.5*(q-sp*sp/float64(C)))
	}
	return t / (2 * N * N)
}

// qlocal is one goroutine's part of the local step under the quadratic
// bound: x = ηφ̄_d, p = softmax(x) and lse(x), kept current word by word.
type qlocal struct {
	s    *Softmax
	C, K int

	doc   *framework.Doc
	n     float64   // N_d
	x     []float64 // η φ̄_d, C
	p     []float64 // softmax(x), C
	z     float64   // lse(x)
	lam   []float64 // λ_d, C
	fresh bool      // lam holds the λ of the current target

	a, sum []float64 // a_k = B_kk and s_k = Σ_l η_lk, for aEta
	aEta   []float64

	// PhiTerm's word, for WordChanged: its topic-layer logits g, ρ, ηφ_old
	// and s·φ_old.
	g, rho []float64
	y      []float64
	sp     float64
	gDoc   *framework.Doc
	gWord  int

	c, yn, dy, dx, xt, pt []float64 // C scratch
	nw                    []float64 // K scratch

	sc *evalScratch // DocELBO
}

func newQLocal(s *Softmax) *qlocal {
	C, K := s.C, s.K
	f := func(n int) []float64 { return make([]float64, n) }
	return &qlocal{s: s, C: C, K: K, x: f(C), p: f(C), lam: f(C), a: f(K), sum: f(K),
		g: f(K), rho: f(K), y: f(C), gWord: -1,
		c: f(C), yn: f(C), dy: f(C), dx: f(C), xt: f(C), pt: f(C), nw: f(K),
		sc: newEvalScratch(C, K)}
}

var (
	_ framework.LikelihoodLocal = (*qlocal)(nil)
	_ framework.DocScorer       = (*qlocal)(nil)
	_ framework.TargetRestorer  = (*qlocal)(nil)
	_ framework.PhiDocTerm      = (*qlocal)(nil)
)

// Begin computes x = ηφ̄_d (φ̄_d from d.Phi), p and lse(x), and a, s for
// the current η.
func (lc *qlocal) Begin(d *framework.DocState) {
	C, K := lc.C, lc.K
	lc.doc, lc.n, lc.fresh, lc.gDoc = d.Doc, d.Doc.N, false, nil
	lc.ensureA()
	bar := lc.nw
	clear(bar)
	if lc.n > 0 {
		for j, n := range d.Doc.Counts {
			for k, p := range d.PhiRow(j) {
				bar[k] += n * p
			}
		}
		for k := range bar {
			bar[k] /= lc.n
		}
	}
	for l := 0; l < C; l++ {
		lc.x[l] = dot(lc.s.Eta[l*K:(l+1)*K], bar)
	}
	lc.z = normalize(lc.p, lc.x)
}

// ensureA sets a and s for the current η, unless they hold them already.
func (lc *qlocal) ensureA() {
	if lc.aEta == nil || !equal(lc.aEta, lc.s.Eta) {
		setA(lc.s.Eta, lc.C, lc.K, lc.a, lc.sum)
		lc.aEta = append(lc.aEta[:0], lc.s.Eta...)
	}
}

// DocTerm sets dst to PhiTerm's ρ_dvk with every φ_dv replaced by φ̄_d
// (framework.PhiDocTerm), p = softmax(ηφ̄_d) from d.PhiBar:
//
//	ρ̄_dk = Σ_l η_lk [(λ_dl − p_l)/N_d + (ηφ̄_d)_l/(2N_d²)] − s_k (s·φ̄_d)/(2C N_d²) − a_k/(2N_d²)
//
// exact when every word has φ̄_d. O(K·C). An empty document gets 0.
func (lc *qlocal) DocTerm(dst []float64, d *framework.DocState) {
	C, K := lc.C, lc.K
	clear(dst)
	n := d.Doc.N
	if !(n > 0) {
		return
	}
	lc.ensureA()
	eta := lc.s.Eta
	for l := 0; l < C; l++ {
		lc.xt[l] = dot(eta[l*K:(l+1)*K], d.PhiBar)
	}
	normalize(lc.pt, lc.xt)
	lam := d.Target.(*framework.Categorical).P
	inv := 1 / n
	inv2 := inv * inv / 2
	cs := dot(lc.sum, d.PhiBar) * inv2 / float64(C)
	for k := range dst {
		dst[k] = -cs*lc.sum[k] - lc.a[k]*inv2
	}
	for l := 0; l < C; l++ {
		c := (lam[l]-lc.pt[l])*inv + lc.xt[l]*inv2
		for k, e := range eta[l*K : (l+1)*K] {
			dst[k] += c * e
		}
	}
}

// TargetTerm adds the prior message η_l·φ̄_d onto Log[l] of d.Target
// (the same under both bounds: λ enters f_d only through λ·ηφ̄_d).
func (lc *qlocal) TargetTerm(d *framework.DocState) { priorMessage(lc.s.Eta, lc.K, d) }

// PhiTerm adds into dst the derivative of f_d with respect to φ_dvk
// divided by n_dv:
//
//	ρ_dvk = Σ_l η_lk [(λ_dl − p_l)/N_d + (ηφ_dv)_l/(2N_d²)] − s_k (s·φ_dv)/(2C N_d²) − a_k/(2N_d²)
//
// (the last three terms are −(1/(2N_d²))(a_k − 2(Bφ_dv)_k)). O(K·C).
func (lc *qlocal) PhiTerm(dst []float64, d *framework.DocState, j int) {
	C, K := lc.C, lc.K
	if !lc.fresh {
		copy(lc.lam, d.Target.(*framework.Categorical).P)
		lc.fresh = true
	}
	row := d.PhiRow(j)
	eta := lc.s.Eta
	inv := 1 / lc.n
	inv2 := inv * inv / 2
	dotsC(lc.y, row, eta)
	for l := 0; l < C; l++ {
		lc.c[l] = (lc.lam[l]-lc.p[l])*inv + lc.y[l]*inv2
	}
	lc.sp = dot(lc.sum, row)
	cs := lc.sp * inv2 / float64(C)
	// ρ_k = −cs·s_k − a_k/(2N²) + Σ_l c_l η_lk, four topics at a time:
	// four independent sums, each in the order of the loop over one topic
	// (the classes in order), so that consecutive multiply-adds do not
	// wait on each other.
	k := 0
	for ; k+4 <= K; k += 4 {
		r0 := -cs*lc.sum[k] - lc.a[k]*inv2
		r1 := -cs*lc.sum[k+1] - lc.a[k+1]*inv2
		r2 := -cs*lc.sum[k+2] - lc.a[k+2]*inv2
		r3 := -cs*lc.sum[k+3] - lc.a[k+3]*inv2
		for l, cl := range lc.c {
			e := eta[l*K+k:][:4]
			r0 += cl * e[0]
			r1 += cl * e[1]
			r2 += cl * e[2]
			r3 += cl * e[3]
		}
		lc.rho[k], lc.rho[k+1], lc.rho[k+2], lc.rho[k+3] = r0, r1, r2, r3
	}
	for ; k < K; k++ {
		r := -cs*lc.sum[k] - lc.a[k]*inv2
		for l, cl := range lc.c {
			r += cl * eta[l*K+k]
		}
		lc.rho[k] = r
	}
	copy(lc.g, dst)
	lc.gDoc, lc.gWord = d.Doc, j
	for k, r := range lc.rho {
		dst[k] += r
	}
}

// WordChanged updates x, p and lse(x) after φ_dv (word j) changed from old:
// Δx = (n_dv/N_d) η Δφ_dv.
//
// Safeguard: the φ step maximises the bound linearised in φ_dv; the exact
// change of the document's bound is
//
//	ΔF = n_dv KL(φ_old‖φ_new) − D + Q,   D = lse(x_new) − lse(x) − p·Δx ≥ 0,
//	Q = (n_dv/(2N_d²)) Δφᵀ B Δφ ≥ 0
//
// (lse's Bregman divergence, and that of the convex φᵀBφ term). The step
// is accepted when ΔF ≥ 0 (Pinsker's KL ≥ ½‖Δφ‖₁² first) and otherwise
// backtracked along the segment, as for the product bound.
func (lc *qlocal) WordChanged(d *framework.DocState, j int, old []float64) {
	C := lc.C
	if !(lc.n > 0) || lc.doc != d.Doc {
		return
	}
	row := d.PhiRow(j)
	n := d.Doc.Counts[j]
	guard := lc.s.guard && lc.gDoc == d.Doc && lc.gWord == j
	lc.gWord = -1
	eta := lc.s.Eta
	if !guard { // no PhiTerm just before: ηφ_old and s·φ_old from old
		dotsC(lc.y, old, eta)
		lc.sp = dot(lc.sum, old)
	}
	c := n / lc.n
	dy2 := 0.0
	dotsC(lc.yn, row, eta)
	for l := 0; l < C; l++ {
		lc.dy[l] = lc.yn[l] - lc.y[l]
		dy2 += lc.dy[l] * lc.dy[l]
		lc.dx[l] = c * lc.dy[l]
		lc.xt[l] = lc.x[l] + lc.dx[l]
	}
	zt := normalize(lc.pt, lc.xt)
	if pr := lc.s.probe; pr != nil {
		pr.words.Add(1)
	}
	if !guard {
		lc.commitQ(zt)
		return
	}
	dsp := dot(lc.sum, row) - lc.sp
	Q := n / (2 * lc.n * lc.n) * 0.5 * (dy2 - dsp*dsp/float64(C))
	D := zt - lc.z
	for l, p := range lc.p {
		D -= p * lc.dx[l]
	}
	tol := 1e-12 * (1 + math.Abs(lc.z) + n)
	ok := D-Q <= tol
	if !ok {
		l1 := 0.0
		for k, x := range row {
			l1 += math.Abs(x - old[k])
		}
		ok = 0.5*n*l1*l1-D+Q >= -tol
	}
	if !ok {
		kl := 0.0
		for k, o := range old {
			if o > 0 {
				kl += o * math.Log(o/row[k])
			}
		}
		ok = n*kl-D+Q >= -tol
		if !ok && lc.s.probe != nil {
			lc.s.probe.decreases.Add(1)
			lc.s.probe.addWorst(n*kl - D + Q)
		}
	}
	if ok {
		lc.commitQ(zt)
		return
	}
	d.PhiChanged() // row is no longer the topic layer's softmax
	lc.backtrackQ(row, old, n, Q, tol)
}

func (lc *qlocal) commitQ(zt float64) {
	copy(lc.x, lc.xt)
	copy(lc.p, lc.pt)
	lc.z = zt
}

// backtrackQ finds t ∈ {1/2, 1/4, …} such that old + t(new − old) does not
// lower the word's bound, evaluated exactly,
//
//	ΔF(t) = n(t Σ_k Δφ_k (g_k + ρ_k) + H(φ_t) − H(φ_old)) − (lse(x + tΔx) − lse(x) − t p·Δx) + t² Q,
//
// writes it into row and commits it; after maxHalvings it restores old.
func (lc *qlocal) backtrackQ(row, old []float64, n, Q, tol float64) {
	copy(lc.nw, row)
	hOld := entropy(old)
	lin := 0.0
	for k, x := range lc.nw {
		lin += (x - old[k]) * (lc.g[k] + lc.rho[k])
	}
	pdx := 0.0
	for l, p := range lc.p {
		pdx += p * lc.dx[l]
	}
	t := 0.5
	for try := 1; try <= maxHalvings; try++ {
		ht := 0.0
		for k, x := range lc.nw {
			if p := old[k] + t*(x-old[k]); p > 0 {
				ht -= p * math.Log(p)
			}
		}
		for l := range lc.xt {
			lc.xt[l] = lc.x[l] + t*lc.dx[l]
		}
		zt := normalize(lc.pt, lc.xt)
		if n*(t*lin+ht-hOld)-(zt-lc.z-t*pdx)+t*t*Q >= -tol {
			for k, x := range lc.nw {
				row[k] = old[k] + t*(x-old[k])
			}
			lc.commitQ(zt)
			if pr := lc.s.probe; pr != nil {
				pr.backtracked.Add(1)
			}
			return
		}
		t /= 2
	}
	copy(row, old)
	if pr := lc.s.probe; pr != nil {
		pr.reverted.Add(1)
	}
}

// DocELBO is the response's part of document d's bound under the quadratic
// bound, from d.Phi and d.Target.
func (lc *qlocal) DocELBO(d *framework.DocState) float64 {
	return docELBO(lc.s, d, lc.sc)
}

// RestoreTarget sets d.Target to the λ_d stored by the document's last
// Accumulate (framework.TargetRestorer).
func (lc *qlocal) RestoreTarget(d *framework.DocState) bool {
	st := lc.s.st
	if lc.s.noRestore || !st.fits(d) || st.doc[d.Index] != d.Doc {
		return false
	}
	return lc.restoreLambda(d, st.lam[d.Index*lc.C:(d.Index+1)*lc.C])
}

var _ framework.TargetRestorerFrom = (*qlocal)(nil)

// RestoreTargetFrom sets d.Target to λ_d = src's probabilities
// (framework.TargetRestorerFrom), as RestoreTarget does from the store.
func (lc *qlocal) RestoreTargetFrom(d *framework.DocState, src framework.Target) bool {
	c, ok := src.(*framework.Categorical)
	if lc.s.noRestore || !ok || len(c.P) != lc.C {
		return false
	}
	return lc.restoreLambda(d, c.P)
}

func (lc *qlocal) restoreLambda(d *framework.DocState, lam []float64) bool {
	t := d.Target.(*framework.Categorical)
	copy(t.P, lam)
	for l, p := range t.P {
		t.Log[l] = math.Log(p)
	}
	t.LogZ = 0
	lc.doc = nil
	return true
}
