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

// Ordinal is the kind "ordinal": ordered levels (ratings, 1–5 stars) over
// a framework.Categorical target, declared by the ordinal response
// (likelihoods/ordinal). The levels are the declared classes in their
// order, else the answers' distinct labels in corpus.SortLabels order
// (numerically when every label is a number, lowest first). Its columns
// are label (the most probable level), median (the posterior median, the
// level that minimises the expected absolute error) and p:<level> for
// each level; its metrics add to the categorical ones the mean absolute
// error and the RMSE in levels, of the label and of the median.
type Ordinal struct{}

// Name is "ordinal".
func (Ordinal) Name() string { return "ordinal" }

// HasClasses is true: the levels are classes.
func (Ordinal) HasClasses() bool { return true }

// Classes are the distinct labels in corpus.SortLabels order (numbers
// numerically).
func (Ordinal) Classes(labels []string) []string { return corpus.SortLabels(labels) }

// Parser is corpus.ClassParser.
func (Ordinal) Parser(classes []string) (framework.LabelParser, error) {
	return corpus.ClassParser(classes)
}

// Columns are label, median, p:<level>….
func (Ordinal) Columns(classes []string) []string {
	cols := []string{"label", "median"}
	for _, cl := range classes {
		cols = append(cols, "p:"+cl)
	}
	return cols
}

// Median is the posterior median level of probabilities p over ordered
// levels: the lowest level whose cumulative probability reaches 1/2.
func Median(p []float64) int {
	total := 0.0
	for _, x := range p {
		total += x
	}
	cum := 0.0
	for c, x := range p {
		cum += x
		if cum >= total/2 {
			return c
		}
	}
	return len(p) - 1
}

// AppendCells appends the most probable level, the median level and each
// level's probability; t must be a *framework.Categorical.
func (Ordinal) AppendCells(row []string, t framework.Target, classes []string) ([]string, error) {
	c, ok := t.(*framework.Categorical)
	if !ok {
		return nil, fmt.Errorf("%w: a target of type %T is not over ordered levels (a categorical target)", framework.ErrIncompatible, t)
	}
	row = append(row, className(classes, c.Argmax()), className(classes, Median(c.P)))
	for _, x := range c.P {
		row = append(row, FormatFloat(x))
	}
	return row, nil
}

// Matches label, median followed only by p:<level> and theta:k columns.
func (Ordinal) Matches(cols []string) bool {
	if len(cols) < 2 || cols[0] != "label" || cols[1] != "median" {
		return false
	}
	i := 2
	for i < len(cols) && strings.HasPrefix(cols[i], "p:") {
		i++
	}
	return onlyTheta(cols[i:])
}

// TruthMetric is truth_accuracy, as for categorical targets.
func (Ordinal) TruthMetric() string { return "truth_accuracy" }

// ScoreTruth is the share of documents with a true level whose most
// probable level it is.
func (Ordinal) ScoreTruth(tr *framework.Truth, target func(d int) framework.Target) float64 {
	return Categorical{}.ScoreTruth(tr, target)
}

// OrdinalMetrics are the scores of ordered levels `eval --json` prints:
// the categorical ones of the label (the most probable level), its mean
// absolute error and RMSE in levels (|level index − true index|), and the
// accuracy and mean absolute error of the posterior median.
type OrdinalMetrics struct {
	ClassMetrics
	MAE            float64 `json:"mae"`
	RMSE           float64 `json:"rmse"`
	MedianAccuracy float64 `json:"median_accuracy"`
	MedianMAE      float64 `json:"median_mae"`
	// Median tells where the median came from: "median" (the column),
	// "p" (computed from the p:<level> columns) or "label" (no
	// probabilities: the label).
	Median string `json:"median_from"`
}

// WriteText writes n, accuracy, macro-F1, the errors in levels and the
// confusion matrix (rows: truth, columns: predicted).
func (m *OrdinalMetrics) WriteText(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "n          %d\naccuracy   %.4f\nmacro-F1   %.4f\nMAE        %.4f  (levels, of the label)\nRMSE       %.4f\nmedian     accuracy %.4f, MAE %.4f  (the posterior median, from %s)\n\n",
		m.N, m.Accuracy, m.MacroF1, m.MAE, m.RMSE, m.MedianAccuracy, m.MedianMAE, m.Median); err != nil {
		return err
	}
	cm := m.ClassMetrics
	var b strings.Builder
	if err := cm.WriteText(&b); err != nil {
		return err
	}
	text := b.String()
	_, err := io.WriteString(w, text[strings.Index(text, "confusion"):])
	return err
}

// Evaluate scores predicted levels against true ones. The levels are the
// declared classes (eval --classes), else the file's p:<level> columns in
// their order, else the labels that occur in corpus.SortLabels order. A
// true label that is not a level is an error naming its file and line. The
// median is the file's median column, else computed from its p:<level>
// columns (so a softmax posterior is scored as levels too), else the
// label. A file without p:<level> columns (a numeric target's, label,var)
// may predict numbers when the levels are numbers: each is read as the
// nearest level.
func (Ordinal) Evaluate(in *framework.EvalInput) (framework.Metrics, error) {
	var pcols []int
	medianCol := -1
	for j, c := range in.Columns {
		switch {
		case strings.HasPrefix(c, "p:"):
			pcols = append(pcols, j)
		case c == "median":
			medianCol = j
		}
	}
	if len(pcols) > 0 && len(in.Rows) != len(in.Pred) {
		return nil, fmt.Errorf("%w: %s: %d rows of cells for %d predictions", framework.ErrBadInput, in.PredFile, len(in.Rows), len(in.Pred))
	}
	levels := in.Classes
	if levels == nil && len(pcols) > 0 {
		for _, j := range pcols {
			levels = append(levels, in.Columns[j][2:])
		}
	}
	if levels == nil {
		levels = corpus.SortLabels(append(append([]string(nil), in.Pred...), in.Truth...))
	}
	parse, err := corpus.ClassParser(levels)
	if err != nil {
		return nil, err
	}
	// Numeric predictions of a file without probabilities: the nearest
	// level, when the levels are numbers.
	var values []float64
	if len(pcols) == 0 {
		for _, l := range levels {
			v, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				values = nil
				break
			}
			values = append(values, v)
		}
	}
	n := len(in.Pred)
	label := make([]string, n)
	m := OrdinalMetrics{Median: "label"}
	switch {
	case medianCol >= 0:
		m.Median = "median"
	case len(pcols) > 0:
		m.Median = "p"
	}
	right := 0
	p := make([]float64, len(pcols))
	for i := range in.Pred {
		tc, _, err := parse(in.Truth[i], in.TruthFile, in.Lines[i])
		if err != nil {
			return nil, err
		}
		pc, err := levelOf(parse, in.Pred[i], values, in.PredFile)
		if err != nil {
			return nil, err
		}
		label[i] = levels[pc]
		mc := pc
		switch {
		case medianCol >= 0:
			if mc, err = levelOf(parse, in.Rows[i][medianCol], nil, in.PredFile); err != nil {
				return nil, err
			}
		case len(pcols) > 0:
			if len(pcols) != len(levels) {
				return nil, fmt.Errorf("%w: %s has %d p:<level> columns but there are %d levels", framework.ErrBadInput, in.PredFile, len(pcols), len(levels))
			}
			for k, j := range pcols {
				if p[k], err = strconv.ParseFloat(in.Rows[i][j], 64); err != nil || !(p[k] >= 0) {
					return nil, fmt.Errorf("%w: %s: %s = %q, want a probability", framework.ErrBadInput, in.PredFile, in.Columns[j], in.Rows[i][j])
				}
			}
			mc = Median(p)
		}
		d := math.Abs(float64(pc) - float64(tc))
		m.MAE += d
		m.RMSE += d * d
		m.MedianMAE += math.Abs(float64(mc) - float64(tc))
		if mc == int(tc) {
			right++
		}
	}
	m.ClassMetrics = ClassMetricsOver(label, in.Truth, levels)
	m.MAE /= float64(n)
	m.RMSE = math.Sqrt(m.RMSE / float64(n))
	m.MedianMAE /= float64(n)
	m.MedianAccuracy = float64(right) / float64(n)
	return &m, nil
}

// levelOf is the index of a predicted level; with values (the levels'
// numbers), a number that is not a level is read as the nearest one.
func levelOf(parse framework.LabelParser, label string, values []float64, file string) (int, error) {
	c, _, err := parse(label, file, 0)
	if err == nil {
		return int(c), nil
	}
	if values == nil {
		return 0, err
	}
	v, perr := strconv.ParseFloat(strings.TrimSpace(label), 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, err
	}
	best := 0
	for k, x := range values {
		if math.Abs(x-v) < math.Abs(values[best]-v) {
			best = k
		}
	}
	return best, nil
}
