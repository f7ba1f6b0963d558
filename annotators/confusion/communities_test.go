package confusion

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// statsOf returns statistics holding counts (every annotator touched).
func statsOf(m *Model, counts []float64) *Stats {
	s := m.NewStats().(*Stats)
	copy(s.Counts, counts)
	for r := range m.nr {
		s.touch(int32(r))
	}
	return s
}

// TestCommunitiesOneIsLearned: with one community the bound is the learned
// prior's (every annotator in it for sure), so batch updates from the same
// start and statistics reach the same prior and ξ as prior = "learned".
func TestCommunitiesOneIsLearned(t *testing.T) {
	const R, C = 30, 3
	counts := overdispersed(R, C, 2)
	cfg := Defaults()
	cfg.Init = InitUniform
	cfg.Prior = PriorLearned
	learned := newModel(t, cfg, R, C, nil)
	cfg.Prior, cfg.Communities, cfg.PriorFloor = PriorCommunities, 1, 0.01 // the learned prior's floor
	comm := newModel(t, cfg, R, C, nil)
	// The learned prior's update reaches its maximum at once; the
	// communities' ascent stops after communitiesMaxIter rounds and goes on
	// from there at the next update (as across EM iterations).
	for _, m := range []*Model{learned, comm} {
		for range 20 {
			if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s := sumOf(learned.alpha); s > 0.9*float64(C)*maxPriorPrecision {
		t.Fatalf("the learned prior's precision %v is at the cap: the comparison needs an interior maximum", s)
	}
	approx := cmpopts.EquateApprox(1e-6, 0)
	if diff := cmp.Diff(learned.alpha, comm.comm.alpha, approx); diff != "" {
		t.Errorf("one community's prior differs from the learned prior (-learned +communities):\n%s", diff)
	}
	if diff := cmp.Diff(learned.xi, comm.xi, approx); diff != "" {
		t.Errorf("ξ differs (-learned +communities):\n%s", diff)
	}
	if e, f := learned.ELBO(statsOf(learned, counts), framework.BatchStep(1)), comm.ELBO(statsOf(comm, counts), framework.BatchStep(1)); math.Abs(e-f) > 1e-6*math.Abs(e) {
		t.Errorf("bound %v with the learned prior, %v with one community", e, f)
	}
}

// TestCommunitiesSortAnnotators: 6 good annotators and 4 who answer the
// first class whatever the truth, judged against the true labels: two
// communities separate them (memberships near 0 and 1), the spammers'
// community has rows that put most mass on the first class, and an
// annotator with two answers, both the first class on documents of other
// classes, joins the spammers and inherits their confusions.
func TestCommunitiesSortAnnotators(t *testing.T) {
	for _, family := range []string{MembershipMeanField, MembershipStructured} {
		t.Run(family, func(t *testing.T) { sortAnnotators(t, family) })
	}
}

// sortAnnotators is TestCommunitiesSortAnnotators under one family. Under
// the structured family annotator 10's two answers alone weigh the
// communities (odds of about 70 to 1), where under the mean-field family
// its empty row also votes: 0.98 and 0.99 of its membership.
func sortAnnotators(t *testing.T, family string) {
	const R, C = 11, 3
	counts := make([]float64, R*C*C)
	for r := range R {
		for c := range C {
			switch {
			case r < 6: // good: 16 of 20 right, the rest spread
				for l := range C {
					counts[(r*C+c)*C+l] = 2
				}
				counts[(r*C+c)*C+c] = 16 + float64(r%3)
			case r < 10: // spammers: the first class 18 times of 20
				counts[(r*C+c)*C] = 18 - float64(r%2)
				counts[(r*C+c)*C+1] = 1
				counts[(r*C+c)*C+2] = 1 + float64(r%2)
			}
		}
	}
	counts[(10*C+1)*C] = 1 // annotator 10: first class for a class-1 and a class-2 document
	counts[(10*C+2)*C] = 1
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.Communities, cfg.Membership = InitUniform, PriorCommunities, 2, family
	m := newModel(t, cfg, R, C, nil)
	s := statsOf(m, counts)
	prev := m.ELBO(s, framework.BatchStep(1))
	for it := range 5 {
		if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		e := m.ELBO(s, framework.BatchStep(1))
		if e < prev-1e-9*math.Abs(prev) {
			t.Errorf("update %d lowered the bound from %.12g to %.12g", it, prev, e)
		}
		prev = e
	}
	q := m.Memberships()
	good := 0
	if q[0][1] > q[0][0] {
		good = 1
	}
	for r := range R {
		want := good
		if r >= 6 {
			want = 1 - good
		}
		if least := map[bool]float64{true: 0.98, false: 0.99}[r == 10 && family == MembershipStructured]; q[r][want] < least {
			t.Errorf("annotator %d: memberships %v, want community %d (≥ %v)", r, q[r], want, least)
		}
	}
	spam := m.CommunityPriors()[1-good]
	for c, row := range spam {
		if row[0]/sumOf(row) < 0.7 {
			t.Errorf("the spammers' community, row %d: %v, want most mass on the first class", c, row)
		}
	}
	// w_m = Σ_r q_rm / R: 6 good of 11, 5 spammers.
	w := m.CommunityWeights()
	if math.Abs(w[good]-6.0/11) > 0.01 || math.Abs(w[1-good]-5.0/11) > 0.01 {
		t.Errorf("community weights %v, want the shares of their members: 6/11 good, 5/11 spammers", w)
	}
	if acc := m.Mean(10)[0][0]; acc < 0.7 {
		t.Errorf("annotator 10's E[π_00] = %v: it should inherit the spammers' first-class answer (≥ 0.7)", acc)
	}
}

// TestCommunitiesPersist: the communities are saved and restored; a file
// without them is refused by a model with communities and the other way
// round, as are memberships that are not probabilities.
func TestCommunitiesPersist(t *testing.T) {
	const R, C = 12, 3
	cfg := Defaults()
	cfg.Init, cfg.Prior = InitUniform, PriorCommunities
	m := newModel(t, cfg, R, C, nil)
	if err := m.Update(context.Background(), statsOf(m, overdispersed(R, C, 3)), framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	h := newModel(t, cfg, R, C, nil)
	if err := h.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.Memberships(), h.Memberships()); diff != "" {
		t.Errorf("memberships not restored:\n%s", diff)
	}
	if m.GlobalELBO() != h.GlobalELBO() {
		t.Errorf("bound %v before saving, %v after loading", m.GlobalELBO(), h.GlobalELBO())
	}
	fixed := Defaults()
	if err := newModel(t, fixed, R, C, nil).LoadParams(bytes.NewReader(buf.Bytes())); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "communities") {
		t.Errorf("communities into a fixed prior: %v, want ErrBadInput naming the communities", err)
	}
	var plain bytes.Buffer
	if err := newModel(t, fixed, R, C, nil).SaveParams(&plain); err != nil {
		t.Fatal(err)
	}
	if err := newModel(t, cfg, R, C, nil).LoadParams(&plain); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "has none") {
		t.Errorf("a file without communities: %v, want ErrBadInput", err)
	}
	bad := strings.Replace(buf.String(), `"membership":[[`, `"membership":[[7,`, 1)
	if err := newModel(t, cfg, R, C, nil).LoadParams(strings.NewReader(bad)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("a membership that is not a probability: %v, want ErrBadInput", err)
	}
	cfg.Communities = 0
	if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("communities = 0: %v, want ErrBadInput", err)
	}
}

// TestCommunitiesReport: annotators.csv gains the most probable community
// and its probability; the JSON document the memberships.
func TestCommunitiesReport(t *testing.T) {
	const R, C = 4, 2
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.Communities = InitUniform, PriorCommunities, 2
	m := newModel(t, cfg, R, C, nil)
	m.comm.q = []float64{0.9, 0.1, 0.2, 0.8, 0.5, 0.5, 0, 1}
	header, rows, doc := m.Report()
	if got := header[len(header)-2:]; !cmp.Equal(got, []string{"community", "community_p"}) {
		t.Errorf("last columns %v", got)
	}
	var got [][]string
	for _, row := range rows {
		got = append(got, row[len(row)-2:])
	}
	if diff := cmp.Diff([][]string{{"1", "0.9"}, {"2", "0.8"}, {"1", "0.5"}, {"2", "1"}}, got); diff != "" {
		t.Errorf("community columns (-want +got):\n%s", diff)
	}
	if a := doc.([]Annotator)[3]; a.Community != 2 || !cmp.Equal(a.Membership, []float64{0, 1}) {
		t.Errorf("annotator 3 in the document: community %d, membership %v", a.Community, a.Membership)
	}
}

// TestCommunitiesPriorRate: the exponential hyperprior (prior_rate b)
// shrinks the communities' precisions Σ_l α_mcl, more for a larger b, and
// the profiled update is its stationary point: ∂/∂α of the bound less
// b·Σ α vanishes (central differences on one row); rates are refused
// without communities.
func TestCommunitiesPriorRate(t *testing.T) {
	for _, family := range []string{MembershipMeanField, MembershipStructured} {
		t.Run(family, func(t *testing.T) { priorRate(t, family) })
	}
	cfg := Defaults()
	cfg.PriorRate = 0.1
	if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_rate without communities: %v, want ErrBadInput", err)
	}
	cfg = Defaults()
	cfg.PriorFloor = 0.5
	if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_floor without communities: %v, want ErrBadInput", err)
	}
	cfg.Prior, cfg.PriorFloor = PriorCommunities, -1
	if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_floor = -1: %v, want ErrBadInput", err)
	}
}

// priorRate is TestCommunitiesPriorRate's fits under one family.
func priorRate(t *testing.T, family string) {
	const R, C = 30, 3
	counts := overdispersed(R, C, 5)
	prec := func(rate, floor float64) (float64, *Model) {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.PriorFloor, cfg.Membership = InitUniform, PriorCommunities, 1, rate, floor, family
		m := newModel(t, cfg, R, C, nil)
		for range 30 {
			if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
		}
		return sumOf(m.comm.alpha), m
	}
	p0, _ := prec(0, 0.01)
	p1, _ := prec(0.1, 0.01)
	p2, m := prec(1, 0.01)
	if !(p0 > p1 && p1 > p2) {
		t.Errorf("total prior mass %v, %v, %v at rates 0, 0.1, 1: want it falling", p0, p1, p2)
	}
	checkStationary(t, m, counts, "rate 1")
	// The default floor, ω = 1: no entry below it, and the bound falls
	// when an entry held on it rises (the maximum is on the boundary).
	_, m = prec(1, 0)
	onFloor := 0
	for i, a := range m.comm.alpha {
		if a < m.cfg.Omega {
			t.Errorf("prior entry %d = %v below the floor ω = %v", i, a, m.cfg.Omega)
		}
		if a == m.cfg.Omega && i < C {
			onFloor++
		}
	}
	if onFloor == 0 {
		t.Fatalf("no entry of row 0 on the floor: the check below needs one (row 0 %v)", m.comm.alpha[:C])
	}
	checkStationary(t, m, counts, "floor ω")
}

// checkStationary checks the Karush–Kuhn–Tucker conditions of row 0 of a
// one-community prior in the bound S·Σ n E[log π] + the priors' terms −
// b·Σ α, with ξ at ᾱ + n (every membership 1): the derivative is 0 at an
// entry above the floor and ≤ 0 at an entry on it.
func checkStationary(t *testing.T, m *Model, counts []float64, what string) {
	t.Helper()
	R, C := m.nr, m.nc
	bound := func(alpha []float64) float64 {
		h := newModel(t, m.cfg, R, C, nil)
		copy(h.comm.alpha, alpha)
		for r := range R {
			h.comm.q[r] = 1
		}
		h.comm.mix(R, C)
		for i := range h.xi {
			h.xi[i] = h.comm.pri[i] + counts[i]
		}
		h.refresh()
		return h.ELBO(statsOf(h, counts), framework.BatchStep(1))
	}
	a := append([]float64(nil), m.comm.alpha...)
	f0 := bound(a)
	floor := m.priorFloor()
	for i := range C { // row 0
		eps := 1e-6 * a[i]
		up, dn := append([]float64(nil), a...), append([]float64(nil), a...)
		up[i] += eps
		dn[i] -= eps
		g := (bound(up) - bound(dn)) / (2 * eps)
		tol := 1e-5 * math.Max(1, math.Abs(f0)) / a[i]
		if a[i] == floor {
			if g > tol {
				t.Errorf("%s: ∂bound/∂α_0%d = %g > 0 on the floor %v: raising it would help", what, i, g, floor)
			}
		} else if math.Abs(g) > tol {
			t.Errorf("%s: ∂bound/∂α_0%d = %g at α = %v: not stationary", what, i, g, a[i])
		}
	}
}

// communitiesState is a model with M communities whose priors, weights,
// memberships and ξ are set at random (soft memberships), with ξ and the
// derived terms refreshed.
func communitiesState(t *testing.T, R, C, M int, seed uint64) *Model {
	t.Helper()
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.Membership = InitUniform, PriorCommunities, M, 0.3, MembershipMeanField
	m := newModel(t, cfg, R, C, nil)
	rng := rand.New(rand.NewPCG(seed, 11))
	cm := m.comm
	for i := range cm.alpha {
		cm.alpha[i] = 0.5 + 3*rng.Float64()
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
	for i := range m.xi {
		m.xi[i] = 0.3 + 5*rng.Float64()
	}
	cm.mix(R, C)
	m.refresh()
	return m
}

// TestCommunitiesBoundByHand: the communities' global terms of the bound
// (GlobalELBO) are, written out from docs/design.md,
//
//	Σ_{r,m} q_rm (log w_m − log q_rm) + Σ_{r,c} [Σ_m q_rm N(α_mc) − N(ξ^r_c) + Σ_l (ᾱ^r_cl − ξ^r_cl) E[log π^r_cl]] − b·Σ α,
//
// at random soft memberships.
func TestCommunitiesBoundByHand(t *testing.T) {
	const R, C, M = 5, 3, 2
	m := communitiesState(t, R, C, M, 1)
	cm := m.comm
	want := 0.0
	for r := range R {
		for k := range M {
			q := cm.q[r*M+k]
			want += q * (math.Log(cm.w[k]) - math.Log(q))
		}
		for c := range C {
			xi := m.xi[(r*C+c)*C:][:C]
			abar := make([]float64, C)
			for k := range M {
				a := cm.alpha[(k*C+c)*C:][:C]
				want += cm.q[r*M+k] * dirNorm(a)
				for l := range C {
					abar[l] += cm.q[r*M+k] * a[l]
				}
			}
			want -= dirNorm(xi)
			s := sumOf(xi)
			for l := range C {
				want += (abar[l] - xi[l]) * (mathext.Digamma(xi[l]) - mathext.Digamma(s))
			}
		}
	}
	want -= m.cfg.PriorRate * sumOf(cm.alpha)
	if got := m.GlobalELBO(); math.Abs(got-want) > 1e-10*math.Abs(want) {
		t.Errorf("GlobalELBO %.15g, by hand %.15g", got, want)
	}
}

// TestMembershipsMaximise: the membership step sets each q(z_r) where the
// bound, as a function of q_r on the simplex (ξ, w, α fixed), is
// stationary: moving mass between two communities changes GlobalELBO by
// nothing to first order.
func TestMembershipsMaximise(t *testing.T) {
	const R, C, M = 4, 3, 3
	m := communitiesState(t, R, C, M, 2)
	cm := m.comm
	elog := make([]float64, len(m.xi))
	for i := 0; i < len(m.xi); i += C {
		s := sumOf(m.xi[i : i+C])
		for l, x := range m.xi[i : i+C] {
			elog[i+l] = mathext.Digamma(x) - mathext.Digamma(s)
		}
	}
	m.memberships(cm, elog)
	at := func(q []float64) float64 {
		old := append([]float64(nil), cm.q...)
		copy(cm.q, q)
		cm.mix(R, C)
		m.refresh()
		v := m.GlobalELBO()
		copy(cm.q, old)
		cm.mix(R, C)
		m.refresh()
		return v
	}
	q0 := append([]float64(nil), cm.q...)
	for r := range R {
		for k := 1; k < M; k++ {
			const h = 1e-6
			up, dn := append([]float64(nil), q0...), append([]float64(nil), q0...)
			up[r*M], up[r*M+k] = up[r*M]-h, up[r*M+k]+h
			dn[r*M], dn[r*M+k] = dn[r*M]+h, dn[r*M+k]-h
			if d := (at(up) - at(dn)) / (2 * h); math.Abs(d) > 1e-5 {
				t.Errorf("annotator %d: moving membership from community 0 to %d changes the bound at rate %g: not its maximiser", r, k, d)
			}
		}
	}
}

// answersFor is n answers spread over R annotators (annotator i%R, class
// i%C), one a document.
func answersFor(n, R, C int) [][]framework.Answer {
	out := make([][]framework.Answer, n)
	for i := range out {
		out[i] = []framework.Answer{{Annotator: int32(i % R), Class: int32(i % C)}}
	}
	return out
}

// TestPriorAuto: prior = "auto" pools the annotators into communities when
// at least AutoMinAnnotators answered and they have fewer than
// AutoAnswersPerEntry answers per confusion entry on average (N < 16·R·C²,
// R those who answered), the fixed prior otherwise; a saved model's file decides when it is rebuilt without
// answers or with answers that would choose the other way.
func TestPriorAuto(t *testing.T) {
	const C = 3
	cfg := Defaults()
	cfg.Init, cfg.Prior = InitUniform, PriorAuto
	for _, tc := range []struct {
		name    string
		n, R, r int // answers, annotators in the setup, annotators who answer
		want    string
	}{
		{"one below the line", AutoAnswersPerEntry*8*C*C - 1, 8, 8, PriorCommunities},
		{"on the line", AutoAnswersPerEntry * 8 * C * C, 8, 8, PriorFixed},
		{"silent annotators do not count", AutoAnswersPerEntry * 8 * C * C, 16, 8, PriorFixed},
		{"few answers each", 40, 10, 10, PriorCommunities},
		{"too few annotators to learn from", 40, 7, 7, PriorFixed},
		{"too few answer", 40, 10, AutoMinAnnotators - 1, PriorFixed},
		{"no answers", 0, 8, 8, PriorFixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			byDoc := answersFor(tc.n, tc.r, C)
			if tc.n == 0 {
				byDoc = nil
			}
			m := newModel(t, cfg, tc.R, C, byDoc)
			if got := m.PriorInUse(); got != tc.want {
				t.Errorf("PriorInUse = %q, want %q", got, tc.want)
			}
			if got, want := m.Ascends(), tc.want == PriorCommunities; got != want {
				t.Errorf("Ascends = %v, want %v", got, want)
			}
		})
	}
	// The file decides on loading.
	const R = AutoMinAnnotators
	few, many := answersFor(40, R, C), answersFor(AutoAnswersPerEntry*R*C*C, R, C)
	for _, tc := range []struct {
		name       string
		save, load [][]framework.Answer
		want       string
	}{
		{"communities rebuilt without answers", few, nil, PriorCommunities},
		{"communities into many answers", few, many, PriorCommunities},
		{"fixed into few answers", many, few, PriorFixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, cfg, R, C, tc.save)
			if err := m.Update(context.Background(), statsOf(m, overdispersed(R, C, 3)), framework.BatchStep(1)); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := m.SaveParams(&buf); err != nil {
				t.Fatal(err)
			}
			h := newModel(t, cfg, R, C, tc.load)
			if err := h.LoadParams(&buf); err != nil {
				t.Fatal(err)
			}
			if got := h.PriorInUse(); got != tc.want {
				t.Errorf("PriorInUse after loading = %q, want %q", got, tc.want)
			}
			if diff := cmp.Diff(m.xi, h.xi); diff != "" {
				t.Errorf("ξ not restored:\n%s", diff)
			}
			if m.GlobalELBO() != h.GlobalELBO() {
				t.Errorf("bound %v before saving, %v after loading", m.GlobalELBO(), h.GlobalELBO())
			}
		})
	}
	bad := Defaults()
	bad.Prior, bad.Estimate = PriorAuto, EstimatePoint
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("auto with point estimates: %v, want ErrBadInput", err)
	}
}

// TestProfileAlphaLinear: profileAlpha with the annotators outside a
// community linearised (q_rk ≤ profileLinear) moves the row's prior and ξ
// as the exact sums over every annotator do, to 1e-12: in a community whose
// other members are exact (case "members") and in one of outsiders only
// (case "outsiders", where the outsiders alone set the step and the
// second-order terms B are 1e-9 of it).
func TestProfileAlphaLinear(t *testing.T) {
	const R, C, M = 40, 3, 2
	counts := spamCounts(R, C, 30, 1)
	for _, tc := range []struct {
		name string
		in1  func(r int) bool // annotator r in community 1
	}{
		{"members", func(r int) bool { return r%10 >= 5 }},
		{"outsiders", func(int) bool { return false }},
	} {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities = InitUniform, PriorCommunities, M
		m := newModel(t, cfg, R, C, nil)
		cm := m.comm
		for r := range R {
			p := 1e-9 * float64(1+r%3) // outsiders' memberships 1e-9 … 3e-9
			if tc.in1(r) {
				p = 1 - p
			}
			cm.q[r*M], cm.q[r*M+1] = 1-p, p
		}
		for c := range C { // community 1: a weaker diagonal than community 0
			for l := range C {
				cm.alpha[(C+c)*C+l] = 1.5 + 0.5*float64(c+l)
			}
		}
		cm.mix(R, C)
		run := func(lin float64) (alpha, xi []float64) {
			defer func(v float64) { profileLinear = v }(profileLinear)
			profileLinear = lin
			st := &communities{m: M, alpha: append([]float64(nil), cm.alpha...), w: append([]float64(nil), cm.w...),
				q: append([]float64(nil), cm.q...), pri: append([]float64(nil), cm.pri...)}
			xi = make([]float64, R*C*C)
			for i := range xi {
				xi[i] = st.pri[i] + 4*counts[i]
			}
			for k := range M {
				for c := range C {
					m.profileAlpha(st, xi, k, c)
				}
			}
			return st.alpha, xi
		}
		a0, x0 := run(0)
		a1, x1 := run(1e-8)
		if diff := cmp.Diff(cm.alpha, a0, cmpopts.EquateApprox(1e-3, 0)); diff == "" {
			t.Fatalf("%s: the exact profile step left α where it was: the comparison needs a step", tc.name)
		}
		approx := cmpopts.EquateApprox(1e-12, 0)
		if diff := cmp.Diff(a0, a1, approx); diff != "" {
			t.Errorf("%s: α, exact (-) against linearised outsiders (+):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(x0, x1, approx); diff != "" {
			t.Errorf("%s: ξ, exact (-) against linearised outsiders (+):\n%s", tc.name, diff)
		}
	}
}

// TestCommunitiesPriorDiagonal: the diagonal hyperprior prior_diagonal = δ
// (docs/design.md, "The diagonal hyperprior"): its term in the bound is
// δ·Σ_{m,c} log(α_mcc/Σ_l α_mcl) exactly (a fixture by hand); the rows a
// batch update fits are stationary points of the bound with it (central
// differences, checkStationary) and more diagonal than without it; batch
// updates never lower the bound; and a relabelling of the classes moves
// the global bound by the hyperprior's difference and nothing else.
func TestCommunitiesPriorDiagonal(t *testing.T) {
	// The term, by hand, at random priors (communitiesState: b = 0.3).
	const R, C, M = 5, 3, 2
	m := communitiesState(t, R, C, M, 3)
	g0 := m.GlobalELBO()
	m.cfg.PriorDiagonal = 1.5
	m.refresh()
	want := 0.0
	for k := range M {
		for c := range C {
			a := m.comm.alpha[(k*C+c)*C:][:C]
			want += 1.5 * math.Log(a[c]/(a[0]+a[1]+a[2]))
		}
	}
	if got := m.GlobalELBO() - g0; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("the hyperprior's term in the bound: %v, want %v", got, want)
	}

	// Stationary rows, more diagonal than without the hyperprior, and a
	// monotone bound over batch updates.
	const R2, C2 = 30, 3
	counts := overdispersed(R2, C2, 5)
	fit := func(dl float64, family string) *Model {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.PriorDiagonal, cfg.Membership = InitUniform, PriorCommunities, 1, 0.1, dl, family
		return fitAscending(t, cfg, R2, C2, counts, 30, fmt.Sprintf("δ %v, %s", dl, family))
	}
	mean := func(m *Model) float64 {
		a := m.comm.alpha[:C2]
		return a[0] / (a[0] + a[1] + a[2])
	}
	for _, family := range []string{MembershipMeanField, MembershipStructured} {
		m0, m1 := fit(0, family), fit(5, family)
		checkStationary(t, m1, counts, "prior_diagonal 5, "+family)
		if !(mean(m1) > mean(m0)) {
			t.Errorf("%s: row 0's diagonal mean %v with δ 5, %v without: want it larger", family, mean(m1), mean(m0))
		}
	}

	// A relabelling moves the global bound by the hyperprior's difference.
	byDoc := constantCrowd(true)
	cfg := Defaults()
	cfg.Init, cfg.Prior, cfg.PriorDiagonal = InitMajority, PriorCommunities, 2
	m = newModel(t, cfg, 2, 3, byDoc)
	for it := 1; it <= 3; it++ {
		st := m.NewStats()
		for d, as := range byDoc {
			lam := []float64{0.1, 0.1, 0.1}
			lam[d%3] = 0.8
			m.Accumulate(st, docState(as, lam))
		}
		if err := m.Update(context.Background(), st, framework.BatchStep(it)); err != nil {
			t.Fatal(err)
		}
	}
	kl, h := m.GlobalELBO(), m.diagHyper(m.comm)
	if err := m.PermuteClasses([]int{2, 0, 1}); err != nil {
		t.Fatal(err)
	}
	dh := m.diagHyper(m.comm) - h
	if math.Abs(dh) < 1e-6 {
		t.Fatalf("the hyperprior did not change under the relabelling (%v): the check below needs it to", dh)
	}
	if d := m.GlobalELBO() - kl; math.Abs(d-dh) > 1e-9*math.Max(1, math.Abs(kl)) {
		t.Errorf("the global bound moved by %v under the relabelling, the hyperprior by %v", d, dh)
	}

	bad := Defaults()
	bad.PriorDiagonal = 1
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_diagonal without communities: %v, want ErrBadInput", err)
	}
	bad.Prior, bad.PriorDiagonal = PriorCommunities, -1
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_diagonal = -1: %v, want ErrBadInput", err)
	}
}

// TestCommunitiesPriorDominant: prior_dominant keeps every row of every
// community's prior largest on its own class. On counts whose row 2 every
// annotator answers mostly with class 0 (overdispersed rows, row 2's
// columns 0 and 2 swapped), the learned row 2 without it is largest on
// class 0; with it α_m22 ≥ α_m2l everywhere; batch updates never lower the
// bound, in both variational families; and it needs the communities.
func TestCommunitiesPriorDominant(t *testing.T) {
	const R, C = 30, 3
	counts := overdispersed(R, C, 5)
	for r := range R {
		row := counts[(r*C+2)*C:][:C]
		row[0], row[2] = row[2], row[0]
	}
	fit := func(dominant bool, family string) *Model {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.PriorDominant, cfg.Membership = InitUniform, PriorCommunities, 2, 0.1, dominant, family
		return fitAscending(t, cfg, R, C, counts, 30, fmt.Sprintf("dominant %v, %s", dominant, family))
	}
	for _, family := range []string{MembershipMeanField, MembershipStructured} {
		free, dom := fit(false, family), fit(true, family)
		row2 := func(m *Model, k int) []float64 { return m.comm.alpha[(k*C+2)*C:][:C] }
		if a := row2(free, 0); !(a[0] > a[2]) {
			t.Errorf("%s without prior_dominant: row 2 of community 0 is %v, want it largest on class 0 (else the check below proves nothing)", family, a)
		}
		for k := range dom.comm.m {
			for c := range C {
				a := dom.comm.alpha[(k*C+c)*C:][:C]
				if a[c] < slices.Max(a) {
					t.Errorf("%s with prior_dominant: community %d's row %d is %v, not largest on %d", family, k, c, a, c)
				}
			}
		}
	}
	bad := Defaults()
	bad.PriorDominant = true
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("prior_dominant without communities: %v, want ErrBadInput", err)
	}
}

// TestCommunitiesPriorRare: prior_rare holds the prior rows of a class
// with few answers at their start (ω plus each community's diagonal) and
// learns the others. On counts whose class 2 has 3% of the answers and
// class 1 16% (a class's share would be a third; the threshold at 0.25 is
// 8.3%), with prior_rare 0.25 every community's row 2 is its starting row
// after every update and rows 0 and 1 are not;
// without it row 2 is learned too; batch updates never lower the bound;
// and it needs the structured communities.
func TestCommunitiesPriorRare(t *testing.T) {
	const R, C = 30, 3
	counts := overdispersed(R, C, 5)
	for r := range R {
		for c, f := range []float64{1, 0.2, 0.04} {
			for l := range C {
				counts[(r*C+c)*C+l] *= f
			}
		}
	}
	fit := func(share float64) *Model {
		cfg := Defaults()
		cfg.Init, cfg.Prior, cfg.Communities, cfg.PriorRate, cfg.PriorRare, cfg.Membership = InitUniform, PriorCommunities, 2, 0.1, share, MembershipStructured
		return fitAscending(t, cfg, R, C, counts, 20, fmt.Sprintf("prior_rare %v", share))
	}
	start := func(m *Model, k, c int) []float64 {
		a := make([]float64, C)
		startRow(m.cfg, a, m.comm.m, k, c)
		return a
	}
	held, free := fit(0.25), fit(0)
	for k := range held.comm.m {
		for c := range C {
			got := held.comm.alpha[(k*C+c)*C:][:C]
			if c == 2 {
				if d := cmp.Diff(start(held, k, c), got); d != "" {
					t.Errorf("prior_rare 0.25: community %d's row 2 is not its start (-start +got):\n%s", k, d)
				}
			} else if cmp.Equal(start(held, k, c), got) {
				t.Errorf("prior_rare 0.25: community %d's row %d was not learned: %v", k, c, got)
			}
		}
		if got := free.comm.alpha[(k*C+2)*C:][:C]; cmp.Equal(start(free, k, 2), got) {
			t.Errorf("without prior_rare: community %d's row 2 was not learned: %v", k, got)
		}
	}
	for _, bad := range []func(c *Config){
		func(c *Config) { c.PriorRare = 0.25 },                            // the fixed prior
		func(c *Config) { c.Prior, c.PriorRare = PriorCommunities, 0.25 }, // mean-field
		func(c *Config) { c.Prior, c.Membership, c.PriorRare = PriorCommunities, MembershipStructured, 1 },
		func(c *Config) { c.Prior, c.Membership, c.PriorRare = PriorCommunities, MembershipStructured, -0.1 },
		func(c *Config) {
			c.Prior, c.Membership, c.PriorRare = PriorCommunities, MembershipStructured, math.NaN()
		},
	} {
		cfg := Defaults()
		bad(&cfg)
		if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("prior_rare %v with prior %q, membership %q: %v, want ErrBadInput", cfg.PriorRare, cfg.Prior, cfg.Membership, err)
		}
	}
}

// fitAscending makes iters batch updates of a model of R annotators and C
// classes under cfg on fixed counts, and reports an update that lowers the
// bound (what names the case).
func fitAscending(t *testing.T, cfg Config, R, C int, counts []float64, iters int, what string) *Model {
	t.Helper()
	m := newModel(t, cfg, R, C, nil)
	prev := math.Inf(-1)
	for it := range iters {
		if err := m.Update(context.Background(), statsOf(m, counts), framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		b := m.ELBO(statsOf(m, counts), framework.BatchStep(1))
		if b < prev-1e-9*math.Abs(prev) {
			t.Errorf("%s: update %d lowered the bound %v → %v", what, it, prev, b)
		}
		prev = b
	}
	return m
}
