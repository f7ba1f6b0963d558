package frameworktest

import (
	"math/rand/v2"
	"reflect"

	"github.com/maslda/maslda/framework"
)

// KindCustom is the kind of a target type the kit learns from a
// TargetType (Likelihood.Target, NoiseModel.Target).
const KindCustom = "custom"

// TargetType teaches the kit a framework.Target type of a plug-in's own
// (the kit knows framework.Categorical and framework.Gaussian). Every
// check then runs on it: the target is treated as an exponential family
// in the coordinates of Natural, in which messages add, with Moments its
// expected sufficient statistics in the same coordinates, so that a
// message m adds m·Moments to the bound. The gradient checks differentiate
// along the natural parameters (DocELBO of q with Natural θ, after
// SetNatural and Finalize): the evidence of an annotator model must make
// DocELBO − evidence·Moments stationary, the response's target update must
// make DocELBO + evidence·Moments stationary and maximal.
//
// The end-to-end checks need what the kit cannot make for an unknown
// target: a planted problem (Fit.Problem and Fit.Recovery), the component
// of the other kind (Likelihood.Partner, NoiseModel.Partner) and a score.
type TargetType struct {
	// Name names the type in messages.
	Name string
	// Classes is the number of classes of a target whose answers carry a
	// class (Setup.Classes gets that many names); 0 when answers carry a
	// value only.
	Classes int
	// New returns a fresh target.
	New func() framework.Target
	// Natural returns a copy of the target's accumulated natural
	// parameters; SetNatural sets them (the kit calls Finalize).
	Natural    func(framework.Target) []float64
	SetNatural func(framework.Target, []float64)
	// Moments returns a finalised target's E_q[T] in the coordinates of
	// Natural.
	Moments func(framework.Target) []float64
	// Random returns the natural parameters of a random valid target,
	// RandomMessage a random message that keeps any valid target valid
	// when added (a precision must stay positive, for example).
	Random        func(rng *rand.Rand) []float64
	RandomMessage func(rng *rand.Rand) []float64
	// Answer draws a random answer (its Class and Value; the kit sets
	// the annotator).
	Answer func(rng *rand.Rand) framework.Answer
	// Score scores finalised targets (the posterior of the training
	// documents, or the predictions of held-out ones) against the planted
	// truth, and returns with it the score of a trivial baseline on the
	// same documents (higher is better for both). Recovery requires
	// score ≥ baseline + Fit.Margin.
	Score func(est []framework.Target, truth []float64) (score, baseline float64)
}

// sameType reports whether a and b have the same dynamic type.
func sameType(a, b framework.Target) bool { return reflect.TypeOf(a) == reflect.TypeOf(b) }

// missing names the first nil field of tt ("" when none is).
func (tt *TargetType) missing() string {
	switch {
	case tt.New == nil:
		return "New"
	case tt.Natural == nil:
		return "Natural"
	case tt.SetNatural == nil:
		return "SetNatural"
	case tt.Moments == nil:
		return "Moments"
	case tt.Random == nil:
		return "Random"
	case tt.RandomMessage == nil:
		return "RandomMessage"
	case tt.Answer == nil:
		return "Answer"
	case tt.Score == nil:
		return "Score"
	}
	return ""
}

// set resets tg, sets its natural parameters to x and finalises.
func (tt *TargetType) set(tg framework.Target, x []float64) {
	tg.Reset()
	tt.SetNatural(tg, x)
	tg.Finalize()
}

// naturalStationary checks that F(θ) = score(q_θ) + sign·msg·Moments(q_θ)
// is stationary at tg's natural parameters θ (central differences along
// each coordinate, step h·max(1, |θ_i|)), and, when maximum, that each step
// lowers it. It restores tg. It returns the worst derivative and
// whether a step raised F, with the coordinate.
func (tt *TargetType) naturalStationary(tg framework.Target, score func() float64, msg []float64, sign float64, maximum bool, tol float64) (worst float64, at int, raised bool) {
	theta := tt.Natural(tg)
	F := func() float64 {
		e := score()
		for i, m := range tt.Moments(tg) {
			e += sign * msg[i] * m
		}
		return e
	}
	base := F()
	at = -1
	for i := range theta {
		h := 1e-5 * max(1, abs(theta[i]))
		x := append([]float64(nil), theta...)
		x[i] = theta[i] + h
		tt.set(tg, x)
		up := F()
		x[i] = theta[i] - h
		tt.set(tg, x)
		down := F()
		tt.set(tg, theta)
		g := (up - down) / (2 * h)
		if abs(g) > worst || g != g {
			worst, at = abs(g), i
		}
		if maximum && (up > base+tol || down > base+tol) {
			raised, at = true, i
		}
	}
	return worst, at, raised
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
