package plots

import (
	"fmt"
	"math"
	"strconv"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// EmpiricalAnnotator is what one annotator actually did on the answered
// tasks that have a truth: the "true" noise model against which the
// model's estimate (annotators.json) is compared.
type EmpiricalAnnotator struct {
	Name      string
	Line      int // line of the annotator's first answer in the answers file
	Answers   int // answers in the file
	WithTruth int // of those, answers on tasks with a truth: the ones counted below

	// Confusion (EmpiricalConfusions), in Empirical.Classes order.
	Counts     [][]int     // row = true class, column = answer
	RowAnswers []int       // answers per true class (row sums of Counts)
	Confusion  [][]float64 // Counts with each row divided by its sum; a row without answers is all NaN

	// Bias and precision (EmpiricalBiasPrecisions), over the WithTruth
	// residuals e = answer − truth.
	Bias float64 // mean of e; NaN when WithTruth = 0
	// Precision is WithTruth / Σ(e − Bias)²: 1 over the variance with n in
	// the denominator (the maximum-likelihood variance), the definition of
	// the model's M-step (annotators/biasprecision: p_r = n / Σ(y − m − b)²
	// without its prior and with the truth for m). NaN when WithTruth < 2 or
	// when every residual is the same up to rounding (zero variance, an
	// infinite precision).
	Precision float64
}

// Empirical is the empirical noise model of every annotator of an answers
// file, computed against a ground truth.
type Empirical struct {
	Kind        string   // KindConfusion or KindBiasPrecision
	AnswersName string   // the answers file, for messages
	TruthName   string   // the truth file, for messages
	Classes     []string // confusion: the class order of the matrices
	List        []EmpiricalAnnotator
	// NoTruth counts the answers skipped because their task has no truth.
	// Answers on tasks without a truth are left out (a partial truth is
	// allowed, as for maslda train --truth); when no answer at all has a
	// truth the constructors fail.
	NoTruth int
}

// Find returns the annotator called name, or nil (also for a nil e).
func (e *Empirical) Find(name string) *EmpiricalAnnotator {
	if e == nil {
		return nil
	}
	for i := range e.List {
		if e.List[i].Name == name {
			return &e.List[i]
		}
	}
	return nil
}

// truthIndex maps each task of the truth to its row.
func truthIndex(truth *corpus.TruthTable) map[string]*corpus.TruthRow {
	m := make(map[string]*corpus.TruthRow, len(truth.Rows))
	for i := range truth.Rows {
		m[truth.Rows[i].Task] = &truth.Rows[i]
	}
	return m
}

// collect goes over the answers in file order, creating the annotators in
// order of first answer, and calls add for every answer (t is nil when
// the task has no truth). It fails when no answer has a truth.
func collect(answers *corpus.AnswerTable, truth *corpus.TruthTable, e *Empirical, add func(a *EmpiricalAnnotator, r *corpus.RawAnswer, t *corpus.TruthRow) error) error {
	if answers == nil || truth == nil {
		return fmt.Errorf("%w: the empirical noise model needs both the answers and the truth", framework.ErrBadInput)
	}
	tv := truthIndex(truth)
	index := map[string]int{}
	for i := range answers.Rows {
		r := &answers.Rows[i]
		k, ok := index[r.Worker]
		if !ok {
			k = len(e.List)
			index[r.Worker] = k
			e.List = append(e.List, EmpiricalAnnotator{Name: r.Worker, Line: r.Line})
		}
		a := &e.List[k]
		a.Answers++
		t := tv[r.Task]
		if t == nil {
			e.NoTruth++
		} else {
			a.WithTruth++
		}
		if err := add(a, r, t); err != nil {
			return err
		}
	}
	if len(answers.Rows) == 0 {
		return framework.Errorf(answers.Name, 0, "no answers")
	}
	if e.NoTruth == len(answers.Rows) {
		ex := ""
		if len(truth.Rows) > 0 {
			ex = fmt.Sprintf(" (answers' tasks look like %q, the truth's like %q)", answers.Rows[0].Task, truth.Rows[0].Task)
		}
		return fmt.Errorf("%w: no task of %s has a truth in %s%s", framework.ErrBadInput, answers.Name, truth.Name, ex)
	}
	return nil
}

// EmpiricalConfusions computes each annotator's empirical confusion matrix:
// row = true class, column = answered class, both mapped to classes by
// name (classes is the model's class order, model.json's "classes"), rows
// normalised, a row without answers all NaN. Every answer's label must be
// one of classes (an error names the answers file and line), and so must
// the truth of every answered task (an error names the truth file and
// line); answers on tasks without a truth are counted in NoTruth.
func EmpiricalConfusions(answers *corpus.AnswerTable, truth *corpus.TruthTable, classes []string) (*Empirical, error) {
	if len(classes) == 0 {
		return nil, fmt.Errorf("%w: empirical confusion matrices need the class names", framework.ErrBadInput)
	}
	ci := make(map[string]int, len(classes))
	for c, s := range classes {
		if e, dup := ci[s]; dup {
			return nil, fmt.Errorf("%w: classes %d and %d have the same name %q", framework.ErrBadInput, e+1, c+1, s)
		}
		ci[s] = c
	}
	C := len(classes)
	e := &Empirical{Kind: KindConfusion, Classes: append([]string(nil), classes...)}
	if answers != nil && truth != nil {
		e.AnswersName, e.TruthName = answers.Name, truth.Name
	}
	err := collect(answers, truth, e, func(a *EmpiricalAnnotator, r *corpus.RawAnswer, t *corpus.TruthRow) error {
		if a.Counts == nil {
			a.Counts = make([][]int, C)
			for i := range a.Counts {
				a.Counts[i] = make([]int, C)
			}
			a.RowAnswers = make([]int, C)
		}
		l, ok := ci[r.Label]
		if !ok {
			return framework.Errorf(answers.Name, r.Line, "label %q of annotator %q is not a class of the model; the %d classes are %s", r.Label, r.Worker, C, quoteList(classes))
		}
		if t == nil {
			return nil
		}
		c, ok := ci[t.Label]
		if !ok {
			return framework.Errorf(truth.Name, t.Line, "true label %q of task %q is not a class of the model; the %d classes are %s", t.Label, t.Task, C, quoteList(classes))
		}
		a.Counts[c][l]++
		a.RowAnswers[c]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range e.List {
		a := &e.List[i]
		a.Confusion = make([][]float64, C)
		for c, row := range a.Counts {
			a.Confusion[c] = make([]float64, C)
			for l, n := range row {
				if a.RowAnswers[c] == 0 {
					a.Confusion[c][l] = math.NaN()
				} else {
					a.Confusion[c][l] = float64(n) / float64(a.RowAnswers[c])
				}
			}
		}
	}
	return e, nil
}

// EmpiricalBiasPrecisions computes each annotator's empirical bias and
// precision (see EmpiricalAnnotator) from the residuals answer − truth
// over its answers on tasks with a truth. Every answer must be a finite
// number (an error names the answers file and line), and so must the
// truth of every answered task (an error names the truth file and line);
// answers on tasks without a truth are counted in NoTruth.
func EmpiricalBiasPrecisions(answers *corpus.AnswerTable, truth *corpus.TruthTable) (*Empirical, error) {
	e := &Empirical{Kind: KindBiasPrecision}
	if answers != nil && truth != nil {
		e.AnswersName, e.TruthName = answers.Name, truth.Name
	}
	res := map[string][]float64{}
	err := collect(answers, truth, e, func(a *EmpiricalAnnotator, r *corpus.RawAnswer, t *corpus.TruthRow) error {
		y, err := strconv.ParseFloat(r.Label, 64)
		if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
			return framework.Errorf(answers.Name, r.Line, "answer %q of annotator %q is not a finite number (bias-precision annotators answer numbers)", r.Label, r.Worker)
		}
		if t == nil {
			return nil
		}
		x, err := strconv.ParseFloat(t.Label, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return framework.Errorf(truth.Name, t.Line, "true value %q of task %q is not a finite number", t.Label, t.Task)
		}
		res[a.Name] = append(res[a.Name], y-x)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range e.List {
		a := &e.List[i]
		a.Bias, a.Precision = biasPrecision(res[a.Name])
	}
	return e, nil
}

// biasPrecision is the mean of e and n / Σ(e − mean)² (NaN: see
// EmpiricalAnnotator.Precision).
func biasPrecision(e []float64) (bias, prec float64) {
	n := float64(len(e))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range e {
		bias += x
	}
	bias /= n
	if n < 2 {
		return bias, math.NaN()
	}
	ss, sq := 0.0, 0.0
	for _, x := range e {
		ss += (x - bias) * (x - bias)
		sq += x * x
	}
	// Answers on a grid (ratings in steps of 0.1) that are all off by the
	// same amount leave a variance of rounding errors (1e-33): zero.
	if ss <= 1e-12*sq {
		return bias, math.NaN()
	}
	return bias, n / ss
}

// Match checks that e describes the annotators of est: the same kind, the
// same number of classes, every annotator of est has answers in the file
// (and as many as annotators.json says, when it says), and every
// annotator of the file is in est. A mismatch means the answers are not
// those the model was trained on.
func (e *Empirical) Match(est *Annotators) error {
	if e.Kind != est.Kind {
		return fmt.Errorf("%w: %s describes %s annotators but the empirical truth from %s is for %s annotators", framework.ErrBadInput, est.Name, est.Kind, e.AnswersName, e.Kind)
	}
	if e.Kind == KindConfusion && len(e.Classes) != est.C() {
		return fmt.Errorf("%w: %s has %d×%d matrices but the empirical truth from %s has %d classes (%s)", framework.ErrBadInput, est.Name, est.C(), est.C(), e.AnswersName, len(e.Classes), quoteList(e.Classes))
	}
	for _, a := range est.List {
		ea := e.Find(a.Name)
		if ea == nil {
			return fmt.Errorf("%w: annotator %q of %s (line %d) has no answer in %s: not the answers the model was trained on? (its annotators are %s)",
				framework.ErrBadInput, a.Name, est.Name, a.Line, e.AnswersName, someNames(e.names(), 5))
		}
		if a.Answers > 0 && ea.Answers != a.Answers {
			return fmt.Errorf("%w: annotator %q has %d answers in %s but %d in %s (line %d): not the answers the model was trained on?",
				framework.ErrBadInput, a.Name, ea.Answers, e.AnswersName, a.Answers, est.Name, a.Line)
		}
	}
	for _, ea := range e.List {
		if _, err := est.Find(ea.Name); err != nil {
			return framework.Errorf(e.AnswersName, ea.Line, "annotator %q is not in %s: not the answers the model was trained on?", ea.Name, est.Name)
		}
	}
	return nil
}

func (e *Empirical) names() []string {
	n := make([]string, len(e.List))
	for i := range e.List {
		n[i] = e.List[i].Name
	}
	return n
}

// someNames quotes the first k names, and says how many there are in all
// when there are more.
func someNames(s []string, k int) string {
	if len(s) <= k {
		return quoteList(s)
	}
	return fmt.Sprintf("%s, … (%d in all)", quoteList(s[:k]), len(s))
}
