package confusion

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"

	"github.com/maslda/maslda/framework"
)

// The variational families of the communities (Config.Membership).
const (
	MembershipMeanField  = "mean-field"
	MembershipStructured = "structured"
)

// structured reports whether the communities use the structured family.
func (m *Model) structured() bool {
	return m.comm != nil && m.family == MembershipStructured
}

// fitComm is the communities' update with ρ = 1 in the configured family.
func (m *Model) fitComm(counts []float64, sc float64) ([]float64, *communities) {
	if m.structured() {
		return m.fitStructured(counts, sc)
	}
	return m.fitCommunities(counts, sc)
}

// fitStructured is fitCommunities for membership = "structured": the
// communities' model (the communities type) with the variational family
//
//	q(z_r, π^r) = Cat(z_r | q_r) · Π_c Dir(π^r_c | α_{z_r c} + n_rc),
//
// the posterior of π^r given the community exact (Dirichlet–multinomial
// conjugacy), n_rc = S·Counts^r_c. With π profiled out the bound's part in
// (q, w, α) is
//
//	Σ_r Σ_m q_rm [log w_m − log q_rm + Σ_c (N(α_mc) − N(α_mc + n_rc))]
//	  − b·Σ α + δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl),
//
// N(α_mc) − N(α_mc + n_rc) the log Pólya probability of the counts (a row
// without counts gives 0 for every community, where the mean-field family
// scores it by its mixed prior). Block coordinate ascent, each block never
// lowering the bound:
//
//	q_rm ∝ w_m exp(Σ_c [N(α_mc) − N(α_mc + n_rc)])      (exact)
//	w_m  = Σ_r q_rm / R                                   (exact)
//	α_mc: Minka's (2000) fixed point for the Pólya distribution weighted by
//	      q_rm (polyaRow; a result that lowers the bound is discarded)
//
// until no membership moves by more than 1e-10 and no α entry by more than
// 1e-10 of itself, a round gains less than structuredTol of the bound, or
// structuredRounds rounds (generalised EM: the next update goes on from
// this state). It returns ξ = ᾱ^r + n
// (stored as under the mean-field family: n = ξ − ᾱ recovers the counts)
// and the new state, without touching m.
func (m *Model) fitStructured(counts []float64, sc float64) ([]float64, *communities) {
	R, C := m.nr, m.nc
	cm := m.comm
	M := cm.m
	st := &communities{m: M, alpha: slices.Clone(cm.alpha), w: slices.Clone(cm.w), q: slices.Clone(cm.q), pri: slices.Clone(cm.pri)}
	n := make([]float64, len(counts))
	for i, x := range counts {
		n[i] = sc * x
	}
	// rows[r]: the classes c of annotator r's rows with counts.
	rows := make([][]int, R)
	for r := range R {
		for c := range C {
			if sumOf(n[(r*C+c)*C:][:C]) > 0 {
				rows[r] = append(rows[r], c)
			}
		}
	}
	norms := make([]float64, M*C)
	lse := make([]float64, R)
	rare := m.rareClasses(n)
	prevQ := make([]float64, len(st.q))
	prevA := make([]float64, len(st.alpha))
	prevBound := math.Inf(-1)
	for it := 0; ; it++ {
		copy(prevQ, st.q)
		copy(prevA, st.alpha)
		for k := range M {
			for c := range C {
				norms[k*C+c] = dirNorm(st.alpha[(k*C+c)*C:][:C])
			}
		}
		bound := m.diagHyper(st) - m.cfg.PriorRate*sumOf(st.alpha) // + Σ_r log Σ_k exp(score_rk) below
		// The annotators' memberships on the update's goroutines, each
		// annotator's as by one; their log Σ_k exp(score_rk) added to the
		// bound in annotator order (the same bits for any number).
		framework.ForRange(m.goroutines(), R, 1, func(lo, hi int) {
			score, buf := make([]float64, M), make([]float64, C)
			for r := lo; r < hi; r++ {
				top := math.Inf(-1)
				for k := range M {
					s := math.Log(st.w[k])
					for _, c := range rows[r] {
						a, x := st.alpha[(k*C+c)*C:][:C], n[(r*C+c)*C:][:C]
						for l := range buf {
							buf[l] = a[l] + x[l]
						}
						s += norms[k*C+c] - dirNorm(buf)
					}
					score[k] = s
					top = max(top, s)
				}
				lse[r] = softmaxInto(st.q[r*M:][:M], score, top)
			}
		})
		for _, x := range lse {
			bound += x
		}
		// The bound at the new memberships (the maximum over q_r of
		// Σ_k q_rk (score_rk − log q_rk) is log Σ_k exp(score_rk)): the
		// rounds stop when a round gains less than structuredTol of it.
		if it > 0 && bound-prevBound <= structuredTol*math.Abs(bound) {
			break
		}
		prevBound = bound
		for k := range M {
			s := 0.0
			for r := range R {
				s += st.q[r*M+k]
			}
			st.w[k] = max(s/float64(R), 1e-300)
		}
		// Each row of each community's prior is its own maximisation; the
		// rows of rare classes (Config.PriorRare) are held at their start.
		framework.ForRange(m.goroutines(), M*C, 1, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if k, c := i/C, i%C; rare[c] {
					startRow(m.cfg, st.alpha[(k*C+c)*C:][:C], M, k, c)
				} else {
					m.polyaRow(st, n, rows, k, c)
				}
			}
		})
		moved := 0.0
		for i, x := range st.q {
			moved = max(moved, math.Abs(x-prevQ[i]))
		}
		for i, x := range st.alpha {
			moved = max(moved, math.Abs(x-prevA[i])/prevA[i])
		}
		if moved < 1e-10 || it+1 >= structuredRounds {
			break
		}
	}
	st.mix(R, C)
	xi := make([]float64, len(n))
	for i := range xi {
		xi[i] = st.pri[i] + n[i]
	}
	return xi, st
}

// rareClasses reports, per class c, whether its expected answers
// Σ_r Σ_l n_rcl are fewer than Config.PriorRare·N/C (N = Σ n); all false
// when PriorRare is 0.
func (m *Model) rareClasses(n []float64) []bool {
	R, C := m.nr, m.nc
	rare := make([]bool, C)
	if m.cfg.PriorRare <= 0 {
		return rare
	}
	mass, total := make([]float64, C), 0.0
	for r := range R {
		for c := range C {
			x := sumOf(n[(r*C+c)*C:][:C])
			mass[c] += x
			total += x
		}
	}
	for c := range C {
		rare[c] = mass[c] < m.cfg.PriorRare*total/float64(C)
	}
	return rare
}

// startRow sets a, community k's prior row for class c (of M), to its
// starting value: ω, plus the community's share of the diagonal on c
// (community 0 the whole diagonal, the last 1/M of it).
func startRow(cfg Config, a []float64, M, k, c int) {
	d := cfg.Diagonal * float64(M-k) / float64(M)
	for l := range a {
		a[l] = cfg.Omega
		if l == c {
			a[l] += d
		}
	}
}

// polyaRow raises the structured bound in row c of community k's prior,
// α = α_kc: the maximiser of
//
//	F(α) = Σ_r q_rk [N(α) − N(α + n_rc)] − b·Σ_l α_l + δ·log(α_c/Σ_l α_l)
//
// (the annotators with counts in row c; the others add 0), by profileIters
// steps of Minka's fixed point (as profileAlpha's, with the members' exact
// Pólya terms), each entry at least the prior floor and Σ_l α_l at most
// maxPriorPrecision. A result that lowers F is discarded.
func (m *Model) polyaRow(st *communities, n []float64, rows [][]int, k, c int) {
	R, C, M := m.nr, m.nc, st.m
	b, dl, floor := m.cfg.PriorRate, m.cfg.PriorDiagonal, m.priorFloor()
	a := st.alpha[(k*C+c)*C:][:C]
	var rs []int
	for r := range R {
		if st.q[r*M+k] > 0 && slices.Contains(rows[r], c) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 && dl == 0 && b == 0 {
		return
	}
	buf := make([]float64, C)
	F := func(alpha []float64) float64 {
		na := dirNorm(alpha)
		f := 0.0
		for _, r := range rs {
			x := n[(r*C+c)*C:][:C]
			for l := range buf {
				buf[l] = alpha[l] + x[l]
			}
			f += st.q[r*M+k] * (na - dirNorm(buf))
		}
		f -= b * sumOf(alpha)
		if dl > 0 {
			f += dl * (math.Log(alpha[c]) - math.Log(sumOf(alpha)))
		}
		return f
	}
	f0 := F(a)
	next := slices.Clone(a)
	num, psn := make([]float64, C), make([]float64, C)
	// The fixed point's steps sum over the members with q_rk ≥
	// polyaInner only (a direction, not the bound: F above, over every
	// member, accepts or discards the result, so the step stays an exact
	// ascent).
	inner := rs
	if len(rs) > 0 {
		inner = make([]int, 0, len(rs))
		for _, r := range rs {
			if st.q[r*M+k] >= polyaInner {
				inner = append(inner, r)
			}
		}
	}
	for range profileIters {
		clear(num)
		sa := sumOf(next)
		psa := mathext.Digamma(sa)
		for l, x := range next {
			psn[l] = mathext.Digamma(x)
		}
		den := 0.0
		for _, r := range inner {
			p := st.q[r*M+k]
			x := n[(r*C+c)*C:][:C]
			den += p * (mathext.Digamma(sa+sumOf(x)) - psa)
			for l, v := range x {
				if v > 0 {
					num[l] += p * (mathext.Digamma(next[l]+v) - psn[l])
				}
			}
		}
		den += dl / sa
		if !(den+b > 0) {
			break
		}
		if polyaStep(next, num, den, b, dl, c, floor, m.cfg.PriorDominant) < 1e-12 {
			break
		}
	}
	if F(next) >= f0 {
		copy(a, next)
	}
}

// structuredTol is fitStructured's stopping rule: a round of the block
// ascent that raises the bound by at most this share of it ends the
// update (the next update goes on from there; EM's own test is on the
// whole bound, 1e-4 to 1e-5 of it). Without it the rounds ran to
// communitiesMaxIter on every update: a pooled community's precision
// creeps towards maxPriorPrecision by about 1% a round while the bound
// hardly moves.
const structuredTol = 1e-11

// structuredRounds caps fitStructured's rounds in one update. Where the
// communities are weakly separated (a continuum of accuracies, a few
// answers each) the block ascent converges linearly, an annotator's
// membership moving from one community to the next by a few per cent a
// round while the bound gains less than a nat: 50 rounds an update cost
// MA-sLDAc 2.5–3× plain LDA on the many-annotators shape, where the
// rounds after the fifth add less than 1e-5 of the whole bound. Each
// update starts from the last one's state, so the rounds go on across
// EM's iterations (and across SVI's epochs) and EM stays an ascent.
const structuredRounds = 5

// polyaInner is the least membership with which an annotator enters
// polyaRow's fixed-point steps (its exact bound takes every member).
const polyaInner = 1e-8

// refreshStructured is refresh under membership = "structured": with n̂ =
// ξ − ᾱ^r (the counts ξ holds above the mixed prior),
//
//	E[log π^r_cl] = Σ_m q_rm [ψ(α_mcl + n̂_rcl) − ψ(Σ_t α_mct + n̂_rct)]
//
// and the global part of the bound
//
//	Σ_r Σ_m q_rm [log w_m − log q_rm + Σ_c (N(α_mc) − N(α_mc + n̂_rc) − Σ_l n̂_rcl E_m[log π_cl])]
//	  − b·Σ α + δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl),
//
// so that adding S·Σ Counts·E[log π] (ELBO) gives fitStructured's bound
// when n̂ = S·Counts.
func (m *Model) refreshStructured() {
	R, C := m.nr, m.nc
	cm := m.comm
	M := cm.m
	kl := -m.cfg.PriorRate*sumOf(cm.alpha) + m.diagHyper(cm)
	for r := range R {
		for k := range M {
			if p := cm.q[r*M+k]; p > 0 {
				kl += p * (math.Log(cm.w[k]) - math.Log(p))
			}
		}
	}
	// E[log π] under each community's prior row alone (a row without
	// counts), and its norm.
	el0 := make([]float64, M*C*C)
	for i := 0; i < len(el0); i += C {
		a := cm.alpha[i : i+C]
		ps := mathext.Digamma(sumOf(a))
		for l, x := range a {
			el0[i+l] = mathext.Digamma(x) - ps
		}
	}
	e := make([]float64, C)
	buf := make([]float64, C)
	nh := make([]float64, C)
	for r := range R {
		for c := range C {
			clear(e)
			i := (r*C + c) * C
			empty := true
			for l := range nh {
				nh[l] = max(0, m.xi[i+l]-cm.pri[i+l])
				if nh[l] > 0 {
					empty = false
				}
			}
			for k := range M {
				p := cm.q[r*M+k]
				if p == 0 {
					continue
				}
				a := cm.alpha[(k*C+c)*C:][:C]
				if empty {
					for l, x := range el0[(k*C+c)*C:][:C] {
						e[l] += p * x
					}
					continue
				}
				for l := range buf {
					buf[l] = a[l] + nh[l]
				}
				ps := mathext.Digamma(sumOf(buf))
				t := dirNorm(a) - dirNorm(buf)
				for l, x := range buf {
					el := mathext.Digamma(x) - ps
					e[l] += p * el
					t -= nh[l] * el
				}
				kl += p * t
			}
			for l, x := range e {
				m.elogT[(r*C+l)*C+c] = x
			}
		}
	}
	m.kl = kl
}

// meanRow sets dst to E[π^r_c] under membership = "structured":
// Σ_m q_rm (α_mc + n̂_rc)/Σ_l (α_mcl + n̂_rcl).
func (m *Model) meanRow(r, c int, dst []float64) {
	C := m.nc
	cm := m.comm
	M := cm.m
	clear(dst)
	i := (r*C + c) * C
	nh := make([]float64, C)
	for l := range nh {
		nh[l] = max(0, m.xi[i+l]-cm.pri[i+l])
	}
	for k := range M {
		p := cm.q[r*M+k]
		if p == 0 {
			continue
		}
		a := cm.alpha[(k*C+c)*C:][:C]
		s := sumOf(a) + sumOf(nh)
		for l := range dst {
			dst[l] += p * (a[l] + nh[l]) / s
		}
	}
}
