package confusion

import (
	"math"
	"slices"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"

	"gonum.org/v1/gonum/mathext"
)

// communities is the state of prior = "communities" (Config.Prior): M
// Dirichlet priors α_m (one C×C matrix of rows each), their weights w and
// every annotator's membership q(z_r):
//
//	z_r ~ Cat(w),   π^r_c | z_r = m ~ Dir(α_mc),
//
// with the mean-field posterior q(π^r_c) q(z_r) = Dir(ξ^r_c) Cat(q_r)
// (Venanzi et al. 2014's community-based model, written for the variational
// family of MODEL.md §2). The bound's part in (ξ, q, w, α) is
//
//	S·Σ_{r,c,l} n_rcl E[log π^r_cl]
//	+ Σ_r Σ_m q_rm (log w_m − log q_rm)
//	+ Σ_{r,c} [Σ_m q_rm N(α_mc) − N(ξ^r_c) + Σ_l (ᾱ^r_cl − ξ^r_cl) E[log π^r_cl]]
//
// with N(a) = lnΓ(Σ_l a_l) − Σ_l lnΓ(a_l) and ᾱ^r_c = Σ_m q_rm α_mc, the
// prior row annotator r sees. Each block has a closed-form or concave
// maximiser given the others (Model.fitCommunities):
//
//	ξ^r_c   = ᾱ^r_c + S·n_rc
//	q_rm   ∝ w_m exp(Σ_c [N(α_mc) + Σ_l (α_mcl − 1) E[log π^r_cl]])
//	w_m    = Σ_r q_rm / R
//	α_mc   = argmax Σ_r q_rm log Dir(·) : ψ(α_mcl) − ψ(Σ_l α_mcl) = s̄_mcl,
//	         s̄_mcl = Σ_r q_rm E[log π^r_cl] / Σ_r q_rm (Minka 2000's fixed point)
type communities struct {
	m     int
	alpha []float64 // alpha[(k*C+c)*C+l] = α_{k,c,l}
	w     []float64 // w[k]
	q     []float64 // q[r*M+k] = q(z_r = k)
	pri   []float64 // ᾱ: pri[(r*C+c)*C+l] = Σ_k q_rk α_{k,c,l}
}

// newCommunities starts M communities for R annotators and C classes:
// memberships and weights uniform, community k's rows Dir(ω + diagonal·
// (M−k)/M·e_c): from the configured prior (k = 0) to weaker diagonals, so
// that the first membership update sorts annotators by how well they agree
// with the start's labels.
func newCommunities(cfg Config, R, C int) *communities {
	M := cfg.Communities
	cm := &communities{m: M, alpha: make([]float64, M*C*C), w: make([]float64, M), q: make([]float64, R*M), pri: make([]float64, R*C*C)}
	for k := range M {
		cm.w[k] = 1 / float64(M)
		for c := range C {
			startRow(cfg, cm.alpha[(k*C+c)*C:][:C], M, k, c)
		}
	}
	for i := range cm.q {
		cm.q[i] = 1 / float64(M)
	}
	cm.mix(R, C)
	return cm
}

// mix sets ᾱ^r = Σ_k q_rk α_k.
func (cm *communities) mix(R, C int) {
	M := cm.m
	clear(cm.pri)
	for r := range R {
		dst := cm.pri[r*C*C:][:C*C]
		for k := range M {
			p := cm.q[r*M+k]
			if p == 0 {
				continue
			}
			for i, a := range cm.alpha[k*C*C:][:C*C] {
				dst[i] += p * a
			}
		}
	}
}

// dirNorm is N(a) = lnΓ(Σ_l a_l) − Σ_l lnΓ(a_l) = −ln B(a).
func dirNorm(a []float64) float64 { return -special.LogBeta(a) }

// communitiesMaxIter bounds the rounds of block coordinate ascent of one
// update, profileIters the fixed-point steps of one row's prior in a round
// (a partial ascent: the next round continues it).
const (
	communitiesMaxIter = 50
	profileIters       = 5
)

// priorFloor is the least entry of a community's prior (Config.PriorFloor,
// default ω). Without a floor a community whose members never give some
// answer (spammers of one class) drives that entry to 0, where the ascent
// crawls and E[log π] of its members diverges.
func (m *Model) priorFloor() float64 {
	if m.cfg.PriorFloor > 0 {
		return m.cfg.PriorFloor
	}
	return m.cfg.Omega
}

// diagHyper is the diagonal part of the communities' hyperprior
// (Config.PriorDiagonal δ): δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl); 0 when δ = 0.
func (m *Model) diagHyper(cm *communities) float64 {
	dl := m.cfg.PriorDiagonal
	if dl == 0 {
		return 0
	}
	C := m.nc
	f := 0.0
	for k := range cm.m {
		for c := range C {
			a := cm.alpha[(k*C+c)*C:][:C]
			f += math.Log(a[c]) - math.Log(sumOf(a))
		}
	}
	return dl * f
}

// fitCommunities is the update with ρ = 1 of prior = "communities": block
// coordinate ascent on the bound of the communities type's documentation
// from the current state, for counts S·n: q, then w, then each row α_mc
// with ξ (profileAlpha), until no ξ entry moves by more than 1e-9 of its
// row's total or communitiesMaxIter rounds. No step lowers the bound. It returns the new ξ
// and state without touching m.
func (m *Model) fitCommunities(counts []float64, sc float64) ([]float64, *communities) {
	R, C := m.nr, m.nc
	cm := m.comm
	M := cm.m
	st := &communities{m: M, alpha: append([]float64(nil), cm.alpha...), w: append([]float64(nil), cm.w...),
		q: append([]float64(nil), cm.q...), pri: append([]float64(nil), cm.pri...)}
	xi := make([]float64, R*C*C)
	elog := make([]float64, R*C*C) // elog[(r*C+c)*C+l] = E[log π^r_cl]
	setXi := func() {
		for i := range xi {
			xi[i] = st.pri[i] + sc*counts[i]
		}
	}
	setXi()
	prev := make([]float64, len(xi))
	for it := 0; ; it++ {
		copy(prev, xi)
		for i := 0; i < len(xi); i += C {
			ps := mathext.Digamma(sumOf(xi[i : i+C]))
			for l, x := range xi[i : i+C] {
				elog[i+l] = mathext.Digamma(x) - ps
			}
		}
		m.memberships(st, elog) // q given ξ, w and α
		// w given q.
		for k := range M {
			s := 0.0
			for r := range R {
				s += st.q[r*M+k]
			}
			st.w[k] = max(s/float64(R), 1e-300)
		}
		// α given q, with ξ at its maximiser ᾱ + S·n (profileAlpha).
		st.mix(R, C)
		setXi()
		for k := range M {
			for c := range C {
				m.profileAlpha(st, xi, k, c)
			}
		}
		st.mix(R, C)
		setXi()
		moved := 0.0 // the largest change of a ξ entry relative to its row's total
		for i := 0; i < len(xi); i += C {
			tot := sumOf(xi[i : i+C])
			for l, v := range xi[i : i+C] {
				moved = max(moved, math.Abs(v-prev[i+l])/tot)
			}
		}
		if moved < 1e-9 || it+1 >= communitiesMaxIter {
			break
		}
	}
	return xi, st
}

// updateMini is Update with communities under SVI with mini-batches (a
// step whose statistics do not cover the corpus). Between the ends of
// epochs the communities (α, w, q, hence every annotator's prior row ᾱ^r)
// hold, and each ξ takes the step of a fixed prior ᾱ:
//
//	ξ ← (1 − ρ)·ξ + ρ·(ᾱ + S·Counts),
//
// so that n̂ = ξ − ᾱ, the counts ξ holds above its prior, moves as
// n̂ ← (1 − ρ)·n̂ + ρ·S·Counts: SVI's running estimate of every
// annotator's counts over the corpus. At the update that ends an epoch
// (step.EpochEnd), after that step, the communities are refitted as batch
// EM's update refits them, from n̂ as the corpus's counts:
// fitCommunities(n̂, 1), whose ξ = ᾱ_new + n̂ keeps each annotator's
// counts and moves its prior row, and whose α, w and q replace the
// communities' (the estimate n̂ is already averaged over the updates; a
// second blend would slow the communities by the step of one update in
// an epoch's).
//
// Refitting at every mini-batch from its S-scaled counts (each annotator
// at 0 or S times its answers in the mini-batch, blended with ρ_t) was
// what SVI did before: 50 rounds of block coordinate ascent over every
// annotator at every update, 88% of SVI's CPU on the many-annotators
// shape (docs/performance.md, "The communities under SVI: once an
// epoch").
func (m *Model) updateMini(counts []float64, step framework.Step) {
	rho, sc := step.Rho, step.Scale
	pri := m.comm.pri
	for i := range m.xi {
		m.xi[i] = (1-rho)*m.xi[i] + rho*(pri[i]+sc*counts[i])
	}
	if step.EpochEnd {
		n := make([]float64, len(m.xi))
		for i, x := range m.xi {
			n[i] = max(0, x-pri[i])
		}
		xi, st := m.fitComm(n, 1)
		copy(m.xi, xi)
		cm := m.comm
		copy(cm.alpha, st.alpha)
		copy(cm.w, st.w)
		copy(cm.q, st.q)
		copy(cm.pri, st.pri)
	}
	m.refresh()
}

// profileAlpha raises the bound in row c of community k's prior, α = α_kc,
// with every ξ^r_c at its maximiser ᾱ^r_c + S·n_rc (xi holds them and is
// kept so). With ξ profiled out the bound's part in α is
//
//	F(α) = Σ_r [q_rk N(α) − N(b_r + q_rk α)],   b_r = ξ^r_c − q_rk α (the rest),
//
// (less b·Σ_l α_l with prior_rate b), whose stationary points satisfy
// Minka's (2000) fixed point for the Pólya distribution, weighted by
// membership:
//
//	α_l ← α_l · Σ_r q_rk [ψ(ξ^r_cl) − ψ(α_l)] / (Σ_r q_rk [ψ(Σ_t ξ^r_ct) − ψ(Σ_t α_t)] + b).
//
// With hard memberships this is learnPrior's update (the log marginal
// likelihood of the counts of the community's annotators). Σ_l α_l is held
// at most maxPriorPrecision (the iterate rescaled onto it). A result that
// lowers F is discarded (the row keeps its value), so the step never lowers
// the bound.
//
// The annotators outside the community (q_rk ≤ profileLinear·min(1,
// min_l b_rl)², linearOutsider) enter through Taylor expansions about the
// row's current value a, computed once: Σ_r q ψ(b_rl + q x) = A_l + (x −
// a_l)·B_l with A_l = Σ_r q ψ(b_rl + q a_l), B_l = Σ_r q² ψ'(b_rl + q a_l)
// (and the same for the sums over l), and their part of F(x) − F(a) is the
// second-order expansion of the lnΓ terms with the same A and B. With Δ =
// x − a, |ψ⁽²⁾(z)| ≤ 3/z³ (z ≤ 1) or 3 (z ≥ 1) and q ≤ 1e-8·min(1, b)², per
// annotator the first is off by at most ½q³Δ²|ψ⁽²⁾| ≤ 1.5e-16·q·Δ², the
// second by (1/6)q³|Δ|³|ψ⁽²⁾| ≤ 5e-25·|Δ|³: at most 1.5e-10·q and 5e-16
// even for Δ at Σα's cap (1,000), the size of mathext.Digamma's own error
// (5e-11) on the term and below F's rounding. Both are exact at x = a, so
// the ascent's fixed points are the same. They save the 5 fixed-point
// passes and the 2 passes of F over the members of the other communities
// (docs/performance.md, "Many annotators and 20 classes").
func (m *Model) profileAlpha(st *communities, xi []float64, k, c int) {
	R, C, M := m.nr, m.nc, st.m
	b, dl, floor := m.cfg.PriorRate, m.cfg.PriorDiagonal, m.priorFloor()
	a := st.alpha[(k*C+c)*C:][:C]
	var rs, out []int // the annotators computed exactly, and those linearised
	for r := range R {
		p := st.q[r*M+k]
		if !(p > 1e-12) {
			continue
		}
		if linearOutsider(p, xi[(r*C+c)*C:][:C], a) {
			out = append(out, r)
		} else {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 && len(out) == 0 && dl == 0 {
		return
	}
	base := make([]float64, len(rs)*C)
	for i, r := range rs {
		p := st.q[r*M+k]
		for l := range C {
			base[i*C+l] = xi[(r*C+c)*C+l] - p*a[l]
		}
	}
	// The outsiders' expansions about a: lA[l], lB[l] (entries), lAs, lBs
	// (sums) and pOut = Σ q.
	lA, lB := make([]float64, C), make([]float64, C)
	lAs, lBs, pOut := 0.0, 0.0, 0.0
	sa0 := sumOf(a)
	for _, r := range out {
		p := st.q[r*M+k]
		pOut += p
		sx := 0.0
		for l := range C {
			x := (xi[(r*C+c)*C+l] - p*a[l]) + p*a[l] // b_rl + q a_l, as the exact rows are formed
			sx += x
			lA[l] += p * mathext.Digamma(x)
			lB[l] += p * p * special.Trigamma(x)
		}
		lAs += p * mathext.Digamma(sx)
		lBs += p * p * special.Trigamma(sx)
	}
	row := make([]float64, C)
	F := func(alpha []float64) float64 {
		n := dirNorm(alpha)
		f := 0.0
		for i, r := range rs {
			p := st.q[r*M+k]
			for l := range C {
				row[l] = base[i*C+l] + p*alpha[l]
			}
			f += p*n - dirNorm(row)
		}
		f -= b * sumOf(alpha)
		if dl > 0 {
			f += dl * (math.Log(alpha[c]) - math.Log(sumOf(alpha)))
		}
		return f
	}
	// outF is the outsiders' part of F(x) − F(a).
	outF := func(x []float64) float64 {
		if len(out) == 0 {
			return 0
		}
		f := pOut * (dirNorm(x) - dirNorm(a))
		for l := range C {
			d := x[l] - a[l]
			f += d*lA[l] + 0.5*d*d*lB[l]
		}
		d := sumOf(x) - sa0
		return f - (d*lAs + 0.5*d*d*lBs)
	}
	old := slices.Clone(a)
	f0 := F(a)
	next := slices.Clone(a)
	num, psn := make([]float64, C), make([]float64, C)
	for range profileIters {
		clear(num)
		den := 0.0
		sa := sumOf(next)
		psa := mathext.Digamma(sa)
		for l, x := range next {
			psn[l] = mathext.Digamma(x)
		}
		for i, r := range rs {
			p := st.q[r*M+k]
			sx := 0.0
			for l := range C {
				row[l] = base[i*C+l] + p*next[l]
				sx += row[l]
			}
			den += p * (mathext.Digamma(sx) - psa)
			for l, x := range row {
				num[l] += p * (mathext.Digamma(x) - psn[l])
			}
		}
		if len(out) > 0 {
			den += lAs + (sa-sa0)*lBs - pOut*psa
			for l := range num {
				num[l] += lA[l] + (next[l]-a[l])*lB[l] - pOut*psn[l]
			}
		}
		// δ·log(α_c/Σα) adds δ/α_c to the derivative in α_c (the numerator,
		// times α_c) and −δ/Σα to every one (the denominator).
		den += dl / sa
		if !(den > 0) {
			break
		}
		if polyaStep(next, num, den, b, dl, c, floor, m.cfg.PriorDominant) < 1e-12 {
			break
		}
	}
	if !(F(next)+outF(next) >= f0) {
		copy(a, old)
		return
	}
	for _, r := range out {
		p := st.q[r*M+k]
		for l := range C {
			i := (r*C+c)*C + l
			xi[i] = xi[i] - p*old[l] + p*next[l]
		}
	}
	copy(a, next)
	for i, r := range rs {
		p := st.q[r*M+k]
		for l := range C {
			xi[(r*C+c)*C+l] = base[i*C+l] + p*a[l]
		}
	}
}

// polyaStep is one step of the membership-weighted Pólya fixed point of
// row c (profileAlpha, polyaRow) from next, in place, given num_l = Σ_r q
// [ψ(α_l + n_rl) − ψ(α_l)] and den = Σ_r q [ψ(Σα + N_r) − ψ(Σα)] + δ/Σα:
//
//	α_l ← max((α_l·num_l + δ·[l = c]) / (den + b), floor),
//
// with dominant (Config.PriorDominant) α_c then raised to max_l α_l where
// it is below, and Σ_l α_l at most maxPriorPrecision. It returns the
// largest move relative to the entry.
func polyaStep(next, num []float64, den, b, dl float64, c int, floor float64, dominant bool) float64 {
	moved := 0.0
	for l := range next {
		nl := next[l] * num[l]
		if l == c {
			nl += dl
		}
		v := max(nl/(den+b), floor)
		moved = max(moved, math.Abs(v-next[l])/next[l])
		next[l] = v
	}
	if dominant {
		if top := slices.Max(next); next[c] < top {
			moved = max(moved, (top-next[c])/next[c])
			next[c] = top
		}
	}
	if s := sumOf(next); s > maxPriorPrecision {
		for l := range next {
			next[l] *= maxPriorPrecision / s
		}
	}
	return moved
}

// profileLinear bounds the membership of the annotators profileAlpha
// linearises (linearOutsider); a variable for the tests (0: every
// annotator exact).
var profileLinear = 1e-8

// linearOutsider reports whether profileAlpha may expand annotator r's
// terms about the row's current value a: q_rk ≤ profileLinear·min(1,
// min_l b_l)², b = ξ^r_c − q_rk·a the rest of its row.
func linearOutsider(p float64, xi, a []float64) bool {
	if p > profileLinear {
		return false
	}
	bmin := 1.0
	for l, x := range xi {
		bmin = min(bmin, x-p*a[l])
	}
	return bmin > 0 && p <= profileLinear*bmin*bmin
}

// Memberships returns q(z_r) for every annotator (row r: one probability
// per community); nil unless prior = "communities".
func (m *Model) Memberships() [][]float64 {
	cm := m.comm
	if cm == nil {
		return nil
	}
	out := make([][]float64, m.nr)
	for r := range out {
		out[r] = slices.Clone(cm.q[r*cm.m:][:cm.m])
	}
	return out
}

// CommunityPriors returns every community's prior α_m as C rows (row c:
// true class c); nil unless prior = "communities".
func (m *Model) CommunityPriors() [][][]float64 {
	cm := m.comm
	if cm == nil {
		return nil
	}
	C := m.nc
	out := make([][][]float64, cm.m)
	for k := range out {
		out[k] = make([][]float64, C)
		for c := range C {
			out[k][c] = slices.Clone(cm.alpha[(k*C+c)*C:][:C])
		}
	}
	return out
}

// CommunityWeights returns w, the communities' weights; nil unless prior =
// "communities".
func (m *Model) CommunityWeights() []float64 {
	if m.comm == nil {
		return nil
	}
	return slices.Clone(m.comm.w)
}

var _ framework.Ascender = (*Model)(nil)

// Ascends reports whether the update only ascends (framework.Ascender):
// with communities the block coordinate ascent of fitCommunities stops
// after at most communitiesMaxIter rounds and the bound in memberships has
// several local maxima; the other priors are maximised exactly. With a
// lapse (Config.Lapse) the statistics hold the E-step's split between the
// matrix and the lapse, so the update maximises the bound at that split
// (EM over the split) and only ascends the bound re-split at its result.
func (m *Model) Ascends() bool {
	return m.cfg.Prior == PriorCommunities || m.comm != nil || m.cfg.Lapse > 0
}

// memberships sets st.q, every annotator's q(z_r), to its maximiser given
// E[log π] (elog, laid out as ξ), the weights and the priors:
//
//	q_rm ∝ w_m exp(Σ_c [N(α_mc) + Σ_l (α_mcl − 1) E[log π^r_cl]]).
func (m *Model) memberships(st *communities, elog []float64) {
	R, C, M := m.nr, m.nc, st.m
	score := make([]float64, M)
	norms := make([]float64, M*C)
	for k := range M {
		for c := range C {
			norms[k*C+c] = dirNorm(st.alpha[(k*C+c)*C:][:C])
		}
	}
	for r := range R {
		e := elog[r*C*C:][:C*C]
		top := math.Inf(-1)
		for k := range M {
			s := math.Log(st.w[k])
			for c := range C {
				s += norms[k*C+c]
			}
			for i, a := range st.alpha[k*C*C:][:C*C] {
				s += (a - 1) * e[i]
			}
			score[k] = s
			top = max(top, s)
		}
		softmaxInto(st.q[r*M:][:M], score, top)
	}
}

// softmaxInto sets dst to the normalised exp(score) (top: the largest
// score, subtracted before exponentiating) and returns log Σ_k exp(score_k),
// the value of max over q of Σ_k q_k (score_k − log q_k). score is
// overwritten.
func softmaxInto(dst, score []float64, top float64) float64 {
	z := 0.0
	for k, s := range score {
		score[k] = math.Exp(s - top)
		z += score[k]
	}
	for k := range dst {
		dst[k] = score[k] / z
	}
	return top + math.Log(z)
}
