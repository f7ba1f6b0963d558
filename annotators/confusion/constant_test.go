package confusion

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
)

// constantCrowd: 60 documents over 3 classes answered by two annotators
// right 80% of the time and, on the first 40, by a2, who answers class 1
// every time. without drops a2's answers (a2 stays in the list).
func constantCrowd(without bool) [][]framework.Answer {
	rng := rand.New(rand.NewPCG(5, 6))
	var byDoc [][]framework.Answer
	for d := range 60 {
		c := d % 3
		var as []framework.Answer
		for r := range 2 {
			y := c
			if rng.Float64() < 0.2 {
				y = rng.IntN(3)
			}
			as = append(as, ans(r, y))
		}
		if d < 40 && !without {
			as = append(as, ans(2, 1))
		}
		byDoc = append(byDoc, as)
	}
	return byDoc
}

// TestConstantIgnored: with constant = "ignore" an annotator who gives one
// class to everything is as if absent: the same ξ of the others, evidence
// and bound as a model of the crowd without its answers, after the
// majority start and over batch and SVI updates (ρ 0.6, scale 2.5), for the fixed prior, the
// communities and the point estimate; its own ξ stays at the prior and its
// answers are predicted by its class whatever the document.
func TestConstantIgnored(t *testing.T) {
	full, without := constantCrowd(false), constantCrowd(true)
	for _, name := range []string{"fixed", "communities", "point"} {
		cfg := Defaults()
		cfg.Init = InitMajority
		switch name {
		case "communities":
			cfg.Prior = PriorCommunities
		case "point":
			cfg.Estimate, cfg.Diagonal = EstimatePoint, 0
		}
		keep := cfg
		keep.Constant = ConstantKeep
		m := newModel(t, cfg, 3, 3, full)
		ref := newModel(t, keep, 3, 3, without)
		if got := []int{m.Constant(0), m.Constant(1), m.Constant(2)}; !cmp.Equal(got, []int{-1, -1, 1}) {
			t.Fatalf("%s: Constant = %v, want [-1 -1 1]", name, got)
		}
		if got := m.IgnoredAnnotators(); !cmp.Equal(got, []string{"a2"}) {
			t.Errorf("%s: IgnoredAnnotators = %v, want [a2]", name, got)
		}
		if ref.IgnoredAnnotators() != nil {
			t.Errorf("%s: constant = keep ignores %v", name, ref.IgnoredAnnotators())
		}
		if ref.Constant(2) != -1 {
			t.Fatalf("%s: constant = keep ignores a2", name)
		}
		if m.Answers(2) != 40 {
			t.Errorf("%s: a2 has %d answers, want 40", name, m.Answers(2))
		}
		opt := cmpopts.EquateApprox(1e-12, 1e-12)
		for it := 1; it <= 6; it++ {
			// batch steps, then SVI steps (0 < ρ < 1, scale S ≠ 1)
			step := framework.BatchStep(it)
			if it > 3 {
				step = framework.Step{Rho: 0.6, Scale: 2.5}
			}
			for r := range 3 {
				if diff := cmp.Diff(ref.Xi(r), m.Xi(r), opt); diff != "" {
					t.Fatalf("%s, iteration %d: ξ of a%d (-without +with):\n%s", name, it, r, diff)
				}
			}
			s, sr := m.NewStats(), ref.NewStats()
			for d := range full {
				st := docState(full[d], make([]float64, 3))
				sr0 := docState(without[d], make([]float64, 3))
				for _, x := range []*framework.DocState{st, sr0} {
					x.Target.(*framework.Categorical).Reset()
				}
				m.Evidence(st)
				ref.Evidence(sr0)
				g, gr := st.Target.(*framework.Categorical), sr0.Target.(*framework.Categorical)
				if diff := cmp.Diff(gr.Log, g.Log, opt); diff != "" {
					t.Fatalf("%s, iteration %d, document %d: evidence (-without +with):\n%s", name, it, d, diff)
				}
				g.Finalize()
				gr.Finalize()
				if a, b := m.DocELBO(st), ref.DocELBO(sr0); !near(a, b, 1e-12) {
					t.Fatalf("%s, iteration %d, document %d: DocELBO %v, without a2 %v", name, it, d, a, b)
				}
				m.Accumulate(s, st)
				ref.Accumulate(sr, sr0)
			}
			if err := m.Update(t.Context(), s, step); err != nil {
				t.Fatal(err)
			}
			if err := ref.Update(t.Context(), sr, step); err != nil {
				t.Fatal(err)
			}
			if a, b := m.ELBO(s, step), ref.ELBO(sr, step); !near(a, b, 1e-12) {
				t.Errorf("%s, iteration %d: ELBO %v, without a2 %v", name, it, a, b)
			}
		}
		// a2 answers class 1 with (ω + 40)/(40 + 3ω), the others (ω)/(40 + 3ω).
		w := cfg.Omega
		for _, lam := range [][]float64{{1, 0, 0}, {0.2, 0.3, 0.5}} {
			tg := framework.NewCategorical(3)
			copy(tg.P, lam)
			if got, want := m.LogPredictive(tg, ans(2, 1)), math.Log((w+40)/(40+3*w)); !near(got, want, 1e-14) {
				t.Errorf("%s: log predictive of a2's class %v, want %v", name, got, want)
			}
			if got, want := m.LogPredictive(tg, ans(2, 0)), math.Log(w/(40+3*w)); !near(got, want, 1e-14) {
				t.Errorf("%s: log predictive of another class %v, want %v", name, got, want)
			}
		}
	}
}

// TestConstantPersist: the ignored annotators' classes are saved, a saved
// model's are used after loading whatever Init found, and the report marks
// them.
func TestConstantPersist(t *testing.T) {
	m := newModel(t, Defaults(), 3, 3, constantCrowd(false))
	var buf bytes.Buffer
	if err := m.SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"constant":[-1,-1,1]`) {
		t.Fatalf("saved parameters without the constant classes:\n%s", buf.String())
	}
	q := newModel(t, Defaults(), 3, 3, nil)
	if err := q.LoadParams(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if got := []int{q.Constant(0), q.Constant(1), q.Constant(2)}; !cmp.Equal(got, []int{-1, -1, 1}) {
		t.Errorf("loaded Constant = %v", got)
	}
	st := docState([]framework.Answer{ans(2, 1)}, make([]float64, 3))
	st.Target.(*framework.Categorical).Reset()
	q.Evidence(st)
	if diff := cmp.Diff([]float64{0, 0, 0}, st.Target.(*framework.Categorical).Log); diff != "" {
		t.Errorf("loaded model: a2 sends evidence (-want +got):\n%s", diff)
	}
	header, rows, _ := q.Report()
	if header[len(header)-1] != "ignores_items" || rows[2][len(rows[2])-1] != "true" || rows[0][len(rows[0])-1] != "false" {
		t.Errorf("report header %v, rows %v", header, rows)
	}
	// A file without the field clears Init's marks.
	keep := Defaults()
	keep.Constant = ConstantKeep
	var kb bytes.Buffer
	if err := newModel(t, keep, 3, 3, constantCrowd(false)).SaveParams(&kb); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(kb.String(), `"constant"`) {
		t.Errorf("constant = keep saved the field:\n%s", kb.String())
	}
	k := newModel(t, Defaults(), 3, 3, constantCrowd(false))
	if err := k.LoadParams(bytes.NewReader(kb.Bytes())); err != nil {
		t.Fatal(err)
	}
	if k.Constant(2) != -1 {
		t.Errorf("a2 ignored after loading a file without constant classes")
	}
	for _, bad := range []string{`"constant":[-1,1]`, `"constant":[-1,-1,3]`, `"constant":[-2,-1,1]`} {
		text := strings.Replace(buf.String(), `"constant":[-1,-1,1]`, bad, 1)
		if err := newModel(t, Defaults(), 3, 3, nil).LoadParams(strings.NewReader(text)); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", bad, err)
		}
	}
	if _, err := NewModel(Config{Omega: 1, Init: InitMajority, InitStrength: 1, Estimate: EstimateVariational, StartIters: 1, StartLabels: StartOthers, InitLabels: InitLabelsMajority, Prior: PriorFixed, Communities: 3, Constant: "drop"}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf(`constant = "drop": err = %v, want ErrBadInput`, err)
	}
}
