package framework

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestConstantAnnotators(t *testing.T) {
	num := func(r int32, v float64) Answer { return Answer{Annotator: r, Class: -1, Value: v} }
	cat := func(r, c int32) Answer { return Answer{Annotator: r, Class: c, Value: float64(c)} }
	// 20 documents: annotator 0 varies, 1 always says 7 (20 answers),
	// 2 says 7 twice, 3 answered once.
	var varied [][]Answer
	for d := range 20 {
		as := []Answer{num(0, float64(d)), num(1, 7)}
		if d < 2 {
			as = append(as, num(2, 7))
		}
		if d == 0 {
			as = append(as, num(3, 5))
		}
		varied = append(varied, as)
	}
	// Categorical, 2 classes, 10 documents: annotator 0 alternates, 1 says
	// class 1 every time (10 answers), 2 says class 0 three times.
	var classes [][]Answer
	for d := range 10 {
		as := []Answer{cat(0, int32(d%2)), cat(1, 1)}
		if d < 3 {
			as = append(as, cat(2, 0))
		}
		classes = append(classes, as)
	}
	tests := []struct {
		name   string
		byDoc  [][]Answer
		R      int
		chance float64
		want   []bool
	}{
		// f_7 = 22/43: 20 answers of 7 are no coincidence (0.51^20 ≈ 1.5e-6,
		// plus the other values' tiny powers); 2 answers of 7 are (0.26 + Σ
		// (1/43)² ≈ 0.27 ≥ 0.01); one answer never is.
		{"numeric", varied, 4, ConstantChance, []bool{false, true, false, false}},
		// a chance threshold above 0.27 flags annotator 2 as well
		{"numeric, lax", varied, 4, 0.5, []bool{false, true, true, false}},
		// f = (8/23, 15/23): class 1 ten times has chance 0.65^10 + 0.35^10 ≈
		// 0.014 ≥ 0.01; class 0 three times 0.33.
		{"categorical", classes, 3, ConstantChance, []bool{false, false, false}},
		{"categorical, lax", classes, 3, 0.02, []bool{false, true, false}},
		// an annotator without answers and an index out of range
		{"silent and out of range", [][]Answer{{num(0, 1), num(0, 1), num(5, 1)}, {num(0, 1)}}, 2, ConstantChance, []bool{false, false}},
		{"no answers", nil, 2, ConstantChance, []bool{false, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &Answers{ByDoc: tc.byDoc}
			got := a.ConstantAnnotators(tc.R, tc.chance)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ConstantAnnotators (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleAnswers_ConstantAnnotators() {
	// Annotator "b" rates every one of 12 documents 50; "a" varies.
	a := &Answers{Annotators: []string{"a", "b"}}
	for d := range 12 {
		a.ByDoc = append(a.ByDoc, []Answer{{Annotator: 0, Class: -1, Value: float64(10 * d)}, {Annotator: 1, Class: -1, Value: 50}})
	}
	fmt.Println(a.ConstantAnnotators(2, ConstantChance))
	// Output: [false true]
}
