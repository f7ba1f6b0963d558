package confusion

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

// TestBestAssignment: by hand, rows 0 and 1 prefer each other's columns
// (5 + 4) and row 2 its own (2): 11, against the identity's 4.
func TestBestAssignment(t *testing.T) {
	w := []float64{
		1, 5, 0,
		4, 1, 0,
		0, 0, 2,
	}
	perm, v := bestAssignment(w, 3)
	if !cmp.Equal(perm, []int{1, 0, 2}) || v != 11 {
		t.Errorf("bestAssignment = %v, %v; want [1 0 2], 11", perm, v)
	}
	// The identity when it is best; a 3-cycle when that is.
	if perm, v := bestAssignment([]float64{3, 1, 1, 1, 3, 1, 1, 1, 3}, 3); !cmp.Equal(perm, []int{0, 1, 2}) || v != 9 {
		t.Errorf("diagonal: %v, %v; want the identity, 9", perm, v)
	}
	if perm, _ := bestAssignment([]float64{0, 2, 0, 0, 0, 2, 2, 0, 0}, 3); !cmp.Equal(perm, []int{1, 2, 0}) {
		t.Errorf("cycle: %v, want [1 2 0]", perm)
	}
}

// relabelCrowd: 20 documents of two classes; a0 answers class 1 on the
// first 15 and 0 on the last 5; a2 (with keep) answers 0 on all 20.
func relabelCrowd(withConstant bool) [][]framework.Answer {
	byDoc := make([][]framework.Answer, 20)
	for d := range byDoc {
		y := 1
		if d >= 15 {
			y = 0
		}
		byDoc[d] = append(byDoc[d], ans(0, y))
		if withConstant {
			byDoc[d] = append(byDoc[d], ans(2, 0))
		}
	}
	return byDoc
}

func oneHots(n, C int, class func(d int) int) []framework.Target {
	out := make([]framework.Target, n)
	for d := range out {
		t := framework.NewCategorical(C)
		t.P[class(d)] = 1
		out[d] = t
	}
	return out
}

// TestRelabeling: the labelling the answers agree with most, by hand. With
// every document labelled 1, a0's answers agree 15 to 5 with the fit's own
// labelling (nil) and with a2's 20 answers of class 0, read as evidence
// (constant = "keep"), 25 to 15 with the swap ([1 0]); ignored, a2 does
// not count. Documents labelled the opposite of a0's answers propose the
// swap, also under a learned prior, communities or diagonal = 0, where
// the agreement alone decides (ByAgreement), but there only when the
// answers prefer the swap beyond chance; relabel = "none" proposes
// nothing.
func TestRelabeling(t *testing.T) {
	all1 := oneHots(20, 2, func(int) int { return 1 })
	cfg := Defaults()
	cfg.Init = InitMajority
	if got := newModel(t, cfg, 3, 2, relabelCrowd(false)).Relabeling(all1); got != nil {
		t.Errorf("a0 agrees 15 to 5: Relabeling = %v, want nil", got)
	}
	keep := cfg
	keep.Constant = ConstantKeep
	if got := newModel(t, keep, 3, 2, relabelCrowd(true)).Relabeling(all1); !cmp.Equal(got, []int{1, 0}) {
		t.Errorf("with a2 kept: Relabeling = %v, want [1 0]", got)
	}
	m := newModel(t, cfg, 3, 2, relabelCrowd(true))
	if m.Constant(2) != 0 {
		t.Fatalf("a2 is not ignored (Constant = %d)", m.Constant(2))
	}
	if got := m.Relabeling(all1); got != nil {
		t.Errorf("with a2 ignored: Relabeling = %v, want nil", got)
	}
	flipped := oneHots(20, 2, func(d int) int {
		if d >= 15 {
			return 1
		}
		return 0
	})
	if got := m.Relabeling(flipped); !cmp.Equal(got, []int{1, 0}) {
		t.Errorf("labels opposite to a0's answers: Relabeling = %v, want [1 0]", got)
	}
	if m.ByAgreement() {
		t.Error("the fixed prior with a diagonal: ByAgreement = true, want false (its bound tells the twins apart)")
	}
	for name, f := range map[string]func(*Config){
		"none":  func(c *Config) { c.Relabel = RelabelNone },
		"unset": func(c *Config) { c.Relabel = "" },
	} {
		c := cfg
		f(&c)
		if got := newModel(t, c, 3, 2, relabelCrowd(true)).Relabeling(flipped); got != nil {
			t.Errorf("%s: Relabeling = %v, want nil", name, got)
		}
	}
	// Where the bound cannot tell the twins apart, the proposal stands on
	// the agreement alone (ByAgreement); the diagonal hyperprior tells
	// the communities' twins apart.
	for _, tc := range []struct {
		name string
		f    func(*Config)
		want bool
	}{
		{"learned", func(c *Config) { c.Prior = PriorLearned }, true},
		{"communities", func(c *Config) { c.Prior = PriorCommunities }, true},
		{"diagonal 0", func(c *Config) { c.Diagonal = 0 }, true},
		{"communities with prior_diagonal 1", func(c *Config) { c.Prior, c.PriorDiagonal = PriorCommunities, 1 }, false},
		{"communities with prior_dominant", func(c *Config) { c.Prior, c.PriorDominant = PriorCommunities, true }, false},
	} {
		c := cfg
		tc.f(&c)
		m := newModel(t, c, 3, 2, relabelCrowd(true))
		if got := m.Relabeling(flipped); !cmp.Equal(got, []int{1, 0}) {
			t.Errorf("%s: Relabeling = %v, want [1 0]", tc.name, got)
		}
		if got := m.ByAgreement(); got != tc.want {
			t.Errorf("%s: ByAgreement = %v, want %v", tc.name, got, tc.want)
		}
	}
	// A weak preference: the swap agrees with 14 answers, the fit with 6
	// (Δ = 8, √Σx² = √20: z 1.79 < relabelZ). The fixed prior's bound
	// still judges the twin, so it is proposed; where the agreement alone
	// would decide, it is not.
	weak := oneHots(20, 2, func(d int) int {
		if d == 14 {
			return 1
		}
		return 0
	})
	if got := m.Relabeling(weak); !cmp.Equal(got, []int{1, 0}) {
		t.Errorf("fixed prior, a weak preference for the swap: Relabeling = %v, want [1 0]", got)
	}
	cw := cfg
	cw.Prior = PriorCommunities
	if got := newModel(t, cw, 3, 2, relabelCrowd(true)).Relabeling(weak); got != nil {
		t.Errorf("communities, a swap preferred by z 1.79: Relabeling = %v, want nil", got)
	}
	bad := cfg
	bad.Relabel = "sometimes"
	if _, err := NewModel(bad); err == nil {
		t.Error("relabel = \"sometimes\" accepted")
	}
}

// TestPermuteClasses: the twin explains every answer as the fit did with
// the classes renamed: each document's evidence is the fit's, permuted;
// under a learned prior or communities (whose rows follow) the global part
// of the bound is unchanged, and under the fixed prior it changes (the
// prior is what tells the two apart).
func TestPermuteClasses(t *testing.T) {
	byDoc := constantCrowd(true)
	perm := []int{2, 0, 1}
	for _, name := range []string{"fixed", "learned", "communities"} {
		cfg := Defaults()
		cfg.Init = InitMajority
		switch name {
		case "learned":
			cfg.Prior = PriorLearned
		case "communities":
			cfg.Prior = PriorCommunities
		}
		m := newModel(t, cfg, 2, 3, byDoc)
		// A few updates from uneven labels, so that the rows and the
		// learned priors are no longer symmetric.
		for it := 1; it <= 3; it++ {
			st := m.NewStats()
			for d, as := range byDoc {
				lam := []float64{0.1, 0.1, 0.1}
				lam[d%3] = 0.8
				if d%5 == 0 {
					lam = []float64{0.5, 0.3, 0.2}
				}
				m.Accumulate(st, docState(as, lam))
			}
			if err := m.Update(context.Background(), st, framework.BatchStep(it)); err != nil {
				t.Fatal(err)
			}
		}
		before := make([][]float64, len(byDoc))
		for d, as := range byDoc {
			ds := docState(as, []float64{1, 0, 0})
			m.Evidence(ds)
			before[d] = append([]float64(nil), ds.Target.(*framework.Categorical).Log...)
		}
		kl := m.GlobalELBO()
		if err := m.PermuteClasses(perm); err != nil {
			t.Fatal(err)
		}
		for d, as := range byDoc {
			ds := docState(as, []float64{1, 0, 0})
			m.Evidence(ds)
			got := ds.Target.(*framework.Categorical).Log
			for c, to := range perm {
				if math.Abs(got[to]-before[d][c]) > 1e-12 {
					t.Fatalf("%s: document %d: evidence for class %d is %v, the fit's for class %d %v", name, d, to, got[to], c, before[d][c])
				}
			}
		}
		if d := math.Abs(m.GlobalELBO() - kl); (name == "fixed") != (d > 1e-9) {
			t.Errorf("%s: the global bound moved by %v", name, d)
		}
	}
	m := newModel(t, Defaults(), 2, 3, byDoc)
	for _, p := range [][]int{{0, 1}, {0, 0, 1}, {0, 1, 3}} {
		if err := m.PermuteClasses(p); err == nil {
			t.Errorf("PermuteClasses(%v) accepted", p)
		}
	}
}
