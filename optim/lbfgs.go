package optim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

/*
L-BFGS for M-steps.

Minimize wraps gonum's optimize.Minimize with the optimize.LBFGS method and
the optimize.Bisection line search (gonum's default for LBFGS) so that an
M-step can be written as one function returning the objective value and
filling its gradient. The wrapper adds what gonum leaves to the caller:

  - cancellation through a context.Context, checked by Problem.Status after
    every evaluation and before each call of the objective;
  - a single combined value+gradient callback with a one-point cache, so the
    Func-then-Grad pair gonum issues at an accepted line-search point costs
    one call of the objective;
  - a classification of gonum's termination statuses into "converged",
    "partial solve" (an iteration or evaluation limit: not an error) and
    errors, with a guarantee that the returned point is never worse than
    the starting point;
  - robustness to leaving the domain of the objective: a trial point where
    the objective is NaN, or where the gradient is not finite, is treated as
    having value +Inf, so the bisection line search backs off from it.

Evaluations are serial (gonum's Settings.Concurrent is 1): the objective is
never called concurrently with itself, but it is called from a goroutine
other than the caller's.
*/

// LBFGSOptions configures Minimize. The zero value gives usable defaults.
type LBFGSOptions struct {
	// MaxIters is the maximum number of L-BFGS iterations (line searches),
	// not counting the evaluation at x0. 0 means 100.
	MaxIters int
	// GradTol stops the solve (converged) when the infinity norm of the
	// gradient falls below it. 0 means 1e-6.
	GradTol float64
	// FuncTol, when positive, also stops the solve (converged) after the
	// first iteration that fails to decrease the objective by more than
	// FuncTol·max(|f|, |f_best|), i.e. gonum's FunctionConverge with
	// Relative = FuncTol, Absolute = 0 and Iterations = 1 (the same rule as
	// the "factr/ftol" test of L-BFGS-B). 0 disables the test, so only
	// GradTol, MaxIters and line-search failures end the solve.
	FuncTol float64
	// GainTol, when positive, also stops the solve (converged, status
	// "FunctionConvergence") after the first iteration that decreases the
	// objective by at most GainTol times its decrease since x0,
	// f(x0) − f: the iterations have slowed to a crawl against what the
	// solve has gained. An inexact solve for a generalised EM M-step, which
	// needs the bound raised, not maximised (the softmax's gain_tol). 0
	// disables the test.
	GainTol float64
	// PredictGain, with GainTol > 0, also stops the solve (converged,
	// "FunctionConvergence") at an iterate where PredictGain(gradient)
	// ≤ GainTol times the decrease since x0: the caller's prediction of
	// what the next iteration would gain (a preconditioned solve's
	// Newton decrement, ½‖∇‖²/c² in its variables) says it is not worth
	// its evaluation. nil: the gain test waits for an iteration's actual
	// decrease.
	PredictGain func(grad []float64) float64
	// Memory is the number of correction pairs kept by L-BFGS.
	// 0 means gonum's default (15).
	Memory int
}

// LBFGSResult reports the outcome of Minimize.
type LBFGSResult struct {
	// X is the best accepted point: the last L-BFGS iterate, or x0 when no
	// iterate was accepted. f(X) ≤ f(x0) always holds.
	X []float64
	// F is the objective value at X (NaN only if x0 was never evaluated,
	// e.g. the context was cancelled before the call).
	F float64
	// GradNorm is the infinity norm of the gradient at X (NaN if unknown).
	GradNorm float64
	// Iters is the number of completed L-BFGS iterations (accepted line
	// searches); the evaluation at x0 is not counted.
	Iters int
	// FuncEvals is the number of calls of the objective, including the one at
	// x0. Calls answered from the cache are not counted.
	FuncEvals int
	// Status is gonum's termination status as text (optimize.Status.String),
	// e.g. "GradientThreshold", "IterationLimit" or "Failure". It is empty
	// if gonum was never run.
	Status string
	// HitLimit reports that an iteration or evaluation limit ended the solve.
	// This is an accepted partial solve, not a failure: Minimize returns a
	// nil error and X is the best point so far.
	HitLimit bool
	// Warning holds the line-search error when a line-search failure ended
	// the solve but the point was nevertheless accepted (see Minimize);
	// otherwise it is nil.
	Warning error
}

// Defaults used by Minimize for zero-valued options.
const (
	defaultLBFGSMaxIters = 100
	defaultLBFGSGradTol  = 1e-6
)

// errObjectivePanicked stops gonum when the objective has panicked; the
// panic is re-raised on the caller's goroutine.
var errObjectivePanicked = errors.New("optim: objective function panicked")

// Minimize minimises f with L-BFGS starting from x0, which is not modified.
//
// f returns the objective value at x and, when g is non-nil, writes the
// gradient at x into g (len(g) == len(x); g is zeroed before each call).
// f must not modify or retain x or g. Minimize currently always asks for the
// gradient, because the line search needs it at every point it accepts and
// computing both together lets the result be cached; f must nonetheless
// accept g == nil. f is called serially, but not on the caller's goroutine;
// if f panics, the panic is re-raised by Minimize on the caller's goroutine
// (as an error value wrapping the original value if it was an error, with the
// objective's stack trace in its message).
//
// x0 must be non-empty and f(x0) and its gradient must be finite; otherwise
// Minimize returns an error. A trial point where f is NaN or the gradient is
// not finite is treated as f = +Inf (outside the domain) and rejected by the
// line search.
//
// Termination (gonum status → outcome):
//
//   - GradientThreshold, FunctionConvergence, StepConvergence,
//     FunctionThreshold, Success, MethodConverge: converged; err == nil.
//   - IterationLimit, FunctionEvaluationLimit, GradientEvaluationLimit,
//     HessianEvaluationLimit, RuntimeLimit: partial solve; HitLimit = true,
//     err == nil, X is the last accepted iterate.
//   - Failure caused by the context (Problem.Status reported ctx.Err()):
//     err wraps ctx.Err(), so errors.Is(err, context.Canceled) or
//     errors.Is(err, context.DeadlineExceeded) holds; the result still holds
//     the best point found.
//   - Failure caused by the line search (gonum's ErrLinesearcherFailure,
//     ErrNoProgress, ErrNonDescentDirection, ErrLinesearcherBound, ...),
//     which gonum reports near an optimum when round-off hides further
//     decrease: the best accepted point is returned with err == nil and
//     Warning set to the line-search error if either F < f(x0) (progress
//     was made) or the gradient's infinity norm at X is at most
//     GradTol·max(1, |F|) (x0 is already optimal up to round-off, common
//     for warm-started M-steps). Otherwise the error is returned (wrapping
//     gonum's), together with X = x0.
//   - FunctionNegativeInfinity: error (the objective is unbounded below);
//     X is the point where f = -Inf.
//   - Any other status: error.
//
// In every case X is never worse than x0: if gonum's final point is not
// finite or has a higher value than f(x0), x0 is returned instead.
func Minimize(ctx context.Context, f func(x, g []float64) float64, x0 []float64, opt LBFGSOptions) (LBFGSResult, error) {
	res := LBFGSResult{X: append([]float64(nil), x0...), F: math.NaN(), GradNorm: math.NaN()}
	if f == nil {
		return res, errors.New("optim: Minimize: nil objective function")
	}
	n := len(x0)
	if n == 0 {
		return res, errors.New("optim: Minimize: empty starting point")
	}
	if opt.MaxIters < 0 || opt.Memory < 0 || !(opt.GradTol >= 0) || !(opt.FuncTol >= 0) || !(opt.GainTol >= 0) || math.IsInf(opt.GainTol, 1) {
		return res, fmt.Errorf("optim: Minimize: invalid options %+v", opt)
	}
	maxIters := opt.MaxIters
	if maxIters == 0 {
		maxIters = defaultLBFGSMaxIters
	}
	gradTol := opt.GradTol
	if gradTol == 0 {
		gradTol = defaultLBFGSGradTol
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("optim: L-BFGS not started: %w", err)
	}

	ev := &lbfgsEval{ctx: ctx, f: f, cx: make([]float64, n), cg: make([]float64, n)}

	// Evaluate x0 here rather than in gonum: it gives a clear error for a bad
	// starting point, and f0 is the reference for "never worse than x0".
	g0 := make([]float64, n)
	f0 := ev.call(res.X, g0)
	if ev.panicVal != nil {
		panic(ev.panicValue())
	}
	if math.IsNaN(f0) || math.IsInf(f0, 0) {
		return res, fmt.Errorf("optim: L-BFGS: objective is %v at the starting point", f0)
	}
	for i, v := range g0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return res, fmt.Errorf("optim: L-BFGS: gradient[%d] is %v at the starting point", i, v)
		}
	}
	res.F = f0
	res.GradNorm = floats.Norm(g0, math.Inf(1))
	res.FuncEvals = ev.calls
	// Prime the cache with x0 so a Grad-only request at x0 is free.
	copy(ev.cx, x0)
	copy(ev.cg, g0)
	ev.cf = f0
	ev.cached = true

	var converger optimize.Converger = optimize.NeverTerminate{}
	if opt.FuncTol > 0 {
		converger = &optimize.FunctionConverge{Relative: opt.FuncTol, Iterations: 1}
	}
	if opt.GainTol > 0 {
		converger = &gainConverge{tol: opt.GainTol, inner: converger, predict: opt.PredictGain}
	}
	settings := &optimize.Settings{
		InitValues:        &optimize.Location{F: f0, Gradient: append([]float64(nil), g0...)},
		GradientThreshold: gradTol,
		Converger:         converger,
		// gonum counts the starting location as a major iteration.
		MajorIterations: maxIters + 1,
		Concurrent:      1,
	}
	method := &optimize.LBFGS{
		Linesearcher:      &optimize.Bisection{},
		Store:             opt.Memory,
		GradStopThreshold: gradTol,
	}
	var stopErr error // the error Problem.Status reported, if any
	problem := optimize.Problem{
		Func: ev.value,
		Grad: ev.grad,
		Status: func() (optimize.Status, error) {
			switch {
			case ev.panicVal != nil:
				stopErr = errObjectivePanicked
			case ctx.Err() != nil:
				stopErr = ctx.Err()
			default:
				return optimize.NotTerminated, nil
			}
			return optimize.Failure, stopErr
		},
	}

	gres, gerr := optimize.Minimize(problem, x0, settings, method)
	res.FuncEvals = ev.calls
	if ev.panicVal != nil {
		panic(ev.panicValue())
	}

	// Take gonum's final point if it is a finite improvement (or tie) on x0.
	status := optimize.NotTerminated
	if gres != nil {
		status = gres.Status
		res.Status = status.String()
		if gres.MajorIterations > 1 {
			res.Iters = gres.MajorIterations - 1
		}
		if !math.IsNaN(gres.F) && !math.IsInf(gres.F, 1) && gres.F <= f0 && len(gres.X) == n {
			copy(res.X, gres.X)
			res.F = gres.F
			if len(gres.Gradient) == n {
				res.GradNorm = floats.Norm(gres.Gradient, math.Inf(1))
			} else {
				res.GradNorm = math.NaN()
			}
		}
	}

	if stopErr != nil && gerr != nil && errors.Is(gerr, stopErr) {
		return res, fmt.Errorf("optim: L-BFGS stopped after %d iterations: %w", res.Iters, gerr)
	}
	switch status {
	case optimize.GradientThreshold, optimize.FunctionConvergence, optimize.StepConvergence,
		optimize.FunctionThreshold, optimize.Success, optimize.MethodConverge:
		if gerr != nil {
			return res, fmt.Errorf("optim: L-BFGS (%v): %w", status, gerr)
		}
		return res, nil
	case optimize.IterationLimit, optimize.FunctionEvaluationLimit, optimize.GradientEvaluationLimit,
		optimize.HessianEvaluationLimit, optimize.RuntimeLimit:
		if gerr != nil {
			return res, fmt.Errorf("optim: L-BFGS (%v): %w", status, gerr)
		}
		res.HitLimit = true
		return res, nil
	case optimize.FunctionNegativeInfinity:
		return res, fmt.Errorf("optim: L-BFGS: objective is unbounded below (f = -Inf after %d iterations)", res.Iters)
	case optimize.Failure:
		lsErr := gerr
		if lsErr == nil {
			lsErr = status.Err()
		}
		if res.F < f0 || res.GradNorm <= gradTol*math.Max(1, math.Abs(res.F)) {
			res.Warning = lsErr
			return res, nil
		}
		return res, fmt.Errorf("optim: L-BFGS made no progress from the starting point (gradient norm %g): %w", res.GradNorm, lsErr)
	}
	if gerr != nil {
		return res, fmt.Errorf("optim: L-BFGS (status %v): %w", status, gerr)
	}
	return res, fmt.Errorf("optim: L-BFGS ended with unexpected status %v", status)
}

// gainConverge is LBFGSOptions.GainTol's test, after inner's: converged
// after the first major iteration whose decrease of the best value is at
// most tol·(f0 − best), f0 the value at the starting location (gonum's
// first major iteration), or (PredictGain) whose predicted next decrease
// is.
type gainConverge struct {
	tol      float64
	inner    optimize.Converger
	predict  func(grad []float64) float64
	first    bool
	f0, best float64
}

func (c *gainConverge) Init(dim int) {
	c.inner.Init(dim)
	c.first = true
}

func (c *gainConverge) Converged(l *optimize.Location) optimize.Status {
	if st := c.inner.Converged(l); st != optimize.NotTerminated {
		return st
	}
	f := l.F
	if c.first {
		c.first, c.f0, c.best = false, f, f
		return optimize.NotTerminated
	}
	dec := c.best - f
	if f < c.best {
		c.best = f
	}
	if !(dec > c.tol*(c.f0-c.best)) {
		return optimize.FunctionConvergence
	}
	if c.predict != nil && len(l.Gradient) > 0 && c.predict(l.Gradient) <= c.tol*(c.f0-c.best) {
		return optimize.FunctionConvergence
	}
	return optimize.NotTerminated
}

// lbfgsEval adapts a combined value+gradient objective to gonum's separate
// Func and Grad, caching the last point. It is used from one goroutine at a
// time (gonum's single worker, serialised with Problem.Status by channels).
type lbfgsEval struct {
	ctx   context.Context
	f     func(x, g []float64) float64
	calls int // calls of f

	cached bool
	cx     []float64 // cache key: copy of the last evaluated x
	cf     float64   // sanitised value at cx
	cg     []float64 // gradient at cx

	panicVal   any // non-nil once f has panicked
	panicStack []byte
}

// value implements optimize.Problem.Func.
func (e *lbfgsEval) value(x []float64) float64 {
	e.eval(x)
	return e.cf
}

// grad implements optimize.Problem.Grad.
func (e *lbfgsEval) grad(g, x []float64) {
	e.eval(x)
	copy(g, e.cg)
}

// eval fills the cache at x unless it already holds x. After a panic or a
// cancellation f is not called: the point gets value +Inf and a NaN
// gradient, and Problem.Status stops gonum right after this evaluation.
func (e *lbfgsEval) eval(x []float64) {
	if e.cached && floats.Equal(x, e.cx) {
		return
	}
	copy(e.cx, x)
	e.cached = true
	if e.panicVal != nil || e.ctx.Err() != nil {
		e.cf = math.Inf(1)
		for i := range e.cg {
			e.cg[i] = math.NaN()
		}
		return
	}
	v := e.call(x, e.cg)
	if math.IsNaN(v) {
		v = math.Inf(1)
	}
	if !math.IsInf(v, 1) {
		for _, gi := range e.cg {
			if math.IsNaN(gi) || math.IsInf(gi, 0) {
				v = math.Inf(1)
				break
			}
		}
	}
	e.cf = v
}

// call calls f once with a zeroed gradient buffer, recording a panic instead
// of letting it escape gonum's worker goroutine.
func (e *lbfgsEval) call(x, g []float64) (v float64) {
	e.calls++
	for i := range g {
		g[i] = 0
	}
	defer func() {
		if r := recover(); r != nil {
			e.panicVal = r
			e.panicStack = debug.Stack()
			v = math.Inf(1)
		}
	}()
	return e.f(x, g)
}

// panicValue is the value Minimize re-panics with after f panicked.
func (e *lbfgsEval) panicValue() error {
	if err, ok := e.panicVal.(error); ok {
		return fmt.Errorf("optim: objective function panicked: %w\n\n%s", err, e.panicStack)
	}
	return fmt.Errorf("optim: objective function panicked: %v\n\n%s", e.panicVal, e.panicStack)
}
