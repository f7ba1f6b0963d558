package confusion

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// ans builds an answer of annotator r with class y.
func ans(r, y int) framework.Answer {
	return framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)}
}

func names(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = prefix + strconv.Itoa(i)
	}
	return s
}

// newModel initialises a model over R annotators and C classes whose
// training corpus has the given answers (empty documents).
func newModel(t testing.TB, cfg Config, R, C int, byDoc [][]framework.Answer) *Model {
	t.Helper()
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	setup := &framework.Setup{Annotators: names("a", R), Classes: names("c", C)}
	if byDoc != nil {
		setup.Corpus = &framework.Corpus{Docs: make([]framework.Doc, len(byDoc)), V: 1,
			Answers: &framework.Answers{Annotators: setup.Annotators, Classes: setup.Classes, ByDoc: byDoc}}
	}
	if err := m.Init(setup); err != nil {
		t.Fatal(err)
	}
	return m
}

// docState is a document's state with answers and λ set directly.
func docState(as []framework.Answer, lam []float64) *framework.DocState {
	t := framework.NewCategorical(len(lam))
	copy(t.P, lam)
	return &framework.DocState{Answers: as, Target: t}
}

func randSimplex(rng *rand.Rand, n int) []float64 {
	p := make([]float64, n)
	s := 0.0
	for i := range p {
		p[i] = 0.05 + rng.Float64()
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
	return p
}

func randXi(rng *rand.Rand, R, C int) [][][]float64 {
	xi := make([][][]float64, R)
	for r := range xi {
		xi[r] = make([][]float64, C)
		for c := range xi[r] {
			xi[r][c] = make([]float64, C)
			for l := range xi[r][c] {
				xi[r][c][l] = 0.3 + 5*rng.Float64()
			}
		}
	}
	return xi
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// TestDocELBOFormula: DocELBO agrees with the document's annotator term
// Σ_r Σ_l λ_l E[log π^r_{l,y_r}] (MODEL.md §4) computed here independently
// from ξ. That the evidence is its gradient is the kit's EvidenceGradient.
func TestDocELBOFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const R, C = 3, 4
	cfg := Defaults()
	cfg.Omega, cfg.Diagonal = 0.7, 1.3
	m := newModel(t, cfg, R, C, nil)
	xi := randXi(rng, R, C)
	if err := m.SetXi(xi); err != nil {
		t.Fatal(err)
	}
	as := []framework.Answer{ans(0, 2), ans(1, 0), ans(2, 2), ans(1, 3)}
	lam := randSimplex(rng, C)
	d := docState(as, lam)

	// The term from ξ, written out: E[log π^r_{l,y}] = ψ(ξ^r_{l,y}) − ψ(Σ_t ξ^r_{l,t}).
	ref := func(lam []float64) float64 {
		e := 0.0
		for _, a := range as {
			for l := range lam {
				row := xi[a.Annotator][l]
				s := 0.0
				for _, x := range row {
					s += x
				}
				e += lam[l] * (mathext.Digamma(row[a.Class]) - mathext.Digamma(s))
			}
		}
		return e
	}
	if got, want := m.DocELBO(d), ref(lam); !near(got, want, 1e-12) {
		t.Fatalf("DocELBO = %v, want %v", got, want)
	}
}

// TestUpdateMaximisesELBO: with λ fixed, the ξ of Update is the maximiser
// of the annotators' ELBO in ξ: perturbing any entry by ±h lowers the bound
// and the central-difference gradient vanishes. The same check at a point
// that is not the update (ξ + 0.3) finds a clearly non-zero gradient, so
// the check has teeth. Run with S = 1 (batch) and S = 3 (the update and the
// bound must scale the statistics alike).
func TestUpdateMaximisesELBO(t *testing.T) {
	for _, scale := range []float64{1, 3} {
		rng := rand.New(rand.NewPCG(3, 4))
		const R, C = 3, 3
		cfg := Defaults()
		cfg.Omega, cfg.Diagonal = 0.7, 1.3
		m := newModel(t, cfg, R, C, nil)
		s := m.NewStats()
		for range 8 {
			as := []framework.Answer{ans(rng.IntN(R), rng.IntN(C))}
			if rng.IntN(2) == 0 {
				as = append(as, ans((int(as[0].Annotator)+1)%R, rng.IntN(C)))
			}
			m.Accumulate(s, docState(as, randSimplex(rng, C)))
		}
		step := framework.Step{Rho: 1, Scale: scale, Full: scale == 1, Iter: 1}
		if err := m.Update(context.Background(), s, step); err != nil {
			t.Fatal(err)
		}
		best := make([][][]float64, R)
		for r := range best {
			best[r] = m.Xi(r)
		}
		elboAt := func(xi [][][]float64) float64 {
			if err := m.SetXi(xi); err != nil {
				t.Fatal(err)
			}
			return m.ELBO(s, step)
		}
		grads := func(xi [][][]float64) (maxAbs float64, drops bool) {
			drops = true
			l0 := elboAt(xi)
			const h = 1e-4
			for r := range xi {
				for c := range xi[r] {
					for l := range xi[r][c] {
						x := xi[r][c][l]
						xi[r][c][l] = x + h
						up := elboAt(xi)
						xi[r][c][l] = x - h
						down := elboAt(xi)
						xi[r][c][l] = x
						maxAbs = math.Max(maxAbs, math.Abs(up-down)/(2*h))
						drops = drops && up < l0 && down < l0
					}
				}
			}
			return maxAbs, drops
		}
		g, drops := grads(best)
		if g > 1e-6 || !drops {
			t.Errorf("S = %v: at the update, max |∂L/∂ξ| = %.3g (want ≈ 0), every perturbation lowers L: %v", scale, g, drops)
		}
		for r := range best {
			for c := range best[r] {
				for l := range best[r][c] {
					best[r][c][l] += 0.3
				}
			}
		}
		if g, _ := grads(best); g < 1e-2 {
			t.Errorf("S = %v: at ξ + 0.3, max |∂L/∂ξ| = %.3g; the check cannot tell a maximiser", scale, g)
		}
	}
}

// fixtureAnswers: 3 annotators, 4 documents, 2 classes.
var fixtureAnswers = [][]framework.Answer{
	{ans(0, 0), ans(1, 0), ans(2, 1)}, // d0
	{ans(0, 1), ans(1, 0)},            // d1
	{ans(2, 0)},                       // d2
	{ans(0, 0), ans(2, 0)},            // d3
}

func checkXi(t *testing.T, m *Model, want [][][]float64, tol float64) {
	t.Helper()
	for r := range want {
		got := m.Xi(r)
		for c := range want[r] {
			for l := range want[r][c] {
				if !near(got[c][l], want[r][c][l], tol) {
					t.Errorf("ξ^%d_{%d,%d} = %v, want %v", r, c, l, got[c][l], want[r][c][l])
				}
			}
		}
	}
}

// TestFixtureUpdate: one batch update from λ set by hand (ω = 1, diagonal
// = 0.5: the prior is [[1.5, 1], [1, 1.5]]).
func TestFixtureUpdate(t *testing.T) {
	cfg := Defaults()
	cfg.Diagonal = 0.5
	m := newModel(t, cfg, 3, 2, fixtureAnswers)
	lams := [][]float64{{0.9, 0.1}, {0.2, 0.8}, {0.5, 0.5}, {0.7, 0.3}}
	s := m.NewStats()
	for d, as := range fixtureAnswers {
		m.Accumulate(s, docState(as, lams[d]))
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		t.Fatal(err)
	}
	// counts^r_{c,l} = Σ_d λ_dc [y_dr = l]:
	// a0 answered 0 on d0, 1 on d1, 0 on d3:
	//   [0][0] = 0.9 + 0.7 = 1.6, [0][1] = 0.2, [1][0] = 0.1 + 0.3 = 0.4, [1][1] = 0.8
	// a1 answered 0 on d0 and d1:
	//   [0][0] = 0.9 + 0.2 = 1.1, [1][0] = 0.1 + 0.8 = 0.9, column 1 = 0
	// a2 answered 1 on d0, 0 on d2 and d3:
	//   [0][0] = 0.5 + 0.7 = 1.2, [1][0] = 0.5 + 0.3 = 0.8, [0][1] = 0.9, [1][1] = 0.1
	// ξ = prior + counts.
	want := [][][]float64{
		{{1.5 + 1.6, 1 + 0.2}, {1 + 0.4, 1.5 + 0.8}}, // 3.1 1.2 / 1.4 2.3
		{{1.5 + 1.1, 1 + 0}, {1 + 0.9, 1.5 + 0}},     // 2.6 1   / 1.9 1.5
		{{1.5 + 1.2, 1 + 0.9}, {1 + 0.8, 1.5 + 0.1}}, // 2.7 1.9 / 1.8 1.6
	}
	checkXi(t, m, want, 1e-14)
	// Report: a0 answered 3 times; its class weights are the row masses
	// beyond the prior (1.8 = 0.9 + 0.2 + 0.7 and 1.2 = 0.1 + 0.8 + 0.3),
	// accuracy = (1.8·3.1/4.3 + 1.2·2.3/3.7)/3 = 0.681206788...
	if got, want := m.Accuracy(0), (1.8*3.1/4.3+1.2*2.3/3.7)/3; !near(got, want, 1e-12) || !near(got, 0.6812067881835323, 1e-12) {
		t.Errorf("accuracy of a0 = %v, want %v", got, want)
	}
	header, rows, doc := m.Report()
	if got := strings.Join(header, ","); got != "annotator,answers,accuracy,pi:c0:c0,pi:c0:c1,pi:c1:c0,pi:c1:c1" {
		t.Errorf("header %s", got)
	}
	// a0: E[π] = [[3.1/4.3, 1.2/4.3], [1.4/3.7, 2.3/3.7]].
	if got := strings.Join(rows[0], ","); got != "a0,3,0.681207,0.72093,0.27907,0.378378,0.621622" {
		t.Errorf("row of a0: %s", got)
	}
	if got := rows[1][1]; got != "2" {
		t.Errorf("a1 answered %s times, want 2", got)
	}
	list := doc.([]Annotator)
	if len(list) != 3 || list[2].Name != "a2" || list[2].Answers != 3 || !near(list[2].Confusion[1][1], 1.6/3.4, 1e-15) {
		t.Errorf("report doc %+v", list)
	}
}

// TestFixtureEvidence: λ from a given ξ with integer entries (so that
// E[log π] is a difference of harmonic numbers: ψ(b) − ψ(a) = Σ_{k=a}^{b−1} 1/k)
// and a uniform prior message log(1/2).
func TestFixtureEvidence(t *testing.T) {
	m := newModel(t, Defaults(), 3, 2, fixtureAnswers)
	if err := m.SetXi([][][]float64{
		{{3, 1}, {1, 2}}, // a0: E[log π] rows: [ψ3−ψ4, ψ1−ψ4] = [−1/3, −11/6]; [ψ1−ψ3, ψ2−ψ3] = [−3/2, −1/2]
		{{2, 2}, {1, 3}}, // a1: [−5/6, −5/6]; [−11/6, −1/3]
		{{1, 1}, {2, 1}}, // a2: [−1, −1]; [−1/2, −3/2]
	}); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		log0, log1, lam0 float64
	}{
		// d0: a0→0, a1→0, a2→1: Log0 = −1/3 − 5/6 − 1 = −13/6, Log1 = −3/2 − 11/6 − 3/2 = −29/6;
		// λ0 = 1/(1 + e^{−(Log0−Log1)}) = 1/(1 + e^{−8/3}) = 0.935030830871336
		{-13.0 / 6, -29.0 / 6, 0.935030830871336},
		// d1: a0→1, a1→0: Log0 = −11/6 − 5/6 = −8/3, Log1 = −1/2 − 11/6 = −7/3; λ0 = 1/(1 + e^{1/3}) = 0.4174297935376853
		{-8.0 / 3, -7.0 / 3, 0.4174297935376853},
		// d2: a2→0: Log0 = −1, Log1 = −1/2; λ0 = 1/(1 + e^{1/2}) = 0.3775406687981455
		{-1, -0.5, 0.3775406687981455},
		// d3: a0→0, a2→0: Log0 = −1/3 − 1 = −4/3, Log1 = −3/2 − 1/2 = −2; λ0 = 1/(1 + e^{−2/3}) = 0.6607563687658172
		{-4.0 / 3, -2, 0.6607563687658172},
		// d4: no answers: no message, λ = (1/2, 1/2)
		{0, 0, 0.5},
	}
	for d, as := range append(fixtureAnswers, nil) {
		ds := docState(as, []float64{0, 0})
		tg := ds.Target.(*framework.Categorical)
		tg.Reset()
		tg.Log[0], tg.Log[1] = math.Log(0.5), math.Log(0.5) // the prior message
		m.Evidence(ds)
		tg.Finalize()
		w := want[d]
		// gonum's digamma is accurate to about 5e-11 near 1–10.
		if !near(tg.Log[0]-math.Log(0.5), w.log0, 1e-9) || !near(tg.Log[1]-math.Log(0.5), w.log1, 1e-9) {
			t.Errorf("d%d: evidence (%v, %v), want (%v, %v)", d, tg.Log[0]-math.Log(0.5), tg.Log[1]-math.Log(0.5), w.log0, w.log1)
		}
		if !near(tg.P[0], w.lam0, 1e-9) || !near(tg.P[1], 1-w.lam0, 1e-9) {
			t.Errorf("d%d: λ = %v, want (%v, %v)", d, tg.P, w.lam0, 1-w.lam0)
		}
	}
}

// TestInitMajority: the initial ξ is the prior plus s × the counts of
// λ = majority vote, ties split evenly.
func TestInitMajority(t *testing.T) {
	cfg := Defaults()
	cfg.Init, cfg.Diagonal = InitMajority, 0.5
	m := newModel(t, cfg, 3, 2, fixtureAnswers)
	// majority votes: d0 (0, 0, 1) → (1, 0); d1 (1, 0) tie → (½, ½);
	// d2 (0) → (1, 0); d3 (0, 0) → (1, 0).
	// a0: d0 y=0 → [0][0] += 1; d1 y=1 → [0][1] += ½, [1][1] += ½; d3 y=0 → [0][0] += 1
	// a1: d0 y=0 → [0][0] += 1; d1 y=0 → [0][0] += ½, [1][0] += ½
	// a2: d0 y=1 → [0][1] += 1; d2, d3 y=0 → [0][0] += 2
	want := [][][]float64{
		{{1.5 + 2, 1 + 0.5}, {1 + 0, 1.5 + 0.5}},
		{{1.5 + 1.5, 1 + 0}, {1 + 0.5, 1.5 + 0}},
		{{1.5 + 2, 1 + 1}, {1 + 0, 1.5 + 0}},
	}
	checkXi(t, m, want, 0)

	cfg.InitStrength = 0.5
	m = newModel(t, cfg, 3, 2, fixtureAnswers)
	for r := range want {
		for c := range want[r] {
			for l := range want[r][c] {
				p := 1.0
				if c == l {
					p = 1.5
				}
				want[r][c][l] = p + (want[r][c][l]-p)/2
			}
		}
	}
	checkXi(t, m, want, 1e-15)

	cfg.Init = InitUniform
	m = newModel(t, cfg, 3, 2, fixtureAnswers)
	prior := [][]float64{{1.5, 1}, {1, 1.5}}
	checkXi(t, m, [][][]float64{prior, prior, prior}, 0)
	if m.Answers(0) != 3 || m.Answers(1) != 2 || m.Answers(2) != 3 {
		t.Errorf("answers %v", m.answers)
	}
}

// ds runs noise-only batch EM (a flat class prior: Dawid–Skene with a
// uniform class prior) for iters iterations and returns the ELBO trace and
// the last λ. The bound is the annotators' part plus Σ_d (H(λ_d) − log C).
func ds(t *testing.T, m *Model, byDoc [][]framework.Answer, iters int) ([]float64, [][]float64) {
	t.Helper()
	C := m.NumClasses()
	s := m.NewStats()
	var trace []float64
	lams := make([][]float64, len(byDoc))
	for it := 1; it <= iters; it++ {
		s.Reset()
		h := 0.0
		for d, as := range byDoc {
			st := docState(as, make([]float64, C))
			tg := st.Target.(*framework.Categorical)
			tg.Reset()
			m.Evidence(st)
			tg.Finalize()
			m.Accumulate(s, st)
			h += tg.Entropy() - math.Log(float64(C))
			lams[d] = tg.P
		}
		if err := m.Update(context.Background(), s, framework.BatchStep(it)); err != nil {
			t.Fatal(err)
		}
		trace = append(trace, m.ELBO(s, framework.BatchStep(it))+h)
	}
	return trace, lams
}

func checkMonotone(t *testing.T, trace []float64) {
	t.Helper()
	for i := 1; i < len(trace); i++ {
		if math.IsNaN(trace[i]) || math.IsInf(trace[i], 0) || trace[i] < trace[i-1]-1e-9*math.Abs(trace[i-1]) {
			t.Fatalf("ELBO went from %v to %v at iteration %d: %v", trace[i-1], trace[i], i+1, trace)
		}
	}
}

func allFinite(t *testing.T, m *Model) {
	t.Helper()
	for i, x := range m.xi {
		if !(x > 0) || math.IsInf(x, 0) || math.IsNaN(m.elogT[i]) || math.IsInf(m.elogT[i], 0) {
			t.Fatalf("ξ[%d] = %v, E[log π] = %v", i, x, m.elogT[i])
		}
	}
	if math.IsNaN(m.kl) || math.IsInf(m.kl, 0) {
		t.Fatalf("KL term %v", m.kl)
	}
}

// TestDegenerate: a class nobody answered, an annotator with one answer,
// an annotator with none, documents without answers.
func TestDegenerate(t *testing.T) {
	byDoc := [][]framework.Answer{
		{ans(0, 0), ans(1, 0)},
		{ans(0, 1), ans(1, 1)},
		{},                                // no answers
		nil,                               // no answers
		{ans(0, 0), ans(1, 1), ans(2, 1)}, // a2's only answer
		{ans(1, 0)},
	}
	// 3 classes, class 2 never answered; 4 annotators, a3 never answered.
	for _, init := range []string{InitMajority, InitUniform} {
		cfg := Defaults()
		cfg.Init, cfg.Diagonal = init, 1
		m := newModel(t, cfg, 4, 3, byDoc)
		trace, lams := ds(t, m, byDoc, 15)
		checkMonotone(t, trace)
		allFinite(t, m)
		for _, d := range []int{2, 3} {
			for _, p := range lams[d] {
				if !near(p, 1.0/3, 1e-15) {
					t.Errorf("%s: document %d without answers has λ = %v, want uniform", init, d, lams[d])
				}
			}
		}
		for r := 0; r < 4; r++ {
			for c := 0; c < 3; c++ {
				// nobody answered class 2: ξ^r_{c,2} stays at the prior in batch EM
				if got, want := m.Xi(r)[c][2], m.prior(c, 2); got != want {
					t.Errorf("%s: ξ^%d_{%d,2} = %v, want the prior %v", init, r, c, got, want)
				}
			}
		}
		// a3 never answered: its ξ is the prior, its accuracy the prior's.
		if got, want := m.Accuracy(3), 2.0/4; !near(got, want, 1e-12) {
			t.Errorf("%s: accuracy of an annotator without answers %v, want (ω+diag)/(Cω+diag) = %v", init, got, want)
		}
		if a := m.Accuracy(2); !(a > 0 && a < 1) {
			t.Errorf("%s: accuracy of the one-answer annotator %v", init, a)
		}
		_, rows, _ := m.Report()
		if rows[2][1] != "1" || rows[3][1] != "0" {
			t.Errorf("%s: answers column %q %q", init, rows[2][1], rows[3][1])
		}
	}
	// A document without answers adds nothing to the statistics.
	m := newModel(t, Defaults(), 2, 2, nil)
	s := m.NewStats().(*Stats)
	m.Accumulate(s, docState(nil, []float64{0.3, 0.7}))
	if len(s.touched) != 0 || slices.Max(s.Counts) != 0 {
		t.Errorf("a document without answers changed the statistics")
	}
}

// TestUniformSymmetric: "uniform" with diagonal = 0 and a flat class prior
// is the symmetric fixed point documented on Init: every λ stays uniform.
func TestUniformSymmetric(t *testing.T) {
	cfg := Defaults()
	cfg.Init, cfg.Diagonal = InitUniform, 0
	m := newModel(t, cfg, 3, 2, fixtureAnswers)
	_, lams := ds(t, m, fixtureAnswers, 5)
	for d, l := range lams {
		if !near(l[0], 0.5, 1e-12) {
			t.Errorf("d%d: λ = %v", d, l)
		}
	}
}

func randomDocs(rng *rand.Rand, n, R, C int) ([][]framework.Answer, [][]float64) {
	byDoc := make([][]framework.Answer, n)
	lams := make([][]float64, n)
	for d := range byDoc {
		k := rng.IntN(4)
		perm := rng.Perm(R)
		for _, r := range perm[:min(k, R)] {
			byDoc[d] = append(byDoc[d], ans(r, rng.IntN(C)))
		}
		lams[d] = randSimplex(rng, C)
	}
	return byDoc, lams
}

// TestPersist: SaveParams/LoadParams round trip into a model rebuilt
// without a corpus, and clear errors on bad files.
func TestPersist(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	byDoc, _ := randomDocs(rng, 50, 6, 3)
	cfg := Defaults()
	cfg.Diagonal = 2
	m := newModel(t, cfg, 6, 3, byDoc)
	trace, _ := ds(t, m, byDoc, 3)
	checkMonotone(t, trace)
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	saved := buf.String()
	m2 := newModel(t, cfg, 6, 3, nil)
	if err := m2.LoadParams(strings.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.xi, m2.xi) || !slices.Equal(m.elogT, m2.elogT) || m.kl != m2.kl || !slices.Equal(m.answers, m2.answers) {
		t.Fatalf("round trip changed the parameters")
	}
	h1, r1, _ := m.Report()
	h2, r2, _ := m2.Report()
	if !slices.Equal(h1, h2) || !slices.EqualFunc(r1, r2, slices.Equal) {
		t.Errorf("reports differ after the round trip")
	}
	bad := []struct{ name, text, msg string }{
		{"garbage", "not json", "confusion parameters"},
		{"trailing", saved + "{}", "after the parameters"},
		{"unknown field", strings.Replace(saved, `"format"`, `"extra":1,"format"`, 1), "unknown field"},
		{"format", strings.Replace(saved, "maslda-confusion", "other", 1), "format"},
		{"negative", firstXi.ReplaceAllString(saved, `"xi":[[[-1,`), "annotator 0"},
		{"zero", firstXi.ReplaceAllString(saved, `"xi":[[[0,`), "positive"},
		{"answers", strings.Replace(saved, `"answers":[`, `"answers":[-4,`, 1), "answer counts"},
	}
	for _, b := range bad {
		m3 := newModel(t, cfg, 6, 3, nil)
		before := slices.Clone(m3.xi)
		err := m3.LoadParams(strings.NewReader(b.text))
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s: err %v, want ErrBadInput mentioning %q", b.name, err, b.msg)
		}
		if !slices.Equal(before, m3.xi) {
			t.Errorf("%s: a failed load changed ξ", b.name)
		}
	}
	for _, dims := range [][2]int{{5, 3}, {6, 2}} {
		m4 := newModel(t, cfg, dims[0], dims[1], nil)
		err := m4.LoadParams(strings.NewReader(saved))
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "6 annotators × 3 classes") {
			t.Errorf("dims %v: err %v", dims, err)
		}
	}
	var fresh Model
	if err := fresh.SaveParams(&buf); !errors.Is(err, framework.ErrNotTrained) {
		t.Errorf("SaveParams before Init: %v", err)
	}
	if err := fresh.LoadParams(strings.NewReader(saved)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("LoadParams before Init: %v", err)
	}
}

var firstXi = regexp.MustCompile(`"xi":\[\[\[[^,]*,`)

func TestBind(t *testing.T) {
	m := newModel(t, Defaults(), 2, 3, nil)
	if err := m.Accepts(&framework.Gaussian{}); !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "categorical target") {
		t.Errorf("Bind(Gaussian): %v", err)
	}
	if err := m.Accepts(nil); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("Bind(nil): %v", err)
	}
	if err := m.Accepts(framework.NewCategorical(2)); !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "2 classes") {
		t.Errorf("Bind(2 classes): %v", err)
	}
	if err := m.Accepts(framework.NewCategorical(3)); err != nil {
		t.Errorf("Bind(3 classes): %v", err)
	}
}

func TestConfig(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod func(*Config)
		msg string
	}{
		{func(c *Config) { c.Omega = 0 }, "omega"},
		{func(c *Config) { c.Omega = math.NaN() }, "omega"},
		{func(c *Config) { c.Omega = math.Inf(1) }, "omega"},
		{func(c *Config) { c.Diagonal = -1 }, "diagonal"},
		{func(c *Config) { c.Diagonal = math.Inf(1) }, "diagonal"},
		{func(c *Config) { c.InitStrength = -1 }, "init_strength"},
		{func(c *Config) { c.Init = "random" }, "majority, uniform"},
		{func(c *Config) { c.StartLabels = "crowd" }, "start_labels"},
	} {
		cfg := Defaults()
		c.mod(&cfg)
		if _, err := NewModel(cfg); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: err %v, want ErrBadInput mentioning %q", cfg, err, c.msg)
		}
	}
	// The registered factory decodes over the defaults and validates.
	n, err := framework.Default.Noise("confusion", framework.ParamsFunc(func(into any) error {
		into.(*Config).Diagonal = 3
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.(*Model).Config(); got != (Config{Omega: 1, Diagonal: 3, Init: InitClassifier, InitStrength: 1, Estimate: EstimateVariational, StartIters: 8, StartUpdates: 40, StartLabels: StartOthers, InitLabels: InitLabelsMajority, Prior: PriorFixed, Communities: 3, Constant: ConstantIgnore, Relabel: RelabelAgreement}) {
		t.Errorf("decoded config %+v", got)
	}
	if _, err := framework.Default.Noise("confusion", framework.ParamsFunc(func(into any) error {
		into.(*Config).Omega = -2
		return nil
	})); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("omega = −2 accepted: %v", err)
	}
	if _, err := New(nil); err != nil {
		t.Errorf("New(nil): %v", err)
	}
}

func TestInitErrors(t *testing.T) {
	m, _ := NewModel(Defaults())
	ans := &framework.Answers{Annotators: []string{"a"}, Classes: []string{"x", "y"}, ByDoc: [][]framework.Answer{{ans(0, 1)}}}
	corpus := &framework.Corpus{Docs: make([]framework.Doc, 1), V: 1, Answers: ans}
	for _, c := range []struct {
		s    *framework.Setup
		want error
		msg  string
	}{
		{nil, framework.ErrBadInput, "setup"},
		{&framework.Setup{Classes: []string{"x"}}, framework.ErrBadInput, "annotator names"},
		{&framework.Setup{Annotators: []string{"a"}}, framework.ErrIncompatible, "categorical"},
		{&framework.Setup{Annotators: []string{"a"}, Classes: []string{"x", "y", "z"}, Corpus: corpus}, framework.ErrBadInput, "2 classes"},
		{&framework.Setup{Annotators: []string{"a"}, Classes: []string{"x", "y"}, Corpus: &framework.Corpus{V: 1, Answers: &framework.Answers{Annotators: []string{"a"}, ByDoc: [][]framework.Answer{{}}}}}, framework.ErrIncompatible, "numbers"},
		{&framework.Setup{Annotators: []string{"a"}, Classes: []string{"x", "y"}, Corpus: &framework.Corpus{V: 1, Answers: &framework.Answers{Annotators: []string{"a"}, Classes: []string{"x", "y"}, ByDoc: [][]framework.Answer{{{Annotator: 0, Class: 2}}}}}}, framework.ErrBadInput, "document 0"},
	} {
		if err := m.Init(c.s); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: err %v, want %v mentioning %q", c.s, err, c.want, c.msg)
		}
	}
	if err := m.Init(&framework.Setup{Annotators: []string{"a"}, Classes: []string{"x", "y"}, Corpus: corpus}); err != nil {
		t.Errorf("valid setup: %v", err)
	}
}
