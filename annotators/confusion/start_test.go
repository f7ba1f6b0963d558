package confusion

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func catTarget(p ...float64) *framework.Categorical {
	t := framework.NewCategorical(len(p))
	copy(t.P, p)
	return t
}

// TestStartFixture: the classifier start counts each answer, on top of the
// prior (ω = 1, diagonal = 0.5), against the classifier's most probable
// class (start_labels = "classifier"), or against the class that the
// classifier and the document's other answers, weighed by the current ξ,
// make most probable (start_labels = "others", leave-one-out; a document
// with one answer is judged by the classifier alone).
func TestStartFixture(t *testing.T) {
	// The classifier says d0 → 1, d1 → 0, d2 → 1, d3 → 0.
	pred := []framework.Target{catTarget(0.4, 0.6), catTarget(0.9, 0.1), catTarget(0.2, 0.8), catTarget(0.55, 0.45)}
	for _, tc := range []struct {
		labels string
		want   [][][]float64
	}{
		// a0 answered 0 on d0 (class 1), 1 on d1 (class 0), 0 on d3 (class 0):
		//   [0][0] += 1, [0][1] += 1, [1][0] += 1
		// a1 answered 0 on d0 (1) and d1 (0): [1][0] += 1, [0][0] += 1
		// a2 answered 1 on d0 (1), 0 on d2 (1) and d3 (0): [1][1] += 1, [1][0] += 1, [0][0] += 1
		{StartClassifier, [][][]float64{
			{{1.5 + 1, 1 + 1}, {1 + 1, 1.5}},
			{{1.5 + 1, 1}, {1 + 1, 1.5}},
			{{1.5 + 1, 1}, {1 + 1, 1.5 + 1}},
		}},
		// Every annotator at ξ = [[9, 1], [1, 9]]: another answer carries
		// ψ(9) − ψ(1) = 2.718 nats for its class, more than the classifier's
		// largest log-odds (log 9 = 2.197); two that disagree cancel.
		// d0 (a0 0, a1 0, a2 1; classifier 1): a0 → 1 (others cancel), a1 → 1, a2 → 0.
		// d1 (a0 1, a1 0; classifier 0): a0 → 0, a1 → 1.
		// d2 (a2 0 alone): the classifier, 1. d3 (a0 0, a2 0): 0 and 0.
		// a0: [1][0], [0][1], [0][0]; a1: [1][0] twice; a2: [0][1], [1][0], [0][0].
		{StartOthers, [][][]float64{
			{{1.5 + 1, 1 + 1}, {1 + 1, 1.5}},
			{{1.5, 1}, {1 + 2, 1.5}},
			{{1.5 + 1, 1 + 1}, {1 + 1, 1.5}},
		}},
	} {
		t.Run(tc.labels, func(t *testing.T) {
			cfg := Defaults()
			cfg.Diagonal, cfg.Init, cfg.StartLabels = 0.5, InitClassifier, tc.labels
			m := newModel(t, cfg, 3, 2, fixtureAnswers)
			if got := m.StartIters(); got != 8 {
				t.Errorf("StartIters = %d, want the default 8", got)
			}
			xi := [][]float64{{9, 1}, {1, 9}}
			if err := m.SetXi([][][]float64{xi, xi, xi}); err != nil {
				t.Fatal(err)
			}
			if err := m.StartFrom(pred); err != nil {
				t.Fatal(err)
			}
			checkXi(t, m, tc.want, 1e-15)
		})
	}
	// Other starts have no warm-up.
	for _, init := range []string{InitMajority, InitUniform} {
		c := Defaults()
		c.Init = init
		if n := newModel(t, c, 3, 2, fixtureAnswers).StartIters(); n != 0 {
			t.Errorf("init %s: StartIters = %d, want 0", init, n)
		}
	}
}

func TestStartErrors(t *testing.T) {
	cfg := Defaults()
	cfg.Init = InitClassifier
	m := newModel(t, cfg, 3, 2, fixtureAnswers)
	ok := catTarget(0.5, 0.5)
	for name, c := range map[string]struct {
		pred []framework.Target
		want error
	}{
		"too few":       {[]framework.Target{ok, ok, ok}, framework.ErrBadInput},
		"wrong kind":    {[]framework.Target{ok, &framework.Gaussian{}, ok, ok}, framework.ErrIncompatible},
		"wrong classes": {[]framework.Target{ok, ok, catTarget(0.2, 0.3, 0.5), ok}, framework.ErrIncompatible},
	} {
		if err := m.StartFrom(c.pred); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	// A classifier that predicts one class for every document leaves ξ as
	// it was.
	before := slices.Clone(m.xi)
	if err := m.StartFrom([]framework.Target{ok, ok, ok, ok}); err != nil {
		t.Errorf("one class: %v, want no error", err)
	}
	if diff := cmp.Diff(before, m.xi); diff != "" {
		t.Errorf("one class changed ξ:\n%s", diff)
	}
	if m.StartIters() != cfg.StartIters || m.StartUpdates() != cfg.StartUpdates {
		t.Errorf("StartIters, StartUpdates = %d, %d, want %d, %d", m.StartIters(), m.StartUpdates(), cfg.StartIters, cfg.StartUpdates)
	}
	if d := Defaults(); d.StartIters != 8 || d.StartUpdates != 40 {
		t.Errorf("default start_iters, start_updates = %d, %d, want 8, 40", d.StartIters, d.StartUpdates)
	}
	for _, bad := range []func(c *Config){func(c *Config) { c.StartIters = 0 }, func(c *Config) { c.StartUpdates = -1 }} {
		c := cfg
		bad(&c)
		if _, err := NewModel(c); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("start_iters = %d, start_updates = %d with init = classifier: %v, want ErrBadInput", c.StartIters, c.StartUpdates, err)
		}
	}
	c := cfg
	c.StartUpdates = 0 // start_iters epochs under SVI too
	if _, err := NewModel(c); err != nil {
		t.Errorf("start_updates = 0: %v", err)
	}
	c.Init = InitMajority
	if m, err := NewModel(c); err != nil || m.StartIters() != 0 || m.StartUpdates() != 0 {
		t.Errorf("init = majority: %v, want no error and no start", err)
	}
}

// TestStartCounts: the start from counts (framework.StartCounter: each
// document's counts added into two partial totals in a shuffled order,
// the totals merged) sets ξ to StartFrom's bits, with either
// start_labels, a prior that is not a whole number (ω = 0.1) and the
// one-label case; malformed counts are errors.
func TestStartCounts(t *testing.T) {
	pred := []framework.Target{catTarget(0.4, 0.6), catTarget(0.9, 0.1), catTarget(0.2, 0.8), catTarget(0.55, 0.45)}
	one := []framework.Target{catTarget(0.4, 0.6), catTarget(0.4, 0.6), catTarget(0.2, 0.8), catTarget(0.45, 0.55)}
	for _, labels := range []string{StartClassifier, StartOthers} {
		for name, p := range map[string][]framework.Target{"two labels": pred, "one label": one} {
			cfg := Defaults()
			cfg.Omega, cfg.Diagonal, cfg.Init, cfg.StartLabels = 0.1, 0.5, InitClassifier, labels
			a := newModel(t, cfg, 3, 2, fixtureAnswers)
			b := newModel(t, cfg, 3, 2, fixtureAnswers)
			xi := [][]float64{{9, 1}, {1, 9}}
			for _, m := range []*Model{a, b} {
				if err := m.SetXi([][][]float64{xi, xi, xi}); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.StartFrom(p); err != nil {
				t.Fatal(err)
			}
			part := [2][]float64{make([]float64, b.StartCounts()), make([]float64, b.StartCounts())}
			for i, d := range []int{2, 0, 3, 1} {
				if err := b.StartCount(part[i%2], p[d], b.byDoc[d]); err != nil {
					t.Fatal(err)
				}
			}
			for i, v := range part[1] {
				part[0][i] += v
			}
			if err := b.StartFromCounts(part[0]); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a.xi, b.xi); diff != "" {
				t.Errorf("%s, %s: ξ from counts (+) and from StartFrom (-):\n%s", labels, name, diff)
			}
		}
	}
	m := newModel(t, Defaults(), 3, 2, fixtureAnswers)
	for name, c := range map[string][]float64{
		"length":   make([]float64, m.StartCounts()-1),
		"fraction": append([]float64{0.5}, make([]float64, m.StartCounts()-1)...),
		"negative": append([]float64{-1}, make([]float64, m.StartCounts()-1)...),
	} {
		if err := m.StartFromCounts(c); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
	// With constant = "almost" the counts end with the classifier's labels
	// per annotator (3 × 2): a bad count there is as bad as anywhere.
	alm := Defaults()
	alm.Constant = ConstantAlmost
	a := newModel(t, alm, 3, 2, fixtureAnswers)
	if got, want := a.StartCounts(), m.StartCounts()+3*2; got != want {
		t.Fatalf(`StartCounts with constant = "almost": %d, want %d`, got, want)
	}
	for name, c := range map[string][]float64{
		"almost, length":   make([]float64, m.StartCounts()),
		"almost, fraction": append(make([]float64, a.StartCounts()-1), 0.5),
		"almost, negative": append(make([]float64, a.StartCounts()-1), -1),
	} {
		if err := a.StartFromCounts(c); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
	if err := m.StartCount(make([]float64, m.StartCounts()), catTarget(0.5, 0.5), []framework.Answer{{Annotator: 3, Class: 0}}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("an answer of annotator 3 of 3: %v, want ErrBadInput", err)
	}
}
