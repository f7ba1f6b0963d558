package ordinal

import "math"

// softplus is log(1 + e^z), without overflow.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// sigmoid is F(z) = 1/(1 + e^−z); F(+∞) = 1, F(−∞) = 0.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// Curvature is M_c, the bound on the curvature −∂²/∂s² log p(c | s) of the
// ordered logit for level c of C: 1/4 for the two end levels (log F and
// log(1 − F), whose curvature is F(1 − F)), 1/2 for an interior level
// (doc.go, "The bound").
func Curvature(c, C int) float64 {
	if c == 0 || c == C-1 {
		return 0.25
	}
	return 0.5
}

// level is log p(c | s) = log(F(b_c − s) − F(b_{c−1} − s)) of the ordered
// logit with cut points b (C − 1 of them, increasing) and its derivatives:
// g = ∂/∂s, and du, dl = ∂/∂b_c, ∂/∂b_{c−1} (0 for a cut point the level
// does not have). With x = b_c − s > y = b_{c−1} − s and Δ = x − y,
//
//	log p = y + log(e^Δ − 1) − softplus(x) − softplus(y),
//	∂/∂x  = 1/(1 − e^−Δ) − F(x),   ∂/∂y = −1/(e^Δ − 1) − F(y),
//	g     = F(x) + F(y) − 1,
//
// exact for any Δ > 0 (no difference of two close probabilities); the end
// levels are log F(x) (c = 0) and log(1 − F(y)) = −softplus(y) (c = C−1).
func level(c int, s float64, b []float64) (logp, g, du, dl float64) {
	C := len(b) + 1
	switch {
	case c == 0:
		x := b[0] - s
		return -softplus(-x), -sigmoid(-x), sigmoid(-x), 0
	case c == C-1:
		y := b[C-2] - s
		return -softplus(y), sigmoid(y), 0, -sigmoid(y)
	}
	x, y := b[c]-s, b[c-1]-s
	dlt := x - y
	var lg float64
	if dlt > 1 {
		lg = dlt + math.Log(-math.Expm1(-dlt))
	} else {
		lg = math.Log(math.Expm1(dlt))
	}
	fx, fy := sigmoid(x), sigmoid(y)
	logp = y + lg - softplus(x) - softplus(y)
	return logp, fx + fy - 1, 1/(-math.Expm1(-dlt)) - fx, -1/math.Expm1(dlt) - fy
}

// logLevel is log p(c | s) alone.
func logLevel(c int, s float64, b []float64) float64 {
	l, _, _, _ := level(c, s, b)
	return l
}

// slope is g = ∂/∂s log p(c | s) alone: F(b_c − s) + F(b_{c−1} − s) − 1.
func slope(c int, s float64, b []float64) float64 {
	C := len(b) + 1
	fx, fy := 1.0, 0.0
	if c < C-1 {
		fx = sigmoid(b[c] - s)
	}
	if c > 0 {
		fy = sigmoid(b[c-1] - s)
	}
	return fx + fy - 1
}
