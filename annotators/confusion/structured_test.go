package confusion

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// structuredState is a model with M communities under membership =
// "structured" whose priors, weights and soft memberships are random, with
// ξ = ᾱ + counts for random counts (some rows empty), refreshed. It
// returns the model and the counts.
func structuredState(t *testing.T, R, C, M int, seed uint64) (*Model, []float64) {
	t.Helper()
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.PriorDiagonal, cfg.Membership = InitUniform, PriorCommunities, M, 0.3, 1.5, MembershipStructured
	m := newModel(t, cfg, R, C, nil)
	rng := rand.New(rand.NewPCG(seed, 17))
	cm := m.comm
	for i := range cm.alpha {
		cm.alpha[i] = 1 + 3*rng.Float64()
	}
	z := 0.0
	for k := range cm.w {
		cm.w[k] = 0.2 + rng.Float64()
		z += cm.w[k]
	}
	for k := range cm.w {
		cm.w[k] /= z
	}
	for r := range R {
		copy(cm.q[r*M:], randSimplex(rng, M))
	}
	counts := make([]float64, R*C*C)
	for i := 0; i < len(counts); i += C {
		if rng.Float64() < 0.3 {
			continue // an empty row
		}
		for l := range C {
			counts[i+l] = 4 * rng.Float64()
		}
	}
	cm.mix(R, C)
	for i := range m.xi {
		m.xi[i] = cm.pri[i] + counts[i]
	}
	m.refresh()
	return m, counts
}

// structuredBound is the structured family's bound written out from
// docs/design.md with math.Lgamma, for the counts n (ρ = 1, S = 1):
//
//	Σ_r Σ_m q_rm [log w_m − log q_rm + Σ_c log Pólya(n_rc | α_mc)] − b·Σ α + δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl).
func structuredBound(m *Model, n []float64) float64 {
	R, C := m.nr, m.nc
	cm := m.comm
	M := cm.m
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	f := 0.0
	for r := range R {
		for k := range M {
			q := cm.q[r*M+k]
			if q == 0 {
				continue
			}
			t := math.Log(cm.w[k]) - math.Log(q)
			for c := range C {
				a, x := cm.alpha[(k*C+c)*C:][:C], n[(r*C+c)*C:][:C]
				sa, sx := 0.0, 0.0
				for l := range C {
					t += lg(a[l]+x[l]) - lg(a[l])
					sa += a[l]
					sx += x[l]
				}
				t += lg(sa) - lg(sa+sx)
			}
			f += q * t
		}
	}
	for k := range M {
		for c := range C {
			a := cm.alpha[(k*C+c)*C:][:C]
			f += m.cfg.PriorDiagonal * (math.Log(a[c]) - math.Log(sumOf(a)))
		}
	}
	return f - m.cfg.PriorRate*sumOf(cm.alpha)
}

// TestStructuredBoundByHand: under membership = "structured" the
// annotators' bound (ELBO at statistics holding the counts, S = 1: the
// answers' term with E[log π] the mixture over communities, plus
// GlobalELBO) is the written-out bound of the Pólya probabilities, at
// random soft memberships, priors and counts, empty rows included.
func TestStructuredBoundByHand(t *testing.T) {
	for seed := range uint64(5) {
		m, counts := structuredState(t, 6, 3, 3, seed)
		got := m.ELBO(statsOf(m, counts), framework.BatchStep(1))
		if want := structuredBound(m, counts); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("seed %d: ELBO %.15g, by hand %.15g", seed, got, want)
		}
	}
}

// TestStructuredUpdateAscends: each batch update (fitStructured, ρ = 1)
// never lowers the written-out bound, and where it stops the memberships
// and the priors are its maximisers: moving membership mass between two
// communities, or any prior entry off the floor, changes the bound by
// nothing to first order (central differences).
func TestStructuredUpdateAscends(t *testing.T) {
	const R, C, M = 8, 3, 3
	m, counts := structuredState(t, R, C, M, 7)
	prev := structuredBound(m, counts)
	for it := range 30 {
		if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		f := structuredBound(m, counts)
		if f < prev-1e-9*math.Abs(prev) {
			t.Fatalf("update %d lowered the bound: %.12g → %.12g", it, prev, f)
		}
		prev = f
	}
	cm := m.comm
	at := func(set func()) float64 {
		q, a := append([]float64(nil), cm.q...), append([]float64(nil), cm.alpha...)
		set()
		v := structuredBound(m, counts)
		copy(cm.q, q)
		copy(cm.alpha, a)
		return v
	}
	for r := range R {
		for k := 1; k < M; k++ {
			const h = 1e-7
			if cm.q[r*M] < 2*h || cm.q[r*M+k] < 2*h {
				continue // on the simplex's edge: a one-sided maximum
			}
			up := at(func() { cm.q[r*M] -= h; cm.q[r*M+k] += h })
			dn := at(func() { cm.q[r*M] += h; cm.q[r*M+k] -= h })
			if d := (up - dn) / (2 * h); math.Abs(d) > 1e-4 {
				t.Errorf("annotator %d: moving membership from community 0 to %d changes the bound at rate %g", r, k, d)
			}
		}
	}
	floor := m.priorFloor()
	for i, a := range cm.alpha {
		if cm.w[i/(C*C)] < 1e-3 {
			continue // an empty community's prior has no members to fit
		}
		h := 1e-6 * a
		up := at(func() { cm.alpha[i] += h })
		dn := at(func() { cm.alpha[i] -= h })
		g := (up - dn) / (2 * h)
		tol := 1e-4 * math.Max(1, math.Abs(prev)) / a
		if a <= floor*(1+1e-12) {
			if g > tol {
				t.Errorf("α entry %d on the floor %v: ∂bound/∂α = %g > 0", i, floor, g)
			}
		} else if math.Abs(g) > tol {
			t.Errorf("α entry %d = %v: ∂bound/∂α = %g, not stationary", i, a, g)
		}
	}
}

// fewAnswerCrowd is the counts (against the true classes) of a crowd of
// 12 good annotators (accuracy 0.8, 40 answers each) and 36 who answer
// class 3 whatever the document, 2 answers each: a constant community none
// of whose members has answers enough to be judged alone.
func fewAnswerCrowd(C int) (counts []float64, R, good int) {
	good, spam := 12, 36
	R = good + spam
	counts = make([]float64, R*C*C)
	rng := rand.New(rand.NewPCG(3, 5))
	for r := range good {
		for range 40 {
			c := rng.IntN(C)
			l := c
			if rng.Float64() > 0.8 {
				l = (c + 1 + rng.IntN(C-1)) % C
			}
			counts[(r*C+c)*C+l]++
		}
	}
	for r := good; r < R; r++ {
		for range 2 {
			counts[(r*C+rng.IntN(C))*C+3]++
		}
	}
	return counts, R, good
}

// TestStructuredSeparatesFewAnswers: with three communities and the counts
// of fewAnswerCrowd, the structured family puts every one-class annotator
// into a community of its own, whose prior rows all favour class 3, and
// reads their answers as saying little about the document; the mean-field
// family (the model before) cannot move a two-answer annotator out of the
// largest community: its rows without answers sit at its mixed prior and
// vote for the community it is in.
func TestStructuredSeparatesFewAnswers(t *testing.T) {
	const C, M = 4, 3
	counts, R, good := fewAnswerCrowd(C)
	fit := func(membership string) *Model {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.Membership = InitUniform, PriorCommunities, M, 0.1, membership
		m := newModel(t, cfg, R, C, nil)
		for range 20 {
			if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	argmax := func(q []float64) int {
		best := 0
		for k, x := range q {
			if x > q[best] {
				best = k
			}
		}
		return best
	}
	s := fit(MembershipStructured)
	spamComm := argmax(s.comm.q[good*M:][:M])
	for r := range R {
		k := argmax(s.comm.q[r*M:][:M])
		// (a one-class annotator whose two answers both fell on documents
		// of class 3 answered as a good one would: either is likely)
		only3 := r >= good && sumOf(counts[(r*C+3)*C:][:C]) == sumOf(counts[r*C*C:][:C*C])
		if p := s.comm.q[r*M+k]; p < 0.9 && !only3 {
			t.Errorf("structured: annotator %d's membership %v is not settled", r, s.comm.q[r*M:][:M])
		}
		if (r >= good) != (k == spamComm) {
			t.Errorf("structured: annotator %d (good: %v) is in community %d, the one-class answerers' is %d", r, r < good, k, spamComm)
		}
	}
	for c := range C {
		a := s.comm.alpha[(spamComm*C+c)*C:][:C]
		if a[3]/sumOf(a) < 0.5 {
			t.Errorf("structured: the one-class community's row %d %v does not favour class 3", c, a)
		}
	}
	// A one-class annotator's answer 3 on a document of class 0: its
	// E[log π_03] against E[log π_33] (the evidence for class 3 over 0).
	r := good
	ev := func(m *Model) float64 { return m.ElogPi(r, 3, 3) - m.ElogPi(r, 0, 3) }
	mf := fit(MembershipMeanField)
	if e := ev(s); math.Abs(e) > 0.5 {
		t.Errorf("structured: a one-class annotator's answer 3 weighs %.3g nats for class 3 over 0, want about 0", e)
	}
	if e := ev(mf); e < 1 {
		t.Logf("mean-field: the same answer weighs %.3g nats (the test documents the model before; no assertion on it)", e)
	} else {
		t.Logf("mean-field: the same answer weighs %.3g nats for class 3", e)
	}
}

// TestMembershipConfig: membership needs communities and is one of its
// two values; the errors say what is valid.
func TestMembershipConfig(t *testing.T) {
	for _, tc := range []struct {
		prior, membership, want string
	}{
		{PriorCommunities, MembershipStructured, ""},
		{PriorAuto, MembershipStructured, ""},
		{PriorFixed, "", ""},
		{PriorAuto, MembershipMeanField, ""},
		{PriorFixed, MembershipMeanField, `membership = "mean-field" needs prior = "communities" or "auto"`},
		{PriorFixed, MembershipStructured, `membership = "structured" needs prior = "communities" or "auto"`},
		{PriorCommunities, "structure", `membership = "structure"; valid: mean-field (q(z)·q(π)), structured (q(z)·q(π | z))`},
	} {
		cfg := Defaults()
		cfg.Prior, cfg.Membership = tc.prior, tc.membership
		_, err := NewModel(cfg)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("prior %q, membership %q: %v", tc.prior, tc.membership, err)
		case tc.want != "" && (!errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("prior %q, membership %q: %v, want ErrBadInput with %q", tc.prior, tc.membership, err, tc.want)
		}
	}
}

// TestStructuredMean: under membership = "structured" Mean(r) is the
// mixture's E[π^r_c] = Σ_m q_rm (α_mc + n_rc)/Σ_l (α_mcl + n_rcl), and
// LogPredictive of an answer is the log of Σ_c λ_c Mean(r)[c][y].
func TestStructuredMean(t *testing.T) {
	const R, C, M = 5, 3, 3
	m, counts := structuredState(t, R, C, M, 11)
	cm := m.comm
	lam := []float64{0.2, 0.5, 0.3}
	cat := framework.NewCategorical(C)
	copy(cat.P, lam)
	for r := range R {
		got := m.Mean(r)
		for c := range C {
			for l := range C {
				want := 0.0
				for k := range M {
					a, x := cm.alpha[(k*C+c)*C:][:C], counts[(r*C+c)*C:][:C]
					want += cm.q[r*M+k] * (a[l] + x[l]) / (sumOf(a) + sumOf(x))
				}
				if math.Abs(got[c][l]-want) > 1e-12 {
					t.Errorf("Mean(%d)[%d][%d] = %.15g, by hand %.15g", r, c, l, got[c][l], want)
				}
			}
		}
		for y := range C {
			p := 0.0
			for c := range C {
				p += lam[c] * got[c][y]
			}
			if lp := m.LogPredictive(cat, framework.Answer{Annotator: int32(r), Class: int32(y)}); math.Abs(lp-math.Log(p)) > 1e-12 {
				t.Errorf("LogPredictive(annotator %d, answer %d) = %.15g, want log Σ_c λ_c Mean = %.15g", r, y, lp, math.Log(p))
			}
		}
	}
}

// TestMembershipPersist: the family is saved with the communities and the
// file decides on loading: a structured fit loaded into a model
// configured mean-field has the fit's E[log π] and bound bit for bit; a
// file without the family (written before it was saved) is mean-field.
func TestMembershipPersist(t *testing.T) {
	m, counts := structuredState(t, 6, 3, 3, 21)
	if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"family":"structured"`) {
		t.Fatalf("the saved communities do not name their family: %s", buf.String())
	}
	load := func(file string, membership string) *Model {
		cfg := m.cfg
		cfg.Membership = membership
		h := newModel(t, cfg, 6, 3, nil)
		if err := h.LoadParams(strings.NewReader(file)); err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := load(buf.String(), MembershipMeanField)
	if h.family != MembershipStructured || !slices.Equal(h.elogT, m.elogT) || h.GlobalELBO() != m.GlobalELBO() {
		t.Errorf("loaded into a mean-field configuration: family %q, E[log π] equal %v, bound %v against %v", h.family, slices.Equal(h.elogT, m.elogT), h.GlobalELBO(), m.GlobalELBO())
	}
	old := strings.Replace(buf.String(), `,"family":"structured"`, "", 1)
	o := load(old, "")
	if o.family != MembershipMeanField {
		t.Errorf("a file without the family loaded as %q, want %q", o.family, MembershipMeanField)
	}
	mf := load(buf.String(), "")
	mf.family = MembershipMeanField
	mf.refresh()
	if !slices.Equal(o.elogT, mf.elogT) {
		t.Errorf("a file without the family: E[log π] is not the mean-field family's of the same ξ")
	}
	bad := strings.Replace(buf.String(), `"family":"structured"`, `"family":"structure"`, 1)
	cfg := m.cfg
	if err := newModel(t, cfg, 6, 3, nil).LoadParams(strings.NewReader(bad)); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), `family "structure"`) {
		t.Errorf("a bad family: %v, want ErrBadInput naming it", err)
	}
}

// TestSoftmaxInto: the memberships' normalisation and the value it returns,
// log Σ_k exp(score_k) (the structured update's stopping rule reads the
// bound from it), on a fixture checked by hand.
func TestSoftmaxInto(t *testing.T) {
	score := []float64{1, 2, 3}
	dst := make([]float64, 3)
	z := math.E + math.E*math.E + math.E*math.E*math.E
	got := softmaxInto(dst, score, 3)
	if want := math.Log(z); math.Abs(got-want) > 1e-14 {
		t.Errorf("log Σ exp = %.16g, want %.16g", got, want)
	}
	for k, p := range dst {
		if want := math.Exp(float64(k+1)) / z; math.Abs(p-want) > 1e-15 {
			t.Errorf("dst[%d] = %.16g, want %.16g", k, p, want)
		}
	}
}

// TestStructuredWorkers: the communities' update under membership =
// "structured" gives the same memberships, weights, priors and ξ, bit for
// bit, on one goroutine and on several (SetWorkers), over several
// updates.
func TestStructuredWorkers(t *testing.T) {
	const R, C, M = 37, 3, 4
	var ref *Model
	for _, w := range []int{1, 2, 3, 16} {
		m, counts := structuredState(t, R, C, M, 11)
		m.SetWorkers(w)
		for range 4 {
			if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
		}
		if ref == nil {
			ref = m
			continue
		}
		for name, p := range map[string][2][]float64{
			"q": {ref.comm.q, m.comm.q}, "w": {ref.comm.w, m.comm.w},
			"alpha": {ref.comm.alpha, m.comm.alpha}, "xi": {ref.xi, m.xi},
		} {
			for i := range p[0] {
				if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
					t.Fatalf("%d goroutines: %s[%d] = %v, one goroutine's %v", w, name, i, p[1][i], p[0][i])
				}
			}
		}
	}
}
