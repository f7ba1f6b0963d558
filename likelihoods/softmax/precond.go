package softmax

import (
	"context"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/maslda/maslda/framework/special"
	"github.com/maslda/maslda/optim"
)

/*
The preconditioned batch M-step (precondition = "hessian"; issue 27).

Under the product bound the data term of document d is
λ_d·ηφ̄_d − log Σ_l B_dl(η), log B_dl = Σ_v n_dv log(φ_dv·h_l),
h_l = exp(η_l/N_d). With p_dl = B_dl/Σ_t B_dt, r_dvl = φ_dv∘h_l/(φ_dv·h_l)
(a distribution over the topics) and g_dl = (1/N_d) Σ_v n_dv r_dvl, the
Hessian of log Σ_l B_dl is

	Σ_l p_dl ∇² log B_dl + Cov_p(∇ log B_dl),
	∇² log B_dl = (1/N_d²) Σ_v n_dv (Diag r_dvl − r_dvl r_dvlᵀ)  (class block l),
	Cov_p = Blockdiag_l(p_dl g_dl g_dlᵀ) − u_d u_dᵀ,  u_d = (p_dl g_dl)_l.

The first term, the product bound's own curvature, is of order 1/N_d:
large on short documents, where a preconditioner from the linearised
bound's logistic Hessian alone (the covariance with g_dl ≈ φ̄_d) left the
problem badly scaled (docs/performance.md, fifth session). By Jensen,
(1/N_d) Σ_v n_dv r r ᵀ ⪰ g gᵀ, so ∇² log B_dl ⪯ (1/N_d)(Diag g_dl − g_dl g_dlᵀ)
and

	Ĥ_d = Blockdiag_l( p_dl [ (1/N_d) Diag g_dl + (1 − 1/N_d) g_dl g_dlᵀ ] ) − u_d u_dᵀ

bounds the Hessian from above at the point where p and g are taken,
from quantities an evaluation computes anyway (g_dlk = h̃_lk G_lk / N_d).
The M-step builds H = (S Σ_d Ĥ_d + ∇²penalty)/W at its start η₀ (from the
evaluation at η₀: one pass over the documents, plus O(D·(CK)²/2) for the
sums and O((CK)³/3) for the Cholesky factor H = LLᵀ) and runs L-BFGS on v
with η = η₀ + c·L⁻ᵀv, c = ‖L⁻¹∇f(η₀)‖₂: gonum's first trial step (unit
length along −∇_v) is then the Newton step −H⁻¹∇f(η₀), and the
preconditioned problem's curvature is near the identity. The objective's
values are the unpreconditioned one's (the same η), so the solve keeps
every guarantee of Minimize (never worse than η₀) and the gain test's
meaning; grad_tol applies to ‖L⁻¹∇f‖∞ (the Newton decrement's
components) instead of ‖∇f‖∞.
*/

// maxPrecondDim bounds C·K for the preconditioner (its Cholesky factor is
// O((CK)³/3), its sums O(D·(CK)²/2)); above it the M-step is plain L-BFGS.
const maxPrecondDim = 1024

// maxPrecondRecs bounds D·C·K, the float64 the preconditioner keeps per
// document (u_d); above it the M-step is plain L-BFGS.
const maxPrecondRecs = 1 << 23

// hessRecs holds what the preconditioner needs of every document at one η:
// u_d = (p_dl g_dl)_l (C×K), p_d (C) and N_d.
type hessRecs struct {
	C, K int
	u, p []float64
	n    []float64
}

func newHessRecs(D, C, K int) *hessRecs {
	return &hessRecs{C: C, K: K, u: make([]float64, D*C*K), p: make([]float64, D*C), n: make([]float64, D)}
}

// record stores document i's u and p from sc after evalDoc(eta, ..., sc,
// grad ≠ nil) on it (N its length; N ≤ 0: no curvature, p = 0).
func (hs *hessRecs) record(i int, eta []float64, N float64, sc *evalScratch) {
	C, K := hs.C, hs.K
	u, p := hs.u[i*C*K:(i+1)*C*K], hs.p[i*C:(i+1)*C]
	hs.n[i] = N
	if !(N > 0) {
		clear(u)
		clear(p)
		return
	}
	h, _ := sc.hm(eta, N)
	logZ := special.LogSumExp(sc.logB)
	invN := 1 / N
	for l := 0; l < C; l++ {
		pl := math.Exp(sc.logB[l] - logZ)
		p[l] = pl
		for k := 0; k < K; k++ {
			i := l*K + k
			u[i] = pl * h[i] * sc.G[i] * invN
		}
	}
}

// hessian returns Σ_d Ĥ_d (the package comment), n×n with n = C·K,
// row-major, its lower triangle filled, summed in document order
// (bit-identical for any number of goroutines).
func (hs *hessRecs) hessian() []float64 {
	C, K := hs.C, hs.K
	n := C * K
	H := make([]float64, n*n)
	D := len(hs.n)
	const batch = 64
	U := make([]float64, batch*n)
	B := make([]float64, batch*K)
	for d0 := 0; d0 < D; d0 += batch {
		nb := min(batch, D-d0)
		// −Σ u_d u_dᵀ
		copy(U, hs.u[d0*n:(d0+nb)*n])
		blas64.Syrk(blas.Trans, -1, blas64.General{Rows: nb, Cols: n, Stride: n, Data: U[:nb*n]},
			1, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: H})
		for l := 0; l < C; l++ {
			// Σ p_dl(1 − 1/N_d) g_dl g_dlᵀ on block l: rows √((1 − 1/N_d)/p_dl)·u_dl
			for j := 0; j < nb; j++ {
				d := d0 + j
				row := B[j*K : (j+1)*K]
				pl, N := hs.p[d*C+l], hs.n[d]
				ul := hs.u[d*n+l*K : d*n+(l+1)*K]
				if !(pl > 0) || !(N > 0) {
					clear(row)
					continue
				}
				a := math.Sqrt((1 - 1/N) / pl)
				for k, x := range ul {
					row[k] = a * x
				}
			}
			blas64.Syrk(blas.Trans, 1, blas64.General{Rows: nb, Cols: K, Stride: K, Data: B[:nb*K]},
				1, blas64.Symmetric{Uplo: blas.Lower, N: K, Stride: n, Data: H[l*K*n+l*K:]})
			// Σ (1/N_d) u_dl on block l's diagonal
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

// usePrecond reports whether a batch M-step on D documents is
// preconditioned.
func (s *Softmax) usePrecond(D int) bool {
	n := s.C * s.K
	return s.precond && !s.quad && D > 0 && n <= maxPrecondDim && D*n <= maxPrecondRecs
}

// penaltyHessian adds the Hessian of penalty/2 (Softmax.penalty) to H (n×n
// lower triangle): μ I when μ_t = μ, else per class block
// μ_t(I − J/K) + μ J/K.
func (s *Softmax) penaltyHessian(H []float64, scale float64) {
	C, K := s.C, s.K
	n := C * K
	mu, mt := s.Mu, s.MuText
	for l := 0; l < C; l++ {
		for i := 0; i < K; i++ {
			r := l*K + i
			if mt == mu {
				H[r*n+r] += scale * mu
				continue
			}
			for j := 0; j <= i; j++ {
				v := (mu - mt) / float64(K)
				if i == j {
					v += mt
				}
				H[r*n+l*K+j] += scale * v
			}
		}
	}
}

// solvePrecond is a batch M-step's solve preconditioned by the bound's
// Hessian (the package comment): it returns Minimize's result in η and the
// number of evaluations (the one at η₀ that builds the preconditioner
// included), or ok = false when the Hessian has no Cholesky factor (the
// caller then solves unpreconditioned).
func (s *Softmax) solvePrecond(ctx context.Context, recs []docView[float32], scale float64, opt optim.LBFGSOptions, memo *dataMemo) (res optim.LBFGSResult, ok bool, err error) {
	C, K := s.C, s.K
	n := C * K
	W := objectiveWeight(len(recs), scale)
	eta0 := append([]float64(nil), s.Eta...)
	f := s.objective(recs, nil, scale, memo)
	hs := newHessRecs(len(recs), C, K)
	g0 := make([]float64, n)
	// f0 and g0 as objective computes them (the same data, bit for bit).
	pg := make([]float64, n)
	v0 := s.dataHess(eta0, recs, nil, g0, hs)
	memo.put(eta0, v0)
	pen := s.penalty(eta0, pg)
	for i := range g0 {
		g0[i] = -(scale*g0[i] - pg[i]) / W
	}
	f0 := -(scale*v0 - 0.5*pen) / W
	H := hs.hessian()
	for i := range H {
		H[i] *= scale / W
	}
	s.penaltyHessian(H, 1/W)
	L, pd := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: n, Data: H})
	if !pd {
		return res, false, nil
	}
	w := append([]float64(nil), g0...)
	blas64.Trsv(blas.NoTrans, L, blas64.Vector{N: n, Inc: 1, Data: w})
	c := 0.0
	for _, x := range w {
		c += x * x
	}
	c = math.Sqrt(c)
	if !(c > 0) || math.IsInf(c, 0) {
		return res, false, nil
	}
	x := make([]float64, n)
	first := true
	fv := func(v, g []float64) float64 {
		if first && allZero(v) {
			first = false
			if g != nil {
				copy(g, w)
				for i := range g {
					g[i] *= c
				}
			}
			return f0
		}
		// η = η₀ + c·L⁻ᵀv
		copy(x, v)
		blas64.Trsv(blas.Trans, L, blas64.Vector{N: n, Inc: 1, Data: x})
		for i := range x {
			x[i] = eta0[i] + c*x[i]
		}
		val := f(x, g)
		if g != nil {
			blas64.Trsv(blas.NoTrans, L, blas64.Vector{N: n, Inc: 1, Data: g})
			for i := range g {
				g[i] *= c
			}
		}
		return val
	}
	opt.GradTol *= c
	if opt.GainTol > 0 {
		// The objective's Hessian in v is c²L⁻¹HL⁻ᵀ ≈ c²I: a Newton step
		// from an iterate with gradient ∇_v would gain ½‖∇_v‖²/c².
		opt.PredictGain = func(g []float64) float64 {
			q := 0.0
			for _, x := range g {
				q += x * x
			}
			return 0.5 * q / (c * c)
		}
	}
	vr, err := optim.Minimize(ctx, fv, make([]float64, n), opt)
	res = vr
	res.X = make([]float64, n)
	copy(res.X, vr.X)
	blas64.Trsv(blas.Trans, L, blas64.Vector{N: n, Inc: 1, Data: res.X})
	for i := range res.X {
		res.X[i] = eta0[i] + c*res.X[i]
	}
	if allZero(vr.X) {
		copy(res.X, eta0) // bit for bit
	}
	res.GradNorm = math.NaN()
	return res, true, err
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
