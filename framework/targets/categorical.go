package targets

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// Categorical is the kind "categorical": a target over named classes,
// q(c_d) = Cat(λ_d) (framework.Categorical). Classes are declared or the
// answers' distinct labels in corpus.SortLabels order; its columns are
// label (the most probable class) and p:<class> for each class.
type Categorical struct{}

// Name is "categorical".
func (Categorical) Name() string { return "categorical" }

// HasClasses is true.
func (Categorical) HasClasses() bool { return true }

// Classes are the distinct labels in corpus.SortLabels order.
func (Categorical) Classes(labels []string) []string { return corpus.SortLabels(labels) }

// Parser is corpus.ClassParser.
func (Categorical) Parser(classes []string) (framework.LabelParser, error) {
	return corpus.ClassParser(classes)
}

// Columns are label, p:<class>….
func (Categorical) Columns(classes []string) []string {
	cols := []string{"label"}
	for _, cl := range classes {
		cols = append(cols, "p:"+cl)
	}
	return cols
}

// AppendCells appends the most probable class and each class's
// probability; t must be a *framework.Categorical.
func (Categorical) AppendCells(row []string, t framework.Target, classes []string) ([]string, error) {
	c, ok := t.(*framework.Categorical)
	if !ok {
		return nil, fmt.Errorf("%w: a target of type %T is not categorical", framework.ErrIncompatible, t)
	}
	row = append(row, className(classes, c.Argmax()))
	for _, x := range c.P {
		row = append(row, FormatFloat(x))
	}
	return row, nil
}

func className(classes []string, i int) string {
	if i >= 0 && i < len(classes) {
		return classes[i]
	}
	return strconv.Itoa(i)
}

// Matches label followed only by p:<class> and theta:k columns.
func (Categorical) Matches(cols []string) bool {
	if len(cols) == 0 || cols[0] != "label" {
		return false
	}
	i := 1
	for i < len(cols) && strings.HasPrefix(cols[i], "p:") {
		i++
	}
	return onlyTheta(cols[i:])
}

// TruthMetric is truth_accuracy.
func (Categorical) TruthMetric() string { return "truth_accuracy" }

// ScoreTruth is the share of documents with a true class whose most
// probable class it is.
func (Categorical) ScoreTruth(tr *framework.Truth, target func(d int) framework.Target) float64 {
	right, n := 0, 0
	for i, c := range tr.Class {
		tg, ok := target(i).(*framework.Categorical)
		if !tr.Has[i] || c < 0 || !ok {
			continue
		}
		n++
		if tg.Argmax() == int(c) {
			right++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(right) / float64(n)
}

// Evaluate refuses a truth none of whose labels is a predicted class
// (CheckClassTruth), then scores (ClassMetrics). With declared classes,
// the confusion matrix follows their order and a label outside them is an
// error naming its file and line.
func (Categorical) Evaluate(in *framework.EvalInput) (framework.Metrics, error) {
	if err := CheckClassTruth(in.PredFile, in.Pred, in.Truth, in.Lines, in.TruthFile); err != nil {
		return nil, err
	}
	if in.Classes != nil {
		parse, err := corpus.ClassParser(in.Classes)
		if err != nil {
			return nil, err
		}
		for i := range in.Truth {
			if _, _, err := parse(in.Truth[i], in.TruthFile, in.Lines[i]); err != nil {
				return nil, err
			}
			if _, _, err := parse(in.Pred[i], in.PredFile, 0); err != nil {
				return nil, err
			}
		}
	}
	m := ClassMetricsOver(in.Pred, in.Truth, in.Classes)
	return &m, nil
}

// CheckClassTruth refuses a classification file scored against a truth
// none of whose labels is a predicted class (numeric truth, or another
// task's labels): its accuracy would be 0 by construction.
func CheckClassTruth(predPath string, pred, truth []string, lines []int, truthName string) error {
	classes := map[string]bool{}
	for _, p := range pred {
		classes[p] = true
	}
	for _, t := range truth {
		if classes[t] {
			return nil
		}
	}
	kind := "labels"
	if LooksNumeric(truth) {
		kind = "numbers (a regression truth?)"
	}
	return framework.Errorf(truthName, lines[0], "label %q: none of the truth's labels is a class predicted in %s (the truth's labels are %s): a classification file cannot be scored against this truth", truth[0], predPath, kind)
}

// LooksNumeric reports whether every label is a finite number and the
// labels look like measurements rather than class codes: some has a
// fraction, or there are more than 20 distinct values.
func LooksNumeric(labels []string) bool {
	distinct := map[string]bool{}
	fraction := false
	for _, l := range labels {
		v, ok := corpus.ParseNumber(strings.TrimSpace(l))
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
		fraction = fraction || v != math.Trunc(v)
		distinct[l] = true
	}
	return len(labels) > 0 && (fraction || len(distinct) > 20)
}

// ClassMetrics are the classification scores `eval --json` prints.
type ClassMetrics struct {
	N         int      `json:"n"`
	Accuracy  float64  `json:"accuracy"`
	MacroF1   float64  `json:"macro_f1"`
	Classes   []string `json:"classes"`
	Confusion [][]int  `json:"confusion"` // rows: truth, columns: predicted
}

// ClassMetricsOf scores predicted against true labels over the classes
// that occur in either, in corpus.SortLabels order.
func ClassMetricsOf(pred, truth []string) ClassMetrics { return ClassMetricsOver(pred, truth, nil) }

// ClassMetricsOver scores predicted against true labels; classes (nil:
// those that occur, in corpus.SortLabels order) must hold every label.
// Macro-F1 averages over the classes that are the truth of some document.
func ClassMetricsOver(pred, truth, classes []string) ClassMetrics {
	if classes == nil {
		set := map[string]bool{}
		for i := range pred {
			set[pred[i]], set[truth[i]] = true, true
		}
		for c := range set {
			classes = append(classes, c)
		}
		classes = corpus.SortLabels(classes)
	}
	idx := map[string]int{}
	for i, c := range classes {
		idx[c] = i
	}
	m := ClassMetrics{N: len(pred), Classes: classes, Confusion: make([][]int, len(classes))}
	for i := range m.Confusion {
		m.Confusion[i] = make([]int, len(classes))
	}
	right := 0
	for i := range pred {
		m.Confusion[idx[truth[i]]][idx[pred[i]]]++
		if pred[i] == truth[i] {
			right++
		}
	}
	m.Accuracy = float64(right) / float64(len(pred))
	f1, n := 0.0, 0
	for c := range classes {
		tp, fp, fn := m.Confusion[c][c], 0, 0
		for o := range classes {
			if o != c {
				fp += m.Confusion[o][c]
				fn += m.Confusion[c][o]
			}
		}
		if tp+fn == 0 { // not a true class of any evaluated document
			continue
		}
		n++
		if tp > 0 {
			f1 += 2 * float64(tp) / float64(2*tp+fp+fn)
		}
	}
	m.MacroF1 = f1 / float64(max(n, 1))
	return m
}

// WriteText writes n, accuracy, macro-F1 and the confusion matrix (rows:
// truth, columns: predicted).
func (m *ClassMetrics) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "n          %d\naccuracy   %.4f\nmacro-F1   %.4f\n\nconfusion (rows: truth, columns: predicted)\n", m.N, m.Accuracy, m.MacroF1)
	wd := 6
	for _, c := range m.Classes {
		wd = max(wd, len(c)+1)
	}
	fmt.Fprintf(&b, "%*s", wd, "")
	for _, c := range m.Classes {
		fmt.Fprintf(&b, "%*s", wd, c)
	}
	fmt.Fprintln(&b)
	for i, c := range m.Classes {
		fmt.Fprintf(&b, "%*s", wd, c)
		for _, x := range m.Confusion[i] {
			fmt.Fprintf(&b, "%*d", wd, x)
		}
		fmt.Fprintln(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
