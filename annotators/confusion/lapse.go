package confusion

import "math"

// The lapse (Config.Lapse): every answer is, with probability δ, a lapse
// drawn uniformly over the C classes whatever the document, and otherwise
// read through its annotator's confusion matrix:
//
//	p(y | c, r) = (1 − δ)·π^r_{c,y} + δ/C.
//
// With k ∈ {matrix, lapse} the answer's hidden source, the bound of one
// answer about a document of class c, at the optimal q(k), is
//
//	log( exp(log(1 − δ) + E[log π^r_{c,y}]) + δ/C ),
//
// the message Evidence adds (lapsed); q(k = matrix) is its first term's
// share w (lapseSplit). The E-step counts λ_dc·w in the matrices'
// statistics and keeps the rest of the answer's bound,
// λ_dc·(w·log(1 − δ) + (1 − w)·log(δ/C) + H(w)), in Stats.Lapse: the
// bound the M-step raises is then Counts·E[log π] + Lapse + KL at the
// E-step's split, the usual EM bound over q(k), and it never decreases.

// lapsed is an answer's message log((1 − δ)·exp(e) + δ/C) for e = E[log π].
func (m *Model) lapsed(e float64) float64 {
	d := m.cfg.Lapse
	if d == 0 {
		return e
	}
	a := math.Log1p(-d) + e
	b := math.Log(d / float64(m.nc))
	if a > b {
		return a + math.Log1p(math.Exp(b-a))
	}
	return b + math.Log1p(math.Exp(a-b))
}

// lapseSplit returns, for e = E[log π^r_{c,y}], the share w of the
// answer's matrix source and the rest of its bound, w·log(1 − δ) + (1 −
// w)·log(δ/C) + H(w), so that w·e + rest = lapsed(e).
func (m *Model) lapseSplit(e float64) (w, rest float64) {
	d := m.cfg.Lapse
	in, out := math.Log1p(-d), math.Log(d/float64(m.nc))
	w = math.Exp(in + e - m.lapsed(e))
	rest = w*in + (1-w)*out
	if w > 0 {
		rest -= w * math.Log(w)
	}
	if w < 1 {
		rest -= (1 - w) * math.Log1p(-w)
	}
	return w, rest
}
