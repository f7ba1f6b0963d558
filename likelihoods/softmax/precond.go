package softmax

import (
	"context"
	"math"
	"sync"

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
// row-major, its lower triangle filled, summed in document order. The
// rows are independent sums, so nw goroutines each fill a share of the
// rows (hessRows); every number is the same bit for bit for any nw, and
// the same as gonum's Dsyrk over batches of documents gives
// (TestHessianRows).
//
// H is the buffer to fill (n×n, any contents: each row is cleared by the
// goroutine that fills it); nil allocates one.
func (hs *hessRecs) hessian(nw int, H []float64) []float64 {
	n := hs.C * hs.K
	if len(H) != n*n {
		H = make([]float64, n*n)
	}
	if nw = min(nw, n); nw <= 1 {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		hs.hessRows(H, rows)
		return H
	}
	// Rows dealt back and forth (0, 1, …, nw−1, nw−1, …, 0, 0, 1, …):
	// every goroutine gets about as many rows, and as many numbers of the
	// lower triangle (row i holds i+1).
	share := make([][]int, nw)
	for i := range n {
		r := i % (2 * nw)
		if r >= nw {
			r = 2*nw - 1 - r
		}
		share[r] = append(share[r], i)
	}
	var wg sync.WaitGroup
	for _, rows := range share {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs.hessRows(H, rows)
		}()
	}
	wg.Wait()
	return H
}

// hessBatch is the number of documents hessRows adds between its passes
// over one row (the batches of the Dsyrk calls it stands for).
const hessBatch = 64

// hessRows adds the given rows (ascending) of hessian's lower triangle
// into H, batch by batch of hessBatch documents: −Σ u_d u_dᵀ, then per
// class block l Σ p_dl(1 − 1/N_d) g_dl g_dlᵀ (rows
// √((1 − 1/N_d)/p_dl)·u_dl), then Σ (1/N_d) u_dl on block l's diagonal.
// Each number gets its terms in the order gonum's Dsyrk (Trans, Lower:
// one axpy per document and row) adds them.
func (hs *hessRecs) hessRows(H []float64, rows []int) {
	C, K := hs.C, hs.K
	n := C * K
	D := len(hs.n)
	B := make([]float64, hessBatch*K)
	for _, i := range rows {
		clear(H[i*n : (i+1)*n])
	}
	axpy := func(a float64, x, y []float64) {
		blas64.Axpy(a, blas64.Vector{N: len(x), Inc: 1, Data: x}, blas64.Vector{N: len(y), Inc: 1, Data: y})
	}
	for d0 := 0; d0 < D; d0 += hessBatch {
		nb := min(hessBatch, D-d0)
		for _, i := range rows {
			h := H[i*n : i*n+i+1]
			for j := 0; j < nb; j++ {
				u := hs.u[(d0+j)*n : (d0+j+1)*n]
				if a := -1 * u[i]; a != 0 {
					axpy(a, u[:i+1], h)
				}
			}
		}
		rest := rows
		for l := 0; l < C && len(rest) > 0; l++ {
			// block: the rows of class l's block
			m := 0
			for m < len(rest) && rest[m] < (l+1)*K {
				m++
			}
			block := rest[:m]
			rest = rest[m:]
			if len(block) == 0 {
				continue
			}
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
			for _, i := range block {
				ii := i - l*K
				h := H[i*n+l*K : i*n+l*K+ii+1]
				for j := 0; j < nb; j++ {
					b := B[j*K : (j+1)*K]
					if a := 1 * b[ii]; a != 0 {
						axpy(a, b[:ii+1], h)
					}
				}
			}
			for j := 0; j < nb; j++ {
				d := d0 + j
				N := hs.n[d]
				if !(N > 0) {
					continue
				}
				for _, i := range block {
					H[i*n+i] += hs.u[d*n+i] / N
				}
			}
		}
	}
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
	// The records and the Hessian's buffer are kept from one M-step to
	// the next (every number is written again): fresh ones cost page
	// faults that no other goroutine shares.
	if hs := s.hess; hs == nil || hs.C != C || hs.K != K || len(hs.n) != len(recs) {
		s.hess = newHessRecs(len(recs), C, K)
	}
	hs := s.hess
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
	H := hs.hessian(s.goroutines(), s.hbuf)
	s.hbuf = H
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
