package plots

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"gonum.org/v1/plot"
)

func answersCSV(t *testing.T, s string) *corpus.AnswerTable {
	t.Helper()
	a, err := corpus.ReadAnswers(strings.NewReader(s), "answers.csv")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func truthCSV(t *testing.T, s string) *corpus.TruthTable {
	t.Helper()
	tt, err := corpus.ReadTruth(strings.NewReader(s), "truth.csv")
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// The classification fixture: labels first appear as pos, neg, neutral;
// nobody answers a task whose truth is neutral; t5 has no truth.
//
//	w1: t1 pos→pos, t2 neg→neg, t3 neg→pos, t4 pos→neutral, t5 (no truth)
//	w2: t1 pos→pos, t2 neg→neg
const (
	classAnswers = "task,worker,label\nt1,w1,pos\nt2,w1,neg\nt3,w1,pos\nt4,w1,neutral\nt5,w1,pos\nt1,w2,pos\nt2,w2,neg\n"
	classTruth   = "task,label\nt1,pos\nt2,neg\nt3,neg\nt4,pos\n"
)

var nan = math.NaN()

func TestEmpiricalConfusions(t *testing.T) {
	ans, tt := answersCSV(t, classAnswers), truthCSV(t, classTruth)
	tests := []struct {
		name    string
		classes []string
		want    []EmpiricalAnnotator
	}{
		{
			name:    "model order neg, neutral, pos",
			classes: []string{"neg", "neutral", "pos"},
			want: []EmpiricalAnnotator{
				{Name: "w1", Line: 2, Answers: 5, WithTruth: 4,
					// true neg: t2 → neg, t3 → pos; true pos: t1 → pos, t4 → neutral
					Counts:     [][]int{{1, 0, 1}, {0, 0, 0}, {0, 1, 1}},
					RowAnswers: []int{2, 0, 2},
					Confusion:  [][]float64{{0.5, 0, 0.5}, {nan, nan, nan}, {0, 0.5, 0.5}}},
				{Name: "w2", Line: 7, Answers: 2, WithTruth: 2,
					Counts:     [][]int{{1, 0, 0}, {0, 0, 0}, {0, 0, 1}},
					RowAnswers: []int{1, 0, 1},
					Confusion:  [][]float64{{1, 0, 0}, {nan, nan, nan}, {0, 0, 1}}},
			},
		},
		{
			// the same answers, rows and columns in another order: by name,
			// not by first appearance (which is pos, neg, neutral)
			name:    "model order pos, neutral, neg",
			classes: []string{"pos", "neutral", "neg"},
			want: []EmpiricalAnnotator{
				{Name: "w1", Line: 2, Answers: 5, WithTruth: 4,
					Counts:     [][]int{{1, 1, 0}, {0, 0, 0}, {1, 0, 1}},
					RowAnswers: []int{2, 0, 2},
					Confusion:  [][]float64{{0.5, 0.5, 0}, {nan, nan, nan}, {0.5, 0, 0.5}}},
				{Name: "w2", Line: 7, Answers: 2, WithTruth: 2,
					Counts:     [][]int{{1, 0, 0}, {0, 0, 0}, {0, 0, 1}},
					RowAnswers: []int{1, 0, 1},
					Confusion:  [][]float64{{1, 0, 0}, {nan, nan, nan}, {0, 0, 1}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EmpiricalConfusions(ans, tt, tc.classes)
			if err != nil {
				t.Fatal(err)
			}
			want := &Empirical{Kind: KindConfusion, AnswersName: "answers.csv", TruthName: "truth.csv", Classes: tc.classes, List: tc.want, NoTruth: 1}
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("EmpiricalConfusions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmpiricalBiasPrecisions(t *testing.T) {
	// Wide answers, as in the Rodrigues et al. releases: row = task,
	// column j = annotator aj, 999999999 = no answer; the truth is a
	// column of values, one per task, and has none for task 6.
	//
	//	a0: answers 1, 3, 2, 4 against truth 1, 2, 3, 2: e = 0, 1, −1, 2,
	//	    bias 0.5, Σ(e − 0.5)² = 0.25 + 0.25 + 2.25 + 2.25 = 5, precision 4/5
	//	a1: one answer, 2.5 against 2: bias 0.5, precision undefined
	//	a2: 0.6 and 0.4 against 0.5 and 0.3: always 0.1 too high (up to
	//	    rounding): bias 0.1, precision undefined (zero variance)
	wide := "1 M M\n3 M M\n2 M M\n4 2.5 M\nM M 0.6\nM M 0.4\n7 M M\n"
	ans, err := corpus.ReadWideAnswers(strings.NewReader(strings.ReplaceAll(wide, "M", "999999999")), "answers.txt", "999999999")
	if err != nil {
		t.Fatal(err)
	}
	col, err := corpus.ReadColumn(strings.NewReader("1\n2\n3\n2\n0.5\n0.3\n"), "labels.txt")
	if err != nil {
		t.Fatal(err)
	}
	tt := corpus.TruthFromColumn(col)
	tt.Name = "labels.txt"
	got, err := EmpiricalBiasPrecisions(ans, tt)
	if err != nil {
		t.Fatal(err)
	}
	want := &Empirical{Kind: KindBiasPrecision, AnswersName: "answers.txt", TruthName: "labels.txt", NoTruth: 1, List: []EmpiricalAnnotator{
		{Name: "a0", Line: 1, Answers: 5, WithTruth: 4, Bias: 0.5, Precision: 0.8},
		{Name: "a1", Line: 4, Answers: 1, WithTruth: 1, Bias: 0.5, Precision: nan},
		{Name: "a2", Line: 5, Answers: 2, WithTruth: 2, Bias: 0.1, Precision: nan},
	}}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("EmpiricalBiasPrecisions (-want +got):\n%s", diff)
	}
}

func TestBiasPrecisionDefinition(t *testing.T) {
	tests := []struct {
		e          []float64
		bias, prec float64
	}{
		{[]float64{1, 3}, 2, 1},              // Σ(e − 2)² = 2, n = 2: 2/2 (n in the denominator, not n − 1)
		{[]float64{0, 0, 0, 4}, 1, 4.0 / 12}, // Σ(e − 1)² = 1 + 1 + 1 + 9 = 12
		{[]float64{-0.2}, -0.2, nan},         // one answer
		{[]float64{0, 0, 0}, 0, nan},         // always right: infinite precision
		{nil, nan, nan},
	}
	for _, tc := range tests {
		b, p := biasPrecision(tc.e)
		if diff := cmp.Diff([]float64{tc.bias, tc.prec}, []float64{b, p}, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
			t.Errorf("biasPrecision(%v) (-want +got):\n%s", tc.e, diff)
		}
	}
}

func TestEmpiricalErrors(t *testing.T) {
	classes := []string{"neg", "neutral", "pos"}
	conf := func(answers, truth string) error {
		_, err := EmpiricalConfusions(answersCSV(t, answers), truthCSV(t, truth), classes)
		return err
	}
	bp := func(answers, truth string) error {
		_, err := EmpiricalBiasPrecisions(answersCSV(t, answers), truthCSV(t, truth))
		return err
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"unknown answer label", conf("task,worker,label\nt1,w1,pos\nt2,w1,great\n", classTruth), `answers.csv:3: label "great" of annotator "w1" is not a class of the model; the 3 classes are "neg", "neutral", "pos"`},
		{"unknown answer label on a task without truth", conf("task,worker,label\nt9,w1,great\n", classTruth), `answers.csv:2: label "great"`},
		{"unknown true label", conf(classAnswers, "task,label\nt1,pos\nt2,meh\n"), `truth.csv:3: true label "meh" of task "t2" is not a class of the model`},
		{"no task with a truth", conf(classAnswers, "task,label\nx1,pos\n"), `no task of answers.csv has a truth in truth.csv (answers' tasks look like "t1", the truth's like "x1")`},
		{"no classes", func() error {
			_, err := EmpiricalConfusions(answersCSV(t, classAnswers), truthCSV(t, classTruth), nil)
			return err
		}(), "need the class names"},
		{"duplicate class", func() error {
			_, err := EmpiricalConfusions(answersCSV(t, classAnswers), truthCSV(t, classTruth), []string{"pos", "neg", "pos"})
			return err
		}(), `classes 1 and 3 have the same name "pos"`},
		{"answers without truth", func() error { _, err := EmpiricalConfusions(answersCSV(t, classAnswers), nil, classes); return err }(), "needs both the answers and the truth"},
		{"truth without answers", func() error { _, err := EmpiricalBiasPrecisions(nil, truthCSV(t, classTruth)); return err }(), "needs both the answers and the truth"},
		{"answer not a number", bp("task,worker,label\n0,w1,1\n1,w1,high\n", "task,label\n0,1\n"), `answers.csv:3: answer "high" of annotator "w1" is not a finite number`},
		{"answer infinite", bp("task,worker,label\n0,w1,Inf\n", "task,label\n0,1\n"), `answers.csv:2: answer "Inf"`},
		{"truth not a number", bp("task,worker,label\n0,w1,1\n1,w1,2\n", "task,label\n0,1\n1,n/a\n"), `truth.csv:3: true value "n/a" of task "1" is not a finite number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || !errors.Is(tc.err, framework.ErrBadInput) {
				t.Errorf("error %v; want ErrBadInput containing %q", tc.err, tc.want)
			}
		})
	}
}

// confusionFor is annotators.json of confusion annotators named names with
// identity matrices over C classes and the given answer counts.
func confusionFor(t *testing.T, C int, names []string, answers []int) *Annotators {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i, n := range names {
		rows := make([]string, C)
		for c := range rows {
			cells := make([]string, C)
			for l := range cells {
				cells[l] = "0"
				if l == c {
					cells[l] = "1"
				}
			}
			rows[c] = "[" + strings.Join(cells, ", ") + "]"
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  {\"name\": %q, \"answers\": %d, \"accuracy\": 1, \"confusion\": [%s]}%s\n", n, answers[i], strings.Join(rows, ", "), sep)
	}
	b.WriteString("]")
	return readAnn(t, b.String())
}

func TestEmpiricalMatch(t *testing.T) {
	classes := []string{"neg", "neutral", "pos"}
	emp, err := EmpiricalConfusions(answersCSV(t, classAnswers), truthCSV(t, classTruth), classes)
	if err != nil {
		t.Fatal(err)
	}
	if err := emp.Match(confusionFor(t, 3, []string{"w2", "w1"}, []int{2, 5})); err != nil {
		t.Errorf("the model of these answers: %v", err)
	}
	if err := emp.Match(confusionFor(t, 3, []string{"w2", "w1"}, []int{0, 0})); err != nil {
		t.Errorf("annotators.json without answer counts: %v", err)
	}
	tests := []struct {
		name string
		est  *Annotators
		want string
	}{
		{"annotator of the model without answers", confusionFor(t, 3, []string{"w1", "w2", "a7"}, []int{5, 2, 3}),
			`annotator "a7" of annotators.json (line 4) has no answer in answers.csv: not the answers the model was trained on? (its annotators are "w1", "w2")`},
		{"annotator of the answers not in the model", confusionFor(t, 3, []string{"w1"}, []int{5}), `answers.csv:7: annotator "w2" is not in annotators.json`},
		{"answer counts differ", confusionFor(t, 3, []string{"w1", "w2"}, []int{6, 2}), `annotator "w1" has 5 answers in answers.csv but 6 in annotators.json (line 2)`},
		{"classes differ", confusionFor(t, 2, []string{"w1", "w2"}, []int{5, 2}), "annotators.json has 2×2 matrices but the empirical truth from answers.csv has 3 classes"},
		{"kinds differ", readAnn(t, biasJSON), "annotators.json describes bias-precision annotators but the empirical truth from answers.csv is for confusion annotators"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := emp.Match(tc.est)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("Match: %v; want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
}

func TestConfusionFigureEmpirical(t *testing.T) {
	classes := []string{"neg", "neutral", "pos"}
	emp, err := EmpiricalConfusions(answersCSV(t, classAnswers), truthCSV(t, classTruth), classes)
	if err != nil {
		t.Fatal(err)
	}
	est := confusionFor(t, 3, []string{"w1", "w2"}, []int{5, 2})
	f, err := ConfusionFigure(est, ConfusionOptions{Empirical: emp})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range f.Panels[0] {
		titles = append(titles, p.Title.Text)
	}
	if diff := cmp.Diff([]string{"w1: empirical (4 answers)", "w1: estimated (5 answers)", "w2: empirical (2 answers)", "w2: estimated (2 answers)"}, titles); diff != "" {
		t.Errorf("panel titles (-want +got):\n%s", diff)
	}
	// Row labels with the answers per true class, top to bottom, on every
	// empirical panel (also in the third column); none on the estimates
	// beside them.
	for _, c := range []int{0, 2} {
		var rows []string
		for _, tk := range f.Panels[0][c].Y.Tick.Marker.Ticks(-0.5, 2.5) {
			rows = append(rows, tk.Label)
		}
		if diff := cmp.Diff(map[int][]string{0: {"pos (2)", "neutral (0)", "neg (2)"}, 2: {"pos (1)", "neutral (0)", "neg (1)"}}[c], rows); diff != "" {
			t.Errorf("row labels of panel %d (-want +got):\n%s", c, diff)
		}
	}
	if ticks := f.Panels[0][1].Y.Tick.Marker.Ticks(-0.5, 2.5); len(ticks) != 0 {
		t.Errorf("the estimated panel has y ticks %v", ticks)
	}
	if !strings.Contains(f.Caption, "Empirical: the answers of answers.csv against the truth of truth.csv") || !strings.Contains(f.Caption, "1 answers on tasks without a truth are not counted") {
		t.Errorf("caption %q", f.Caption)
	}
	f.Width, f.Height = f.Width/2, f.Height/2
	checkImages(t, f)

	for _, tc := range []struct {
		name string
		opt  ConfusionOptions
		want string
	}{
		{"two truths", ConfusionOptions{Empirical: emp, Truth: [][][]float64{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, TruthName: "true.json"}, "two truths: the true matrices of true.json and the empirical ones of answers.csv"},
		{"other class names", ConfusionOptions{Empirical: emp, Classes: []string{"pos", "neutral", "neg"}}, "the class names (pos, neutral, neg) differ from those of the empirical matrices (neg, neutral, pos)"},
	} {
		if _, err := ConfusionFigure(est, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v; want ErrBadInput containing %q", tc.name, err, tc.want)
		}
	}
	// An annotator whose answers all lack a truth has no empirical panel.
	emp2, err := EmpiricalConfusions(answersCSV(t, classAnswers+"t9,w3,neg\n"), truthCSV(t, classTruth), classes)
	if err != nil {
		t.Fatal(err)
	}
	est3 := confusionFor(t, 3, []string{"w1", "w2", "w3"}, []int{5, 2, 1})
	if _, err := ConfusionFigure(est3, ConfusionOptions{Empirical: emp2, Select: []string{"w3"}}); err == nil || !strings.Contains(err.Error(), `annotator "w3" has no answer in answers.csv on a task with a truth in truth.csv`) {
		t.Errorf("selected annotator without a truth: %v", err)
	}
	f, err = ConfusionFigure(est3, ConfusionOptions{Empirical: emp2})
	if err != nil {
		t.Fatal(err)
	}
	var drawn []string
	for _, r := range f.Panels {
		for _, p := range r {
			drawn = append(drawn, p.Title.Text)
		}
	}
	if diff := cmp.Diff(titles, drawn); diff != "" {
		t.Errorf("default selection: w1 and w2 only, w3 has no answer with a truth (-want +got):\n%s", diff)
	}
}

// bpFixture is n bias-precision annotators e0, e1, ... with their
// empirical truth: annotator i has 5 + i answers with a truth, empirical
// bias i/10 and precision 1 + i, estimated bias i/10 + 0.02 and precision
// 1.1(1 + i).
func bpFixture(t *testing.T, n int) (*Annotators, *Empirical) {
	t.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	emp := &Empirical{Kind: KindBiasPrecision, AnswersName: "/data/answers.txt", TruthName: "/data/labels.txt"}
	for i := range n {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  {\"annotator\": \"e%d\", \"answers\": %d, \"bias\": %g, \"precision\": %g}%s\n", i, 5+i, float64(i)/10+0.02, 1.1*float64(1+i), sep)
		emp.List = append(emp.List, EmpiricalAnnotator{Name: fmt.Sprintf("e%d", i), Answers: 5 + i, WithTruth: 5 + i, Bias: float64(i) / 10, Precision: float64(1 + i)})
	}
	b.WriteString("]")
	return readAnn(t, b.String()), emp
}

func TestBiasPrecisionFigureEmpirical(t *testing.T) {
	isLog := func(p *plot.Plot) bool { _, ok := p.Y.Scale.(plot.LogScale); return ok }
	tests := []struct {
		name       string
		n          int
		opt        BiasPrecisionOptions
		wantTitles []string
		wantXLabel string // of the bias panel
		caption    []string
	}{
		{
			name:       "few annotators: bars",
			n:          4,
			opt:        BiasPrecisionOptions{MinAnswers: 6},
			wantTitles: []string{"bias (answer − truth, mean)", "precision (1 / noise variance; log scale)"},
			wantXLabel: "annotator",
			caption:    []string{"Empirical: the answers of answers.txt against the truth of labels.txt (21 answers on tasks with a truth).", "1 of the 4 annotators have fewer than 6 answers with a truth and are left out."},
		},
		{
			// 20 annotators, 2 with fewer than 7 answers: 18 drawn, more
			// than ScatterAbove. The points lie on a line: r = 1. Mean
			// bias: Σ(5 + i)(i/10) / Σ(5 + i) over i = 2..19
			// = (5·189 + 2469)/10 / 279 = 1.2237, estimated 0.02 more.
			name:       "many annotators: scatter",
			n:          20,
			opt:        BiasPrecisionOptions{MinAnswers: 7},
			wantTitles: []string{"bias: 18 annotators, r = 1.000", "precision (log scales): 18 annotators, r = 1.000 (of the logs)"},
			wantXLabel: "empirical bias (mean of answer − truth)",
			caption:    []string{"One point per annotator; the line is y = x.", "2 of the 20 annotators have fewer than 7 answers with a truth and are left out.", "(279 answers on tasks with a truth)", "Mean bias weighted by answers: empirical 1.22, estimated 1.24"},
		},
		{
			name:       "scatter asked for",
			n:          3,
			opt:        BiasPrecisionOptions{Style: StyleScatter},
			wantTitles: []string{"bias: 3 annotators, r = 1.000", "precision (log scales): 3 annotators, r = 1.000 (of the logs)"},
			wantXLabel: "empirical bias (mean of answer − truth)",
		},
		{
			name:       "bars asked for",
			n:          20,
			opt:        BiasPrecisionOptions{Style: StyleBars},
			wantTitles: []string{"bias (answer − truth, mean)", "precision (1 / noise variance; log scale)"},
			wantXLabel: "annotator",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			est, emp := bpFixture(t, tc.n)
			tc.opt.Empirical = emp
			f, err := BiasPrecisionFigure(est, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, p := range f.Panels[0] {
				titles = append(titles, p.Title.Text)
			}
			if diff := cmp.Diff(tc.wantTitles, titles); diff != "" {
				t.Errorf("panel titles (-want +got):\n%s", diff)
			}
			pb, pp := f.Panels[0][0], f.Panels[0][1]
			if pb.X.Label.Text != tc.wantXLabel || isLog(pb) || !isLog(pp) {
				t.Errorf("bias x label %q (want %q), log y: bias %v, precision %v", pb.X.Label.Text, tc.wantXLabel, isLog(pb), isLog(pp))
			}
			if tc.wantXLabel != "annotator" {
				// equal axes, so that y = x is the diagonal
				for _, p := range []*plot.Plot{pb, pp} {
					if p.X.Min != p.Y.Min || p.X.Max != p.Y.Max {
						t.Errorf("%s: x [%v, %v], y [%v, %v]", p.Title.Text, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
					}
				}
				if _, ok := pp.X.Scale.(plot.LogScale); !ok {
					t.Error("the precision scatter's x axis is not logarithmic")
				}
			}
			for _, c := range tc.caption {
				if !strings.Contains(f.Caption, c) {
					t.Errorf("caption %q\nwant it to contain %q", f.Caption, c)
				}
			}
			f.Width, f.Height = min(f.Width, 7*72), min(f.Height, 4*72)
			checkImages(t, f)
		})
	}
}

func TestBiasPrecisionFigureEmpiricalErrors(t *testing.T) {
	est, emp := bpFixture(t, 3)
	undefined := *emp
	undefined.List = append([]EmpiricalAnnotator(nil), emp.List...)
	undefined.List[1].Precision = nan
	tests := []struct {
		name string
		opt  BiasPrecisionOptions
		want string
	}{
		{"two truths", BiasPrecisionOptions{Empirical: emp, TrueBias: []float64{0}, TruePrecision: []float64{1}}, "two truths"},
		{"everyone left out", BiasPrecisionOptions{Empirical: emp, MinAnswers: 50}, "none of the 3 annotators has 50 or more answers in /data/answers.txt on tasks with a truth in /data/labels.txt"},
		{"scatter without a truth", BiasPrecisionOptions{Style: StyleScatter}, "a scatter of estimated against true values needs a truth"},
		{"unknown style", BiasPrecisionOptions{Style: "pie"}, `style "pie"; valid: auto, bars, scatter`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BiasPrecisionFigure(est, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("error %v; want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
	// An undefined empirical precision leaves the annotator out of the
	// precision panel only, and the caption says so.
	f, err := BiasPrecisionFigure(est, BiasPrecisionOptions{Empirical: &undefined, Style: StyleScatter})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{f.Panels[0][0].Title.Text, f.Panels[0][1].Title.Text}; !cmp.Equal(got, []string{"bias: 3 annotators, r = 1.000", "precision (log scales): 2 annotators"}) {
		t.Errorf("titles %q", got)
	}
	if !strings.Contains(f.Caption, "1 without a finite empirical precision (under 2 answers, or the same error every time) are left out of the precision panel") {
		t.Errorf("caption %q", f.Caption)
	}
}

func TestPearson(t *testing.T) {
	tests := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{2, 4, 6}, 1},
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// x − 2 = −1, 0, 1; y − 1 = 0, 1, −1: Σxy = −1, Σx² = Σy² = 2
		{[]float64{1, 2, 3}, []float64{1, 2, 0}, -0.5},
		{[]float64{1, 2, 3}, []float64{5, 5, 5}, nan},
		{[]float64{1, 2}, []float64{1, 2}, nan},
	}
	for _, tc := range tests {
		if got := pearson(tc.x, tc.y); !cmp.Equal(tc.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-12)) {
			t.Errorf("pearson(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

// TestEmpiricalMovieReviews checks the definitions on the real crowd of
// the movie reviews (../shared/data beside the repository; skipped
// without it): its release ships, in reg_ann.txt, Rodrigues et al.'s
// "bias variance" of each of the 135 annotators against the truth, and
// EmpiricalBiasPrecisions must give the same bias and 1/precision (the
// variance with n in the denominator); an annotator whose variance there
// is 0 (one answer, or the same error every time) has no precision.
func TestEmpiricalMovieReviews(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "data", "rodrigues_moviereviews_amt")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data not found at %s: skipping", dir)
	}
	open := func(name string) *os.File {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	ans, err := corpus.ReadWideAnswers(open("answers.txt"), "answers.txt", "999999999")
	if err != nil {
		t.Fatal(err)
	}
	col, err := corpus.ReadColumn(open("labels_train_amt.txt"), "labels_train_amt.txt")
	if err != nil {
		t.Fatal(err)
	}
	emp, err := EmpiricalBiasPrecisions(ans, corpus.TruthFromColumn(col))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := corpus.ReadColumn(open("reg_ann.txt"), "reg_ann.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(emp.List) != len(ref) || emp.NoTruth != 0 {
		t.Fatalf("%d annotators (%d answers without a truth), reg_ann.txt has %d", len(emp.List), emp.NoTruth, len(ref))
	}
	checked := 0
	for j, line := range ref {
		var b, v float64
		if _, err := fmt.Sscan(line, &b, &v); err != nil {
			t.Fatalf("reg_ann.txt:%d: %v", j+1, err)
		}
		a := emp.Find("a" + strconv.Itoa(j))
		if a == nil {
			t.Fatalf("no annotator a%d", j)
		}
		if math.Abs(a.Bias-b) > 1e-9 {
			t.Errorf("a%d: bias %v, reg_ann.txt %v", j, a.Bias, b)
		}
		switch {
		case v < 1e-12:
			if !math.IsNaN(a.Precision) {
				t.Errorf("a%d: precision %v, but reg_ann.txt gives variance %v", j, a.Precision, v)
			}
		case math.Abs(1/a.Precision-v) > 1e-9*v:
			t.Errorf("a%d (%d answers): 1/precision %v, reg_ann.txt variance %v", j, a.WithTruth, 1/a.Precision, v)
		default:
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d annotators with a variance compared", checked)
	}
}
