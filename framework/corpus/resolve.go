package corpus

import (
	"fmt"

	"github.com/maslda/maslda/framework"
)

// ClassParser is the label parser of a target over classes: a label must
// be one of classes (its index, and Value float64(index)); invalid classes
// (an empty name, a duplicate) are an error. It is the parser Categorical
// uses.
func ClassParser(classes []string) (framework.LabelParser, error) {
	ci, err := classIndex(classes)
	if err != nil {
		return nil, err
	}
	return func(label, file string, line int) (int32, float64, error) {
		c, ok := ci[label]
		if !ok {
			return 0, 0, framework.Errorf(file, line, "label %q is not a class; the %d classes are %s", label, len(classes), QuoteList(classes))
		}
		return int32(c), float64(c), nil
	}, nil
}

// NumberParser is the label parser of a numeric target: a finite number
// (strconv.ParseFloat syntax) of magnitude at most MaxValue, class −1. It
// is the parser Numeric uses.
func NumberParser(label, file string, line int) (int32, float64, error) {
	v, err := numericLabel(file, line, label)
	return -1, v, err
}

// Resolve resolves the answers as kind says: its classes (classes, or
// when nil and the kind has classes, kind.Classes of the distinct labels)
// and its parser. Documents and workers as in Categorical, which it
// equals for the categorical kind (and Numeric for the gaussian one).
func (t *AnswerTable) Resolve(docIDs []string, kind framework.TargetKind, classes []string) (*framework.Answers, error) {
	if classes != nil && !kind.HasClasses() {
		return nil, fmt.Errorf("%w: %s: classes given for answers of kind %q, which has none", framework.ErrBadInput, displayName(t.Name), kind.Name())
	}
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, err
	}
	if kind.HasClasses() && classes == nil {
		labels := make([]string, len(t.Rows))
		for i := range t.Rows {
			labels[i] = t.Rows[i].Label
		}
		classes = kind.Classes(labels)
	}
	parse, err := kind.Parser(classes)
	if err != nil {
		return nil, err
	}
	a := &framework.Answers{ByDoc: make([][]framework.Answer, len(docIDs))}
	if kind.HasClasses() {
		a.Classes = append([]string{}, classes...)
	}
	workers := map[string]int32{}
	for i := range t.Rows {
		row := &t.Rows[i]
		d, err := idx.find(row.Task, row.Line)
		if err != nil {
			return nil, err
		}
		c, v, err := parse(row.Label, t.Name, row.Line)
		if err != nil {
			return nil, err
		}
		a.ByDoc[d] = append(a.ByDoc[d], framework.Answer{Annotator: workerIndex(a, workers, row.Worker), Class: c, Value: v})
	}
	return a, nil
}

// Resolve reads the true value of each document as kind says, over the
// classes of the answers (nil for a kind without classes); a document
// without a row has none (Has false, Class −1). Tasks resolve as in
// AnswerTable.Categorical.
func (t *TruthTable) Resolve(docIDs []string, kind framework.TargetKind, classes []string) (*framework.Truth, error) {
	if kind.HasClasses() && classes == nil {
		return nil, fmt.Errorf("%w: %s: %s truth needs the list of classes", framework.ErrBadInput, displayName(t.Name), kind.Name())
	}
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, err
	}
	parse, err := kind.Parser(classes)
	if err != nil {
		return nil, err
	}
	tr := &framework.Truth{Has: make([]bool, len(docIDs)), Class: make([]int32, len(docIDs)), Value: make([]float64, len(docIDs))}
	if kind.HasClasses() {
		tr.Classes = append([]string{}, classes...)
	}
	for i := range tr.Class {
		tr.Class[i] = -1
	}
	for i := range t.Rows {
		row := &t.Rows[i]
		d, err := idx.find(row.Task, row.Line)
		if err != nil {
			return nil, err
		}
		c, v, err := parse(row.Label, t.Name, row.Line)
		if err != nil {
			return nil, err
		}
		tr.Has[d], tr.Class[d], tr.Value[d] = true, c, v
	}
	return tr, nil
}
