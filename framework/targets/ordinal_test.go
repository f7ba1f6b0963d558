package targets_test

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/targets"
)

// TestOrdinalKind: the ordinal kind's levels, columns, cells and which
// files it claims (the categorical and gaussian kinds claim none of its).
func TestOrdinalKind(t *testing.T) {
	k, err := framework.Default.TargetKind("ordinal")
	if err != nil {
		t.Fatal(err)
	}
	if got := k.Classes([]string{"10", "2", "1", "2"}); !cmp.Equal(got, []string{"1", "2", "10"}) {
		t.Errorf("levels %v, want numeric order", got)
	}
	levels := []string{"low", "mid", "high"}
	cols := k.Columns(levels)
	if want := []string{"label", "median", "p:low", "p:mid", "p:high"}; !cmp.Equal(cols, want) {
		t.Errorf("columns %v, want %v", cols, want)
	}
	c := framework.NewCategorical(3)
	c.Log[0], c.Log[2] = math.Log(4), math.Log(3.5) // p = 0.47, 0.12, 0.41: mode low, median mid
	c.Finalize()
	row, err := k.AppendCells([]string{"d"}, c, levels)
	if err != nil {
		t.Fatal(err)
	}
	if row[1] != "low" || row[2] != "mid" {
		t.Errorf("cells %v: want label low, median mid", row)
	}
	if _, err := k.AppendCells(nil, &framework.Gaussian{}, levels); err == nil {
		t.Error("a gaussian target accepted")
	}
	for _, tc := range []struct {
		cols          []string
		ord, cat, gau bool
	}{
		{append(cols, "theta:0"), true, false, false},
		{[]string{"label", "p:a"}, false, true, false},
		{[]string{"label", "var"}, false, false, true},
		{[]string{"label", "median", "var"}, false, false, false},
	} {
		if got := k.Matches(tc.cols); got != tc.ord {
			t.Errorf("ordinal matches %v: %v", tc.cols, got)
		}
		if got := (targets.Categorical{}).Matches(tc.cols); got != tc.cat {
			t.Errorf("categorical matches %v: %v", tc.cols, got)
		}
		if got := (targets.Gaussian{}).Matches(tc.cols); got != tc.gau {
			t.Errorf("gaussian matches %v: %v", tc.cols, got)
		}
	}
	for _, tc := range []struct {
		p    []float64
		want int
	}{{[]float64{0.5, 0.5}, 0}, {[]float64{0.2, 0.2, 0.6}, 2}, {[]float64{0, 0.3, 0.3, 0.4}, 2}, {[]float64{0.1, 0.1}, 0}} {
		if got := targets.Median(tc.p); got != tc.want {
			t.Errorf("Median(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
}

// TestOrdinalEvaluate: errors in levels of the label and of the median,
// the levels' order from the p:<level> columns or the declared classes,
// numeric predictions read as the nearest level, errors at the line.
func TestOrdinalEvaluate(t *testing.T) {
	lines := func(n int) []int {
		l := make([]int, n)
		for i := range l {
			l[i] = i + 1
		}
		return l
	}
	conf := func(rows ...[]int) [][]int { return rows }
	for _, tc := range []struct {
		name string
		in   *framework.EvalInput
		want *targets.OrdinalMetrics
		err  string
	}{
		{"median column, levels from p: columns", &framework.EvalInput{
			Pred: []string{"lo", "hi", "hi"}, Truth: []string{"lo", "mid", "lo"}, Lines: lines(3),
			Columns: []string{"label", "median", "p:lo", "p:mid", "p:hi"},
			Rows:    [][]string{{"lo", "lo", "1", "0", "0"}, {"hi", "mid", "0.3", "0.2", "0.5"}, {"hi", "mid", "0.4", "0.1", "0.5"}},
		}, &targets.OrdinalMetrics{
			ClassMetrics: targets.ClassMetrics{N: 3, Accuracy: 1.0 / 3, MacroF1: (2.0/3 + 0) / 2, Classes: []string{"lo", "mid", "hi"}, Confusion: conf([]int{1, 0, 1}, []int{0, 0, 1}, []int{0, 0, 0})},
			MAE:          1, RMSE: math.Sqrt(5.0 / 3), MedianAccuracy: 2.0 / 3, MedianMAE: 1.0 / 3, Median: "median",
		}, ""},
		{"median from p: columns (a softmax posterior)", &framework.EvalInput{
			Pred: []string{"2", "0"}, Truth: []string{"1", "0"}, Lines: lines(2),
			Columns: []string{"label", "p:0", "p:1", "p:2"},
			Rows:    [][]string{{"2", "0.3", "0.3", "0.4"}, {"0", "0.6", "0.1", "0.3"}},
		}, &targets.OrdinalMetrics{
			ClassMetrics: targets.ClassMetrics{N: 2, Accuracy: 0.5, MacroF1: 1.0 / 2, Classes: []string{"0", "1", "2"}, Confusion: conf([]int{1, 0, 0}, []int{0, 0, 1}, []int{0, 0, 0})},
			MAE:          0.5, RMSE: math.Sqrt(0.5), MedianAccuracy: 1, MedianMAE: 0, Median: "p",
		}, ""},
		{"numbers to the nearest declared level (a gaussian posterior)", &framework.EvalInput{
			Pred: []string{"4.6", "0.2", "2.5"}, Truth: []string{"5", "1", "3"}, Lines: lines(3), Classes: []string{"1", "2", "3", "4", "5"},
			Columns: []string{"label", "var"}, Rows: [][]string{{"4.6", "1"}, {"0.2", "1"}, {"2.5", "1"}},
		}, &targets.OrdinalMetrics{
			ClassMetrics: targets.ClassMetrics{N: 3, Accuracy: 2.0 / 3, MacroF1: 2.0 / 3, Classes: []string{"1", "2", "3", "4", "5"}, Confusion: conf([]int{1, 0, 0, 0, 0}, []int{0, 0, 0, 0, 0}, []int{0, 1, 0, 0, 0}, []int{0, 0, 0, 0, 0}, []int{0, 0, 0, 0, 1})},
			MAE:          1.0 / 3, RMSE: math.Sqrt(1.0 / 3), MedianAccuracy: 2.0 / 3, MedianMAE: 1.0 / 3, Median: "label",
		}, ""},
		{"labels only, sorted numerically", &framework.EvalInput{Pred: []string{"10", "2"}, Truth: []string{"2", "2"}, Lines: lines(2)}, &targets.OrdinalMetrics{
			ClassMetrics: targets.ClassMetrics{N: 2, Accuracy: 0.5, MacroF1: 2.0 / 3, Classes: []string{"2", "10"}, Confusion: conf([]int{1, 1}, []int{0, 0})},
			MAE:          0.5, RMSE: math.Sqrt(0.5), MedianAccuracy: 0.5, MedianMAE: 0.5, Median: "label",
		}, ""},
		{"a truth that is not a level", &framework.EvalInput{Pred: []string{"a", "b"}, Truth: []string{"a", "c"}, Lines: lines(2), TruthFile: "t.csv", Classes: []string{"a", "b"}}, nil,
			`t.csv:2: label "c" is not a class`},
		{"a prediction that is not a level", &framework.EvalInput{Pred: []string{"x"}, Truth: []string{"a"}, Lines: lines(1), PredFile: "p.csv", Classes: []string{"a", "b"}}, nil,
			`p.csv: label "x" is not a class`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := (targets.Ordinal{}).Evaluate(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, m, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var b strings.Builder
			if err := m.WriteText(&b); err != nil || !strings.Contains(b.String(), "MAE") || !strings.Contains(b.String(), "confusion (rows: truth") {
				t.Errorf("text %v:\n%s", err, b.String())
			}
		})
	}
}
