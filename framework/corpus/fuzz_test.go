package corpus

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// mustBeLineError fails t unless err is a *framework.LineError wrapping
// framework.ErrBadInput with a line of at least minLine.
func mustBeLineError(t *testing.T, err error, minLine int) {
	t.Helper()
	var le *framework.LineError
	if !errors.As(err, &le) || !errors.Is(err, framework.ErrBadInput) {
		t.Fatalf("error %v (%T) is not a *framework.LineError wrapping ErrBadInput", err, err)
	}
	if le.Line < minLine || le.File != "fuzz" {
		t.Fatalf("error %v: line %d (want >= %d), file %q", err, le.Line, minLine, le.File)
	}
}

func FuzzReadLDAC(f *testing.F) {
	for _, s := range []string{
		"2 0:1 3:2\n1 1:5\n",
		"0\n0",
		"3 5:1 2:2 5:3\r\n",
		"5  4:1  226:1  1540:1  1603:1  1710:1  \n2  182:1  943:1  \n",
		"1 0:1\n\n\n",
		"2 3:600000000 3:600000000\n",
		"1 2147483646:1000000000\n",
		"1 -1:2\n1 3:\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		docs, v, err := ReadLDAC(strings.NewReader(data), "fuzz")
		if err != nil {
			mustBeLineError(t, err, 1)
			if docs != nil || v != 0 {
				t.Fatalf("results with an error: %v, %d", docs, v)
			}
			return
		}
		if err := (&framework.Corpus{Docs: docs, V: max(v, 1)}).Validate(); err != nil {
			t.Fatalf("invalid documents: %v", err)
		}
		if len(docs) > strings.Count(data, "\n")+1 {
			t.Fatalf("%d documents from %d lines", len(docs), strings.Count(data, "\n")+1)
		}
		for i := range docs {
			d := &docs[i]
			if d.ID != strconv.Itoa(i) {
				t.Fatalf("document %d has ID %q", i, d.ID)
			}
			for j := 1; j < len(d.Words); j++ {
				if d.Words[j-1] >= d.Words[j] {
					t.Fatalf("document %d: words not strictly increasing: %v", i, d.Words)
				}
			}
		}
		var buf bytes.Buffer
		if err := WriteLDAC(&buf, docs); err != nil {
			t.Fatalf("WriteLDAC: %v", err)
		}
		again, v2, err := ReadLDAC(&buf, "fuzz")
		if err != nil {
			t.Fatalf("reading back %q: %v", buf.String(), err)
		}
		if diff := cmp.Diff(docs, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if v2 > v {
			t.Fatalf("V grew from %d to %d on a round trip", v, v2)
		}
	})
}

// answerKey is an answer with its worker named, so that answers can be
// compared whatever the worker numbering.
type answerKey struct {
	Worker string
	Class  int32
	Value  float64
}

func byName(a *framework.Answers) [][]answerKey {
	out := make([][]answerKey, len(a.ByDoc))
	for d, as := range a.ByDoc {
		for _, x := range as {
			out[d] = append(out[d], answerKey{a.Annotators[x.Annotator], x.Class, x.Value})
		}
	}
	return out
}

func checkField(t *testing.T, what, s string) {
	t.Helper()
	if s == "" || trim(s) != s || strings.ContainsAny(s, "\r\n") {
		t.Fatalf("%s %q is empty, untrimmed or has a line break", what, s)
	}
}

// distinctTasks lists the tasks in order of first appearance.
func distinctTasks(tasks []string) []string {
	seen := map[string]bool{}
	var ids []string
	for _, s := range tasks {
		if !seen[s] {
			seen[s] = true
			ids = append(ids, s)
		}
	}
	return ids
}

// checkAnswerTable checks the resolvers on a table read without error:
// Categorical must succeed, Numeric may fail with a LineError, and both
// must round trip through WriteAnswers and ReadAnswers.
func checkAnswerTable(t *testing.T, tab *AnswerTable, docIDs []string) {
	t.Helper()
	cat, err := tab.Categorical(docIDs, nil)
	if err != nil {
		t.Fatalf("Categorical: %v", err)
	}
	if err := (&framework.Corpus{Docs: make([]framework.Doc, len(docIDs)), V: 1, Answers: cat}).Validate(); err != nil {
		t.Fatalf("Categorical gave invalid answers: %v", err)
	}
	if cat.Count() != len(tab.Rows) || cat.Numeric() {
		t.Fatalf("Categorical: %d answers for %d rows, Numeric() = %v", cat.Count(), len(tab.Rows), cat.Numeric())
	}
	var buf bytes.Buffer
	if err := WriteAnswers(&buf, cat, docIDs); err != nil {
		t.Fatalf("WriteAnswers: %v", err)
	}
	back, err := ReadAnswers(bytes.NewReader(buf.Bytes()), "fuzz")
	if err != nil {
		t.Fatalf("reading back %q: %v", buf.String(), err)
	}
	cat2, err := back.Categorical(docIDs, cat.Classes)
	if err != nil {
		t.Fatalf("Categorical of %q: %v", buf.String(), err)
	}
	if diff := cmp.Diff(byName(cat), byName(cat2)); diff != "" {
		t.Fatalf("categorical round trip (-first +second):\n%s", diff)
	}
	num, err := tab.Numeric(docIDs)
	if err != nil {
		mustBeLineError(t, err, 1)
		return
	}
	if !num.Numeric() || num.Count() != len(tab.Rows) {
		t.Fatalf("Numeric: %d answers for %d rows, Numeric() = %v", num.Count(), len(tab.Rows), num.Numeric())
	}
	buf.Reset()
	if err := WriteAnswers(&buf, num, docIDs); err != nil {
		t.Fatalf("WriteAnswers: %v", err)
	}
	back, err = ReadAnswers(bytes.NewReader(buf.Bytes()), "fuzz")
	if err != nil {
		t.Fatalf("reading back %q: %v", buf.String(), err)
	}
	num2, err := back.Numeric(docIDs)
	if err != nil {
		t.Fatalf("Numeric of %q: %v", buf.String(), err)
	}
	if diff := cmp.Diff(byName(num), byName(num2)); diff != "" {
		t.Fatalf("numeric round trip (-first +second):\n%s", diff)
	}
}

func FuzzReadAnswers(f *testing.F) {
	for _, s := range []string{
		"task,worker,label\n0,w1,pos\n0,w2,neg\n2,w1,neg\n",
		"Label,time,WORKER,Task\r\npos,1.5,w1,0\r\nneg,2,w2,0",
		"task,worker,label\n0,\"smith, j\",\"a,b\"\n",
		"task,worker,label\n0,w1,0.5\n1,w1,1e3\n",
		"task,worker,label\n0,w1,a\n0,w1,b\n",
		"task,worker,label\n0,w1,\"a\n",
		"\ufefftask,worker,label\n0, w ,NaN\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		tab, err := ReadAnswers(strings.NewReader(data), "fuzz")
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		type key struct{ task, worker string }
		seen := map[key]bool{}
		tasks := make([]string, len(tab.Rows))
		last := 1
		for i, r := range tab.Rows {
			checkField(t, "task", r.Task)
			checkField(t, "worker", r.Worker)
			checkField(t, "label", r.Label)
			if r.Line <= last {
				t.Fatalf("row %d on line %d after line %d", i, r.Line, last)
			}
			last = r.Line
			if seen[key{r.Task, r.Worker}] {
				t.Fatalf("duplicate (task, worker) %q %q accepted", r.Task, r.Worker)
			}
			seen[key{r.Task, r.Worker}] = true
			tasks[i] = r.Task
		}
		checkAnswerTable(t, tab, distinctTasks(tasks))
	})
}

func FuzzReadTruth(f *testing.F) {
	for _, s := range []string{
		"task,label\n0,pos\n1,neg\n",
		"label,task\r\n0.5,2\r\n-1,0",
		"task,label,extra\n0,1,x\n0,2,y\n",
		"task,label\n0,\"a\n",
		"task,label\n0,inf\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		tab, err := ReadTruth(strings.NewReader(data), "fuzz")
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		tasks := make([]string, len(tab.Rows))
		labels := make([]string, len(tab.Rows))
		for i, r := range tab.Rows {
			checkField(t, "task", r.Task)
			checkField(t, "label", r.Label)
			tasks[i], labels[i] = r.Task, r.Label
		}
		docIDs := distinctTasks(tasks)
		if len(docIDs) != len(tasks) {
			t.Fatalf("duplicate tasks accepted: %q", tasks)
		}
		classes := SortLabels(labels)
		cls, err := tab.Categorical(docIDs, classes)
		if err != nil {
			t.Fatalf("Categorical: %v", err)
		}
		for d, c := range cls {
			if c < 0 || c >= len(classes) || classes[c] != labels[d] {
				t.Fatalf("document %d: class %d for label %q", d, c, labels[d])
			}
		}
		vals, has, err := tab.Numeric(docIDs)
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		for d := range vals {
			if !has[d] || !finite(vals[d]) {
				t.Fatalf("document %d: value %v, present %v", d, vals[d], has[d])
			}
		}
	})
}

func FuzzReadVocab(f *testing.F) {
	for _, s := range []string{"good\nfood\n", "good food\r\n great\r\nx", "a\n\nb", "a\nb\na\n", "a\r\r\n", "\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		terms, err := ReadVocab(strings.NewReader(data), "fuzz")
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		seen := map[string]bool{}
		for _, s := range terms {
			if trim(s) == "" || strings.ContainsAny(s, "\r\n") || seen[s] {
				t.Fatalf("bad term %q accepted", s)
			}
			seen[s] = true
		}
		var buf bytes.Buffer
		if err := WriteVocab(&buf, terms); err != nil {
			t.Fatalf("WriteVocab: %v", err)
		}
		again, err := ReadVocab(&buf, "fuzz")
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if diff := cmp.Diff(terms, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzReadIDs(f *testing.F) {
	for _, s := range []string{"a\nb\n", " x \r\ny", "a\n\nb", "a\nb\na", "cv000_29416\ncv001_18431\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		ids, err := ReadIDs(strings.NewReader(data), "fuzz")
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		seen := map[string]bool{}
		for _, s := range ids {
			checkField(t, "id", s)
			if seen[s] {
				t.Fatalf("duplicate id %q accepted", s)
			}
			seen[s] = true
		}
		docs := make([]framework.Doc, len(ids))
		if err := ApplyIDs(docs, ids, "fuzz"); err != nil {
			t.Fatalf("ApplyIDs: %v", err)
		}
		again, err := ReadIDs(strings.NewReader(strings.Join(ids, "\n")), "fuzz")
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if diff := cmp.Diff(ids, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzReadWideAnswers(f *testing.F) {
	for _, s := range []struct{ data, missing string }{
		{"0.6 999999999 0.5\n999999999.0 999999999 9.99999999e8\n999999999 -0.1 1.1\n", "999999999"},
		{"1.455923 -1.673201 0.982142\n5.036724 2.775054 5.079307\n", "999999999"},
		{"2 -1\r\n-1.0 x", "-1"},
		{"NA b\nc NA\n", "NA"},
		{"nan 1\n2 NaN\n", "NaN"},
		{"1 2\n3\n", ""},
		{"1 inf\n", "-1"},
	} {
		f.Add(s.data, s.missing)
	}
	f.Fuzz(func(t *testing.T, data, missing string) {
		tab, err := ReadWideAnswers(strings.NewReader(data), "fuzz", missing)
		if err != nil {
			mustBeLineError(t, err, 1)
			return
		}
		if tab.Wide == nil {
			t.Fatal("no shape")
		}
		last := 0
		for _, r := range tab.Rows {
			d, ok, big := parseDigits(r.Task, int64(tab.Wide.Rows)-1)
			if !ok || big || r.Task != strconv.Itoa(int(d)) {
				t.Fatalf("task %q outside the %d rows", r.Task, tab.Wide.Rows)
			}
			j, err := strconv.Atoi(strings.TrimPrefix(r.Worker, "a"))
			if err != nil || !strings.HasPrefix(r.Worker, "a") || j < 0 || j >= tab.Wide.Cols || r.Worker != "a"+strconv.Itoa(j) {
				t.Fatalf("worker %q outside the %d columns", r.Worker, tab.Wide.Cols)
			}
			checkField(t, "label", r.Label)
			if r.Label == missing {
				t.Fatalf("missing value %q kept", r.Label)
			}
			if v, num := parseNumber(r.Label); num && !finite(v) {
				t.Fatalf("label %q is not finite", r.Label)
			}
			if r.Line < last || r.Line < 1 {
				t.Fatalf("line %d after %d", r.Line, last)
			}
			last = r.Line
		}
		docIDs := make([]string, tab.Wide.Rows)
		for i := range docIDs {
			docIDs[i] = "doc" + strconv.Itoa(i) // positional: any ids work
		}
		checkAnswerTable(t, tab, docIDs)
	})
}
