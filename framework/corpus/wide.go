package corpus

import (
	"io"
	"math"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// ReadWideAnswers reads an answer matrix: one line per document, one
// whitespace-separated column per annotator, as in the data releases of
// Rodrigues et al. (MA-sLDA). Row i (0-based) is document i, so the tasks
// are "0", "1", ...; column j is annotator "a<j>" ("a0", "a1", ...). A
// token equal to missing, as a string or (when both are numbers) as a
// number, so that "999999999.0" matches "999999999", is no answer and is
// skipped (surrounding whitespace of missing is ignored); an empty missing
// skips nothing. Every row must have the same
// number of columns. A label is kept as written, but a NaN or infinite
// number is an error. A blank line is an error except at the end of the
// file. The table's Wide shape records the matrix's rows and columns, and
// its resolvers map row i to document i whatever the document ids are.
func ReadWideAnswers(r io.Reader, name string, missing string) (*AnswerTable, error) {
	return ReadWideAnswersOpts(r, name, missing, ReadOptions{})
}

// ReadWideAnswersOpts is ReadWideAnswers with cancellation and progress
// (o.Context, o.Progress; o.Duplicates does not apply: a matrix has one
// cell per worker and task). Workers' names and labels are stored once
// each.
func ReadWideAnswersOpts(r io.Reader, name string, missing string, o ReadOptions) (*AnswerTable, error) {
	t := &AnswerTable{Name: name, Wide: &WideShape{}}
	var rows rowChunks
	var workerNames []string // a0, a1, …, one string per column
	labels := newInterner()
	ck := newChunker(r, name, o)
	missing = trim(missing)
	mv, mnum := parseNumber(missing)
	mnan := mnum && math.IsNaN(mv)
	colsLine := 0
	err := readLines(ck, name, "expected one whitespace-separated answer per annotator (with a missing-value sentinel for no answer)", func(line int, text string) error {
		if err := ck.row(); err != nil {
			return err
		}
		if err := checkUTF8(name, line, "row", text); err != nil {
			return err
		}
		tok := fields(text)
		if colsLine == 0 {
			t.Wide.Cols, colsLine = len(tok), line
		} else if len(tok) != t.Wide.Cols {
			return framework.Errorf(name, line, "row has %d columns but line %d has %d (one column per annotator)", len(tok), colsLine, t.Wide.Cols)
		}
		task := strconv.Itoa(t.Wide.Rows)
		t.Wide.Rows++
		for j, s := range tok {
			if missing != "" && s == missing {
				continue
			}
			v, num := parseNumber(s)
			if num && mnum && (v == mv || mnan && math.IsNaN(v)) {
				continue
			}
			if num && !finite(v) {
				return framework.Errorf(name, line, "column %d: label %q is not a finite number", j+1, s)
			}
			for len(workerNames) <= j {
				workerNames = append(workerNames, "a"+strconv.Itoa(len(workerNames)))
			}
			_, label := labels.id(s)
			rows.add(RawAnswer{Task: task, Worker: workerNames[j], Label: label, Line: line})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t.Rows = rows.all()
	ck.done()
	return t, nil
}
