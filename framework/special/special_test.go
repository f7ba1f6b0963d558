package special

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mathext"
)

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(1, math.Abs(b)) }

// Known values: ψ'(1) = π²/6, ψ'(½) = π²/2, ψ'(2) = π²/6 − 1, ψ'(x) ≈ 1/x
// for large x; and a central difference of gonum's Digamma.
func TestTrigamma(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{1, math.Pi * math.Pi / 6},
		{0.5, math.Pi * math.Pi / 2},
		{2, math.Pi*math.Pi/6 - 1},
		{3.5, math.Pi*math.Pi/2 - 4 - 4.0/9 - 4.0/25},
	} {
		if got := Trigamma(c.x); !near(got, c.want, 1e-13) {
			t.Errorf("Trigamma(%v) = %.16g, want %.16g", c.x, got, c.want)
		}
	}
	for _, x := range []float64{0.01, 0.3, 5.9, 9.99, 10, 17, 1e3, 1e7} {
		h := 1e-4 * x
		fd := (Digamma(x+h) - Digamma(x-h)) / (2 * h)
		if got := Trigamma(x); math.Abs(got-fd) > 1e-7*got {
			t.Errorf("Trigamma(%v) = %.12g, central difference of Digamma %.12g", x, got, fd)
		}
	}
	if !math.IsNaN(Trigamma(0)) || !math.IsNaN(Trigamma(-1)) || Trigamma(math.Inf(1)) != 0 {
		t.Error("Trigamma outside its domain")
	}
}

// Known values: ψ(1) = −γ, ψ(½) = −γ − 2 ln 2, ψ(n + 1) = −γ + H_n; the
// recurrence; within 1e-10 of gonum's.
func TestDigamma(t *testing.T) {
	const g = 0.5772156649015329
	for _, c := range []struct{ x, want float64 }{
		{1, -g}, {0.5, -g - 2*math.Ln2}, {4, -g + 1 + 0.5 + 1.0/3}, {10, -g + 7129.0/2520},
	} {
		if got := Digamma(c.x); !near(got, c.want, 2e-15) {
			t.Errorf("Digamma(%v) = %.17g, want %.17g", c.x, got, c.want)
		}
	}
	for _, x := range []float64{1e-3, 0.7, 9.5, 10.5, 123.4, 1e6} {
		if d := Digamma(x+1) - Digamma(x) - 1/x; math.Abs(d) > 1e-14*math.Max(1, 1/x) {
			t.Errorf("ψ(%v + 1) − ψ(%v) − 1/x = %v", x, x, d)
		}
		if d := Digamma(x) - mathext.Digamma(x); math.Abs(d) > 1e-10*math.Max(1, 1/x) {
			t.Errorf("Digamma(%v) − gonum's = %v", x, d)
		}
	}
}

func TestInvDigamma(t *testing.T) {
	for _, x := range []float64{1e-4, 0.01, 0.5, 1, 1.4616321449683622, 3, 47, 1e5} {
		if got := InvDigamma(Digamma(x)); !near(got, x, 1e-13) {
			t.Errorf("InvDigamma(ψ(%v)) = %.16g", x, got)
		}
	}
}

func TestLgammaDiff(t *testing.T) {
	for _, a := range []float64{0.3, 5, 20, 25.5, 100, 1e3} {
		for _, x := range []float64{0, 0.5, 1, 7.25, 40} {
			u, _ := math.Lgamma(a + x)
			v, _ := math.Lgamma(a)
			if got := LgammaDiff(a, x); !near(got, u-v, 1e-12) {
				t.Errorf("LgammaDiff(%v, %v) = %.15g, lnΓ difference %.15g", a, x, got, u-v)
			}
		}
	}
	// At a = 10⁶, x = 3: ln(a(a+1)(a+2)) exactly.
	a := 1e6
	if got, want := LgammaDiff(a, 3), math.Log(a)+math.Log(a+1)+math.Log(a+2); !near(got, want, 1e-14) {
		t.Errorf("LgammaDiff(1e6, 3) = %.16g, want %.16g", got, want)
	}
}

func TestLogBeta(t *testing.T) {
	// B(1, 1) = 1, B(2, 3) = 1/12, B(½, ½) = π, B(1, 1, 1) = ½.
	for _, c := range []struct {
		a    []float64
		want float64
	}{{[]float64{1, 1}, 0}, {[]float64{2, 3}, -math.Log(12)}, {[]float64{0.5, 0.5}, math.Log(math.Pi)}, {[]float64{1, 1, 1}, -math.Log(2)}} {
		if got := LogBeta(c.a); !near(got, c.want, 1e-14) {
			t.Errorf("LogBeta(%v) = %v, want %v", c.a, got, c.want)
		}
	}
}

func TestLogSumExp(t *testing.T) {
	if got := LogSumExp([]float64{1000, 1000}); !near(got, 1000+math.Ln2, 1e-15) {
		t.Errorf("LogSumExp(1000, 1000) = %v", got)
	}
	if got := LogSumExp([]float64{-1000, math.Log(3) - 1000}); !near(got, math.Log(4)-1000, 1e-15) {
		t.Errorf("LogSumExp(−1000, ln 3 − 1000) = %v", got)
	}
	if !math.IsInf(LogSumExp(nil), -1) || !math.IsInf(LogSumExp([]float64{1, math.Inf(1)}), 1) {
		t.Error("LogSumExp of nothing or of +Inf")
	}
	x := []float64{0.3, -2, 1.7}
	p := make([]float64, 3)
	z := Softmax(p, x)
	for i := range x {
		h := 1e-6
		up := append([]float64(nil), x...)
		up[i] += h
		dn := append([]float64(nil), x...)
		dn[i] -= h
		if fd := (LogSumExp(up) - LogSumExp(dn)) / (2 * h); !near(p[i], fd, 1e-8) {
			t.Errorf("Softmax[%d] = %v, ∂LogSumExp/∂x_%d = %v", i, p[i], i, fd)
		}
	}
	if z != LogSumExp(x) {
		t.Errorf("Softmax returned %v, LogSumExp %v", z, LogSumExp(x))
	}
}

func TestNewton1D(t *testing.T) {
	calls := 0
	f := func(x float64) float64 { calls++; return 2 - x*x }
	fp := func(x float64) float64 { return -2 * x }
	if got := Newton1D(f, fp, 0, 10, 9, 1e-15); !near(got, math.Sqrt2, 1e-14) {
		t.Errorf("root of 2 − x² = %.16g", got)
	}
	if calls > 30 {
		t.Errorf("%d evaluations for a smooth root", calls)
	}
	// A derivative of the wrong sign falls back to bisection and still
	// converges.
	if got := Newton1D(f, func(float64) float64 { return 1 }, 0, 10, 1, 1e-13); !near(got, math.Sqrt2, 1e-12) {
		t.Errorf("with a useless derivative: %.16g", got)
	}
	// No sign change: the end nearer a root.
	if got := Newton1D(f, fp, 2, 5, 3, 1e-12); got != 2 {
		t.Errorf("no sign change: %v, want the end 2", got)
	}
}

func ExampleInvDigamma() {
	x := InvDigamma(Digamma(2.5))
	fmt.Printf("%.6f\n", x)
	// Output: 2.500000
}
