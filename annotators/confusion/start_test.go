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
