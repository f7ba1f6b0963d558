package softmax

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/maslda/maslda/framework"
)

// fdHessian is the central-difference Hessian of −data at eta (n×n), from
// data's gradient.
func fdHessian(s *Softmax, recs []docView[float32], eta []float64) []float64 {
	n := len(eta)
	H := make([]float64, n*n)
	x := append([]float64(nil), eta...)
	gp, gm := make([]float64, n), make([]float64, n)
	const h = 1e-5
	for j := 0; j < n; j++ {
		x[j] = eta[j] + h
		s.data(x, recs, nil, gp)
		x[j] = eta[j] - h
		s.data(x, recs, nil, gm)
		x[j] = eta[j]
		for i := 0; i < n; i++ {
			H[i*n+j] = -(gp[i] - gm[i]) / (2 * h)
		}
	}
	return H
}

// builtHessian is Σ_d Ĥ_d at eta, symmetrised (hessian fills the lower
// triangle), and data's value and gradient from the same pass.
func builtHessian(s *Softmax, recs []docView[float32], eta []float64) ([]float64, float64, []float64) {
	n := s.C * s.K
	hs := newHessRecs(len(recs), s.C, s.K)
	g := make([]float64, n)
	v := s.dataHess(eta, recs, nil, g, hs)
	H := hs.hessian(1, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			H[i*n+j] = H[j*n+i]
		}
	}
	return H, v, g
}

// The preconditioner's Σ_d Ĥ_d is the Hessian of −data exactly where
// Jensen's step is an equality (documents of one distinct word: every
// token's r_dv is the same), and an upper bound of it otherwise (Ĥ − H
// positive semidefinite, not zero); dataHess's value and gradient are
// data's, bit for bit.
func TestPrecondHessian(t *testing.T) {
	const C, K = 3, 4
	n := C * K
	for _, oneWord := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(27, 6))
		s := testSoftmax(t, C, K, 1, rng)
		L := 6
		if oneWord {
			L = 1
		}
		recs := randomRecs(rng, 2*chunkSize+5, L, K, C)
		if oneWord {
			// lengths 1..7, a one-token document's η/N_d the largest
			for i := range recs {
				recs[i].doc.Counts[0] = float64(1 + i%7)
				recs[i].doc.N = recs[i].doc.Counts[0]
			}
		}
		Hb, v, g := builtHessian(s, recs, s.Eta)
		g2 := make([]float64, n)
		if v2 := s.data(s.Eta, recs, nil, g2); v2 != v || !cmp.Equal(g, g2) {
			t.Fatalf("dataHess's value/gradient differ from data's: %v %v", v, v2)
		}
		Hf := fdHessian(s, recs, s.Eta)
		diff := mat.NewSymDense(n, nil)
		maxAbs, maxDiff := 0.0, 0.0
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				d := Hb[i*n+j] - (Hf[i*n+j]+Hf[j*n+i])/2
				diff.SetSym(i, j, d)
				maxAbs = math.Max(maxAbs, math.Abs(Hf[i*n+j]))
				maxDiff = math.Max(maxDiff, math.Abs(d))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(diff, false) {
			t.Fatal("eigendecomposition failed")
		}
		vals := eig.Values(nil)
		tol := 1e-6 * maxAbs
		t.Logf("one distinct word %v: max |H| %.4g, max |Ĥ − H| %.4g, eigenvalues of Ĥ − H in [%.4g, %.4g]", oneWord, maxAbs, maxDiff, vals[0], vals[n-1])
		if vals[0] < -tol {
			t.Errorf("one distinct word %v: Ĥ − H has eigenvalue %g < 0: not an upper bound", oneWord, vals[0])
		}
		if oneWord && maxDiff > tol {
			t.Errorf("documents of one distinct word: |Ĥ − H| up to %g, want exact (tol %g)", maxDiff, tol)
		}
		if !oneWord && !(vals[n-1] > 100*tol) {
			t.Errorf("documents of several words: Ĥ − H has largest eigenvalue %g: the test does not see the bound's slack", vals[n-1])
		}
	}
}

// fitGem returns a softmax with the given gain_tol and precondition and the
// statistics of gemProblem.
func fitGem(t *testing.T, gain float64, precond string, workers int) (*Softmax, *Stats) {
	t.Helper()
	setup, docs := gemProblem(t)
	l, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := l.(*Softmax)
	s.params.GainTol, s.params.MaxIters, s.params.GradTol = &gain, 1000, 1e-10
	s.precond = precond != "none"
	s.SetWorkers(workers)
	if err := s.Init(setup); err != nil {
		t.Fatal(err)
	}
	st := s.NewStats().(*Stats)
	for _, d := range docs {
		s.Accumulate(st, d)
	}
	return s, st
}

// The preconditioned M-step never lowers the bound, M-steps repeated on
// the same statistics reach the maximum of a full unpreconditioned solve
// (with gain_tol and without), and its results are the same bits on any
// number of goroutines.
func TestPrecondMStep(t *testing.T) {
	ctx, step := context.Background(), framework.BatchStep(1)
	full, fst := fitGem(t, 0, "none", 1)
	start := full.ELBO(fst, step)
	if err := full.Update(ctx, fst, step); err != nil {
		t.Fatal(err)
	}
	best := full.ELBO(fst, step)
	t.Logf("unpreconditioned full solve: %.12g → %.12g, %d evaluations", start, best, full.LastSolve().Evals)
	for _, gain := range []float64{0, DefaultGainTol} {
		var first []float64
		for _, workers := range []int{1, 3} {
			s, st := fitGem(t, gain, "hessian", workers)
			prev, evals := start, 0
			for round := 1; ; round++ {
				if err := s.Update(ctx, st, step); err != nil {
					t.Fatal(err)
				}
				e := s.ELBO(st, step)
				evals += s.LastSolve().Evals
				if round == 1 {
					if workers == 1 {
						first = append([]float64(nil), s.Eta...)
					} else if d := cmp.Diff(first, s.Eta); d != "" {
						t.Fatalf("gain_tol %g: η after the first M-step, %d goroutines against 1:\n%s", gain, workers, d)
					}
					t.Logf("gain_tol %g: first preconditioned M-step %.12g (%d evaluations, %s)", gain, e, s.LastSolve().Evals, s.LastSolve().Status)
				}
				if e < prev {
					t.Fatalf("gain_tol %g: M-step %d lowered the bound: %.17g after %.17g", gain, round, e, prev)
				}
				if e > best+1e-9*math.Abs(best) {
					t.Fatalf("gain_tol %g: M-step %d: bound %.17g above the full solve's maximum %.17g", gain, round, e, best)
				}
				if best-e <= 1e-9*math.Abs(best) {
					t.Logf("gain_tol %g, %d goroutines: the maximum after %d M-steps, %d evaluations", gain, workers, round, evals)
					break
				}
				if round == 100 {
					t.Fatalf("gain_tol %g: after %d M-steps the bound is %.17g, the full solve's %.17g", gain, round, e, best)
				}
				prev = e
			}
		}
	}
}

// With text_l2 ≠ l2 the penalty's Hessian is not μI; the preconditioned
// M-step still reaches the unpreconditioned one's maximum.
func TestPrecondTextL2(t *testing.T) {
	ctx, step := context.Background(), framework.BatchStep(1)
	var out [2]float64
	for i, pc := range []string{"none", "hessian"} {
		s, st := fitGem(t, 0, pc, 1)
		s.MuText = 0.5
		if err := s.Update(ctx, st, step); err != nil {
			t.Fatal(err)
		}
		out[i] = s.ELBO(st, step)
	}
	if math.Abs(out[0]-out[1]) > 1e-9*math.Abs(out[0]) {
		t.Errorf("text_l2 0.5: preconditioned maximum %.15g, unpreconditioned %.15g", out[1], out[0])
	}
}

func TestPrecondValidate(t *testing.T) {
	if err := (Params{Precondition: "newton"}).Validate(); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("precondition = newton: error %v, want ErrBadInput", err)
	}
	for _, v := range []string{"", "none", "hessian"} {
		if err := (Params{Precondition: v}).Validate(); err != nil {
			t.Errorf("precondition = %q: %v", v, err)
		}
	}
}

// Above maxPrecondDim (C·K) the M-step is plain L-BFGS: the same bits as
// precondition = "none".
func TestPrecondFallback(t *testing.T) {
	const C, K = 2, maxPrecondDim/2 + 1
	ctx, step := context.Background(), framework.BatchStep(1)
	var etas [2][]float64
	for i, pc := range []string{"none", "hessian"} {
		rng := rand.New(rand.NewPCG(27, 7))
		s := testSoftmax(t, C, K, 0, rng)
		s.precond = pc == "hessian"
		if s.usePrecond(10) {
			t.Fatalf("C·K = %d: usePrecond true", C*K)
		}
		st := s.NewStats().(*Stats)
		for range 10 {
			s.Accumulate(st, randomDocState(rng, K, C, 8, 3))
		}
		if err := s.Update(ctx, st, step); err != nil {
			t.Fatal(err)
		}
		etas[i] = s.Eta
	}
	if allZero(etas[0]) {
		t.Fatal("the M-step left η at 0: nothing compared")
	}
	if d := cmp.Diff(etas[0], etas[1]); d != "" {
		t.Errorf("C·K = %d: precondition hessian against none:\n%s", C*K, d)
	}
}

// hessianSyrk is hessian as gonum's Dsyrk computes it, batch by batch
// (the code before the rows were split among goroutines).
func hessianSyrk(hs *hessRecs) []float64 {
	C, K := hs.C, hs.K
	n := C * K
	H := make([]float64, n*n)
	D := len(hs.n)
	B := make([]float64, hessBatch*K)
	for d0 := 0; d0 < D; d0 += hessBatch {
		nb := min(hessBatch, D-d0)
		blas64.Syrk(blas.Trans, -1, blas64.General{Rows: nb, Cols: n, Stride: n, Data: hs.u[d0*n : (d0+nb)*n]},
			1, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: H})
		for l := 0; l < C; l++ {
			for j := 0; j < nb; j++ {
				d := d0 + j
				row := B[j*K : (j+1)*K]
				pl, N := hs.p[d*C+l], hs.n[d]
				if !(pl > 0) || !(N > 0) {
					clear(row)
					continue
				}
				a := math.Sqrt((1 - 1/N) / pl)
				for k, x := range hs.u[d*n+l*K : d*n+(l+1)*K] {
					row[k] = a * x
				}
			}
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: nb, Cols: K, Stride: K, Data: B[:nb*K]},
				1, blas64.Symmetric{Uplo: blas.Lower, N: K, Stride: n, Data: H[l*K*n+l*K:]})
			for j := 0; j < nb; j++ {
				d := d0 + j
				N := hs.n[d]
				if !(N > 0) {
					continue
				}
				for k, x := range hs.u[d*n+l*K : d*n+(l+1)*K] {
					H[(l*K+k)*n+l*K+k] += x / N
				}
			}
		}
	}
	return H
}

// hessian's strips of rows give, for any number of goroutines, the bits of
// gonum's Dsyrk over the same batches of documents (documents of length
// 0 and 1 included: no curvature, and 1 − 1/N_d = 0).
func TestHessianRows(t *testing.T) {
	for _, tc := range []struct{ C, K, D int }{{3, 4, 2*hessBatch + 5}, {20, 20, 150}, {2, 1, 3}, {5, 7, hessBatch}} {
		rng := rand.New(rand.NewPCG(uint64(tc.C), uint64(tc.D)))
		s := testSoftmax(t, tc.C, tc.K, 1, rng)
		recs := randomRecs(rng, tc.D, 5, tc.K, tc.C)
		hs := newHessRecs(len(recs), tc.C, tc.K)
		g := make([]float64, tc.C*tc.K)
		s.dataHess(s.Eta, recs, nil, g, hs)
		hs.n[0] = 0
		if len(recs) > 2 {
			hs.n[2] = 1
		}
		want := hessianSyrk(hs)
		// A buffer that holds numbers already (the M-step's, kept from the
		// last one) is filled as a new one.
		buf := make([]float64, len(want))
		for i := range buf {
			buf[i] = math.NaN()
		}
		for _, nw := range []int{1, 2, 3, 8, 1000} {
			got := hs.hessian(nw, buf)
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("C %d K %d D %d, %d goroutines: H[%d] = %v, Dsyrk's %v", tc.C, tc.K, tc.D, nw, i, got[i], want[i])
				}
			}
		}
	}
}
