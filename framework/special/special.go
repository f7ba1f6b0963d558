package special

import (
	"math"
)

// Digamma is ψ(x) for x > 0, the recurrence ψ(x) = ψ(x + 1) − 1/x up to
// x ≥ 10, then the asymptotic series ln x − 1/(2x) − Σ B_2k/(2k x^2k) to
// B₁₂ (error below 1e-15). gonum's mathext.Digamma, which the rest of
// maslda uses, is accurate to about 5e-11 (ψ(1) + γ = −5.3e-11): roots of
// ψ found with it (InvDigamma) inherit that. NaN for x ≤ 0 or NaN.
func Digamma(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	if math.IsInf(x, 1) {
		return x
	}
	v := 0.0
	for x < 10 {
		v -= 1 / x
		x++
	}
	x2 := 1 / (x * x)
	return v + math.Log(x) - 0.5/x - x2*(1.0/12-x2*(1.0/120-x2*(1.0/252-x2*(1.0/240-x2*(1.0/132-x2*691.0/32760)))))
}

// Trigamma is ψ'(x), the derivative of the digamma function, for x > 0:
// the recurrence ψ'(x) = ψ'(x + 1) + 1/x² up to x ≥ 10, then the
// asymptotic series 1/x + 1/(2x²) + Σ B_2k/x^(2k+1) to B₁₀ (relative error
// below 1e-14). NaN for x ≤ 0 or NaN.
func Trigamma(x float64) float64 {
	if !(x > 0) {
		return math.NaN()
	}
	if math.IsInf(x, 1) {
		return 0
	}
	v := 0.0
	for x < 10 {
		v += 1 / (x * x)
		x++
	}
	x2 := 1 / (x * x)
	return v + 1/x + x2/2 + x2/x*(1.0/6-x2*(1.0/30-x2*(1.0/42-x2*(1.0/30-x2*5.0/66))))
}

// InvDigamma is the x > 0 with ψ(x) = y (Digamma): Minka's start
// (exp(y) + ½ for y ≥ −2.22, else −1/(y + γ)) and Newton steps with
// Trigamma until the
// step is below 1e-14 of x (at most 50; a step to x ≤ 0 is halved toward
// 0 instead). NaN for NaN.
func InvDigamma(y float64) float64 {
	if math.IsNaN(y) {
		return math.NaN()
	}
	x := math.Exp(y) + 0.5
	if y < -2.22 {
		x = -1 / (y + 0.5772156649015329)
	}
	for range 50 {
		nx := x - (Digamma(x)-y)/Trigamma(x)
		if nx <= 0 {
			nx = x / 2
		}
		if math.Abs(nx-x) <= 1e-14*x {
			return nx
		}
		x = nx
	}
	return x
}

// LgammaDiff is lnΓ(a + x) − lnΓ(a) for a > 0, x ≥ 0: the plain
// difference for a < 20, else Stirling's series, whose leading terms
// (a − ½)·log1p(x/a) + x·ln(a + x) − x do not cancel (at a = 10⁶ the plain
// difference loses about 7 digits).
func LgammaDiff(a, x float64) float64 {
	if a < 20 {
		u, _ := math.Lgamma(a + x)
		v, _ := math.Lgamma(a)
		return u - v
	}
	s := func(z float64) float64 {
		z2 := 1 / (z * z)
		return (1.0/12 - z2*(1.0/360-z2*(1.0/1260-z2/1680))) / z
	}
	return (a-0.5)*math.Log1p(x/a) + x*math.Log(a+x) - x + s(a+x) - s(a)
}

// LogBeta is ln B(a) = Σ_i lnΓ(a_i) − lnΓ(Σ_i a_i), the log normaliser of
// a Dirichlet with parameters a (each > 0).
func LogBeta(a []float64) float64 {
	s, v := 0.0, 0.0
	for _, x := range a {
		s += x
		l, _ := math.Lgamma(x)
		v += l
	}
	l, _ := math.Lgamma(s)
	return v - l
}

// LogSumExp is ln Σ_i exp(x_i), computed from the maximum so that it
// neither overflows nor underflows: −Inf for an empty x or one of −Infs,
// +Inf if any x_i is +Inf.
func LogSumExp(x []float64) float64 {
	top := math.Inf(-1)
	for _, v := range x {
		top = max(top, v)
	}
	if math.IsInf(top, 0) {
		return top
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - top)
	}
	return top + math.Log(s)
}

// Softmax sets dst (len(x)) to exp(x_i − LogSumExp(x)), the gradient of
// LogSumExp, and returns LogSumExp(x). dst may be x.
func Softmax(dst, x []float64) float64 {
	z := LogSumExp(x)
	for i, v := range x {
		dst[i] = math.Exp(v - z)
	}
	return z
}

// Newton1D returns a root of f in [lo, hi], where f(lo) > 0 > f(hi) (a
// decreasing function, such as the derivative of a concave objective),
// from x0: Newton steps x − f(x)/f'(x) with f' from fp, replaced by the
// bracket's midpoint whenever a step leaves the bracket or f' ≥ 0, the
// bracket shrinking around the sign change at every step; it stops when
// the bracket is narrower than tol·(1 + |x|) or f(x) = 0 (at most 200
// steps). If f does not change sign over [lo, hi] it returns the end
// where |f| is smaller.
func Newton1D(f, fp func(float64) float64, lo, hi, x0, tol float64) float64 {
	flo, fhi := f(lo), f(hi)
	if !(flo > 0) || !(fhi < 0) {
		if math.Abs(flo) <= math.Abs(fhi) {
			return lo
		}
		return hi
	}
	x := x0
	if !(x > lo && x < hi) {
		x = (lo + hi) / 2
	}
	for range 200 {
		fx := f(x)
		if fx == 0 {
			return x
		}
		if fx > 0 {
			lo = x
		} else {
			hi = x
		}
		if hi-lo <= tol*(1+math.Abs(x)) {
			return (lo + hi) / 2
		}
		d := fp(x)
		nx := x - fx/d
		if !(d < 0) || !(nx > lo && nx < hi) {
			nx = (lo + hi) / 2
		}
		x = nx
	}
	return x
}
