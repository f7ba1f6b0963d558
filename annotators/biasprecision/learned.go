package biasprecision

import (
	"math"
	"slices"

	"github.com/maslda/maslda/framework/special"
	"gonum.org/v1/gonum/mat"

	"gonum.org/v1/gonum/mathext"
)

// Priors of the annotators (Params.Prior).
const (
	PriorFixed   = "fixed"   // MAP estimates under the Normal–Gamma prior of ν₀, s₀², κ₀
	PriorLearned = "learned" // Normal–Gamma posteriors under one shared prior whose hyperparameters are learned
	// PriorAuto (default) decides in Init from the training answers (Model.PriorInUse):
	// "fixed" (κ₀ from bias_prior, "auto": AutoBiasPrior) when the
	// annotators who answered average fewer than AutoFewAnswers answers
	// each, "learned" with learn = "bias" (κ₀ fitted under the bias anchor)
	// otherwise; always "fixed" when bias_prior is a number, with bias =
	// "none" or with precision = "shared".
	PriorAuto = "auto"
)

// What prior = "learned" learns (Params.Learn).
const (
	LearnAll  = "all"  // κ₀, a₀ and β₀ (default)
	LearnBias = "bias" // κ₀ only: a₀, β₀ stay the fixed prior's (ν₀, s₀²)
	// LearnPrecision learns a₀ and β₀ only (how alike the annotators'
	// precisions are); κ₀ stays bias_prior's (under "auto": AutoKappa).
	LearnPrecision = "precision"
)

// learned is the state of prior = "learned": the shared prior's
// hyperparameters and every annotator's Normal–Gamma posterior
//
//	p_r ~ Gamma(a₀, β₀),   b_r | p_r ~ N(0, 1/(κ₀ p_r))          (prior, shared)
//	q(b_r, p_r) = N(b_r | μ_r, 1/(κ_r p_r)) Gamma(p_r | a_r, β_r)  (posterior)
//
// With the statistics n, SY = Σ(y − m), SQ = Σ((y − m)² + v) of an
// annotator the bound's part in q is maximised by the conjugate posterior
//
//	κ_r = κ₀ + n,  μ_r = SY/κ_r,  a_r = a₀ + n/2,  β_r = β₀ + ½(SQ − SY²/κ_r),
//
// where it equals the log marginal likelihood of the statistics
//
//	log Z_r = lnΓ(a_r) − lnΓ(a₀) + a₀ ln β₀ − a_r ln β_r + ½ ln(κ₀/κ_r) − (n/2) ln 2π,
//
// so the hyperparameters that maximise Σ_r log Z_r (type-II maximum
// likelihood, learnHyper) are the bound's maximisers too, and the update
// never lowers it. With bias = "none" there is no b_r: κ and μ drop out and
// β_r = β₀ + ½SQ.
type learned struct {
	k0, a0, b0 float64   // κ₀, a₀, β₀
	biasOnly   bool      // learn = "bias": learnHyper moves κ₀ only
	gammaOnly  bool      // learn = "precision": a₀ and β₀ only, κ₀ held
	kap        []float64 // κ_r (unused with bias = "none")
	shape      []float64 // a_r
	rate       []float64 // β_r
	elogp      []float64 // E[log p_r] = ψ(a_r) − ln β_r (elogGamma), kept for the E-step; not saved
}

// newLearned starts the hyperparameters at the fixed prior's: a₀ = 1 +
// ν₀/2, β₀ = ν₀s₀²/2 (each at least that of one answer, a₀ ≥ 1.5,
// β₀ ≥ s₀²/2), κ₀ = max(κ₀, 1); and every posterior at the prior.
func newLearned(p Params, kappa, s0 float64, R int) *learned {
	nu := max(p.PriorAnswers, 1)
	k0 := max(kappa, 1)
	if p.Learn == LearnPrecision {
		k0 = max(kappa, hyperK[0]) // held where it is: 0 is nearly flat
	}
	l := &learned{k0: k0, a0: 1 + nu/2, b0: nu * s0 / 2, biasOnly: p.learnBiasOnly(), gammaOnly: p.Learn == LearnPrecision,
		kap: make([]float64, R), shape: make([]float64, R), rate: make([]float64, R), elogp: make([]float64, R)}
	for r := range R {
		l.kap[r], l.shape[r], l.rate[r] = l.k0, l.a0, l.b0
		l.elogp[r] = elogGamma(l.a0, l.b0)
	}
	return l
}

// logZ is Σ_r log Z_r at hyperparameters (k0, a0, b0) for the statistics
// n, sy, sq (without the −(n/2) ln 2π, which does not depend on them),
// written without the cancellations of lnΓ(a_r) − lnΓ(a₀) and a₀ ln β₀ −
// a_r ln β_r at large a₀ (where the prior is one shared precision):
//
//	log Z_r = special.LgammaDiff(a₀, n/2) − a₀ log1p(c_r/β₀) − (n/2) ln(β₀ + c_r) − ½ log1p(n/κ₀),
//
// c_r = ½(SQ − SY²/κ_r) (½SQ without biases).
func logZ(k0, a0, b0 float64, n, sy, sq []float64, bias bool) float64 {
	z := 0.0
	for r, nr := range n {
		if nr == 0 {
			continue
		}
		c := 0.5 * sq[r]
		if bias {
			c = 0.5 * math.Max(0, sq[r]-sy[r]*sy[r]/(k0+nr))
			z -= 0.5 * math.Log1p(nr/k0)
		}
		z += special.LgammaDiff(a0, nr/2) - a0*math.Log1p(c/b0) - nr/2*math.Log(b0+c)
	}
	return z
}

// The bounds of the hyperparameters (learnHyper): κ₀ and a₀ absolute, β₀
// relative to s₀². β₀ ≥ s₀²/2, one answer's worth of the pooled noise
// variance (the fixed prior's default, ν₀ = 1): without a floor the
// marginal likelihood is unbounded as β₀ → 0 whenever one annotator's
// residuals vanish, and they do for an annotator the truth follows (a
// constant answerer, or two annotators who always agree): on the affect
// joy ratings the learned prior ran to β₀ = 1.5e-7, two annotators to
// precision 3e7 and the truth onto them (R² −0.47).
var (
	hyperA = [2]float64{1e-3, 1e6}
	hyperK = [2]float64{1e-6, 1e6}
	hyperB = [2]float64{0.5, 1e8}
)

// learnHyper sets (κ₀, a₀, β₀) (κ₀ alone with biasOnly: a₀ and β₀ then
// stay where newLearned or LoadParams put them) to the maximiser of Σ_r log Z_r over
// u = (log a₀, log β₀, log κ₀) within bounds (hyperA, hyperB × s₀²,
// hyperK; a₀ at its upper bound is one precision shared by the crowd, κ₀
// at its upper bound biases pinned at 0). Newton steps from the current
// values; if they end where the gradient does not vanish, coordinate
// ascent first, each coordinate a golden-section search over its range
// (kept only if it raises the objective), then Newton again. Newton steps on
// the coordinates inside their bounds, with the analytic gradient
// (hyperGrad) and its Jacobian by central differences, each step halved
// until the objective rises and clamped to the bounds, until no step
// raises it. The objective never falls, and the maximiser then depends
// smoothly on the statistics (merged statistics give the union's update to
// rounding), which a search to a tolerance alone does not give.
func (l *learned) learnHyper(n, sy, sq []float64, bias bool, s0 float64) {
	dim := 2
	if bias {
		dim = 3
	}
	lo := []float64{math.Log(hyperA[0]), math.Log(s0 * hyperB[0]), math.Log(hyperK[0])}[:dim]
	hi := []float64{math.Log(hyperA[1]), math.Log(s0 * hyperB[1]), math.Log(hyperK[1])}[:dim]
	u := []float64{math.Log(l.a0), math.Log(l.b0), math.Log(l.k0)}[:dim]
	for i := range u {
		u[i] = min(max(u[i], lo[i]), hi[i])
	}
	if l.biasOnly { // a₀ and β₀ held: their range is their value
		lo[0], hi[0], lo[1], hi[1] = u[0], u[0], u[1], u[1]
	}
	if l.gammaOnly && bias { // κ₀ held
		lo[2], hi[2] = u[2], u[2]
	}
	set := func(u []float64) {
		l.a0, l.b0 = math.Exp(u[0]), math.Exp(u[1])
		if bias && !l.gammaOnly { // held: kept exactly, not through exp(log κ₀)
			l.k0 = math.Exp(u[2])
		}
	}
	f := func(u []float64) float64 { set(u); return logZ(l.k0, l.a0, l.b0, n, sy, sq, bias) }
	grad := func(u []float64) []float64 {
		set(u)
		g := l.hyperGrad(n, sy, sq, bias)
		return g[:dim]
	}
	cur := f(u)
	search := func() {
		for range 100 {
			start := cur
			for i := range u {
				x0 := u[i]
				g := func(x float64) float64 { u[i] = x; return f(u) }
				x := goldenMax(g, lo[i], hi[i])
				if v := g(x); v > cur {
					cur = v
				} else {
					u[i] = x0
				}
			}
			if cur-start <= 1e-9*math.Max(1, math.Abs(cur)) {
				break
			}
		}
	}
	// newton returns whether it ended where the gradient over the free
	// coordinates vanishes (to 1e-9 of the objective).
	newton := func() bool {
		for range 50 {
			g := grad(u)
			var free []int // coordinates inside their bounds, or at one and pulled inwards
			for i := range u {
				if (u[i] > lo[i] || g[i] > 0) && (u[i] < hi[i] || g[i] < 0) {
					free = append(free, i)
				}
			}
			if len(free) == 0 {
				break
			}
			k := len(free)
			h := mat.NewDense(k, k, nil)
			for j, fj := range free {
				const eps = 1e-5
				up, dn := slices.Clone(u), slices.Clone(u)
				up[fj] += eps
				dn[fj] -= eps
				gu, gd := grad(up), grad(dn)
				for i, fi := range free {
					h.Set(i, j, (gu[fi]-gd[fi])/(2*eps))
				}
			}
			var hs mat.Dense
			hs.Add(h, h.T())
			hs.Scale(0.5, &hs)
			gf := make([]float64, k)
			for i, fi := range free {
				gf[i] = g[fi]
			}
			step := make([]float64, k)
			var d mat.VecDense
			slope := 0.0
			if err := d.SolveVec(&hs, mat.NewVecDense(k, gf)); err == nil {
				for i := range step {
					step[i] = -d.AtVec(i)
					slope += gf[i] * step[i]
				}
			}
			if !(slope > 0) { // not concave here (or singular): the gradient
				copy(step, gf)
			}
			moved := false
			for t := 1.0; t > 1e-12; t /= 2 {
				v := slices.Clone(u)
				for i, fi := range free {
					v[fi] = min(max(v[fi]+t*step[i], lo[fi]), hi[fi])
				}
				if fv := f(v); fv > cur {
					u, cur, moved = v, fv, true
					break
				}
			}
			if !moved {
				break
			}
		}
		g := grad(u)
		worst := 0.0
		for i := range u {
			if (u[i] > lo[i] || g[i] > 0) && (u[i] < hi[i] || g[i] < 0) {
				worst = max(worst, math.Abs(g[i]))
			}
		}
		return worst <= 1e-9*math.Max(1, math.Abs(cur))
	}
	// From the current hyperparameters (the previous update's, close to
	// the maximum) Newton alone usually converges; otherwise the search
	// over the whole ranges first.
	if !newton() {
		search()
		newton()
	}
	set(u)
}

// goldenMax is the maximiser of a unimodal g on [lo, hi] to 1e-10 of the
// range; a maximum at an end of the range is that end exactly.
func goldenMax(g func(float64) float64, lo, hi float64) float64 {
	const inv = 0.6180339887498949
	a, b := lo, hi
	x1, x2 := b-inv*(b-a), a+inv*(b-a)
	g1, g2 := g(x1), g(x2)
	for b-a > 1e-10*(hi-lo) {
		if g1 < g2 {
			a, x1, g1 = x1, x2, g2
			x2 = a + inv*(b-a)
			g2 = g(x2)
		} else {
			b, x2, g2 = x2, x1, g1
			x1 = b - inv*(b-a)
			g1 = g(x1)
		}
	}
	x := (a + b) / 2
	if hi-x < 1e-8*(hi-lo) && g(hi) >= g(x) {
		return hi
	}
	if x-lo < 1e-8*(hi-lo) && g(lo) >= g(x) {
		return lo
	}
	return x
}

// hyperGrad is the gradient of Σ_r log Z_r in (log a₀, log β₀, log κ₀).
func (l *learned) hyperGrad(n, sy, sq []float64, bias bool) [3]float64 {
	A, B, K := l.a0, l.b0, l.k0
	var ga, gb, gk float64
	psiA := mathext.Digamma(A)
	for r, nr := range n {
		if nr == 0 {
			continue
		}
		ar := A + nr/2
		c, dc := 0.5*sq[r], 0.0
		if bias {
			kr := K + nr
			if v := sq[r] - sy[r]*sy[r]/kr; v > 0 {
				c, dc = 0.5*v, 0.5*sy[r]*sy[r]/(kr*kr)
			} else {
				c = 0
			}
			gk += 0.5/K - 0.5/kr
		}
		br := B + c
		ga += mathext.Digamma(ar) - psiA - math.Log1p(c/B)
		gb += A/B - ar/br
		gk -= ar / br * dc
	}
	return [3]float64{A * ga, B * gb, K * gk}
}

// posterior sets every annotator's q(b_r, p_r) to the conjugate posterior
// for its statistics and the model's Bias (μ_r) and Prec (E[p_r] =
// a_r/β_r), which the evidence uses.
func (m *Model) posterior(n, sy, sq []float64) {
	l := m.learn
	bias := !m.Config.noBias()
	for r := range m.Prec {
		a := l.a0 + n[r]/2
		rate := l.b0 + 0.5*sq[r]
		mu, kr := 0.0, l.k0
		if bias {
			kr = l.k0 + n[r]
			mu = sy[r] / kr
			rate = l.b0 + 0.5*math.Max(0, sq[r]-sy[r]*mu)
		}
		l.kap[r], l.shape[r], l.rate[r] = kr, a, rate
		l.elogp[r] = elogGamma(a, rate)
		if m.ignores(r) {
			continue // no statistics: the posterior is the prior; b_r and p_r stay Init's
		}
		m.Bias[r], m.Prec[r] = mu, a/rate
	}
}

// learnedKL is Σ_r E[log p(b_r, p_r)] − E[log q(b_r, p_r)] under the
// learned prior (prior = "learned"). Per annotator, with x = a_r − a₀ and
// c = β_r − β₀ (n_r/2 and ½(SQ − SY²/κ_r) after an update), the Gamma
// part E[log Gamma(p | a₀, β₀)] + H[Gamma(a_r, β_r)] is written as
//
//	special.LgammaDiff(a₀, x) − a₀ log1p(c/β₀) − x ψ(a_r) + a_r c/β_r,
//
// free of the cancellations of its textbook form at large a₀, and the
// Gaussian part E[log N(b | 0, 1/(κ₀p))] + E_p[H[N(μ_r, 1/(κ_r p))]] is
// ½(1 + ln(κ₀/κ_r) − κ₀/κ_r − κ₀ E[p] μ_r²).
func (m *Model) learnedKL() float64 {
	l := m.learn
	bias := !m.Config.noBias()
	e := 0.0
	for r, p := range m.Prec {
		if m.ignores(r) {
			continue // q = the prior: no term
		}
		a, rate := l.shape[r], l.rate[r]
		x, c := a-l.a0, rate-l.b0
		var g float64
		if x >= 0 {
			g = special.LgammaDiff(l.a0, x)
		} else {
			u, _ := math.Lgamma(a)
			v, _ := math.Lgamma(l.a0)
			g = u - v
		}
		e += g - l.a0*math.Log1p(c/l.b0) - x*mathext.Digamma(a) + a*c/rate
		if bias {
			mu, kr := m.Bias[r], l.kap[r]
			e += 0.5 * (1 + math.Log(l.k0/kr) - l.k0/kr - l.k0*p*mu*mu)
		}
	}
	return e
}

// elogGamma is E[log p] under Gamma(shape a, rate β): ψ(a) − ln β.
func elogGamma(a, rate float64) float64 { return mathext.Digamma(a) - math.Log(rate) }

// anchoredLearn reports whether the learned prior keeps the mean anchor:
// learn = "bias" with bias_anchor = "mean" and a bias per annotator.
func (m *Model) anchoredLearn() bool {
	return m.learn != nil && (m.learn.biasOnly || m.learn.gammaOnly) && m.Config.BiasAnchor == AnchorMean && !m.Config.noBias()
}

// anchoredRounds bounds anchoredStep's rounds of coordinate steps; each
// round raises the bound or leaves it, so fewer rounds only slow EM.
const anchoredRounds = 100

// anchoredStep is the update of prior = "learned", learn = "bias" under
// bias_anchor = "mean": the bound (the annotators' part of MODEL.md §3's
// ELBO with the Normal–Gamma prior, learnedKL) maximised over κ₀ and the
// posteriors q(b_r, p_r) = N(μ_r, 1/(κ_r p_r)) Gamma(a_r, β_r) under the
// constraint Σ_r n_r μ_r = 0 (the mean anchor of the fixed prior, in place
// of the zero-mean prior's pin of the common offset), by exact coordinate
// steps, so that it never falls:
//
//	κ_r = κ₀ + n_r,  a_r = a₀ + n_r/2                      (each the maximiser whatever the rest)
//	β_r = β₀ + ½(SQ − 2μ_r SY + κ_r μ_r²)                    (q(p_r) at μ_r)
//	μ_r = (SY − λ n_r/E[p_r])/κ_r,  λ: Σ_r n_r μ_r = 0      (Lagrange, at E[p_r] = a_r/β_r)
//	κ₀ = R₊ / Σ_r (E[p_r] μ_r² + 1/κ_r)                      (over the R₊ annotators with answers)
//
// An annotator without answers (or one the model ignores) has its
// posterior at the prior, where its part of the bound is 0 for every κ₀:
// κ₀'s step is over the others. Rounds stop when κ₀ moves by less than
// 1e-12 of itself, or after anchoredRounds.
func (m *Model) anchoredStep(n, sy, sq []float64) {
	l := m.learn
	active := func(r int) bool { return n[r] > 0 && !m.ignores(r) }
	rate := func(r int) {
		l.rate[r] = l.b0 + 0.5*math.Max(0, sq[r]-2*m.Bias[r]*sy[r]+l.kap[r]*m.Bias[r]*m.Bias[r])
		l.elogp[r] = elogGamma(l.shape[r], l.rate[r])
		m.Prec[r] = l.shape[r] / l.rate[r]
	}
	for range anchoredRounds {
		num, den := 0.0, 0.0
		for r := range m.Prec {
			if !active(r) {
				continue
			}
			l.kap[r], l.shape[r] = l.k0+n[r], l.a0+n[r]/2
			rate(r)
			num += n[r] * sy[r] / l.kap[r]
			den += n[r] * n[r] / (l.kap[r] * m.Prec[r])
		}
		if den == 0 {
			break // nobody answered
		}
		lam := num / den
		cnt, ss := 0.0, 0.0
		for r := range m.Prec {
			if !active(r) {
				continue
			}
			m.Bias[r] = (sy[r] - lam*n[r]/m.Prec[r]) / l.kap[r]
			rate(r)
			cnt++
			ss += m.Prec[r]*m.Bias[r]*m.Bias[r] + 1/l.kap[r]
		}
		if l.gammaOnly {
			s1, s2 := 0.0, 0.0
			for r := range m.Prec {
				if active(r) {
					s1 += m.Prec[r] / cnt
					s2 += l.elogp[r] / cnt
				}
			}
			a0, b0 := gammaStep(s1, s2, hyperB[0]*m.S0)
			done := math.Abs(a0-l.a0) <= 1e-12*l.a0 && math.Abs(b0-l.b0) <= 1e-12*l.b0
			l.a0, l.b0 = a0, b0
			if done {
				break
			}
			continue
		}
		k0 := min(max(cnt/ss, hyperK[0]), hyperK[1])
		done := math.Abs(k0-l.k0) <= 1e-12*l.k0
		l.k0 = k0
		if done {
			break
		}
	}
	// κ_r and a_r at the last κ₀ (the maximiser whatever μ and β), then β_r
	// at the anchored μ_r; the others at the prior of the last κ₀ (no part
	// in the bound; b_r and p_r of an ignored annotator stay Init's).
	for r := range m.Prec {
		if active(r) {
			l.kap[r], l.shape[r] = l.k0+n[r], l.a0+n[r]/2
			rate(r)
			continue
		}
		l.kap[r], l.shape[r], l.rate[r] = l.k0, l.a0, l.b0
		l.elogp[r] = elogGamma(l.a0, l.b0)
		if !m.ignores(r) {
			m.Bias[r], m.Prec[r] = 0, l.a0/l.b0
		}
	}
}

// gammaStep is learn = "precision"'s step of the shared Gamma(a₀, β₀):
// the maximiser of Σ_r E_q[log Gamma(p_r | a₀, β₀)] over the R₊
// annotators with answers, given s1 = mean E[p_r] and s2 = mean E[log p_r]
// (the only part of the bound that depends on a₀ and β₀; jointly concave
// in them, the Hessian's determinant being R₊²(a₀ψ'(a₀) − 1)/β₀² > 0):
//
//	β₀ = a₀/s1,  ln a₀ − ψ(a₀) = ln s1 − s2                 (Minka's Gamma MLE)
//
// and where that β₀ is below the floor (hyperB, relative to s₀², as for
// the learned prior) the maximum on the floor: β₀ = floor, ψ(a₀) = ln β₀ +
// s2. a₀ is kept within hyperA (at its upper bound, one precision shared by
// the crowd).
func gammaStep(s1, s2, floor float64) (a0, b0 float64) {
	c := math.Log(s1) - s2 // ≥ 0 by Jensen
	if !(c > 0) {
		a0 = hyperA[1]
	} else {
		a0 = positiveNewton((3-c+math.Sqrt((c-3)*(c-3)+24*c))/(12*c), func(a float64) float64 {
			return (math.Log(a) - special.Digamma(a) - c) / (1/a - special.Trigamma(a))
		})
	}
	a0 = min(max(a0, hyperA[0]), hyperA[1])
	b0 = a0 / s1
	if b0 >= floor {
		return a0, b0
	}
	b0 = floor
	y := math.Log(b0) + s2 // ψ(a₀) = y
	if y >= -2.22 {
		a0 = math.Exp(y) + 0.5
	} else {
		a0 = -1 / (y + 0.5772156649015329)
	}
	a0 = positiveNewton(a0, func(a float64) float64 { return (special.Digamma(a) - y) / special.Trigamma(a) })
	return min(max(a0, hyperA[0]), hyperA[1]), b0
}

// positiveNewton runs Newton's steps x − step(x) from x > 0 (at most 50),
// halving x instead of a step that would leave x ≤ 0, until a step moves x
// by at most 1e-14 of itself.
func positiveNewton(x float64, step func(float64) float64) float64 {
	for range 50 {
		next := x - step(x)
		if !(next > 0) {
			next = x / 2
		}
		stop := math.Abs(next-x) <= 1e-14*x
		x = next
		if stop {
			break
		}
	}
	return x
}
