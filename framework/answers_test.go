package framework

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func num(vs ...float64) []Answer {
	out := make([]Answer, len(vs))
	for i, v := range vs {
		out[i] = Answer{Annotator: int32(i), Class: -1, Value: v}
	}
	return out
}

func TestDocMeanAndMeanDocMean(t *testing.T) {
	for _, tc := range []struct {
		name  string
		byDoc [][]Answer
		means []float64 // DocMean per document (NaN: no answers)
		want  float64
	}{
		{"by hand", [][]Answer{num(1, 2, 6), nil, num(5)}, []float64{3, math.NaN(), 5}, 4},
		{"no answers", [][]Answer{nil, {}}, []float64{math.NaN(), math.NaN()}, 0},
		{"not finite", [][]Answer{num(math.Inf(1)), num(1)}, []float64{math.Inf(1), 1}, 0},
	} {
		var got []float64
		for _, as := range tc.byDoc {
			m, ok := DocMean(as)
			if !ok {
				m = math.NaN()
			}
			got = append(got, m)
		}
		if diff := cmp.Diff(tc.means, got, cmp.Comparer(func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) })); diff != "" {
			t.Errorf("%s: DocMean (-want +got):\n%s", tc.name, diff)
		}
		if m := (&Answers{ByDoc: tc.byDoc}).MeanDocMean(); m != tc.want {
			t.Errorf("%s: MeanDocMean = %v, want %v", tc.name, m, tc.want)
		}
	}
}
