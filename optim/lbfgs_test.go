package optim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/maslda/maslda/optim"
)

// lbfgsRosenbrock is the chained (extended) Rosenbrock function, minimum 0
// at all-ones.
func lbfgsRosenbrock(x, g []float64) float64 {
	var sum float64
	for i := range g {
		g[i] = 0
	}
	for i := 0; i < len(x)-1; i++ {
		a := 1 - x[i]
		b := x[i+1] - x[i]*x[i]
		sum += a*a + 100*b*b
		if g != nil {
			g[i] += -2*a - 400*b*x[i]
			g[i+1] += 200 * b
		}
	}
	return sum
}

// lbfgsRosenStart is the standard starting point (-1.2, 1, -1.2, 1, ...).
func lbfgsRosenStart(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		if i%2 == 0 {
			x[i] = -1.2
		} else {
			x[i] = 1
		}
	}
	return x
}

func lbfgsOnes(n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 1
	}
	return x
}

// lbfgsQuadratic returns f(x) = c + ½xᵀAx − bᵀx and its gradient Ax − b.
func lbfgsQuadratic(a *mat.SymDense, b []float64, c float64) func(x, g []float64) float64 {
	n := len(b)
	return func(x, g []float64) float64 {
		ax := mat.NewVecDense(n, nil)
		ax.MulVec(a, mat.NewVecDense(n, x))
		f := c
		for i := range x {
			f += 0.5*x[i]*ax.AtVec(i) - b[i]*x[i]
			if g != nil {
				g[i] = ax.AtVec(i) - b[i]
			}
		}
		return f
	}
}

func TestMinimizeLBFGSRosenbrock(t *testing.T) {
	tests := []struct {
		name string
		dim  int
	}{
		{"2d", 2},
		{"10d", 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x0 := lbfgsRosenStart(tc.dim)
			x0copy := append([]float64(nil), x0...)
			res, err := optim.Minimize(context.Background(), lbfgsRosenbrock, x0, optim.LBFGSOptions{MaxIters: 1000, GradTol: 1e-8})
			if err != nil {
				t.Fatalf("Minimize: %v", err)
			}
			if diff := cmp.Diff(lbfgsOnes(tc.dim), res.X, cmpopts.EquateApprox(0, 1e-4)); diff != "" {
				t.Errorf("X mismatch (-want +got):\n%s\nresult: %+v", diff, res)
			}
			if res.HitLimit || res.Warning != nil {
				t.Errorf("HitLimit = %v, Warning = %v; want a clean convergence (status %s)", res.HitLimit, res.Warning, res.Status)
			}
			if diff := cmp.Diff(x0copy, x0); diff != "" {
				t.Errorf("x0 was modified (-want +got):\n%s", diff)
			}
			if res.Iters <= 0 || res.FuncEvals <= res.Iters {
				t.Errorf("Iters = %d, FuncEvals = %d: implausible counts", res.Iters, res.FuncEvals)
			}
			t.Logf("%s: status %s, iters %d, evals %d, f %g, |g| %g", tc.name, res.Status, res.Iters, res.FuncEvals, res.F, res.GradNorm)
		})
	}
}

func TestMinimizeLBFGSQuadratic(t *testing.T) {
	const n = 6
	// A = MᵀM + I is symmetric positive definite.
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m.Set(i, j, math.Sin(float64(3*i+7*j+1)))
		}
	}
	var mtm mat.Dense
	mtm.Mul(m.T(), m)
	a := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := mtm.At(i, j)
			if i == j {
				v++
			}
			a.SetSym(i, j, v)
		}
	}
	b := []float64{1, -2, 3, 0.5, -1, 2}

	var chol mat.Cholesky
	if !chol.Factorize(a) {
		t.Fatal("A is not positive definite")
	}
	var want mat.VecDense
	if err := chol.SolveVecTo(&want, mat.NewVecDense(n, b)); err != nil {
		t.Fatalf("solve: %v", err)
	}

	tests := []struct {
		name string
		c    float64
		opt  optim.LBFGSOptions
	}{
		{"default memory", 0, optim.LBFGSOptions{GradTol: 1e-10}},
		{"memory 2", 0, optim.LBFGSOptions{GradTol: 1e-10, Memory: 2, MaxIters: 500}},
		{"offset", 10, optim.LBFGSOptions{GradTol: 1e-10}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := optim.Minimize(context.Background(), lbfgsQuadratic(a, b, tc.c), make([]float64, n), tc.opt)
			if err != nil {
				t.Fatalf("Minimize: %v", err)
			}
			if diff := cmp.Diff(want.RawVector().Data, res.X, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("X mismatch (-want +got):\n%s\nresult: %+v", diff, res)
			}
			if res.HitLimit {
				t.Errorf("HitLimit = true, status %s", res.Status)
			}
		})
	}
}

func TestMinimizeLBFGSFuncTol(t *testing.T) {
	a := mat.NewSymDense(2, []float64{4, 1, 1, 3})
	b := []float64{1, 2}
	f := lbfgsQuadratic(a, b, 1000)
	res, err := optim.Minimize(context.Background(), f, []float64{5, -5}, optim.LBFGSOptions{GradTol: 1e-14, FuncTol: 1e-6})
	if err != nil {
		t.Fatalf("Minimize: %v", err)
	}
	if res.Status != "FunctionConvergence" {
		t.Errorf("Status = %q, want FunctionConvergence", res.Status)
	}
	if diff := cmp.Diff([]float64{1.0 / 11, 7.0 / 11}, res.X, cmpopts.EquateApprox(0, 1e-2)); diff != "" {
		t.Errorf("X mismatch (-want +got):\n%s", diff)
	}
}

func TestMinimizeLBFGSMaxIters(t *testing.T) {
	x0 := lbfgsRosenStart(2)
	f0 := lbfgsRosenbrock(x0, nil)
	res, err := optim.Minimize(context.Background(), lbfgsRosenbrock, x0, optim.LBFGSOptions{MaxIters: 2})
	if err != nil {
		t.Fatalf("Minimize: %v", err)
	}
	if !res.HitLimit {
		t.Errorf("HitLimit = false, want true (status %s)", res.Status)
	}
	if res.Status != "IterationLimit" {
		t.Errorf("Status = %q, want IterationLimit", res.Status)
	}
	if res.Iters != 2 {
		t.Errorf("Iters = %d, want 2", res.Iters)
	}
	if !(res.F <= f0) {
		t.Errorf("F = %g > f(x0) = %g", res.F, f0)
	}
	if got := lbfgsRosenbrock(res.X, nil); got != res.F {
		t.Errorf("F = %g but f(X) = %g", res.F, got)
	}
}

func TestMinimizeLBFGSCanceled(t *testing.T) {
	tests := []struct {
		name        string
		cancelAfter int // cancel inside f on this call; 0 = before Minimize
	}{
		{"before call", 0},
		{"at x0", 1},
		{"inside f", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			f := func(x, g []float64) float64 {
				calls++
				if calls == tc.cancelAfter {
					cancel()
				}
				return lbfgsRosenbrock(x, g)
			}
			if tc.cancelAfter == 0 {
				cancel()
			}
			x0 := lbfgsRosenStart(2)
			f0 := lbfgsRosenbrock(x0, nil)
			res, err := optim.Minimize(ctx, f, x0, optim.LBFGSOptions{})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if calls != tc.cancelAfter {
				t.Errorf("f called %d times, want %d (no calls after cancellation)", calls, tc.cancelAfter)
			}
			if res.FuncEvals != calls {
				t.Errorf("FuncEvals = %d, f called %d times", res.FuncEvals, calls)
			}
			if len(res.X) != len(x0) {
				t.Fatalf("len(X) = %d, want %d", len(res.X), len(x0))
			}
			if tc.cancelAfter > 0 && !(res.F <= f0) {
				t.Errorf("F = %g > f(x0) = %g", res.F, f0)
			}
		})
	}
}

func TestMinimizeLBFGSBadStart(t *testing.T) {
	tests := []struct {
		name string
		f    func(x, g []float64) float64
		want string
	}{
		{"NaN value", func(x, g []float64) float64 { return math.NaN() }, "NaN"},
		{"+Inf value", func(x, g []float64) float64 { return math.Inf(1) }, "+Inf"},
		{"-Inf value", func(x, g []float64) float64 { return math.Inf(-1) }, "-Inf"},
		{"NaN gradient", func(x, g []float64) float64 {
			for i := range g {
				g[i] = math.NaN()
			}
			return 1
		}, "gradient"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := optim.Minimize(context.Background(), tc.f, []float64{1, 2}, optim.LBFGSOptions{})
			if err == nil {
				t.Fatalf("err = nil, want an error; result %+v", res)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to mention %q", err, tc.want)
			}
		})
	}
	if _, err := optim.Minimize(context.Background(), lbfgsRosenbrock, nil, optim.LBFGSOptions{}); err == nil {
		t.Error("empty x0: err = nil, want an error")
	}
	if _, err := optim.Minimize(context.Background(), lbfgsRosenbrock, []float64{0, 0}, optim.LBFGSOptions{MaxIters: -1}); err == nil {
		t.Error("negative MaxIters: err = nil, want an error")
	}
}

// TestMinimizeLBFGSCache checks that f is never called twice in a row at
// the same x (gonum's Func-then-Grad pair is served from the cache).
func TestMinimizeLBFGSCache(t *testing.T) {
	var (
		calls   int
		repeats int
		last    []float64
	)
	f := func(x, g []float64) float64 {
		calls++
		if last != nil && floats.Equal(last, x) {
			repeats++
		}
		last = append(last[:0], x...)
		return lbfgsRosenbrock(x, g)
	}
	res, err := optim.Minimize(context.Background(), f, lbfgsRosenStart(4), optim.LBFGSOptions{MaxIters: 500})
	if err != nil {
		t.Fatalf("Minimize: %v", err)
	}
	if repeats != 0 {
		t.Errorf("f called %d times in a row at the same x (of %d calls)", repeats, calls)
	}
	if res.FuncEvals != calls {
		t.Errorf("FuncEvals = %d, f called %d times", res.FuncEvals, calls)
	}
}

// TestMinimizeLBFGSDomain checks that NaN values outside the domain make the
// line search back off instead of failing.
func TestMinimizeLBFGSDomain(t *testing.T) {
	// f(x) = Σ x_i − c_i log x_i, minimum at x = c, NaN for x_i < 0.
	c := []float64{0.5, 2, 7}
	f := func(x, g []float64) float64 {
		var s float64
		for i := range x {
			s += x[i] - c[i]*math.Log(x[i])
			if g != nil {
				g[i] = 1 - c[i]/x[i]
			}
		}
		return s
	}
	res, err := optim.Minimize(context.Background(), f, []float64{3, 3, 3}, optim.LBFGSOptions{GradTol: 1e-10})
	if err != nil {
		t.Fatalf("Minimize: %v", err)
	}
	if diff := cmp.Diff(c, res.X, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("X mismatch (-want +got):\n%s\nresult %+v", diff, res)
	}
}

// TestMinimizeLBFGSNoProgress uses a constant objective with a small,
// inconsistent gradient, so the line search fails without leaving x0. The
// failure is accepted exactly when ‖g‖∞ ≤ GradTol·max(1, |f|).
func TestMinimizeLBFGSNoProgress(t *testing.T) {
	tests := []struct {
		name    string
		value   float64
		wantErr bool
	}{
		{"gradient small relative to f", 100, false},
		{"gradient too large", 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := func(x, g []float64) float64 {
				for i := range g {
					g[i] = 1e-7
				}
				return tc.value
			}
			x0 := []float64{0.25, -0.5}
			res, err := optim.Minimize(context.Background(), f, x0, optim.LBFGSOptions{GradTol: 1e-8})
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Fatalf("err = %v, want error: %v (result %+v)", err, tc.wantErr, res)
			}
			if tc.wantErr {
				if res.Warning != nil {
					t.Errorf("Warning = %v alongside an error", res.Warning)
				}
			} else if res.Warning == nil {
				t.Errorf("Warning = nil, want the line-search error (status %s)", res.Status)
			}
			if res.Status != "Failure" {
				t.Errorf("Status = %q, want Failure", res.Status)
			}
			if diff := cmp.Diff(x0, res.X); diff != "" {
				t.Errorf("X mismatch (-want +got):\n%s", diff)
			}
			if res.F != tc.value {
				t.Errorf("F = %g, want %g", res.F, tc.value)
			}
		})
	}
}

func TestMinimizeLBFGSPanic(t *testing.T) {
	calls := 0
	f := func(x, g []float64) float64 {
		calls++
		if calls == 3 {
			panic("boom")
		}
		return lbfgsRosenbrock(x, g)
	}
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("Minimize did not panic")
		}
		if !strings.Contains(fmt.Sprint(r), "boom") {
			t.Errorf("panic value %v does not mention the original panic", r)
		}
		if calls != 3 {
			t.Errorf("f called %d times after panicking on call 3", calls)
		}
	}()
	optim.Minimize(context.Background(), f, lbfgsRosenStart(2), optim.LBFGSOptions{})
}

func ExampleMinimize() {
	// f(x) = ½xᵀAx − bᵀx with A = [[4, 1], [1, 3]] and b = (1, 2);
	// the minimum solves Ax = b: x = (1/11, 7/11).
	f := func(x, g []float64) float64 {
		ax0 := 4*x[0] + 1*x[1]
		ax1 := 1*x[0] + 3*x[1]
		if g != nil {
			g[0] = ax0 - 1
			g[1] = ax1 - 2
		}
		return 0.5*(x[0]*ax0+x[1]*ax1) - (1*x[0] + 2*x[1])
	}
	res, err := optim.Minimize(context.Background(), f, []float64{0, 0}, optim.LBFGSOptions{})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("x = %.3f, f = %.3f\n", res.X, res.F)
	// Output:
	// x = [0.091 0.636], f = -0.682
}

// separableLogistic is the negative log-likelihood of a logistic
// regression on separable data plus a small ridge, (μ/2)‖x‖²: its optimum
// is far out along the separating direction, where the objective is nearly
// flat (the softmax M-step's situation).
func separableLogistic(n, dim int, mu float64) func(x, g []float64) float64 {
	rng := rand.New(rand.NewPCG(27, 2))
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, dim)
		for k := range a[i] {
			a[i][k] = rng.NormFloat64()
		}
		if a[i][0] < 0 { // the label is the sign of the first feature: separable
			for k := range a[i] {
				a[i][k] = -a[i][k]
			}
		}
	}
	return func(x, g []float64) float64 {
		f := 0.0
		for k := range g {
			g[k] = mu * x[k]
		}
		for k := range x {
			f += 0.5 * mu * x[k] * x[k]
		}
		for _, ai := range a {
			z := floats.Dot(ai, x)
			f += math.Log1p(math.Exp(-z))
			if g != nil {
				w := -1 / (1 + math.Exp(z))
				floats.AddScaled(g, w, ai)
			}
		}
		return f
	}
}

// GainTol stops a solve that crawls (status FunctionConvergence) with the
// objective lowered, and solves restarted where the previous one stopped
// (a generalised EM's M-steps on unchanged statistics) go on lowering it to
// the optimum of the full solve.
func TestMinimizeLBFGSGainTol(t *testing.T) {
	f := separableLogistic(200, 10, 1e-4)
	x0 := make([]float64, 10)
	ctx := context.Background()
	full, err := optim.Minimize(ctx, f, x0, optim.LBFGSOptions{MaxIters: 5000, GradTol: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	f0 := f(x0, nil)
	x, prev := x0, f0
	for round := 1; ; round++ {
		res, err := optim.Minimize(ctx, f, x, optim.LBFGSOptions{MaxIters: 5000, GradTol: 1e-10, GainTol: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		if res.F > prev {
			t.Fatalf("round %d: f %.17g after %.17g: a solve raised the objective", round, res.F, prev)
		}
		if round == 1 {
			t.Logf("full solve: %d iterations to f %.12g; with GainTol 0.01: %d iterations to %.12g (status %s)", full.Iters, full.F, res.Iters, res.F, res.Status)
			if res.Status != "FunctionConvergence" || !(res.F < f0) || res.Iters >= full.Iters {
				t.Fatalf("round 1: status %s, f %.12g from %.12g in %d iterations (the full solve: %d); want a shorter solve that lowered f, stopped by GainTol",
					res.Status, res.F, f0, res.Iters, full.Iters)
			}
			// The rule itself: the solve stops at the first iteration k
			// whose gain f_{k−1} − f_k is at most 0.01·(f0 − f_k), the
			// values f_k read from the same solve capped at k iterations.
			fk := []float64{f0}
			for k := 1; k <= res.Iters; k++ {
				capped, err := optim.Minimize(ctx, f, x0, optim.LBFGSOptions{MaxIters: k, GradTol: 1e-10})
				if err != nil && capped.Iters != k {
					t.Fatal(err)
				}
				fk = append(fk, capped.F)
			}
			if fk[res.Iters] != res.F {
				t.Fatalf("the solve capped at %d iterations ends at %.17g, the GainTol solve at %.17g: not the same path", res.Iters, fk[res.Iters], res.F)
			}
			for k := 1; k <= res.Iters; k++ {
				if stop := fk[k-1]-fk[k] <= 0.01*(f0-fk[k]); stop != (k == res.Iters) {
					t.Errorf("iteration %d of %d: gain %.3g against 0.01 × %.3g: the rule says stop = %v", k, res.Iters, fk[k-1]-fk[k], f0-fk[k], stop)
				}
			}
		}
		if res.F-full.F <= 1e-9*math.Abs(full.F) {
			t.Logf("restarted solves reach the full solve's optimum after %d rounds", round)
			break
		}
		if round == 200 {
			t.Fatalf("after %d restarted solves f = %.15g, the full solve's %.15g", round, res.F, full.F)
		}
		x, prev = res.X, res.F
	}
	for _, bad := range []float64{-0.1, math.NaN(), math.Inf(1)} {
		if _, err := optim.Minimize(ctx, f, x0, optim.LBFGSOptions{GainTol: bad}); err == nil {
			t.Errorf("GainTol %v: no error", bad)
		}
	}
}

// PredictGain stops a solve at an iterate whose predicted next decrease is
// at most GainTol times the decrease so far, and only there: on a
// quadratic ½xᵀAx − bᵀx with the exact prediction ½gᵀA⁻¹g (A diagonal) the
// solve stops earlier than with GainTol alone, never raises the objective,
// and where it stops the prediction is below the threshold; a prediction
// that is always +Inf changes nothing.
func TestMinimizeLBFGSPredictGain(t *testing.T) {
	a := []float64{1, 3, 10, 30, 100}
	b := []float64{1, -2, 3, -4, 5}
	f := func(x, g []float64) float64 {
		v := 0.0
		for i, xi := range x {
			v += 0.5*a[i]*xi*xi - b[i]*xi
			if g != nil {
				g[i] = a[i]*xi - b[i]
			}
		}
		return v
	}
	pred := func(g []float64) float64 {
		q := 0.0
		for i, gi := range g {
			q += gi * gi / a[i]
		}
		return q / 2
	}
	ctx := context.Background()
	x0 := make([]float64, len(a))
	f0 := f(x0, nil)
	opt := optim.LBFGSOptions{MaxIters: 100, GradTol: 1e-12, GainTol: 0.01}
	plain, err := optim.Minimize(ctx, f, x0, opt)
	if err != nil {
		t.Fatal(err)
	}
	never := opt
	never.PredictGain = func([]float64) float64 { return math.Inf(1) }
	same, err := optim.Minimize(ctx, f, x0, never)
	if err != nil {
		t.Fatal(err)
	}
	if same.F != plain.F || same.Iters != plain.Iters || same.FuncEvals != plain.FuncEvals {
		t.Errorf("PredictGain = +Inf: f %v in %d iterations, without: %v in %d", same.F, same.Iters, plain.F, plain.Iters)
	}
	opt.PredictGain = pred
	res, err := optim.Minimize(ctx, f, x0, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GainTol 0.01: %d iterations, %d evaluations, f %.12g; with PredictGain: %d, %d, f %.12g", plain.Iters, plain.FuncEvals, plain.F, res.Iters, res.FuncEvals, res.F)
	if res.Status != "FunctionConvergence" || !(res.F < f0) || res.Iters >= plain.Iters {
		t.Fatalf("with PredictGain: status %s, %d iterations (without: %d), f %v from %v", res.Status, res.Iters, plain.Iters, res.F, f0)
	}
	g := make([]float64, len(a))
	f(res.X, g)
	if p := pred(g); p > 0.01*(f0-res.F) {
		t.Errorf("stopped where the predicted gain %g is above 0.01 × %g", p, f0-res.F)
	}
}
