package ordinalshift

import "math"

// softplus is log(1 + e^z), without overflow.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// sigmoid is F(z) = 1/(1 + e^−z).
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// interval is ℓ(x, y) = log(F(x) − F(y)) for x > y, with its gradient and
// Hessian (doc.go). hasX (hasY) false means x = +∞ (y = −∞): the
// end levels log(1 − F(y)) and log F(x). With Δ = x − y and A =
// e^−Δ/(1 − e^−Δ)²,
//
//	ℓ   = y + log(e^Δ − 1) − softplus(x) − softplus(y)
//	ℓ_x = 1/(1 − e^−Δ) − F(x),   ℓ_y = −1/(e^Δ − 1) − F(y)
//	ℓ_xx = −A − F(x)F(−x),  ℓ_yy = −A − F(y)F(−y),  ℓ_xy = A.
func interval(x, y float64, hasX, hasY bool) (l, lx, ly, lxx, lyy, lxy float64) {
	switch {
	case !hasY && !hasX:
		return 0, 0, 0, 0, 0, 0
	case !hasY:
		fx, fm := sigmoid(x), sigmoid(-x)
		return -softplus(-x), fm, 0, -fx * fm, 0, 0
	case !hasX:
		fy, fm := sigmoid(y), sigmoid(-y)
		return -softplus(y), 0, -fy, 0, -fy * fm, 0
	}
	d := x - y
	var lg float64
	if d > 1 {
		lg = d + math.Log(-math.Expm1(-d))
	} else {
		lg = math.Log(math.Expm1(d))
	}
	om := -math.Expm1(-d) // 1 − e^−Δ
	a := math.Exp(-d) / (om * om)
	fx, fy := sigmoid(x), sigmoid(y)
	l = y + lg - softplus(x) - softplus(y)
	return l, 1/om - fx, -1/math.Expm1(d) - fy, -a - fx*sigmoid(-x), -a - fy*sigmoid(-y), a
}
