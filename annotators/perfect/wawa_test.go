package perfect_test

import (
	"context"
	"math"
	"testing"

	"github.com/maslda/maslda/annotators/perfect"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
)

// wawaFixture: 3 annotators, 2 classes, 4 tasks:
//
//	task 0: a0 0, a1 0, a2 1   majority 0
//	task 1: a0 1, a1 1, a2 0   majority 1
//	task 2: a0 0, a2 1         tie
//	task 3: a1 1, a2 0         tie
//
// Agreement with the majority (a tie counts ½): a0 (1 + 1 + ½)/3 = 5/6,
// a1 5/6, a2 (0 + 0 + ½ + ½)/4 = 1/4. The weighted vote breaks both ties:
// task 2 → 0 (5/6 against 1/4), task 3 → 1.
func wawaFixture() *framework.Corpus {
	ans := func(r, y int32) framework.Answer { return framework.Answer{Annotator: r, Class: y, Value: float64(y)} }
	a := &framework.Answers{Annotators: []string{"a0", "a1", "a2"}, Classes: []string{"x", "y"}, ByDoc: [][]framework.Answer{
		{ans(0, 0), ans(1, 0), ans(2, 1)},
		{ans(0, 1), ans(1, 1), ans(2, 0)},
		{ans(0, 0), ans(2, 1)},
		{ans(1, 1), ans(2, 0)},
	}}
	docs := make([]framework.Doc, 4)
	for d := range docs {
		docs[d].ID = string(rune('a' + d))
	}
	return &framework.Corpus{V: 1, Docs: docs, Answers: a}
}

func TestWawaByHand(t *testing.T) {
	c := wawaFixture()
	w := perfect.WawaWeights(c.Answers, 3, 2)
	for r, want := range []float64{5.0 / 6, 5.0 / 6, 0.25} {
		if math.Abs(w[r]-want) > 1e-15 {
			t.Errorf("weight of a%d = %v, want %v", r, w[r], want)
		}
	}
	for _, tc := range []struct {
		model string
		want  [][]float64
	}{
		{"wawa", [][]float64{{1, 0}, {0, 1}, {1, 0}, {0, 1}}},
		// The majority vote leaves the ties to the class prior, which the
		// majority makes (½, ½) here.
		{"majority-vote", [][]float64{{1, 0}, {0, 1}, {0.5, 0.5}, {0.5, 0.5}}},
	} {
		cfg, err := models.ParseConfig([]byte("model = \""+tc.model+"\"\n"), "w.hcl")
		if err != nil {
			t.Fatal(err)
		}
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run.Fit(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		for d, want := range tc.want {
			p := run.Model.Target(d).(*framework.Categorical).P
			for l := range want {
				if math.Abs(p[l]-want[l]) > 1e-12 {
					t.Errorf("%s: task %d: posterior %v, want %v", tc.model, d, p, want)
					break
				}
			}
		}
		if tc.model == "wawa" {
			pm := run.Model.Noise.(*perfect.Model)
			if pm.Aggregate() != perfect.Wawa || len(pm.Weights()) != 3 {
				t.Errorf("aggregate %q, weights %v", pm.Aggregate(), pm.Weights())
			}
			if _, rows, _ := pm.Report(); rows[0][4] != "0" {
				t.Errorf("report %v: want no weighted tie", rows)
			}
		}
	}
	// "wawa" refuses numeric answers and a Gaussian target.
	m, err := perfect.New(perfect.Params{Aggregate: perfect.Wawa})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Accepts(&framework.Gaussian{}); err == nil {
		t.Error("wawa bound to a Gaussian target")
	}
}
