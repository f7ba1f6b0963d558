package softmax

import (
	"context"
	"fmt"
	"math"

	"github.com/maslda/maslda/framework"
)

// The MM M-step (bound = "quadratic", mstep = "mm"; issue 26): statistics
// of a fixed size, so that the E-step can run anywhere and its statistics
// be summed exactly (framework.Summable).
//
// With the quadratic bound the response's part of the bound is, over the
// documents of the statistics, L(η) = Σ_d g_d(η) − ½ tr(AηSηᵀ) + Σ_d H(λ_d)
// with g_d(η) = λ_d·ηφ̄_d − lse(ηφ̄_d), A = ½(I − 11ᵀ/C), S = Σ_d Cov z̄_d.
// Böhning's bound ∇²lse ≼ A minorises each g_d at the η₀ of the E-step:
//
//	g_d(η) ≥ g_d(η₀) + ⟨(λ_d − p_d)φ̄_dᵀ, Δ⟩ − ½ (Δφ̄_d)ᵀA(Δφ̄_d),   Δ = η − η₀,  p_d = softmax(η₀φ̄_d)
//
// so, summed, with G = Σ_d (λ_d − p_d)φ̄_dᵀ (C×K), X = Σ_d φ̄_dφ̄_dᵀ (K×K),
// D₀ = Σ_d g_d(η₀):
//
//	Q(η) = S_c·[D₀ + ⟨G, Δ⟩ − ½ tr(AΔXΔᵀ) − ½ tr(AηSηᵀ)] − (μ/2)‖η‖²  ≤  S_c·(L(η) − ΣH) − (μ/2)‖η‖²
//
// with equality at η = η₀ (S_c = Step.Scale). Q is a concave quadratic; its
// maximiser solves S_c·A Δ (X + S) + μΔ = R, R = S_c·(G − Aη₀S) − μη₀.
// Splitting Δ along 1 (A·1 = 0): PΔ = PR (½S_c(X + S) + μI)⁻¹ (a K×K
// Cholesky solve per class), 11ᵀΔ/C = 11ᵀR/(Cμ); μ > 0 is required.
// One such step per EM iteration raises Q, hence the bound: the reported
// ELBO is Q at the new η (plus S_c·ΣH), a lower bound on the response's
// part that is exact at η₀. The trace is monotone: the next E-step's
// bound at the same η is at least this one's, and the next minoriser
// touches it there.
//
// | quantity | function |
// |---|---|
// | G, X, D₀, S, ΣH, documents; η₀ | mmStats (Softmax.accumulateMM; NewStats copies η₀) |
// | the maximiser of Q, blended by ρ | Softmax.updateMM, solveMM |
// | Q(η) | Softmax.qValue |

// mmStats are the MM M-step's statistics: fixed-size sums.
type mmStats struct {
	C, K    int
	G       []float64 // Σ_d (λ_d − p_d) φ̄_dᵀ, C×K
	X       []float64 // Σ_d φ̄_d φ̄_dᵀ, K×K
	Cov     []float64 // S = Σ_d Cov z̄_d, K×K
	D0      float64   // Σ_d [λ_d·η₀φ̄_d − lse(η₀φ̄_d)]
	Entropy float64   // Σ_d H(λ_d)
	Docs    float64   // number of documents
	// Eta0 is η₀, the η at which the statistics are made (copied by
	// NewStats; not a sum, and kept by Reset and SetSums): the point the
	// minoriser touches. Update and ELBO read it, so that a second update
	// from the same statistics repeats the first.
	Eta0 []float64
}

var _ framework.Summable = (*mmStats)(nil)

func (s *mmStats) Merge(o framework.Stats) {
	t := o.(*mmStats)
	for i, x := range t.G {
		s.G[i] += x
	}
	for i, x := range t.X {
		s.X[i] += x
	}
	for i, x := range t.Cov {
		s.Cov[i] += x
	}
	s.D0 += t.D0
	s.Entropy += t.Entropy
	s.Docs += t.Docs
}

func (s *mmStats) Reset() {
	clear(s.G)
	clear(s.X)
	clear(s.Cov)
	s.D0, s.Entropy, s.Docs = 0, 0, 0
}

// SumLayout is the statistics as fixed-size sums (framework.Summable).
func (s *mmStats) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "softmax.g", Len: len(s.G)}, {Name: "softmax.x", Len: len(s.X)}, {Name: "softmax.cov", Len: len(s.Cov)}, {Name: "softmax.scalars", Len: 3}}
}

// Sums visits G, X, Cov, then D0, Entropy and Docs.
func (s *mmStats) Sums(visit func(part, off int, xs []float64)) {
	framework.SliceSums(0, visit, s.G, s.X, s.Cov)
	framework.ScalarSums(3, visit, &s.D0, &s.Entropy, &s.Docs)
}

// SetSums sets every number.
func (s *mmStats) SetSums(get func(part int, dst []float64)) {
	framework.SetSliceSums(0, get, s.G, s.X, s.Cov)
	framework.SetScalarSums(3, get, &s.D0, &s.Entropy, &s.Docs)
}

// accumulateMM adds document d at the current η (η₀). A training document
// (d.Index ≥ 0) also leaves λ_d in its store slot for the warm start
// (RestoreTarget), as the L-BFGS M-step's statistics do.
func (s *Softmax) accumulateMM(st *mmStats, d *framework.DocState) {
	C, K := s.C, s.K
	t := d.Target.(*framework.Categorical)
	st.Entropy += t.Entropy()
	st.Docs++
	addCov(st.Cov, d, K)
	if d.Index >= 0 && s.st.fits(d) {
		i := d.Index
		s.st.doc[i] = d.Doc
		copy(s.st.lam[i*C:(i+1)*C], t.P)
	}
	if !(d.Doc.N > 0) {
		st.D0 -= math.Log(float64(C)) // φ̄ = 0: x = 0, p uniform, no gradient
		return
	}
	bar := d.PhiBar
	var xb [16]float64
	x := xb[:0]
	if C > len(xb) {
		x = make([]float64, 0, C)
	}
	lin := 0.0
	for l := 0; l < C; l++ {
		v := dot(s.Eta[l*K:(l+1)*K], bar)
		x = append(x, v)
		lin += t.P[l] * v
	}
	z := normalize(x, x) // x ← p = softmax(η₀φ̄), z = lse
	st.D0 += lin - z
	for l := 0; l < C; l++ {
		w := t.P[l] - x[l]
		g := st.G[l*K : (l+1)*K]
		for k, b := range bar {
			g[k] += w * b
		}
	}
	for i, bi := range bar {
		if bi == 0 {
			continue
		}
		row := st.X[i*K : (i+1)*K]
		for k, bk := range bar {
			row[k] += bi * bk
		}
	}
}

// updateMM is Update for mstep = "mm": η ← (1−ρ)η + ρ·argmax Q, Q the
// minoriser at the statistics' η₀.
func (s *Softmax) updateMM(ctx context.Context, st *mmStats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(st.Eta0) != len(s.Eta) {
		return fmt.Errorf("%w: softmax: MM statistics of %d coefficients, the response has %d", framework.ErrIncompatible, len(st.Eta0), len(s.Eta))
	}
	s.last = Solve{Docs: int(st.Docs)}
	if step.Rho == 0 {
		return nil
	}
	best, err := s.solveMM(st, step.Scale)
	if err != nil {
		return err
	}
	r := step.Rho
	for i, x := range best {
		if r == 1 {
			s.Eta[i] = x
		} else {
			s.Eta[i] = (1-r)*s.Eta[i] + r*x
		}
	}
	s.last.Iters, s.last.Evals, s.last.Status = 1, 1, "MM"
	s.last.Objective = s.qValue(st, step.Scale, s.Eta, st.Eta0)
	return nil
}

// solveMM returns the maximiser of Q (with S_c = scale) around η₀ = st.Eta0.
func (s *Softmax) solveMM(st *mmStats, scale float64) ([]float64, error) {
	C, K, mu, mt := s.C, s.K, s.Mu, s.MuText
	if !(mu > 0) || !(mt > 0) {
		return nil, fmt.Errorf("%w: softmax mstep = \"mm\" needs an L2 penalty l2 > 0 (the direction of η along the classes is otherwise free)", framework.ErrIncompatible)
	}
	eta0 := st.Eta0
	// R = S_c(G − Aη₀S) − μη₀, Aη₀S = ½(N − 1(1ᵀN)/C), N = η₀S.
	N := make([]float64, C*K)
	for l := 0; l < C; l++ {
		row, nl := eta0[l*K:(l+1)*K], N[l*K:(l+1)*K]
		for i, e := range row {
			if e == 0 {
				continue
			}
			for k, v := range st.Cov[i*K : (i+1)*K] {
				nl[k] += e * v
			}
		}
	}
	colN := make([]float64, K)
	for l := 0; l < C; l++ {
		for k := range colN {
			colN[k] += N[l*K+k]
		}
	}
	// The penalty's gradient at η₀: μη₀ (μ_t = μ) or M η₀ per row,
	// M = μ_t(I − 11ᵀ/K) + μ 11ᵀ/K.
	pg := make([]float64, C*K)
	s.penalty(eta0, pg)
	R := make([]float64, C*K)
	colR := make([]float64, K)
	for l := 0; l < C; l++ {
		for k := 0; k < K; k++ {
			an := 0.5 * (N[l*K+k] - colN[k]/float64(C))
			v := scale*(st.G[l*K+k]-an) - pg[l*K+k]
			R[l*K+k] = v
			colR[k] += v
		}
	}
	// H = ½S_c(X + S) + M, symmetrised (M = μI when μ_t = μ).
	H := make([]float64, K*K)
	for i := 0; i < K; i++ {
		for k := 0; k < K; k++ {
			a := st.X[i*K+k] + st.Cov[i*K+k]
			b := st.X[k*K+i] + st.Cov[k*K+i]
			H[i*K+k] = 0.25 * scale * (a + b)
			if mt != mu {
				H[i*K+k] += (mu - mt) / float64(K)
			}
		}
		H[i*K+i] += mt
	}
	// M⁻¹ applied to the classes' common part colR/C: (1/μ)·colR/C when
	// μ_t = μ, else (1/μ_t)(I − 11ᵀ/K) + (1/μ)11ᵀ/K.
	common := make([]float64, K)
	if mt == mu {
		for k := range common {
			common[k] = colR[k] / (float64(C) * mu)
		}
	} else {
		m := 0.0
		for _, v := range colR {
			m += v / float64(C)
		}
		m /= float64(K)
		for k := range common {
			common[k] = (colR[k]/float64(C)-m)/mt + m/mu
		}
	}
	if err := cholesky(H, K); err != nil {
		return nil, fmt.Errorf("softmax MM step: %w", err)
	}
	out := make([]float64, C*K)
	y := make([]float64, K)
	for l := 0; l < C; l++ {
		for k := 0; k < K; k++ {
			y[k] = R[l*K+k] - colR[k]/float64(C) // (PR)_l
		}
		cholSolve(H, K, y)
		for k := 0; k < K; k++ {
			out[l*K+k] = eta0[l*K+k] + y[k] + common[k]
		}
	}
	for _, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: softmax MM step: a non-finite η", framework.ErrBadInput)
		}
	}
	return out, nil
}

// qValue is Q(η) of the statistics made at η₀ (with S_c = scale): the
// minoriser's value.
func (s *Softmax) qValue(st *mmStats, scale float64, eta, eta0 []float64) float64 {
	C, K := s.C, s.K
	delta := make([]float64, C*K)
	lin := 0.0
	for i := range delta {
		delta[i] = eta[i] - eta0[i]
		lin += st.G[i] * delta[i]
	}
	// tr(AΔXΔᵀ) = ½[Σ_l Y_l·Δ_l − (1ᵀY)·(1ᵀΔ)/C], Y = ΔX.
	trq := 0.0
	sumY, sumD := make([]float64, K), make([]float64, K)
	yl := make([]float64, K)
	for l := 0; l < C; l++ {
		dl := delta[l*K : (l+1)*K]
		clear(yl)
		for i, e := range dl {
			if e == 0 {
				continue
			}
			for k, v := range st.X[i*K : (i+1)*K] {
				yl[k] += e * v
			}
		}
		trq += dot(yl, dl)
		for k := range yl {
			sumY[k] += yl[k]
			sumD[k] += dl[k]
		}
	}
	trq = 0.5 * (trq - dot(sumY, sumD)/float64(C))
	return scale*(st.D0+lin-0.5*trq+covTerm(eta, C, K, st.Cov, nil)) - 0.5*s.penalty(eta, nil)
}

// elboMM is ELBO for mstep = "mm": Q at the current η around the
// statistics' η₀ (where Q is the bound itself), plus S_c·ΣH.
func (s *Softmax) elboMM(st *mmStats, step framework.Step) float64 {
	if len(st.Eta0) != len(s.Eta) {
		return math.NaN()
	}
	return s.qValue(st, step.Scale, s.Eta, st.Eta0) + step.Scale*st.Entropy
}

// cholesky factors the symmetric positive definite n×n matrix a in place
// (lower triangle: a = LLᵀ).
func cholesky(a []float64, n int) error {
	for j := 0; j < n; j++ {
		d := a[j*n+j]
		for k := 0; k < j; k++ {
			d -= a[j*n+k] * a[j*n+k]
		}
		if !(d > 0) {
			return fmt.Errorf("%w: the MM step's matrix is not positive definite (pivot %d: %v)", framework.ErrBadInput, j, d)
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			v := a[i*n+j]
			for k := 0; k < j; k++ {
				v -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = v / d
		}
	}
	return nil
}

// cholSolve solves LLᵀy = b in place (L from cholesky).
func cholSolve(l []float64, n int, b []float64) {
	for i := 0; i < n; i++ {
		v := b[i]
		for k := 0; k < i; k++ {
			v -= l[i*n+k] * b[k]
		}
		b[i] = v / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		v := b[i]
		for k := i + 1; k < n; k++ {
			v -= l[k*n+i] * b[k]
		}
		b[i] = v / l[i*n+i]
	}
}
