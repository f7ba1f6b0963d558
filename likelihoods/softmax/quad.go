package softmax

import (
	"math"

	"github.com/maslda/maslda/framework"
)

// The quadratic bound (bound = "quadratic"). With x = ηz̄ (C numbers),
// Böhning's bound on the Hessian of log-sum-exp, ∇²lse ≼ A = ½(I − 11ᵀ/C),
// gives E[lse(x)] ≤ lse(E x) + ½ tr(A Cov x) (the expansion point that
// minimises the bound is E x), and under the mean field
// Cov z̄_d = (1/N_d²) Σ_v n_dv (diag φ_dv − φ_dv φ_dvᵀ) ≼ diag(φ̄_d)/N_d, so,
// ηᵀAη being positive semi-definite,
//
//	E[log Σ_l exp(η_l·z̄_d)] ≤ lse(ηφ̄_d) + (1/(2N_d)) Σ_k φ̄_dk a_k,
//	a_k = (ηᵀAη)_kk = ½ (Σ_l η_lk² − (Σ_l η_lk)²/C).
//
// The response's part of document d's bound is then
//
//	f_d = λ_d·ηφ̄_d − lse(ηφ̄_d) − (1/(2N_d)) φ̄_d·a + H(λ_d),
//
// which depends on φ_d only through φ̄_d: the M-step needs λ_d, φ̄_d and
// N_d per document (no per-word store), and f_d is concave in φ_d for fixed
// λ_d (linear terms minus a convex function of an affine map) and concave
// in η (lse convex, φ̄·a a positive semi-definite quadratic in η).

// setA sets a_k = ½(Σ_l η_lk² − (Σ_l η_lk)²/C) and dev_lk = η_lk − (Σ_t
// η_tk)/C (∂a_k/∂η_lk) when dev is not nil.
func setA(eta []float64, C, K int, a, dev []float64) {
	for k := 0; k < K; k++ {
		s, sq := 0.0, 0.0
		for l := 0; l < C; l++ {
			e := eta[l*K+k]
			s += e
			sq += e * e
		}
		a[k] = 0.5 * (sq - s*s/float64(C))
		if dev != nil {
			m := s / float64(C)
			for l := 0; l < C; l++ {
				dev[l*K+k] = eta[l*K+k] - m
			}
		}
	}
}

// evalDocQ is evalDoc for the quadratic bound: document r's data term
// λ_d·ηφ̄_d − lse(ηφ̄_d) − (1/(2N_d)) φ̄_d·a and, when grad is non-nil, adds
// its gradient
//
//	∂/∂η_lk = (λ_dl − p_dl) φ̄_dk − (φ̄_dk/(2N_d)) (η_lk − Σ_t η_tk/C),   p_d = softmax(ηφ̄_d).
//
// sc.qa and sc.qdev must hold a and dev for eta (setA). An empty document
// has φ̄ = 0: its term is −log C, its gradient 0. Cost O(C·K).
func evalDocQ[T float32 | float64](eta []float64, C, K int, r docView[T], sc *evalScratch, grad []float64) float64 {
	N := r.doc.N
	if !(N > 0) {
		return -math.Log(float64(C))
	}
	x := sc.logB // C scratch
	lin := 0.0
	for l := 0; l < C; l++ {
		x[l] = dot(eta[l*K:(l+1)*K], r.bar)
		lin += r.lam[l] * x[l]
	}
	quad := 0.0
	for k, b := range r.bar {
		quad += b * sc.qa[k]
	}
	quad /= 2 * N
	p := sc.m // C scratch
	z := normalize(p, x)
	if grad != nil {
		c := 1 / (2 * N)
		for l := 0; l < C; l++ {
			w := r.lam[l] - p[l]
			g := grad[l*K : (l+1)*K]
			dv := sc.qdev[l*K : (l+1)*K]
			for k, b := range r.bar {
				g[k] += b * (w - c*dv[k])
			}
		}
	}
	return lin - z - quad
}

// qlocal is one goroutine's part of the local step under the quadratic
// bound: x = ηφ̄_d and p = softmax(x), kept current word by word.
type qlocal struct {
	s    *Softmax
	C, K int

	doc    *framework.Doc
	n      float64   // N_d
	x      []float64 // η φ̄_d, C
	p      []float64 // softmax(x), C
	z      float64   // lse(x)
	lamEta []float64 // Σ_l λ_dl η_lk − a_k/(2N_d), K
	pEta   []float64 // Σ_l p_l η_lk, K
	pOK    bool      // pEta is current
	fresh  bool      // lamEta holds the λ of the current target

	a     []float64 // a_k for aEta
	aEta  []float64
	g     []float64 // the word's topic-layer logits (safeguard)
	gDoc  *framework.Doc
	gWord int
	dx    []float64 // Δx of the proposal, C
	xt    []float64 // trial x, C
	pt    []float64 // trial p, C
	nw    []float64 // the proposed φ_dv, K

	sc *evalScratch // DocELBO
}

func newQLocal(s *Softmax) *qlocal {
	C, K := s.C, s.K
	return &qlocal{s: s, C: C, K: K, x: make([]float64, C), p: make([]float64, C), lamEta: make([]float64, K),
		pEta: make([]float64, K), a: make([]float64, K), g: make([]float64, K), gWord: -1,
		dx: make([]float64, C), xt: make([]float64, C), pt: make([]float64, C), nw: make([]float64, K),
		sc: newEvalScratch(C, K)}
}

var (
	_ framework.LikelihoodLocal = (*qlocal)(nil)
	_ framework.DocScorer       = (*qlocal)(nil)
	_ framework.TargetRestorer  = (*qlocal)(nil)
)

// Begin computes x = ηφ̄_d (φ̄_d from d.Phi), p and lse(x), and a for the
// current η.
func (lc *qlocal) Begin(d *framework.DocState) {
	C, K := lc.C, lc.K
	lc.doc, lc.n, lc.fresh, lc.pOK, lc.gDoc = d.Doc, d.Doc.N, false, false, nil
	if lc.aEta == nil || !equal(lc.aEta, lc.s.Eta) {
		setA(lc.s.Eta, C, K, lc.a, nil)
		lc.aEta = append(lc.aEta[:0], lc.s.Eta...)
	}
	bar := lc.nw // K scratch
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

// TargetTerm adds the prior message η_l·φ̄_d onto Log[l] of d.Target.
func (lc *qlocal) TargetTerm(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	K := lc.K
	for l := range t.Log {
		t.Log[l] += dot(lc.s.Eta[l*K:(l+1)*K], d.PhiBar)
	}
}

// PhiTerm adds ρ_dvk = (1/N_d)[Σ_l (λ_dl − p_l) η_lk − a_k/(2N_d)], the
// derivative of f_d with respect to φ_dvk divided by n_dv, into dst.
// O(K·C) (p changes with every word).
func (lc *qlocal) PhiTerm(dst []float64, d *framework.DocState, j int) {
	C, K := lc.C, lc.K
	if !lc.fresh {
		t := d.Target.(*framework.Categorical)
		clear(lc.lamEta)
		for l, lam := range t.P {
			if lam != 0 {
				for k, e := range lc.s.Eta[l*K : (l+1)*K] {
					lc.lamEta[k] += lam * e
				}
			}
		}
		for k := range lc.lamEta {
			lc.lamEta[k] -= lc.a[k] / (2 * lc.n)
		}
		lc.fresh = true
	}
	if !lc.pOK {
		clear(lc.pEta)
		for l := 0; l < C; l++ {
			for k, e := range lc.s.Eta[l*K : (l+1)*K] {
				lc.pEta[k] += lc.p[l] * e
			}
		}
		lc.pOK = true
	}
	copy(lc.g, dst)
	lc.gDoc, lc.gWord = d.Doc, j
	inv := 1 / lc.n
	for k := range dst {
		dst[k] += inv * (lc.lamEta[k] - lc.pEta[k])
	}
}

// WordChanged updates x, p and lse(x) after φ_dv (word j) changed from old:
// Δx = (n_dv/N_d) η Δφ_dv.
//
// Safeguard: the φ step maximises the bound with −lse linearised at the
// old φ_dv (every other term of f_d is linear in φ_dv); the exact change of
// the document's bound is ΔF = n_dv KL(φ_old‖φ_new) − D, D = lse(x_new) −
// lse(x) − p·Δx ≥ 0 (lse's Bregman divergence), so the step is accepted
// when ΔF ≥ 0 (Pinsker's KL ≥ ½‖Δφ‖₁² first) and otherwise backtracked
// along the segment, as for the product bound (local.WordChanged).
func (lc *qlocal) WordChanged(d *framework.DocState, j int, old []float64) {
	C, K := lc.C, lc.K
	if !(lc.n > 0) || lc.doc != d.Doc {
		return
	}
	row := d.PhiRow(j)
	n := d.Doc.Counts[j]
	c := n / lc.n
	for l := 0; l < C; l++ {
		e := lc.s.Eta[l*K : (l+1)*K]
		v := 0.0
		for k, x := range row {
			v += e[k] * (x - old[k])
		}
		lc.dx[l] = c * v
		lc.xt[l] = lc.x[l] + lc.dx[l]
	}
	zt := normalize(lc.pt, lc.xt)
	guard := lc.s.guard && lc.gDoc == d.Doc && lc.gWord == j
	lc.gWord = -1
	if pr := lc.s.probe; pr != nil {
		pr.words.Add(1)
	}
	if !guard {
		lc.commitQ(zt)
		return
	}
	D := zt - lc.z
	for l, p := range lc.p {
		D -= p * lc.dx[l]
	}
	tol := 1e-12 * (1 + math.Abs(lc.z) + n)
	ok := D <= tol
	if !ok {
		l1 := 0.0
		for k, x := range row {
			l1 += math.Abs(x - old[k])
		}
		ok = 0.5*n*l1*l1-D >= -tol
	}
	if !ok {
		kl := 0.0
		for k, o := range old {
			if o > 0 {
				kl += o * math.Log(o/row[k])
			}
		}
		ok = n*kl-D >= -tol
		if !ok && lc.s.probe != nil {
			lc.s.probe.decreases.Add(1)
			lc.s.probe.addWorst(n*kl - D)
		}
	}
	if ok {
		lc.commitQ(zt)
		return
	}
	lc.backtrackQ(row, old, n, tol)
}

func (lc *qlocal) commitQ(zt float64) {
	copy(lc.x, lc.xt)
	copy(lc.p, lc.pt)
	lc.z = zt
	lc.pOK = false
}

// backtrackQ finds t ∈ {1/2, 1/4, …} such that old + t(new − old) does not
// lower the word's bound (evaluated exactly), writes it into row and
// commits it; after maxHalvings it restores old.
func (lc *qlocal) backtrackQ(row, old []float64, n, tol float64) {
	copy(lc.nw, row)
	hOld := entropy(old)
	lin := 0.0 // Σ_k Δφ_k (g_k + (lamEta_k − pEta_k)/N_d)
	for k, x := range lc.nw {
		lin += (x - old[k]) * (lc.g[k] + (lc.lamEta[k]-lc.pEta[k])/lc.n)
	}
	lin0 := 0.0 // p·Δx at t = 1
	for l, p := range lc.p {
		lin0 += p * lc.dx[l]
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
		// n·(linearised gain without the lse term) + the exact lse change:
		// lin includes −p·Δx/n per unit t through pEta.
		if n*(t*lin+ht-hOld)+t*lin0-(zt-lc.z) >= -tol {
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
	t := d.Target.(*framework.Categorical)
	copy(t.P, st.lam[d.Index*lc.C:(d.Index+1)*lc.C])
	for l, p := range t.P {
		t.Log[l] = math.Log(p)
	}
	t.LogZ = 0
	lc.doc = nil
	return true
}
