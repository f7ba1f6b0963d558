package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/targets"
	"github.com/spf13/pflag"
)

func defineEval(fs *pflag.FlagSet) runFunc {
	predPath := fs.String("pred", "", "predictions or posterior CSV (task,label,...) from predict or train (required)")
	truthPath := fs.String("truth", "", "ground truth CSV task,label")
	truthCol := fs.String("truth-column", "", "ground truth, one label per line; task = line number from 0")
	kindName := fs.String("kind", "", "the kind of target of --pred: "+strings.Join(framework.Default.Names(framework.KindTarget), ", ")+" (default: the one whose columns the file has; numeric for a task,label file of numbers with a fraction or more than 20 distinct values)")
	classesPath := fs.String("classes", "", "the classes, one per line, in order: the confusion matrix follows it, and a label outside it is an error (default: the labels that occur, sorted)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	return func(_ context.Context, e *env, args []string) error {
		if err := need(map[string]string{"pred": *predPath}); err != nil {
			return err
		}
		pred, cols, err := readPredLabels(*predPath)
		if err != nil {
			return err
		}
		kind, err := evalKind(*kindName, cols, *predPath)
		if err != nil {
			return err
		}
		if *kindName == "" && len(cols) == 1 && kind.HasClasses() && numericLabels(pred) {
			// task,label of measurements: a regression's predictions, which
			// a classification would score as one class per number.
			if g, err := framework.Default.TargetKind("gaussian"); err == nil {
				e.log.Info("the predictions are numbers: scoring them as numeric (--kind "+kind.Name()+" scores them as classes)", "file", *predPath, "kind", g.Name())
				kind = g
			}
		}
		var classes []string
		if *classesPath != "" {
			if !kind.HasClasses() {
				return fmt.Errorf("%w: --classes applies to a kind of target with classes; %s is of kind %q", errUsage, *predPath, kind.Name())
			}
			if classes, err = readClasses(*classesPath); err != nil {
				return err
			}
			if len(classes) == 0 {
				return framework.Errorf(*classesPath, 0, "no classes (one per line)")
			}
		}
		tt, err := readTruthTable(*truthPath, *truthCol)
		if err != nil {
			return err
		}
		if tt == nil {
			return fmt.Errorf("%w: missing --truth or --truth-column", errUsage)
		}
		if kind.HasClasses() {
			if mixed := mixedKinds(tt.Name, len(tt.Rows), func(i int) (string, int) { return tt.Rows[i].Label, tt.Rows[i].Line }); mixed != "" {
				if classes == nil {
					return fmt.Errorf("%w: %s; a typo or two files joined? Declare the classes with --classes to score these labels as they are", framework.ErrBadInput, mixed)
				}
				e.log.Warn(mixed + " (scored as classes, as --classes declares)")
			}
		}
		in := &framework.EvalInput{PredFile: *predPath, TruthFile: tt.Name, Classes: classes, Columns: cols}
		for _, r := range tt.Rows {
			if row, ok := pred[r.Task]; ok {
				in.Pred = append(in.Pred, row[0])
				in.Rows = append(in.Rows, row)
				in.Truth = append(in.Truth, r.Label)
				in.Lines = append(in.Lines, r.Line)
			}
		}
		if len(in.Pred) == 0 {
			return fmt.Errorf("%w: no task of %s is in the truth file", framework.ErrBadInput, *predPath)
		}
		m, err := kind.Evaluate(in)
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(m)
		}
		return m.WriteText(e.stdout)
	}
}

// evalKind is the kind of target named by --kind, or else the one
// registered kind whose columns (Matches) the predictions file has.
func evalKind(name string, cols []string, predPath string) (framework.TargetKind, error) {
	if name != "" {
		k, err := framework.Default.TargetKind(name)
		if err != nil {
			return nil, fmt.Errorf("%w: --kind: %v", errUsage, err)
		}
		return k, nil
	}
	all := framework.Default.Names(framework.KindTarget)
	var match []framework.TargetKind
	var names []string
	for _, n := range all {
		k, err := framework.Default.TargetKind(n)
		if err != nil {
			return nil, err
		}
		if k.Matches(cols) {
			match = append(match, k)
			names = append(names, n)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return nil, framework.Errorf(predPath, 1, "columns %q after task are those of no kind of target (kinds: %s); say which with --kind", strings.Join(cols, ","), strings.Join(all, ", "))
	}
	return nil, framework.Errorf(predPath, 1, "columns %q after task fit several kinds of target (%s); say which with --kind", strings.Join(cols, ","), strings.Join(names, ", "))
}

// numericLabels reports whether the predicted labels look like
// measurements (targets.LooksNumeric).
func numericLabels(pred map[string][]string) bool {
	labels := make([]string, 0, len(pred))
	for _, row := range pred {
		labels = append(labels, row[0])
	}
	return targets.LooksNumeric(labels)
}

// readPredLabels reads task → the cells after task (the label first) from
// a predictions/posterior CSV and returns its columns after task.
func readPredLabels(path string) (map[string][]string, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(corpus.SkipBOM(f))
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, framework.Errorf(path, 1, "empty file, want a header starting task,label")
		}
		return nil, nil, framework.Errorf(path, 1, "%v", err)
	}
	if len(header) < 2 || header[0] != "task" || header[1] != "label" {
		return nil, nil, framework.Errorf(path, 1, "header %q, want it to start with task,label (a file from maslda predict or train's posterior.csv)", strings.Join(header, ","))
	}
	cols := append([]string(nil), header[1:]...)
	out := map[string][]string{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, nil, framework.Errorf(path, line, "%v", err)
		}
		if _, dup := out[rec[0]]; dup {
			return nil, nil, framework.Errorf(path, line, "task %q appears twice", rec[0])
		}
		out[rec[0]] = append([]string(nil), rec[1:]...)
	}
	return out, cols, nil
}

// looksNumeric is targets.LooksNumeric.
func looksNumeric(labels []string) bool { return targets.LooksNumeric(labels) }

// ClassMetrics are the classification scores `eval --json` prints (moved to
// framework/targets, the categorical kind's).
type ClassMetrics = targets.ClassMetrics

func classMetrics(pred, truth []string) ClassMetrics { return targets.ClassMetricsOf(pred, truth) }

// RegressionMetrics are the regression scores `eval --json` prints (moved
// to framework/targets, the gaussian kind's).
type RegressionMetrics = targets.RegressionMetrics

func regressionMetrics(pred, truth []string, name string) (RegressionMetrics, error) {
	return targets.RegressionMetricsOf(pred, truth, name)
}
