package targets_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/targets"
)

func categorical(p ...float64) *framework.Categorical {
	t := framework.NewCategorical(len(p))
	for i, x := range p {
		t.Log[i] = math.Log(x)
	}
	t.Finalize()
	return t
}

func gaussian(mean, v float64) *framework.Gaussian {
	return &framework.Gaussian{Prec: 1 / v, PrecMean: mean / v, Mean: mean, Var: v}
}

func TestRegisteredKinds(t *testing.T) {
	got := framework.Default.Names(framework.KindTarget)
	if diff := cmp.Diff([]string{"categorical", "gaussian", "ordinal"}, got); diff != "" {
		t.Errorf("registered kinds (-want +got):\n%s", diff)
	}
	_, err := framework.Default.TargetKind("poisson")
	if !errors.Is(err, framework.ErrUnknownComponent) || !strings.Contains(err.Error(), "registered: categorical, gaussian, ordinal") {
		t.Errorf("unknown kind: %v, want ErrUnknownComponent listing the kinds", err)
	}
}

// fakeResponse is a Likelihood of which only NewTarget (and Kind) work.
type fakeResponse struct {
	framework.Likelihood
	target framework.Target
}

func (f fakeResponse) NewTarget() framework.Target { return f.target }

type ordinalResponse struct{ fakeResponse }

func (ordinalResponse) Kind() string { return "gaussian" } // declared on the response: wins over the target's

type bareTarget struct{ framework.Target }

func TestKindOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    framework.Likelihood
		want string // kind name, or the error's text
	}{
		{"categorical target", fakeResponse{target: framework.NewCategorical(2)}, "categorical"},
		{"gaussian target", fakeResponse{target: &framework.Gaussian{}}, "gaussian"},
		{"declared by the response", ordinalResponse{fakeResponse{target: framework.NewCategorical(2)}}, "gaussian"},
		{"no kind", fakeResponse{target: bareTarget{}}, "targets_test.bareTarget declares no kind (framework.Kinded); registered kinds: categorical, gaussian"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := framework.Default.KindOf(tc.l)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, framework.ErrIncompatible) {
					t.Errorf("error %v does not wrap ErrIncompatible", err)
				}
			} else {
				got = k.Name()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("KindOf = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestColumnsAndCells(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kind    framework.TargetKind
		classes []string
		target  framework.Target
		cols    []string
		cells   []string
		err     string
	}{
		{"categorical", targets.Categorical{}, []string{"neg", "pos"}, categorical(0.25, 0.75),
			[]string{"label", "p:neg", "p:pos"}, []string{"d", "pos", "0.25", "0.75"}, ""},
		{"categorical without class names", targets.Categorical{}, nil, categorical(0.5, 0.125, 0.375),
			[]string{"label"}, []string{"d", "0", "0.5", "0.125", "0.375"}, ""},
		{"gaussian", targets.Gaussian{}, nil, gaussian(2.5, 0.1),
			[]string{"label", "var"}, []string{"d", "2.5", "0.1"}, ""},
		{"gaussian kind, categorical target", targets.Gaussian{}, nil, categorical(0.5, 0.5),
			[]string{"label", "var"}, nil, "*framework.Categorical is not gaussian"},
		{"categorical kind, gaussian target", targets.Categorical{}, nil, gaussian(1, 1),
			[]string{"label"}, nil, "*framework.Gaussian is not categorical"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.cols, tc.kind.Columns(tc.classes)); diff != "" {
				t.Errorf("Columns (-want +got):\n%s", diff)
			}
			if !tc.kind.Matches(tc.cols) {
				t.Errorf("the kind does not match its own columns %v", tc.cols)
			}
			row, err := tc.kind.AppendCells([]string{"d"}, tc.target, tc.classes)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("AppendCells error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.cells, row); diff != "" {
				t.Errorf("AppendCells (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		cols []string
		want []string // the kinds that match
	}{
		{[]string{"label"}, []string{"categorical"}},
		{[]string{"label", "p:a", "p:b"}, []string{"categorical"}},
		{[]string{"label", "p:a", "theta:0", "theta:1"}, []string{"categorical"}},
		{[]string{"label", "var"}, []string{"gaussian"}},
		{[]string{"label", "var", "theta:0"}, []string{"gaussian"}},
		{[]string{"label", "theta:0", "p:a"}, nil},
		{[]string{"label", "mean"}, nil},
		{[]string{"var"}, nil},
	} {
		var got []string
		for _, k := range []framework.TargetKind{targets.Categorical{}, targets.Gaussian{}} {
			if k.Matches(tc.cols) {
				got = append(got, k.Name())
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.cols, diff)
		}
	}
}

func TestParsers(t *testing.T) {
	type parsed struct {
		Class int32
		Value float64
	}
	for _, tc := range []struct {
		name    string
		kind    framework.TargetKind
		classes []string
		label   string
		want    parsed
		err     string
	}{
		{"a class", targets.Categorical{}, []string{"pos", "neg"}, "neg", parsed{1, 1}, ""},
		{"not a class", targets.Categorical{}, []string{"pos", "neg"}, "poss", parsed{}, `a.csv:7: label "poss" is not a class; the 2 classes are "pos", "neg"`},
		{"a number", targets.Gaussian{}, nil, "-2.5", parsed{-1, -2.5}, ""},
		{"not a number", targets.Gaussian{}, nil, "x", parsed{}, `a.csv:7: label "x" is not a number`},
		{"too big", targets.Gaussian{}, nil, "1e308", parsed{}, `a.csv:7: label "1e308" is beyond ±1e+12`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse, err := tc.kind.Parser(tc.classes)
			if err != nil {
				t.Fatal(err)
			}
			c, v, err := parse(tc.label, "a.csv", 7)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, framework.ErrBadInput) {
					t.Fatalf("error %v, want ErrBadInput with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, parsed{c, v}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := (targets.Categorical{}).Parser([]string{"a", "a"}); err == nil {
		t.Error("duplicate classes: want an error")
	}
	if _, err := (targets.Gaussian{}).Parser([]string{"a"}); err == nil {
		t.Error("classes for numbers: want an error")
	}
}

func TestScoreTruth(t *testing.T) {
	cat := []framework.Target{categorical(0.9, 0.1), categorical(0.2, 0.8), categorical(0.6, 0.4), nil}
	tr := &framework.Truth{Classes: []string{"a", "b"}, Has: []bool{true, true, true, false}, Class: []int32{0, 0, 0, -1}, Value: []float64{0, 0, 0, 0}}
	if got := (targets.Categorical{}).ScoreTruth(tr, func(d int) framework.Target { return cat[d] }); got != 2.0/3 {
		t.Errorf("accuracy %v, want 2/3", got)
	}
	num := []framework.Target{gaussian(1, 1), gaussian(2, 1), gaussian(4, 1)}
	trn := &framework.Truth{Has: []bool{true, true, true}, Class: []int32{-1, -1, -1}, Value: []float64{1, 2, 3}}
	if got := (targets.Gaussian{}).ScoreTruth(trn, func(d int) framework.Target { return num[d] }); math.Abs(got-0.5) > 1e-15 {
		t.Errorf("R² %v, want 0.5", got)
	}
	if got := (targets.Gaussian{}).ScoreTruth(&framework.Truth{}, nil); !math.IsNaN(got) {
		t.Errorf("R² of nothing %v, want NaN", got)
	}
}

func TestEvaluate(t *testing.T) {
	in := func(pred, truth string, classes ...string) *framework.EvalInput {
		p, tr := strings.Split(pred, ","), strings.Split(truth, ",")
		lines := make([]int, len(tr))
		for i := range lines {
			lines[i] = i + 2
		}
		return &framework.EvalInput{Pred: p, Truth: tr, Lines: lines, PredFile: "p.csv", TruthFile: "t.csv", Classes: classes}
	}
	for _, tc := range []struct {
		name string
		kind framework.TargetKind
		in   *framework.EvalInput
		want framework.Metrics
		err  string
	}{
		{"classes that occur", targets.Categorical{}, in("a,a,b,c", "a,b,b,c"), &targets.ClassMetrics{N: 4, Accuracy: 0.75, MacroF1: 7.0 / 9,
			Classes: []string{"a", "b", "c"}, Confusion: [][]int{{1, 0, 0}, {1, 1, 0}, {0, 0, 1}}}, ""},
		{"declared classes, in their order, one never seen", targets.Categorical{}, in("a,b", "a,a", "b", "z", "a"), &targets.ClassMetrics{N: 2, Accuracy: 0.5, MacroF1: 2.0 / 3,
			Classes: []string{"b", "z", "a"}, Confusion: [][]int{{0, 0, 0}, {0, 0, 0}, {1, 0, 1}}}, ""},
		{"a truth outside the declared classes", targets.Categorical{}, in("a,b", "a,c", "a", "b"), nil, `t.csv:3: label "c" is not a class; the 2 classes are "a", "b"`},
		{"numeric truth for classes", targets.Categorical{}, in("a,b", "0.5,1.5"), nil, `t.csv:2: label "0.5": none of the truth's labels is a class predicted in p.csv (the truth's labels are numbers (a regression truth?))`},
		{"regression", targets.Gaussian{}, in("1,2,3", "1,2,4"), &targets.RegressionMetrics{N: 3, R2: 33.0 / 42, MAE: 1.0 / 3, RMSE: math.Sqrt(1.0 / 3)}, ""},
		{"regression with classes", targets.Gaussian{}, in("1,2", "1,2", "a"), nil, "classes declared, but p.csv holds numbers"},
		{"constant truth", targets.Gaussian{}, in("1,2", "3,3"), nil, "R² is undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.kind.Evaluate(tc.in)
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
		})
	}
}
