package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

func runEval(_ context.Context, e *env, args []string) error {
	fs, level := e.flags("eval", "--pred FILE (--truth FILE | --truth-column FILE) [--json]")
	predPath := fs.String("pred", "", "predictions or posterior CSV (task,label,...) from predict or train (required)")
	truthPath := fs.String("truth", "", "ground truth CSV task,label")
	truthCol := fs.String("truth-column", "", "ground truth, one label per line; task = line number from 0")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := e.parse(fs, level, args); err != nil {
		return err
	}
	if err := need(map[string]string{"pred": *predPath}); err != nil {
		return err
	}
	pred, regression, err := readPredLabels(*predPath)
	if err != nil {
		return err
	}
	tt, err := readTruthTable(*truthPath, *truthCol)
	if err != nil {
		return err
	}
	if tt == nil {
		return fmt.Errorf("%w: missing --truth or --truth-column", errUsage)
	}
	var predL, truthL []string
	var lines []int
	for _, r := range tt.Rows {
		if p, ok := pred[r.Task]; ok {
			predL = append(predL, p)
			truthL = append(truthL, r.Label)
			lines = append(lines, r.Line)
		}
	}
	if len(predL) == 0 {
		return fmt.Errorf("%w: no task of %s is in the truth file", framework.ErrBadInput, *predPath)
	}
	if !regression {
		if err := checkClassTruth(*predPath, predL, truthL, lines, tt.Name); err != nil {
			return err
		}
	}
	if regression {
		m, err := regressionMetrics(predL, truthL, *predPath)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(m)
		}
		fmt.Fprintf(e.stdout, "n     %d\nR²    %.4f\nMAE   %.4f\nRMSE  %.4f\n", m.N, m.R2, m.MAE, m.RMSE)
		return nil
	}
	m := classMetrics(predL, truthL)
	if *asJSON {
		return json.NewEncoder(e.stdout).Encode(m)
	}
	fmt.Fprintf(e.stdout, "n          %d\naccuracy   %.4f\nmacro-F1   %.4f\n\nconfusion (rows: truth, columns: predicted)\n", m.N, m.Accuracy, m.MacroF1)
	w := 6
	for _, c := range m.Classes {
		w = max(w, len(c)+1)
	}
	fmt.Fprintf(e.stdout, "%*s", w, "")
	for _, c := range m.Classes {
		fmt.Fprintf(e.stdout, "%*s", w, c)
	}
	fmt.Fprintln(e.stdout)
	for i, c := range m.Classes {
		fmt.Fprintf(e.stdout, "%*s", w, c)
		for _, x := range m.Confusion[i] {
			fmt.Fprintf(e.stdout, "%*d", w, x)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

// readPredLabels reads task → label from a predictions/posterior CSV; a
// `var` column marks a regression file.
func readPredLabels(path string) (map[string]string, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	r := csv.NewReader(corpus.SkipBOM(f))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, false, framework.Errorf(path, 1, "empty file, want a header starting task,label")
		}
		return nil, false, framework.Errorf(path, 1, "%v", err)
	}
	if len(header) < 2 || header[0] != "task" || header[1] != "label" {
		return nil, false, framework.Errorf(path, 1, "header %q, want it to start with task,label (a file from maslda predict or train's posterior.csv)", strings.Join(header, ","))
	}
	regression := len(header) > 2 && header[2] == "var"
	out := map[string]string{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, false, framework.Errorf(path, line, "%v", err)
		}
		if _, dup := out[rec[0]]; dup {
			return nil, false, framework.Errorf(path, line, "task %q appears twice", rec[0])
		}
		out[rec[0]] = rec[1]
	}
	return out, regression, nil
}

// checkClassTruth refuses a classification file scored against a truth
// none of whose labels is a predicted class (numeric truth, or another
// task's labels): its accuracy would be 0 by construction.
func checkClassTruth(predPath string, pred, truth []string, lines []int, truthName string) error {
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
	if looksNumeric(truth) {
		kind = "numbers (a regression truth?)"
	}
	return framework.Errorf(truthName, lines[0], "label %q: none of the truth's labels is a class predicted in %s (the truth's labels are %s): a classification file cannot be scored against this truth", truth[0], predPath, kind)
}

// looksNumeric reports whether every label is a finite number and the
// labels look like measurements rather than class codes: some has a
// fraction, or there are more than 20 distinct values.
func looksNumeric(labels []string) bool {
	distinct := map[string]bool{}
	fraction := false
	for _, l := range labels {
		v, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
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

func classMetrics(pred, truth []string) ClassMetrics {
	set := map[string]bool{}
	for i := range pred {
		set[pred[i]], set[truth[i]] = true, true
	}
	var classes []string
	for c := range set {
		classes = append(classes, c)
	}
	classes = corpus.SortLabels(classes)
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

// RegressionMetrics are the regression scores `eval --json` prints.
type RegressionMetrics struct {
	N    int     `json:"n"`
	R2   float64 `json:"r2"`
	MAE  float64 `json:"mae"`
	RMSE float64 `json:"rmse"`
}

func regressionMetrics(pred, truth []string, name string) (RegressionMetrics, error) {
	p, t := make([]float64, len(pred)), make([]float64, len(truth))
	for i := range pred {
		var err error
		if p[i], err = strconv.ParseFloat(pred[i], 64); err != nil || math.IsNaN(p[i]) || math.IsInf(p[i], 0) {
			return RegressionMetrics{}, fmt.Errorf("%w: %s: prediction %q is not a finite number", framework.ErrBadInput, name, pred[i])
		}
		if t[i], err = strconv.ParseFloat(truth[i], 64); err != nil || math.IsNaN(t[i]) || math.IsInf(t[i], 0) {
			return RegressionMetrics{}, fmt.Errorf("%w: truth label %q is not a finite number", framework.ErrBadInput, truth[i])
		}
	}
	m := RegressionMetrics{N: len(p), R2: r2(p, t)}
	if math.IsNaN(m.R2) {
		return m, fmt.Errorf("%w: R² is undefined: the %d true values are all equal", framework.ErrBadInput, len(t))
	}
	for i := range p {
		d := p[i] - t[i]
		m.MAE += math.Abs(d)
		m.RMSE += d * d
	}
	m.MAE /= float64(len(p))
	m.RMSE = math.Sqrt(m.RMSE / float64(len(p)))
	return m, nil
}
