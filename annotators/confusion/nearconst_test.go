package confusion

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

// TestLogPolyaByHand: the Pólya probabilities and the Bayes factor of
// independenceLogBF on counts small enough to multiply out. Two answers of
// class 0 under Dir(1, 1): 1/2·2/3 = 1/3; answers 0 then 1: 1/2·1/3 = 1/6.
// With the prior rows (3, 1), (1, 3) (ω 1, diagonal 2):
//
//	answers 0, 0 on documents labelled 0, 1: H0 1/3, H1 3/4·1/4 = 3/16: log BF = log(16/9)
//	answers 0, 1 on documents labelled 0, 1: H0 1/6, H1 3/4·3/4 = 9/16: log BF = log(8/27)
func TestLogPolyaByHand(t *testing.T) {
	for _, c := range []struct {
		n, a []float64
		want float64
	}{
		{[]float64{2, 0}, []float64{1, 1}, 1.0 / 3},
		{[]float64{1, 1}, []float64{1, 1}, 1.0 / 6},
		{[]float64{1, 0}, []float64{3, 1}, 3.0 / 4},
		{[]float64{0, 0}, []float64{3, 1}, 1},
		{[]float64{1, 1, 1}, []float64{1, 1, 1}, 1.0 / 3 * 1.0 / 4 * 1.0 / 5},
	} {
		if got := logPolya(c.n, c.a); !near(got, math.Log(c.want), 1e-14) {
			t.Errorf("logPolya(%v | %v) = %v, want log %v = %v", c.n, c.a, got, c.want, math.Log(c.want))
		}
	}
	prior := func(c, l int) float64 {
		if c == l {
			return 3
		}
		return 1
	}
	for _, c := range []struct {
		counts []float64
		want   float64
	}{
		{[]float64{1, 0, 1, 0}, math.Log(16.0 / 9)},
		{[]float64{1, 0, 0, 1}, math.Log(8.0 / 27)},
		{[]float64{0, 0, 0, 0}, 0},
	} {
		if got := independenceLogBF(c.counts, 2, 1, prior); !near(got, c.want, 1e-14) {
			t.Errorf("independenceLogBF(%v) = %v, want %v", c.counts, got, c.want)
		}
	}
	// Soft counts: against the Γ functions written out.
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	n := []float64{0.3, 2.2, 0.5, 1.7, 0.25, 4}
	a := []float64{0.7, 1.3, 2}
	want := lg(4) - lg(4+sumOf(n[:3])) + lg(0.7+0.3) - lg(0.7) + lg(1.3+2.2) - lg(1.3) + lg(2+0.5) - lg(2)
	if got := logPolya(n[:3], a); !near(got, want, 1e-13) {
		t.Errorf("logPolya soft = %v, want %v", got, want)
	}
}

// TestBinomialTail: small cases by hand, the edges, and random cases
// against the binomial sum written out.
func TestBinomialTail(t *testing.T) {
	for _, c := range []struct {
		n, k int
		p    float64
		want float64
	}{
		{3, 2, 0.5, 0.5},                         // 3/8 + 1/8
		{4, 3, 0.9, 4*0.729*0.1 + 0.6561},        // 0.9477
		{4, 3, 0.1, 4*0.001*0.9 + 0.0001},        // 0.0037
		{5, 5, 0.3, 0.3 * 0.3 * 0.3 * 0.3 * 0.3}, // p^n
		{5, 0, 0.3, 1}, {5, 6, 0.3, 0}, {5, 2, 0, 0}, {5, 2, 1, 1},
	} {
		if got := binomialTail(c.n, c.k, c.p); !near(got, c.want, 1e-13) {
			t.Errorf("P(Bin(%d, %v) ≥ %d) = %v, want %v", c.n, c.p, c.k, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	for range 50 {
		n := 1 + rng.IntN(60)
		k := 1 + rng.IntN(n)
		p := 0.01 + 0.98*rng.Float64()
		want := 0.0
		for i := k; i <= n; i++ {
			want += math.Exp(lg(float64(n+1)) - lg(float64(i+1)) - lg(float64(n-i+1)) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
		}
		if got := binomialTail(n, k, p); !near(got, want, 1e-10) {
			t.Errorf("P(Bin(%d, %v) ≥ %d) = %v, want %v", n, p, k, got, want)
		}
	}
}

// almostCrowd: D documents of 3 classes (class d%3, or with unequal the
// first 90% of class 0 and the rest alternately 1 and 2), answered by
// a0, a1 (right 80% of the time, else another class at random), a2 (class
// 1 with probability 0.9 whatever the class, else 0 or 2), a3 (uniform
// answers, or with unequal 0, 1, 2 with probabilities 0.9, 0.05, 0.05
// whatever the class) and, with unequal, a4 (right 95% of the time). It returns the
// answers and the truth.
func almostCrowd(D int, unequal bool) ([][]framework.Answer, []int) {
	rng := rand.New(rand.NewPCG(11, 12))
	var byDoc [][]framework.Answer
	var truth []int
	for d := range D {
		c := d % 3
		if unequal {
			c = 0
			if d >= D*9/10 {
				c = 1 + d%2
			}
		}
		truth = append(truth, c)
		other := func(c int) int { return (c + 1 + rng.IntN(2)) % 3 }
		var as []framework.Answer
		for r := range 2 {
			y := c
			if rng.Float64() < 0.2 {
				y = other(c)
			}
			as = append(as, ans(r, y))
		}
		y := 1
		if rng.Float64() < 0.1 {
			y = 2 * rng.IntN(2)
		}
		u := rng.IntN(3) // a3: uniform, or with unequal the classes' shares
		if unequal {
			u = 0
			if rng.Float64() < 0.1 {
				u = 1 + rng.IntN(2)
			}
		}
		as = append(as, ans(2, y), ans(3, u))
		if unequal {
			y := c
			if rng.Float64() < 0.05 {
				y = other(c)
			}
			as = append(as, ans(4, y))
		}
		byDoc = append(byDoc, as)
	}
	return byDoc, truth
}

func truthPreds(truth []int, C int) []framework.Target {
	out := make([]framework.Target, len(truth))
	for d, c := range truth {
		p := make([]float64, C)
		for l := range p {
			p[l] = 0.1 / float64(C-1)
		}
		p[c] = 0.9
		out[d] = catTarget(p...)
	}
	return out
}

// TestAlmostConstant: with constant = "almost" the classifier start marks
// the near-constant answerer a2 (90% class 1 whatever the class) and no
// other: not a3 (independent of the class, but giving no class more often
// than its documents have it), not a good annotator on unequal classes a4
// (concentrated, but its answers follow the class). A marked annotator's ξ is the prior,
// it sends no evidence and no statistics, and its answers are predicted by
// Dir(ω + its counts). With "ignore" nobody is marked; the start from counts
// marks the same annotators with the same ξ.
func TestAlmostConstant(t *testing.T) {
	for _, prior := range []string{PriorFixed, PriorCommunities} {
		for _, unequal := range []bool{false, true} {
			byDoc, truth := almostCrowd(300, unequal)
			R := 4
			if unequal {
				R = 5
			}
			cfg := Defaults()
			cfg.Prior, cfg.StartLabels = prior, StartClassifier
			ign := cfg
			cfg.Constant = ConstantAlmost
			m := newModel(t, cfg, R, 3, byDoc)
			ref := newModel(t, ign, R, 3, byDoc)
			pred := truthPreds(truth, 3)
			for _, x := range []*Model{m, ref} {
				if err := x.StartFrom(pred); err != nil {
					t.Fatal(err)
				}
			}
			want := []int{-1, -1, 1, -1, -1}[:R]
			var got, gotRef []int
			for r := range R {
				got = append(got, m.Constant(r))
				gotRef = append(gotRef, ref.Constant(r))
			}
			if !cmp.Equal(got, want) {
				t.Errorf("%s, unequal %v: Constant = %v, want %v", prior, unequal, got, want)
			}
			if !cmp.Equal(gotRef, []int{-1, -1, -1, -1, -1}[:R]) {
				t.Errorf("%s, unequal %v: constant = ignore marks %v", prior, unequal, gotRef)
			}
			// ξ: a2's rows the prior, every other row as with "ignore".
			for r := range R {
				w := ref.Xi(r)
				if r == 2 {
					for c := range w {
						for l := range w[c] {
							w[c][l] = m.priorOf(2, c, l)
						}
					}
				}
				if diff := cmp.Diff(w, m.Xi(r)); diff != "" {
					t.Errorf("%s, unequal %v: ξ of a%d (-want +got):\n%s", prior, unequal, r, diff)
				}
			}
			// No evidence and no statistics from a2.
			st := docState([]framework.Answer{ans(0, 2), ans(2, 1)}, []float64{0.2, 0.3, 0.5})
			st0 := docState([]framework.Answer{ans(0, 2)}, []float64{0.2, 0.3, 0.5})
			st.Target.(*framework.Categorical).Reset()
			st0.Target.(*framework.Categorical).Reset()
			m.Evidence(st)
			m.Evidence(st0)
			if diff := cmp.Diff(st0.Target.(*framework.Categorical).Log, st.Target.(*framework.Categorical).Log); diff != "" {
				t.Errorf("%s, unequal %v: a2 sends evidence:\n%s", prior, unequal, diff)
			}
			copy(st.Target.(*framework.Categorical).P, []float64{0.2, 0.3, 0.5})
			s := m.NewStats()
			m.Accumulate(s, st)
			for c := range 3 {
				for l := range 3 {
					if x := s.(*Stats).Count(2, c, l); x != 0 {
						t.Fatalf("%s: a2's count (%d, %d) = %v", prior, c, l, x)
					}
				}
			}
			// The predictive: Dir(ω + a2's answers per class).
			n := []float64{0, 0, 0}
			for _, as := range byDoc {
				for _, a := range as {
					if a.Annotator == 2 {
						n[a.Class]++
					}
				}
			}
			for l := range 3 {
				w := math.Log((cfg.Omega + n[l]) / (float64(len(byDoc)) + 3*cfg.Omega))
				if got := m.LogPredictive(catTarget(0.2, 0.3, 0.5), ans(2, l)); !near(got, w, 1e-14) {
					t.Errorf("%s: a2's log predictive of class %d = %v, want %v", prior, l, got, w)
				}
			}
			// From counts.
			b := newModel(t, cfg, R, 3, byDoc)
			counts := make([]float64, b.StartCounts())
			for d := range byDoc {
				if err := b.StartCount(counts, pred[d], byDoc[d]); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.StartFromCounts(counts); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(m.xi, b.xi); diff != "" {
				t.Errorf("%s: ξ from counts (+) and from StartFrom (-):\n%s", prior, diff)
			}
			if diff := cmp.Diff(m.constant, b.constant); diff != "" {
				t.Errorf("%s: marks from counts (+) and from StartFrom (-):\n%s", prior, diff)
			}
		}
	}
}

// TestAlmostConstantLabelsAtChance: judged against labels that say nothing
// (a classifier whose labels are drawn at random), every annotator's
// answers look independent of them; the concentration test still keeps the
// good annotators and the uniform answerer, and a2 is marked.
func TestAlmostConstantLabelsAtChance(t *testing.T) {
	byDoc, truth := almostCrowd(300, false)
	rng := rand.New(rand.NewPCG(8, 9))
	for d := range truth {
		truth[d] = rng.IntN(3)
	}
	cfg := Defaults()
	cfg.StartLabels, cfg.Constant = StartClassifier, ConstantAlmost
	m := newModel(t, cfg, 4, 3, byDoc)
	if err := m.StartFrom(truthPreds(truth, 3)); err != nil {
		t.Fatal(err)
	}
	if got := []int{m.Constant(0), m.Constant(1), m.Constant(2), m.Constant(3)}; !cmp.Equal(got, []int{-1, -1, 1, -1}) {
		t.Errorf("Constant = %v, want [-1 -1 1 -1]", got)
	}
}

// TestAlmostConstantPersist: the counts of the ignored annotators are saved
// and restored (the predictive after loading is the same); a file with
// constant classes and no counts (written before) gives each its answers at
// its class; malformed counts are errors; "almost" needs init =
// "classifier".
func TestAlmostConstantPersist(t *testing.T) {
	byDoc, truth := almostCrowd(300, false)
	cfg := Defaults()
	cfg.StartLabels, cfg.Constant = StartClassifier, ConstantAlmost
	m := newModel(t, cfg, 4, 3, byDoc)
	if err := m.StartFrom(truthPreds(truth, 3)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"constant_counts":[[0,0,0],[0,0,0],[`) {
		t.Fatalf("saved parameters without the counts:\n%s", buf.String())
	}
	q := newModel(t, cfg, 4, 3, nil)
	if err := q.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	tg := catTarget(0.2, 0.3, 0.5)
	for l := range 3 {
		if a, b := m.LogPredictive(tg, ans(2, l)), q.LogPredictive(tg, ans(2, l)); a != b {
			t.Errorf("class %d: log predictive %v, after loading %v", l, b, a)
		}
	}
	if q.Constant(2) != 1 {
		t.Errorf("loaded Constant(2) = %d, want 1", q.Constant(2))
	}
	// A file without the counts: its answers at its class.
	i := strings.Index(buf.String(), `,"constant_counts"`)
	old := buf.String()[:i] + "}\n"
	o := newModel(t, cfg, 4, 3, nil)
	if err := o.LoadParams(strings.NewReader(old)); err != nil {
		t.Fatal(err)
	}
	if got, want := o.LogPredictive(tg, ans(2, 1)), math.Log((1+300.0)/(300+3)); !near(got, want, 1e-14) {
		t.Errorf("a file without counts: log predictive of a2's class %v, want %v", got, want)
	}
	for _, bad := range []string{`"constant_counts":[[0,0,0]]`, `"constant_counts":[[0,0],[0,0,0],[0,0,0],[0,0,0]]`, `"constant_counts":[[-1,0,0],[0,0,0],[0,0,0],[0,0,0]]`} {
		text := buf.String()[:i] + "," + bad + "}\n"
		if err := newModel(t, cfg, 4, 3, nil).LoadParams(strings.NewReader(text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", bad, err)
		}
	}
	noConst := strings.Replace(buf.String(), `"constant":[-1,-1,1,-1],`, "", 1)
	if err := newModel(t, cfg, 4, 3, nil).LoadParams(strings.NewReader(noConst)); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("counts without classes: err = %v, want ErrBadInput", err)
	}
	bad := Defaults()
	bad.Init, bad.Constant = InitMajority, ConstantAlmost
	if _, err := NewModel(bad); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), `init = "classifier"`) {
		t.Errorf(`constant = "almost" with init = "majority": %v, want ErrBadInput naming init = "classifier"`, err)
	}
}

// newModelMarks is newModel with marks handed to Init (Setup.Marks).
func newModelMarks(cfg Config, R, C int, byDoc [][]framework.Answer, marks []int32) (*Model, error) {
	m, err := NewModel(cfg)
	if err != nil {
		return nil, err
	}
	setup := &framework.Setup{Annotators: names("a", R), Classes: names("c", C), Marks: marks,
		Corpus: &framework.Corpus{Docs: make([]framework.Doc, len(byDoc)), V: 1,
			Answers: &framework.Answers{Annotators: names("a", R), Classes: names("c", C), ByDoc: byDoc}}}
	return m, m.Init(setup)
}

// TestRewarm: the start's marks (Rewarm: a2 with its class 1, nil when
// nobody is marked) handed to a new model's Init are ignored from the
// beginning as exact constants are: the same Constant before any start,
// the majority start's ξ that of the crowd without a2's answers (a2's rows
// the prior), no evidence, the predictive of its answers as after the
// first pass's start; that model's start marks no more (Rewarm nil) and,
// judged against the same labels, ends with the first pass's ξ. Bad marks
// are errors.
func TestRewarm(t *testing.T) {
	for _, prior := range []string{PriorFixed, PriorCommunities} {
		byDoc, truth := almostCrowd(300, false)
		cfg := Defaults()
		cfg.Prior, cfg.StartLabels, cfg.Constant = prior, StartClassifier, ConstantAlmost
		m := newModel(t, cfg, 4, 3, byDoc)
		if m.Rewarm() != nil {
			t.Fatalf("%s: marks before the start: %v", prior, m.Rewarm())
		}
		pred := truthPreds(truth, 3)
		if err := m.StartFrom(pred); err != nil {
			t.Fatal(err)
		}
		marks := m.Rewarm()
		if !cmp.Equal(marks, []int32{-1, -1, 1, -1}) {
			t.Fatalf("%s: Rewarm = %v, want a2's class 1", prior, marks)
		}
		h, err := newModelMarks(cfg, 4, 3, byDoc, marks)
		if err != nil {
			t.Fatal(err)
		}
		for r, v := range marks {
			if h.Constant(r) != int(v) {
				t.Errorf("%s: handed the marks, Constant(%d) = %d, want %d", prior, r, h.Constant(r), v)
			}
		}
		// Init as over the crowd without a2's answers.
		var without [][]framework.Answer
		for _, as := range byDoc {
			var kept []framework.Answer
			for _, a := range as {
				if a.Annotator != 2 {
					kept = append(kept, a)
				}
			}
			without = append(without, kept)
		}
		ref := newModel(t, cfg, 4, 3, without)
		if prior == PriorFixed { // the communities' choice of "auto" aside, ξ at Init
			if diff := cmp.Diff(ref.xi, h.xi); diff != "" {
				t.Errorf("%s: ξ at Init with the marks (+), without a2's answers (-):\n%s", prior, diff)
			}
		}
		st := docState([]framework.Answer{ans(0, 2), ans(2, 1)}, []float64{0.2, 0.3, 0.5})
		st0 := docState([]framework.Answer{ans(0, 2)}, []float64{0.2, 0.3, 0.5})
		h.Evidence(st)
		h.Evidence(st0)
		if diff := cmp.Diff(st0.Target.(*framework.Categorical).Log, st.Target.(*framework.Categorical).Log); diff != "" {
			t.Errorf("%s: the handed a2 sends evidence:\n%s", prior, diff)
		}
		for l := range 3 {
			if a, b := m.LogPredictive(catTarget(0.2, 0.3, 0.5), ans(2, l)), h.LogPredictive(catTarget(0.2, 0.3, 0.5), ans(2, l)); a != b {
				t.Errorf("%s: a2's log predictive of class %d: %v handed, %v after the start", prior, l, b, a)
			}
		}
		if err := h.StartFrom(pred); err != nil {
			t.Fatal(err)
		}
		if h.Rewarm() != nil {
			t.Errorf("%s: a model handed marks marked %v at its start (a third pass)", prior, h.Rewarm())
		}
		if diff := cmp.Diff(m.xi, h.xi); diff != "" {
			t.Errorf("%s: ξ after the start, handed (+) and marked at the start (-):\n%s", prior, diff)
		}
		if diff := cmp.Diff(m.constant, h.constant); diff != "" {
			t.Errorf("%s: ignored after the start, handed (+) and marked (-):\n%s", prior, diff)
		}
		// The handed marks are final: handed none, a2 is not marked at
		// the start either.
		n, err := newModelMarks(cfg, 4, 3, byDoc, []int32{-1, -1, -1, -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.StartFrom(pred); err != nil {
			t.Fatal(err)
		}
		if n.Constant(2) != -1 || n.Rewarm() != nil {
			t.Errorf("%s: handed no marks, the start marked a2 (Constant %d, Rewarm %v)", prior, n.Constant(2), n.Rewarm())
		}
	}
	byDoc, _ := almostCrowd(30, false)
	cfg := Defaults()
	cfg.Constant = ConstantAlmost
	for _, bad := range [][]int32{{-1, -1, 1}, {-1, -1, 3, -1}, {-2, -1, 1, -1}} {
		if _, err := newModelMarks(cfg, 4, 3, byDoc, bad); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "mark") {
			t.Errorf("marks %v: err = %v, want ErrBadInput about the marks", bad, err)
		}
	}
	ign := Defaults()
	if _, err := newModelMarks(ign, 4, 3, byDoc, []int32{-1, -1, 1, -1}); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), `constant = "ignore"`) {
		t.Errorf(`marks with constant = "ignore": err = %v, want ErrBadInput naming it`, err)
	}
}

// TestAlmostConstantMinorityMode: an annotator near chance whose barely
// modal class is its documents' minority label (class 1 with probability
// 0.55 whatever the class, on documents two thirds of class 0) gives that
// class beyond its documents' share of it and looks independent of them,
// but no more often than the labels' largest class: not marked. One who
// gives class 1 to 0.9 of them is.
func TestAlmostConstantMinorityMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var byDoc [][]framework.Answer
	var truth []int
	for d := range 450 {
		c := 0
		if d%3 == 2 {
			c = 1
		}
		truth = append(truth, c)
		near := func(p float64) int {
			if rng.Float64() < p {
				return 1
			}
			return 0
		}
		good := c
		if rng.Float64() < 0.1 {
			good = 1 - c
		}
		byDoc = append(byDoc, []framework.Answer{ans(0, good), ans(1, near(0.55)), ans(2, near(0.9))})
	}
	cfg := Defaults()
	cfg.StartLabels, cfg.Constant = StartClassifier, ConstantAlmost
	m := newModel(t, cfg, 3, 2, byDoc)
	if err := m.StartFrom(truthPreds(truth, 2)); err != nil {
		t.Fatal(err)
	}
	if got := []int{m.Constant(0), m.Constant(1), m.Constant(2)}; !cmp.Equal(got, []int{-1, -1, 1}) {
		t.Errorf("Constant = %v, want [-1 -1 1]", got)
	}
	// Without the largest-share condition a1 would be marked: its tests alone.
	counts := make([]float64, 2*2)
	for d, as := range byDoc {
		counts[truth[d]*2+int(as[1].Class)]++
	}
	k, n := counts[1]+counts[3], 450.0
	f1 := (counts[2] + counts[3] + 1) / (n + 2)
	if !(2*binomialTail(450, int(k), f1) < framework.ConstantChance) || !(independenceLogBF(counts, 2, cfg.Omega, m.startPrior) > 0) {
		t.Fatalf("a1 (%v of 450 class 1, its documents' share %.3f) passes neither test alone: the case does not test the share", k, f1)
	}
}

// TestAlmostConstantClassifierShares: start labels that follow a noisy
// crowd (start_labels = "others", a classifier not yet sure) give the rare
// class far more often than the truth has it (6 of 600 documents); a good
// annotator then looks concentrated on the frequent class beyond its
// documents' labels, and its answers independent of labels that hardly
// vary. The classifier's labels (the truth's classes, with probability
// 0.55) show how unequal the classes are, and the annotator is not marked;
// the near-constant answerer of the rare class (all but two answers) still
// is. Judged against the start's labels alone (cls nil) the good annotator
// would be marked: the case tests the classifier's shares. The start from
// counts marks the same.
func TestAlmostConstantClassifierShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var byDoc [][]framework.Answer
	var pred []framework.Target
	answer := func(c int, right float64) int {
		if rng.Float64() < right {
			return c
		}
		return 1 - c
	}
	for d := range 600 {
		c := 0
		if d%100 == 99 {
			c = 1
		}
		p := []float64{0.45, 0.45}
		p[c] = 0.55
		pred = append(pred, catTarget(p...))
		var as []framework.Answer
		for r := range 4 { // noisy: right 55% of the time
			as = append(as, ans(r, answer(c, 0.55)))
		}
		as = append(as, ans(4, answer(c, 0.9))) // good
		y := 1                                  // near-constant on the rare class
		if d == 10 || d == 20 {
			y = 0
		}
		byDoc = append(byDoc, append(as, ans(5, y)))
	}
	cfg := Defaults()
	cfg.Constant = ConstantAlmost
	if cfg.StartLabels != StartOthers {
		t.Fatalf("the default start_labels is %q, want %q", cfg.StartLabels, StartOthers)
	}
	m := newModel(t, cfg, 6, 2, byDoc)
	if err := m.StartFrom(pred); err != nil {
		t.Fatal(err)
	}
	want := []int{-1, -1, -1, -1, -1, 1}
	var got []int
	for r := range 6 {
		got = append(got, m.Constant(r))
	}
	if !cmp.Equal(got, want) {
		t.Errorf("Constant = %v, want %v", got, want)
	}
	// The start's own tallies, without the classifier's shares.
	b := newModel(t, cfg, 6, 2, byDoc)
	counts := make([]float64, b.StartCounts())
	if len(counts) != len(b.xi)+2+6*2 {
		t.Fatalf("StartCounts = %d, want ξ's %d + 2 + 6×2", len(counts), len(b.xi))
	}
	for d := range byDoc {
		if err := b.StartCount(counts, pred[d], byDoc[d]); err != nil {
			t.Fatal(err)
		}
	}
	if marks := b.markAlmostConstant(counts[:len(b.xi)], nil); marks == nil || marks[4] != 0 || marks[5] != 1 {
		t.Fatalf("judged against the start's labels alone, marks = %v, want a4 at class 0 and a5 at class 1: the case does not test the classifier's shares", marks)
	}
	if err := b.StartFromCounts(counts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m.constant, b.constant); diff != "" {
		t.Errorf("marks from counts (+) and from StartFrom (-):\n%s", diff)
	}
}
