package softmax

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
)

// docView is what the bound needs of one document: its words, φ (Len×K,
// float32 in the store, float64 in a live DocState), λ and φ̄.
type docView[T float32 | float64] struct {
	doc *framework.Doc
	phi []T
	lam []float64
	bar []float64
}

// evalScratch is the working memory of evalDoc.
type evalScratch struct {
	C, K int
	h    []float64 // h̃_lk = exp(η_lk/N_d − m_l), C×K
	m    []float64 // m_l = max_k η_lk/N_d
	logB []float64 // log B_dl, C
	G    []float64 // Σ_v n_dv φ_dvk / (φ_dv·h̃_l), C×K
	bar  []float64 // K
	pl   prodLogs  // C
	qa   []float64 // the quadratic bound's a_k (setA), K
	qs   []float64 // s_k = Σ_l η_lk (setA), K
	row  []float64 // one word's φ_dv in float64, K
	dts  []float64 // its dots φ_dv·h̃_l, C
	hc   *hCache   // h̃ and m per N_d for one η (data's evaluations; nil: setH per document)
}

// maxHCache bounds an hCache: at most this many float64 of h̃ (4 MiB).
const maxHCache = 1 << 19

// hCache keeps setH's h̃ and m per document length N_d for one η, so that
// an evaluation of the M-step's objective computes the C·K exponentials of
// setH once per distinct length instead of once per document (documents
// of equal length share h̃). The values are setH's, bit for bit. It holds
// at most maxHCache values of h̃; past that, lengths not seen are computed
// into the scratch's own h, m.
type hCache struct {
	idx  map[float64]int
	h, m []float64
}

// hm returns h̃ and m for a document of N > 0 tokens at η = eta, which
// must be the same η at every call between two cacheH (data calls cacheH
// at the start of every evaluation).
func (sc *evalScratch) hm(eta []float64, N float64) (h, m []float64) {
	C, K := sc.C, sc.K
	c := sc.hc
	if c == nil {
		setH(eta, C, K, N, sc.h, sc.m)
		return sc.h, sc.m
	}
	if i, ok := c.idx[N]; ok {
		return c.h[i*C*K : (i+1)*C*K], c.m[i*C : (i+1)*C]
	}
	if len(c.h)+C*K > maxHCache {
		setH(eta, C, K, N, sc.h, sc.m)
		return sc.h, sc.m
	}
	i := len(c.idx)
	c.idx[N] = i
	c.h = append(c.h, make([]float64, C*K)...)
	c.m = append(c.m, make([]float64, C)...)
	h, m = c.h[i*C*K:(i+1)*C*K], c.m[i*C:(i+1)*C]
	setH(eta, C, K, N, h, m)
	return h, m
}

// cacheH makes sc keep h̃ per document length from now on, dropping what
// it kept: call it whenever η changes.
func (sc *evalScratch) cacheH() {
	if sc.hc == nil {
		sc.hc = &hCache{idx: map[float64]int{}}
	}
	c := sc.hc
	clear(c.idx)
	c.h, c.m = c.h[:0], c.m[:0]
}

func newEvalScratch(C, K int) *evalScratch {
	return &evalScratch{C: C, K: K, h: make([]float64, C*K), m: make([]float64, C), logB: make([]float64, C),
		G: make([]float64, C*K), bar: make([]float64, K), pl: newProdLogs(C),
		qa: make([]float64, K), qs: make([]float64, K), row: make([]float64, K), dts: make([]float64, C)}
}

// prodLogs accumulates sums Σ_i n_i log x_i (log B_dl = Σ_v n_dv
// log(φ_dv·h_l)) as products of the x_i^n_i, scaled by powers of two, with
// one logarithm per sum at the end (flush) instead of one per term: a term
// with a count n ∈ {1, 2, 3, 4} and x ∈ [2^−60, 2^60] is multiplied in,
// any other is added as n·log x. The sum differs from Σ n_i log x_i only
// by rounding (relative 1e-16 per factor).
type prodLogs struct {
	pr []float64 // the products' mantissas, kept in [2^−500, 2^500]
	ex []int     // their binary exponents
}

func newProdLogs(c int) prodLogs { return prodLogs{pr: make([]float64, c), ex: make([]int, c)} }

func (a *prodLogs) reset() {
	for l := range a.pr {
		a.pr[l], a.ex[l] = 1, 0
	}
}

// add adds n·log x to sum l: into the product, or directly into out[l].
func (a *prodLogs) add(out []float64, l int, n, x float64) {
	if !(x >= 0x1p-60 && x <= 0x1p60) || !smallCount(n) {
		out[l] += n * math.Log(x)
		return
	}
	a.mul(l, n, x)
}

// addAll adds n·log xs[l] to every sum l (len(xs) sums): add for each,
// with the test of n done once and mul written out (the same products,
// multiplied in the same order).
func (a *prodLogs) addAll(out []float64, n float64, xs []float64) {
	if !smallCount(n) {
		for l, x := range xs {
			out[l] += n * math.Log(x)
		}
		return
	}
	pr := a.pr[:len(xs)]
	ni := int(n)
	for l, x := range xs {
		if !(x >= 0x1p-60 && x <= 0x1p60) {
			out[l] += n * math.Log(x)
			continue
		}
		p := pr[l] * x
		switch ni {
		case 2:
			p *= x
		case 3:
			p *= x
			p *= x
		case 4:
			p *= x
			p *= x
			p *= x
		}
		if p < 0x1p-500 || p > 0x1p500 {
			f, e := math.Frexp(p)
			p = f
			a.ex[l] += e
		}
		pr[l] = p
	}
}

// smallCount reports whether a count n is multiplied in (1, 2, 3 or 4).
func smallCount(n float64) bool { return n >= 1 && n <= 4 && n == math.Trunc(n) }

// mul multiplies x^n (n ∈ {1, 2, 3, 4}) into product l.
func (a *prodLogs) mul(l int, n, x float64) {
	p := a.pr[l] * x
	for i := 1; i < int(n); i++ {
		p *= x
	}
	if p < 0x1p-500 || p > 0x1p500 {
		f, e := math.Frexp(p)
		p = f
		a.ex[l] += e
	}
	a.pr[l] = p
}

// flush adds every product's logarithm into out.
func (a *prodLogs) flush(out []float64) {
	for l, p := range a.pr {
		out[l] += math.Log(p) + float64(a.ex[l])*math.Ln2
	}
}

func (sc *evalScratch) fits(C, K int) bool { return sc.C == C && sc.K == K }

// setH fills h̃ and m for a document of N > 0 tokens: the factor exp(m_l)
// taken out of h_l = exp(η_l/N) keeps every h̃_lk ≤ 1 (no overflow) while
// h_lk/(φ·h_l) = h̃_lk/(φ·h̃_l) and log(φ·h_l) = log(φ·h̃_l) + m_l.
func setH(eta []float64, C, K int, N float64, h, m []float64) {
	for l := 0; l < C; l++ {
		row := eta[l*K : (l+1)*K]
		mx := math.Inf(-1)
		for _, e := range row {
			if v := e / N; v > mx || v != v {
				mx = v
			}
		}
		m[l] = mx
		for k, e := range row {
			h[l*K+k] = math.Exp(e/N - mx)
		}
	}
}

// evalDoc returns document r's data term λ_d·ηφ̄_d − log Σ_l B_dl(η)
// (MODEL.md §2) and, when grad is non-nil, adds its gradient
//
//	∂/∂η_lk = λ_dl φ̄_dk − (B_dl/Σ_t B_dt) (1/N_d) Σ_v n_dv φ_dvk h_lk/(φ_dv·h_l)
//
// (the [fix]: λ_dl, not λ^d_{l,i}). log B_dl = Σ_v n_dv log(φ_dv·h_l),
// h_l = exp(η_l/N_d). An empty document (N_d = 0) has B_dl = 1: its term is
// −log C, its gradient 0. Cost O(Len_d·C·K).
func evalDoc[T float32 | float64](eta []float64, C, K int, r docView[T], sc *evalScratch, grad []float64) float64 {
	lin := 0.0
	for l, lam := range r.lam {
		if lam != 0 {
			lin += lam * dot(eta[l*K:(l+1)*K], r.bar)
		}
	}
	doc := r.doc
	N := doc.N
	if !(N > 0) {
		return lin - math.Log(float64(C))
	}
	logB, G := sc.logB, sc.G
	h, m := sc.hm(eta, N)
	for l := range logB {
		logB[l] = N * m[l]
	}
	if grad != nil {
		for i := range G {
			G[i] = 0
		}
	}
	pl := &sc.pl
	pl.reset()
	rowf, dts := sc.row, sc.dts
	for j, n := range doc.Counts {
		for k, p := range r.phi[j*K : (j+1)*K] {
			rowf[k] = float64(p)
		}
		dotsC(dts, rowf, h)
		pl.addAll(logB, n, dts)
		if grad != nil {
			axpyC(G, dts, n, rowf)
		}
	}
	pl.flush(logB)
	logZ := special.LogSumExp(logB)
	if grad != nil {
		invN := 1 / N
		for l := 0; l < C; l++ {
			p := math.Exp(logB[l]-logZ) * invN
			lam := r.lam[l]
			for k := 0; k < K; k++ {
				i := l*K + k
				grad[i] += lam*r.bar[k] - p*h[i]*G[i]
			}
		}
	}
	return lin - logZ
}

// chunkSize is the number of documents one goroutine of the M-step
// evaluates at a time. Partial sums are added in chunk order, so the result
// does not depend on the number of goroutines.
const chunkSize = 64

// data returns the data term Σ_r [λ_r·ηφ̄_r − log Σ_l B_rl(η)] of the
// documents recs and, when grad is non-nil, sets grad to its gradient. It
// runs on up to s.goroutines() goroutines; the result is bit-identical for
// any number of them.
//
// Under the quadratic bound, cov is the statistics' S = Σ_d Cov z̄_d and
// the data term includes covTerm's −½ tr(ηᵀAη S).
func (s *Softmax) data(eta []float64, recs []docView[float32], cov, grad []float64) float64 {
	return s.dataHess(eta, recs, cov, grad, nil)
}

// dataHess is data; when hs is non-nil (the product bound, with grad) it
// also records every document's u_d and p_d in hs (precond.go), from the
// same evaluation: the value and gradient are data's, bit for bit.
func (s *Softmax) dataHess(eta []float64, recs []docView[float32], cov, grad []float64, hs *hessRecs) float64 {
	C, K := s.C, s.K
	if grad != nil {
		for i := range grad {
			grad[i] = 0
		}
	}
	total := 0.0
	if s.quad && cov != nil {
		total = covTerm(eta, C, K, cov, grad)
	}
	nChunks := (len(recs) + chunkSize - 1) / chunkSize
	if nChunks == 0 {
		return total
	}
	parts := make([]float64, nChunks)
	var pgrad []float64
	if grad != nil {
		pgrad = make([]float64, nChunks*C*K)
	}
	run := func(sc *evalScratch, c int) {
		var g []float64
		if grad != nil {
			g = pgrad[c*C*K : (c+1)*C*K]
		}
		v := 0.0
		if s.quad {
			for _, r := range recs[c*chunkSize : min(len(recs), (c+1)*chunkSize)] {
				v += evalDocQ(eta, C, K, r, sc, g)
			}
		} else {
			for i, r := range recs[c*chunkSize : min(len(recs), (c+1)*chunkSize)] {
				v += evalDoc(eta, C, K, r, sc, g)
				if hs != nil {
					hs.record(c*chunkSize+i, eta, r.doc.N, sc)
				}
			}
		}
		parts[c] = v
	}
	if nw := min(s.goroutines(), nChunks); nw <= 1 {
		sc := newEvalScratch(C, K)
		sc.cacheH()
		for c := range nChunks {
			run(sc, c)
		}
	} else if w := s.goroutines(); !s.quad && nChunks < fewChunks*w {
		docsThenChunks(eta, C, K, recs, w, parts, pgrad, hs)
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range nw {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := newEvalScratch(C, K)
				sc.cacheH()
				for {
					c := int(next.Add(1) - 1)
					if c >= nChunks {
						return
					}
					run(sc, c)
				}
			}()
		}
		wg.Wait()
	}
	for c, v := range parts {
		total += v
		if grad != nil {
			for i, x := range pgrad[c*C*K : (c+1)*C*K] {
				grad[i] += x
			}
		}
	}
	return total
}

// fewChunks: with fewer than fewChunks chunks a goroutine, the M-step's
// goroutines share the documents rather than the chunks (docsThenChunks).
const fewChunks = 4

// docsThenChunks is dataHess's evaluation (product bound) on w goroutines
// when the chunks are few: a goroutine that takes the last of a few chunks
// of 64 documents would evaluate it alone while the others wait (200
// documents are chunks of 64, 64, 64 and 8). The goroutines take the
// documents a few at a time instead, each document's value and gradient
// term (what evalDoc adds into its chunk's gradient: one term a number)
// kept apart, and then every chunk's value and gradient are summed from
// those in document order: parts and pgrad get the bits of the chunk loop.
func docsThenChunks(eta []float64, C, K int, recs []docView[float32], w int, parts, pgrad []float64, hs *hessRecs) {
	n, CK := len(recs), C*K
	vals := make([]float64, n)
	var terms []float64
	if pgrad != nil {
		terms = make([]float64, n*CK)
	}
	block := max(1, n/(8*w))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			sc := newEvalScratch(C, K)
			sc.cacheH()
			for {
				lo := int(next.Add(int64(block))) - block
				if lo >= n {
					return
				}
				for d := lo; d < min(n, lo+block); d++ {
					var g []float64
					if terms != nil {
						g = terms[d*CK : (d+1)*CK]
					}
					vals[d] = evalDoc(eta, C, K, recs[d], sc, g)
					if hs != nil {
						hs.record(d, eta, recs[d].doc.N, sc)
					}
				}
			}
		})
	}
	wg.Wait()
	for c := range parts {
		lo, hi := c*chunkSize, min(n, (c+1)*chunkSize)
		v := 0.0
		for _, x := range vals[lo:hi] {
			v += x
		}
		parts[c] = v
		if pgrad != nil {
			g := pgrad[c*CK : (c+1)*CK]
			for d := lo; d < hi; d++ {
				for i, x := range terms[d*CK : (d+1)*CK] {
					g[i] += x
				}
			}
		}
	}
}

// dotsC sets dst_l = Σ_k row_k h_lk for the C = len(dst) rows of h (C×K,
// K = len(row)), each summed in k order (the same bits as a dot per class),
// four classes per pass over row: four independent sums instead of one
// dependency chain, and row read once per four classes.
func dotsC(dst, row, h []float64) {
	K := len(row)
	l, C := 0, len(dst)
	for ; l+4 <= C; l += 4 {
		h0 := h[l*K:][:K]
		h1 := h[(l+1)*K:][:K]
		h2 := h[(l+2)*K:][:K]
		h3 := h[(l+3)*K:][:K]
		h0, h1, h2, h3 = h0[:len(row)], h1[:len(row)], h2[:len(row)], h3[:len(row)]
		var d0, d1, d2, d3 float64
		for k, p := range row {
			d0 += p * h0[k]
			d1 += p * h1[k]
			d2 += p * h2[k]
			d3 += p * h3[k]
		}
		dst[l], dst[l+1], dst[l+2], dst[l+3] = d0, d1, d2, d3
	}
	for ; l < C; l++ {
		hl := h[l*K:][:K]
		hl = hl[:len(row)]
		d := 0.0
		for k, p := range row {
			d += p * hl[k]
		}
		dst[l] = d
	}
}

// axpyC adds (n/dts_l)·row into row l of G (C×K) for every class l, with
// the same bits as a loop per class, four classes per pass over row.
func axpyC(G, dts []float64, n float64, row []float64) {
	K := len(row)
	l, C := 0, len(dts)
	for ; l+4 <= C; l += 4 {
		c0, c1, c2, c3 := n/dts[l], n/dts[l+1], n/dts[l+2], n/dts[l+3]
		g0 := G[l*K:][:K]
		g1 := G[(l+1)*K:][:K]
		g2 := G[(l+2)*K:][:K]
		g3 := G[(l+3)*K:][:K]
		g0, g1, g2, g3 = g0[:len(row)], g1[:len(row)], g2[:len(row)], g3[:len(row)]
		for k, p := range row {
			g0[k] += c0 * p
			g1[k] += c1 * p
			g2[k] += c2 * p
			g3[k] += c3 * p
		}
	}
	for ; l < C; l++ {
		c := n / dts[l]
		gl := G[l*K:][:K]
		gl = gl[:len(row)]
		for k, p := range row {
			gl[k] += c * p
		}
	}
}
