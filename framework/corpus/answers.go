package corpus

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// RawAnswer is one answer as read, before it is resolved against the
// documents and the classes.
type RawAnswer struct {
	Task   string // the document id the answer is about
	Worker string // the annotator's name
	Label  string // the answer as written
	Line   int    // 1-based line of the answer in its file
}

// WideShape is the shape of a positional table, in which row i is
// document i: an answer matrix read by ReadWideAnswers or a column of
// labels made by TruthFromColumn.
type WideShape struct {
	Rows int // rows in the file, one per document
	Cols int // columns (annotators; 1 for a column of labels)
}

// AnswerTable holds crowd answers as read from a file.
type AnswerTable struct {
	Name string      // the file name, used in errors
	Rows []RawAnswer // in file order
	// Wide is set for positional tables (ReadWideAnswers): their tasks are
	// row indices and resolve to the document at that index whatever the
	// document ids are, and the number of rows must equal the number of
	// documents. Nil for CSV tables, whose tasks are document ids.
	Wide *WideShape
	// Repeats is the number of answers read that repeat an earlier answer
	// of the same worker for the same task (ReadAnswersWith), whether they
	// were kept or dropped.
	Repeats int
}

// TruthRow is one ground-truth label as read.
type TruthRow struct {
	Task  string // the document id
	Label string // the true label as written
	Line  int    // 1-based line in its file
}

// TruthTable holds ground-truth labels as read from a file.
type TruthTable struct {
	Name string     // the file name, used in errors
	Rows []TruthRow // in file order
	// Wide is set for positional tables (TruthFromColumn); see AnswerTable.
	Wide *WideShape
}

var (
	answerColumns = []string{"task", "worker", "label"}
	truthColumns  = []string{"task", "label"}
	// columnAliases are other releases' names for the same columns: the
	// Reuters AMT answers (question,worker,answer) and common synonyms.
	columnAliases = map[string]string{"question": "task", "item": "task", "annotator": "worker", "answer": "label"}
)

// canonical maps a header name to the column it stands for.
func canonical(h string) string {
	if c, ok := columnAliases[strings.ToLower(h)]; ok {
		return c
	}
	return h
}

// Duplicates is what ReadAnswersWith does with a repeated answer: a
// second (or later) answer of the same worker for the same task.
type Duplicates int

const (
	// DupKeep keeps every answer: each counts as evidence (what the usual
	// aggregators do with repeated judgments).
	DupKeep Duplicates = iota
	// DupFirst keeps the first answer of each worker for each task.
	DupFirst
	// DupLast keeps the last answer of each worker for each task, at the
	// position in the file of that last answer.
	DupLast
	// DupError refuses the file at the first repeat.
	DupError
)

var dupNames = []string{"keep", "first", "last", "error"}

func (d Duplicates) String() string {
	if d < 0 || int(d) >= len(dupNames) {
		return fmt.Sprintf("Duplicates(%d)", int(d))
	}
	return dupNames[d]
}

// ParseDuplicates parses keep, first, last or error.
func ParseDuplicates(s string) (Duplicates, error) {
	for i, n := range dupNames {
		if s == n {
			return Duplicates(i), nil
		}
	}
	return 0, fmt.Errorf("%w: duplicates %q; valid: %s", framework.ErrBadInput, s, strings.Join(dupNames, ", "))
}

// ReadAnswers reads crowd answers from CSV with a header naming the columns
// task, worker and label (the crowd-kit convention), in any order and in
// any letter case; question or item stand for task, annotator for worker
// and answer for label; other columns are ignored. Every record must have as
// many fields as the header. Fields have surrounding whitespace removed; an
// empty task, worker or label, one containing a line break, and a second
// answer of the same worker for the same task are errors (ReadAnswersWith
// chooses what to do with repeats).
func ReadAnswers(r io.Reader, name string) (*AnswerTable, error) {
	return ReadAnswersWith(r, name, DupError)
}

// ReadAnswersWith is ReadAnswers with a choice of what to do with repeated
// answers (a worker answering the same task again): keep them all, keep
// the first or the last, or refuse the file. The table's Repeats counts
// the repeats found, whatever was done with them.
func ReadAnswersWith(r io.Reader, name string, dup Duplicates) (*AnswerTable, error) {
	return ReadAnswersOpts(r, name, ReadOptions{Duplicates: dup})
}

// ChunkRows is how often (in rows) the readers of answers check
// ReadOptions.Context and call ReadOptions.Progress.
const ChunkRows = 1 << 16

// ReadOptions are what a caller adds to reading a large file of answers:
// what to do with repeats, cancellation and progress. The zero value
// keeps repeats, is never cancelled and reports nothing.
type ReadOptions struct {
	Duplicates Duplicates      // CSV only (a matrix has no repeats)
	Context    context.Context // nil: never cancelled; checked every ChunkRows rows
	// Progress, when set, is called every ChunkRows rows and once at the
	// end (Done), from the reading goroutine. Library code never prints:
	// the caller logs.
	Progress func(ReadProgress)
}

// ReadProgress is how far a reader is: rows read (records of a CSV,
// lines of a matrix) and bytes consumed from the input.
type ReadProgress struct {
	Rows  int
	Bytes int64
	Done  bool
}

// chunker counts the bytes read and, every ChunkRows rows, checks the
// context and reports progress.
type chunker struct {
	r     io.Reader
	n     int64
	rows  int
	name  string
	opt   ReadOptions
	check bool
}

func newChunker(r io.Reader, name string, o ReadOptions) *chunker {
	return &chunker{r: r, name: name, opt: o, check: o.Context != nil || o.Progress != nil}
}

func (c *chunker) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// row counts a row; every ChunkRows rows it reports and checks for
// cancellation (an error wrapping the context's error, naming the file
// and how far it got).
func (c *chunker) row() error {
	c.rows++
	if !c.check || c.rows%ChunkRows != 0 {
		return nil
	}
	if c.opt.Progress != nil {
		c.opt.Progress(ReadProgress{Rows: c.rows, Bytes: c.n})
	}
	if ctx := c.opt.Context; ctx != nil && ctx.Err() != nil {
		return fmt.Errorf("%s: reading stopped after %d rows: %w", displayName(c.name), c.rows, context.Cause(ctx))
	}
	return nil
}

func (c *chunker) done() {
	if c.opt.Progress != nil {
		c.opt.Progress(ReadProgress{Rows: c.rows, Bytes: c.n, Done: true})
	}
}

// interner keeps one copy of each distinct string (tasks, workers and
// labels repeat across rows), cloned so that it does not hold the line
// it was read from, and numbers the distinct strings.
type interner struct {
	ids   map[string]int32
	names []string
}

func newInterner() *interner { return &interner{ids: map[string]int32{}} }

func (in *interner) id(s string) (int32, string) {
	if k, ok := in.ids[s]; ok {
		return k, in.names[k]
	}
	s = strings.Clone(s)
	k := int32(len(in.names))
	in.ids[s] = k
	in.names = append(in.names, s)
	return k, s
}

// rowChunks collects rows in chunks (growing to ChunkRows rows) and
// then into one slice of the exact length: appending to one slice
// allocates about five times the final slice as it grows by 1.25, and
// the old arrays stay in the heap until collected; chunks allocate the
// rows twice and hold them twice only while all copies them out.
type rowChunks struct {
	chunks [][]RawAnswer
	cur    []RawAnswer
	n      int
}

func (c *rowChunks) add(r RawAnswer) {
	if len(c.cur) == cap(c.cur) {
		size := 256
		if c.cur != nil {
			c.chunks = append(c.chunks, c.cur)
			size = min(2*cap(c.cur), ChunkRows)
		}
		c.cur = make([]RawAnswer, 0, size)
	}
	c.cur = append(c.cur, r)
	c.n++
}

// all returns the rows in order (nil when there is none), releasing the
// chunks as they are copied.
func (c *rowChunks) all() []RawAnswer {
	if c.n == 0 {
		return nil
	}
	if len(c.chunks) == 0 {
		return c.cur
	}
	out := make([]RawAnswer, 0, c.n)
	for i, ch := range c.chunks {
		out = append(out, ch...)
		c.chunks[i] = nil
	}
	out = append(out, c.cur...)
	c.chunks, c.cur = nil, nil
	return out
}

// ReadAnswersOpts is ReadAnswersWith with options: o.Duplicates decides
// what becomes of repeats; o.Context stops the reading (between chunks
// of ChunkRows rows) with an error wrapping its error; o.Progress is told
// how far the reading is. Tasks, workers and labels are stored once each
// (rows share them), so that the table holds about the parsed data, not
// every line of the file.
func ReadAnswersOpts(r io.Reader, name string, o ReadOptions) (*AnswerTable, error) {
	dup := o.Duplicates
	if dup < DupKeep || dup > DupError {
		return nil, fmt.Errorf("%w: %v", framework.ErrBadInput, dup)
	}
	t := &AnswerTable{Name: name}
	tasks, workers, labels := newInterner(), newInterner(), newInterner()
	// A (task, worker) pair as one integer (their interned numbers).
	first := map[uint64]int{} // the line of the first answer (keep, error), or the row kept (first, last)
	var dropped []bool        // DupLast: rows replaced by a later answer
	var rows rowChunks
	ck := newChunker(r, name, o)
	err := readCSV(ck, name, answerColumns, func(line int, f []string) error {
		if err := ck.row(); err != nil {
			return err
		}
		ti, task := tasks.id(f[0])
		wi, worker := workers.id(f[1])
		_, label := labels.id(f[2])
		k := uint64(uint32(ti))<<32 | uint64(uint32(wi))
		if at, rep := first[k]; rep {
			t.Repeats++
			switch dup {
			case DupError:
				return framework.Errorf(name, line, "duplicate answer of worker %q for task %q (first on line %d)", f[1], f[0], at)
			case DupFirst:
				return nil
			case DupLast:
				dropped[at] = true
			}
		}
		switch dup {
		case DupKeep, DupError:
			if _, rep := first[k]; !rep {
				first[k] = line
			}
		case DupFirst, DupLast:
			first[k] = rows.n
			dropped = append(dropped, false)
		}
		rows.add(RawAnswer{Task: task, Worker: worker, Label: label, Line: line})
		return nil
	})
	if err != nil {
		return nil, err
	}
	first = nil
	t.Rows = rows.all()
	ck.done()
	if dup == DupLast && t.Repeats > 0 {
		kept := t.Rows[:0]
		for i, row := range t.Rows {
			if !dropped[i] {
				kept = append(kept, row)
			}
		}
		t.Rows = kept
	}
	return t, nil
}

// ReadTruth reads ground-truth labels from CSV with a header naming the
// columns task and label (any order and letter case, other columns
// ignored), with the rules of ReadAnswers; a task given twice is an error.
func ReadTruth(r io.Reader, name string) (*TruthTable, error) {
	t := &TruthTable{Name: name}
	first := map[string]int{}
	err := readCSV(r, name, truthColumns, func(line int, f []string) error {
		if l, dup := first[f[0]]; dup {
			return framework.Errorf(name, line, "duplicate truth for task %q (first on line %d)", f[0], l)
		}
		first[f[0]] = line
		t.Rows = append(t.Rows, TruthRow{Task: f[0], Label: f[1], Line: line})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// readCSV reads a CSV file whose header must name the columns want and
// calls fn with the 1-based line of each record and its wanted fields
// (trimmed, non-empty, without line breaks), in the order of want. The
// slice passed to fn is reused.
func readCSV(r io.Reader, name string, want []string, fn func(line int, f []string) error) error {
	cr := csv.NewReader(SkipBOM(r))
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = 0 // the header's count, then enforced
	header, err := cr.Read()
	if err == io.EOF {
		return framework.Errorf(name, 1, "empty file: expected a header line %s", strings.Join(want, ","))
	}
	if err != nil {
		return csvError(name, err, 0)
	}
	cols := make([]int, len(want))
	for k := range cols {
		cols[k] = -1
	}
	found := make([]string, len(header))
	for j, h := range header {
		found[j] = trim(h)
		for k, w := range want {
			if strings.EqualFold(canonical(found[j]), w) {
				if cols[k] >= 0 {
					return framework.Errorf(name, 1, "header names column %q twice (columns %d and %d)", w, cols[k]+1, j+1)
				}
				cols[k] = j
			}
		}
	}
	var missing []string
	for k, c := range cols {
		if c < 0 {
			missing = append(missing, want[k])
		}
	}
	if missing != nil {
		return framework.Errorf(name, 1, "header has columns %s; want %s (missing %s)", QuoteList(found), strings.Join(want, ","), strings.Join(missing, ", "))
	}
	nf := len(header)
	vals := make([]string, len(want))
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvError(name, err, nf)
		}
		line, _ := cr.FieldPos(0)
		for k, c := range cols {
			v := trim(rec[c])
			if v == "" {
				return framework.Errorf(name, line, "empty %s (column %d)", want[k], c+1)
			}
			if strings.ContainsAny(v, "\r\n") {
				return framework.Errorf(name, line, "%s %q contains a line break", want[k], v)
			}
			if err := checkUTF8(name, line, want[k], v); err != nil {
				return err
			}
			vals[k] = v
		}
		if err := fn(line, vals); err != nil {
			return err
		}
	}
}

// csvError turns an encoding/csv error into a *framework.LineError.
func csvError(name string, err error, nf int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", displayName(name), err)
	}
	where := ""
	if pe.StartLine != 0 && pe.StartLine != pe.Line {
		where = fmt.Sprintf(" (in the record that starts on line %d)", pe.StartLine)
	}
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return framework.Errorf(name, pe.Line, "wrong number of fields: the header has %d", nf)
	case errors.Is(pe.Err, csv.ErrQuote), errors.Is(pe.Err, csv.ErrBareQuote):
		return framework.Errorf(name, pe.Line, "broken CSV quoting at column %d%s: %v (a field with a quote must be quoted and its quotes doubled)", pe.Column, where, pe.Err)
	}
	return framework.Errorf(name, pe.Line, "bad CSV%s: %v", where, pe.Err)
}

// docIndex maps the tasks of a table to document indices.
type docIndex struct {
	name string
	ids  map[string]int // nil for positional tables
	n    int
}

func newDocIndex(name string, docIDs []string, wide *WideShape) (*docIndex, error) {
	x := &docIndex{name: name, n: len(docIDs)}
	if wide != nil {
		if wide.Rows != len(docIDs) {
			return nil, framework.Errorf(name, 0, "the file has %d rows but there are %d documents (row i is document i)", wide.Rows, len(docIDs))
		}
		return x, nil
	}
	x.ids = make(map[string]int, len(docIDs))
	for d, id := range docIDs {
		if e, dup := x.ids[id]; dup {
			return nil, fmt.Errorf("%w: documents %d and %d have the same id %q", framework.ErrBadInput, e, d, id)
		}
		x.ids[id] = d
	}
	return x, nil
}

func (x *docIndex) find(task string, line int) (int, error) {
	if x.ids == nil {
		d, ok, big := parseDigits(task, int64(x.n)-1)
		if ok && !big && x.n > 0 {
			return int(d), nil
		}
		return 0, framework.Errorf(x.name, line, "task %q is not a row index in 0..%d", task, x.n-1)
	}
	if d, ok := x.ids[task]; ok {
		return d, nil
	}
	if x.n == 0 {
		return 0, framework.Errorf(x.name, line, "task %q is not a document (there are no documents)", task)
	}
	return 0, framework.Errorf(x.name, line, "task %q is not a document (documents have ids 0..%d or those of the ids file)", task, x.n-1)
}

// classIndex checks a class list given by the caller and indexes it.
func classIndex(classes []string) (map[string]int, error) {
	m := make(map[string]int, len(classes))
	for c, s := range classes {
		if s == "" {
			return nil, fmt.Errorf("%w: class %d has an empty name", framework.ErrBadInput, c)
		}
		if e, dup := m[s]; dup {
			return nil, fmt.Errorf("%w: classes %d and %d have the same name %q", framework.ErrBadInput, e, c, s)
		}
		m[s] = c
	}
	return m, nil
}

// SortLabels returns the distinct labels sorted numerically when every one
// is a finite number (ties, such as "1" and "1.0", in string order) and in
// string order otherwise. It is the class order Categorical uses when no
// classes are given.
func SortLabels(labels []string) []string {
	seen := map[string]bool{}
	out := []string{}
	numeric := true
	val := map[string]float64{}
	for _, l := range labels {
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
		if v, ok := parseNumber(l); ok && finite(v) {
			val[l] = v
		} else {
			numeric = false
		}
	}
	if numeric {
		slices.SortFunc(out, func(a, b string) int {
			if va, vb := val[a], val[b]; va != vb {
				if va < vb {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
	} else {
		slices.Sort(out)
	}
	return out
}

// Categorical resolves the answers as classes. Each task must be one of
// docIDs (for a positional table, a row index); answers are grouped by
// document in file order, and ByDoc has one entry per document (nil for a
// document without answers). When classes is nil the classes are the
// distinct labels in SortLabels order; otherwise every label must be one of
// classes. Annotators are indexed in order of first appearance. Each Answer has
// Class the class index and Value float64(Class).
func (t *AnswerTable) Categorical(docIDs []string, classes []string) (*framework.Answers, error) {
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, err
	}
	if classes == nil {
		labels := make([]string, len(t.Rows))
		for i := range t.Rows {
			labels[i] = t.Rows[i].Label
		}
		classes = SortLabels(labels)
	}
	parse, err := ClassParser(classes)
	if err != nil {
		return nil, err
	}
	a := &framework.Answers{Classes: append([]string{}, classes...), ByDoc: make([][]framework.Answer, len(docIDs))}
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

// Numeric resolves the answers as numbers: every label must be a finite
// number (strconv.ParseFloat syntax; NaN and ±Inf are errors). Classes is
// nil and each Answer has Class −1. Documents and workers as in
// Categorical.
func (t *AnswerTable) Numeric(docIDs []string) (*framework.Answers, error) {
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, err
	}
	a := &framework.Answers{ByDoc: make([][]framework.Answer, len(docIDs))}
	workers := map[string]int32{}
	for i := range t.Rows {
		row := &t.Rows[i]
		d, err := idx.find(row.Task, row.Line)
		if err != nil {
			return nil, err
		}
		v, err := numericLabel(t.Name, row.Line, row.Label)
		if err != nil {
			return nil, err
		}
		a.ByDoc[d] = append(a.ByDoc[d], framework.Answer{Annotator: workerIndex(a, workers, row.Worker), Class: -1, Value: v})
	}
	return a, nil
}

// MaxValue bounds numeric answers and truth: larger magnitudes are
// refused when read (a value of 1e308 made the Gaussian response's solve
// fail far from the file).
const MaxValue = 1e12

func numericLabel(name string, line int, label string) (float64, error) {
	v, ok := parseNumber(label)
	if !ok {
		return 0, framework.Errorf(name, line, "label %q is not a number (a decimal number such as 1000, -0.5 or 1e3; no _ between digits, no hexadecimal)", label)
	}
	if !finite(v) {
		return 0, framework.Errorf(name, line, "label %q is not a finite number", label)
	}
	if math.Abs(v) > MaxValue {
		return 0, framework.Errorf(name, line, "label %q is beyond ±%g: sums of squares of such values overflow in the regression; rescale the values", label, MaxValue)
	}
	return v, nil
}

func workerIndex(a *framework.Answers, m map[string]int32, w string) int32 {
	k, ok := m[w]
	if !ok {
		k = int32(len(a.Annotators))
		m[w] = k
		a.Annotators = append(a.Annotators, w)
	}
	return k
}

// Categorical returns the class index of each document's true label, or −1
// for a document without one. Every label must be one of classes (usually
// the classes of the answers), which must be given. Tasks resolve as in
// AnswerTable.Categorical.
func (t *TruthTable) Categorical(docIDs []string, classes []string) ([]int, error) {
	if classes == nil {
		return nil, fmt.Errorf("%w: %s: categorical truth needs the list of classes", framework.ErrBadInput, displayName(t.Name))
	}
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, err
	}
	parse, err := ClassParser(classes)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(docIDs))
	for i := range out {
		out[i] = -1
	}
	for i := range t.Rows {
		row := &t.Rows[i]
		d, err := idx.find(row.Task, row.Line)
		if err != nil {
			return nil, err
		}
		c, _, err := parse(row.Label, t.Name, row.Line)
		if err != nil {
			return nil, err
		}
		out[d] = int(c)
	}
	return out, nil
}

// Numeric returns each document's true value and whether it has one.
// Every label must be a finite number.
func (t *TruthTable) Numeric(docIDs []string) ([]float64, []bool, error) {
	idx, err := newDocIndex(t.Name, docIDs, t.Wide)
	if err != nil {
		return nil, nil, err
	}
	vals := make([]float64, len(docIDs))
	has := make([]bool, len(docIDs))
	for i := range t.Rows {
		row := &t.Rows[i]
		d, err := idx.find(row.Task, row.Line)
		if err != nil {
			return nil, nil, err
		}
		v, err := numericLabel(t.Name, row.Line, row.Label)
		if err != nil {
			return nil, nil, err
		}
		vals[d], has[d] = v, true
	}
	return vals, has, nil
}

// WriteAnswers writes a as CSV with the header task,worker,label: one
// record per answer, documents in order and each document's answers in
// order. The task is docIDs[d] (strconv.Itoa(d) when docIDs is nil), the
// label the class name, or for numeric answers the value formatted with
// strconv.FormatFloat(v, 'g', -1, 64). Ids, worker and class names that
// would not read back as themselves (empty, with surrounding whitespace or
// a line break, or repeated) and out-of-range indices are errors wrapping
// framework.ErrBadInput.
func WriteAnswers(w io.Writer, a *framework.Answers, docIDs []string) error {
	if docIDs == nil {
		docIDs = make([]string, len(a.ByDoc))
		for d := range docIDs {
			docIDs[d] = strconv.Itoa(d)
		}
	}
	if len(docIDs) != len(a.ByDoc) {
		return fmt.Errorf("%w: %d document ids for answers to %d documents", framework.ErrBadInput, len(docIDs), len(a.ByDoc))
	}
	for _, l := range []struct {
		what string
		ss   []string
	}{{"document id", docIDs}, {"worker", a.Annotators}, {"class", a.Classes}} {
		if err := checkNames(l.what, l.ss); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(answerColumns); err != nil {
		return err
	}
	rec := make([]string, 3)
	for d, as := range a.ByDoc {
		for _, x := range as {
			if x.Annotator < 0 || int(x.Annotator) >= len(a.Annotators) {
				return fmt.Errorf("%w: document %d: worker index %d outside [0, %d)", framework.ErrBadInput, d, x.Annotator, len(a.Annotators))
			}
			rec[0], rec[1] = docIDs[d], a.Annotators[x.Annotator]
			if a.Classes != nil {
				if x.Class < 0 || int(x.Class) >= len(a.Classes) {
					return fmt.Errorf("%w: document %d: class index %d outside [0, %d)", framework.ErrBadInput, d, x.Class, len(a.Classes))
				}
				rec[2] = a.Classes[x.Class]
			} else {
				if !finite(x.Value) {
					return fmt.Errorf("%w: document %d: answer %v is not finite", framework.ErrBadInput, d, x.Value)
				}
				rec[2] = formatNumber(x.Value)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func checkNames(what string, ss []string) error {
	seen := make(map[string]int, len(ss))
	for i, s := range ss {
		if s == "" || trim(s) != s || strings.ContainsAny(s, "\r\n") {
			return fmt.Errorf("%w: %s %d %q is empty or has surrounding whitespace or a line break", framework.ErrBadInput, what, i, s)
		}
		if j, dup := seen[s]; dup {
			return fmt.Errorf("%w: %ss %d and %d are both %q", framework.ErrBadInput, what, j, i, s)
		}
		seen[s] = i
	}
	return nil
}
