package corpus

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

var fourDocs = []string{"0", "1", "2", "3"}

func TestReadAnswers(t *testing.T) {
	want := []RawAnswer{
		{Task: "0", Worker: "w1", Label: "pos", Line: 2},
		{Task: "0", Worker: "w2", Label: "neg", Line: 3},
		{Task: "2", Worker: "w1", Label: "neg", Line: 4},
	}
	tests := []struct {
		name, in string
		want     []RawAnswer
	}{
		{"basic", "task,worker,label\n0,w1,pos\n0,w2,neg\n2,w1,neg\n", want},
		{"crlf, no final newline", "task,worker,label\r\n0,w1,pos\r\n0,w2,neg\r\n2,w1,neg", want},
		{"columns reordered, extra columns, case", "Label,time,WORKER,Task\npos,1.5,w1,0\nneg,2,w2,0\nneg,3,w1,2\n", want},
		{"quoting and spaces", "task, worker, label\n\"0\", \"w1\", pos\n 0 ,w2 , \"neg\"\n2,\"w1\",neg\n", want},
		{"byte-order mark", "\ufefftask,worker,label\n0,w1,pos\n0,w2,neg\n2,w1,neg\n", want},
		{"comma inside quotes", "task,worker,label\n0,\"smith, j\",\"a,b\"\n", []RawAnswer{{Task: "0", Worker: "smith, j", Label: "a,b", Line: 2}}},
		{"blank lines skipped", "task,worker,label\n\n0,w1,pos\n", []RawAnswer{{Task: "0", Worker: "w1", Label: "pos", Line: 3}}},
		{"header only", "task,worker,label\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadAnswers(strings.NewReader(tc.in), "answers.csv")
			mustNotErr(t, err)
			if diff := cmp.Diff(&AnswerTable{Name: "answers.csv", Rows: tc.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadAnswersBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty file", "", "empty file: expected a header line task,worker,label", 1},
		{"missing column", "question,annotator,vote\n0,1,2\n", `header has columns "question", "annotator", "vote"; want task,worker,label (missing label)`, 1},
		{"alias and name twice", "question,task,worker,label\n", `header names column "task" twice (columns 1 and 2)`, 1},
		{"repeated column", "task,worker,label,Task\n", `header names column "task" twice (columns 1 and 4)`, 1},
		{"empty task", "task,worker,label\n0,w,1\n,w,1\n", "empty task (column 1)", 3},
		{"empty worker", "task,worker,label\n0, ,1\n", "empty worker (column 2)", 2},
		{"empty label", "label,task,worker\n\"\",0,w\n", "empty label (column 1)", 2},
		{"duplicate task and worker", "task,worker,label\n0,w1,a\n1,w1,a\n0,w2,b\n0,w1,b\n", `duplicate answer of worker "w1" for task "0" (first on line 2)`, 5},
		{"too few fields", "task,worker,label\n0,w1,a\n0,w2\n", "wrong number of fields: the header has 3", 3},
		{"too many fields", "task,worker,label\n0,w1,a,b\n", "wrong number of fields", 2},
		{"unclosed quote", "task,worker,label\n0,w1,\"a\n1,w1,b\n", "broken CSV quoting", 3},
		{"bare quote", "task,worker,label\n0,w\"1,a\n", "broken CSV quoting at column", 2},
		{"text after quote", "task,worker,label\n0,\"w1\"x,a\n", "broken CSV quoting", 2},
		{"line break in field", "task,worker,label\n0,w1,\"a\nb\"\n", `label "a\nb" contains a line break`, 2},
		{"broken header", "task,\"worker,label\n", "broken CSV quoting", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAnswers(strings.NewReader(tc.in), "answers.csv")
			checkLineErr(t, err, "answers.csv", tc.want, tc.line)
		})
	}
}

func mustAnswers(t *testing.T, in string) *AnswerTable {
	t.Helper()
	a, err := ReadAnswers(strings.NewReader(in), "answers.csv")
	mustNotErr(t, err)
	return a
}

func TestCategorical(t *testing.T) {
	tab := mustAnswers(t, "task,worker,label\n2,bob,10\n0,ann,2\n0,bob,1\n2,cy,2\n")
	want := &framework.Answers{
		Annotators: []string{"bob", "ann", "cy"},
		Classes:    []string{"1", "2", "10"}, // numeric order
		ByDoc: [][]framework.Answer{
			{{Annotator: 1, Class: 1, Value: 1}, {Annotator: 0, Class: 0, Value: 0}},
			nil, // document without answers
			{{Annotator: 0, Class: 2, Value: 2}, {Annotator: 2, Class: 1, Value: 1}},
			nil,
		},
	}
	got, err := tab.Categorical(fourDocs, nil)
	mustNotErr(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Count() != 4 || got.Numeric() {
		t.Errorf("Count = %d, Numeric = %v", got.Count(), got.Numeric())
	}
	mustNotErr(t, (&framework.Corpus{Docs: make([]framework.Doc, 4), V: 1, Answers: got}).Validate())

	// Given classes fix the order.
	got, err = tab.Categorical(fourDocs, []string{"10", "2", "1", "7"})
	mustNotErr(t, err)
	if diff := cmp.Diff([]framework.Answer{{Annotator: 0, Class: 0, Value: 0}, {Annotator: 2, Class: 1, Value: 1}}, got.ByDoc[2]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Ids from an ids file.
	got, err = tab.Categorical([]string{"2", "x", "0"}, nil)
	mustNotErr(t, err)
	if len(got.ByDoc[0]) != 2 || len(got.ByDoc[1]) != 0 || len(got.ByDoc[2]) != 2 {
		t.Errorf("ByDoc = %v", got.ByDoc)
	}
}

func TestSortLabels(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"10", "2", "-1", "2", "1.0", "1"}, []string{"-1", "1", "1.0", "2", "10"}},
		{[]string{"pos", "neg", "10", "2"}, []string{"10", "2", "neg", "pos"}},
		{[]string{"1", "NaN"}, []string{"1", "NaN"}},
		{nil, []string{}},
	} {
		if diff := cmp.Diff(tc.want, SortLabels(tc.in)); diff != "" {
			t.Errorf("SortLabels(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestCategoricalBad(t *testing.T) {
	tab := mustAnswers(t, "task,worker,label\n0,ann,pos\n1,ann,neg\n7,ann,pos\n")
	_, err := tab.Categorical(fourDocs, nil)
	checkLineErr(t, err, "answers.csv", `task "7" is not a document (documents have ids 0..3 or those of the ids file)`, 4)
	_, err = tab.Categorical(nil, nil)
	checkLineErr(t, err, "answers.csv", `task "0" is not a document (there are no documents)`, 2)
	tab.Rows = tab.Rows[:2]
	_, err = tab.Categorical(fourDocs, []string{"pos", "neutral"})
	checkLineErr(t, err, "answers.csv", `label "neg" is not a class; the 2 classes are "pos", "neutral"`, 3)
	for _, classes := range [][]string{{"pos", "pos", "neg"}, {"", "pos", "neg"}} {
		if _, err := tab.Categorical(fourDocs, classes); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("classes %q: got %v, want ErrBadInput", classes, err)
		}
	}
	if _, err := tab.Categorical([]string{"0", "1", "0"}, nil); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("duplicate document ids: got %v, want ErrBadInput", err)
	}
}

func TestNumeric(t *testing.T) {
	tab := mustAnswers(t, "task,worker,label\n1,ann,0.5\n1,bob,-3\n3,ann,1e2\n")
	want := &framework.Answers{
		Annotators: []string{"ann", "bob"},
		ByDoc: [][]framework.Answer{
			nil,
			{{Annotator: 0, Class: -1, Value: 0.5}, {Annotator: 1, Class: -1, Value: -3}},
			nil,
			{{Annotator: 0, Class: -1, Value: 100}},
		},
	}
	got, err := tab.Numeric(fourDocs)
	mustNotErr(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !got.Numeric() {
		t.Error("Numeric() = false")
	}
}

func TestNumericBad(t *testing.T) {
	for _, tc := range []badCase{
		{"not a number", "task,worker,label\n0,a,1\n0,b,good\n", `label "good" is not a number`, 3},
		{"NaN", "task,worker,label\n0,a,NaN\n", `label "NaN" is not a finite number`, 2},
		{"Inf", "task,worker,label\n0,a,1\n1,a,-Inf\n", `label "-Inf" is not a finite number`, 3},
		{"overflow", "task,worker,label\n0,a,1e400\n", `label "1e400" is not a finite number`, 2},
		{"huge", "task,worker,label\n0,a,1\n1,a,1e308\n", `label "1e308" is beyond ±1e+12: sums of squares of such values overflow in the regression; rescale the values`, 3},
		{"unknown document", "task,worker,label\n9,a,1\n", `task "9" is not a document`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mustAnswers(t, tc.in).Numeric(fourDocs)
			checkLineErr(t, err, "answers.csv", tc.want, tc.line)
		})
	}
}

func TestAnswersRoundTrip(t *testing.T) {
	ids := []string{"d0", "d 1", "d,2", `d"3`}
	cat := &framework.Answers{
		Annotators: []string{"w0", "w, 1", "w2"},
		Classes:    []string{"neg", "neu", "pos"},
		ByDoc: [][]framework.Answer{
			{{Annotator: 0, Class: 2, Value: 2}, {Annotator: 1, Class: 0, Value: 0}},
			nil,
			{{Annotator: 2, Class: 1, Value: 1}, {Annotator: 0, Class: 1, Value: 1}},
			{{Annotator: 1, Class: 2, Value: 2}},
		},
	}
	var buf bytes.Buffer
	mustNotErr(t, WriteAnswers(&buf, cat, ids))
	if !strings.HasPrefix(buf.String(), "task,worker,label\nd0,w0,pos\nd0,\"w, 1\",neg\n") {
		t.Errorf("wrote %q", buf.String())
	}
	got, err := mustAnswers(t, buf.String()).Categorical(ids, cat.Classes)
	mustNotErr(t, err)
	if diff := cmp.Diff(cat, got); diff != "" {
		t.Errorf("categorical round trip (-want +got):\n%s", diff)
	}

	num := &framework.Answers{
		Annotators: []string{"a", "b"},
		ByDoc: [][]framework.Answer{
			{{Annotator: 0, Class: -1, Value: 0.1}, {Annotator: 1, Class: -1, Value: 1e-300}},
			{{Annotator: 1, Class: -1, Value: -7}},
			nil,
			{{Annotator: 0, Class: -1, Value: 1.0 / 3}},
		},
	}
	buf.Reset()
	mustNotErr(t, WriteAnswers(&buf, num, nil))
	got, err = mustAnswers(t, buf.String()).Numeric(fourDocs)
	mustNotErr(t, err)
	if diff := cmp.Diff(num, got); diff != "" {
		t.Errorf("numeric round trip (-want +got):\n%s", diff)
	}
}

func TestWriteAnswersBad(t *testing.T) {
	ok := func() *framework.Answers {
		return &framework.Answers{Annotators: []string{"w"}, Classes: []string{"a"}, ByDoc: [][]framework.Answer{{{Annotator: 0, Class: 0}}}}
	}
	for name, tc := range map[string]struct {
		mod func(a *framework.Answers)
		ids []string
	}{
		"too many ids":    {func(*framework.Answers) {}, []string{"0", "1"}},
		"empty id":        {func(*framework.Answers) {}, []string{""}},
		"worker index":    {func(a *framework.Answers) { a.ByDoc[0][0].Annotator = 1 }, nil},
		"class index":     {func(a *framework.Answers) { a.ByDoc[0][0].Class = -1 }, nil},
		"spaced worker":   {func(a *framework.Answers) { a.Annotators[0] = " w" }, nil},
		"newline class":   {func(a *framework.Answers) { a.Classes[0] = "a\nb" }, nil},
		"repeated worker": {func(a *framework.Answers) { a.Annotators = []string{"w", "w"} }, nil},
		"infinite value":  {func(a *framework.Answers) { a.Classes = nil; a.ByDoc[0][0].Value = 1 / zero }, nil},
	} {
		a := ok()
		tc.mod(a)
		if err := WriteAnswers(&bytes.Buffer{}, a, tc.ids); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: got %v, want ErrBadInput", name, err)
		}
	}
}

var zero float64

func TestReadTruth(t *testing.T) {
	tab, err := ReadTruth(strings.NewReader("label,task\r\npos,2\r\nneg,0"), "truth.csv")
	mustNotErr(t, err)
	want := &TruthTable{Name: "truth.csv", Rows: []TruthRow{{Task: "2", Label: "pos", Line: 2}, {Task: "0", Label: "neg", Line: 3}}}
	if diff := cmp.Diff(want, tab); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	cls, err := tab.Categorical(fourDocs, []string{"neg", "pos"})
	mustNotErr(t, err)
	if diff := cmp.Diff([]int{0, -1, 1, -1}, cls); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = tab.Categorical(fourDocs, []string{"neg"})
	checkLineErr(t, err, "truth.csv", `label "pos" is not a class; the 1 classes are "neg"`, 2)
	if _, err := tab.Categorical(fourDocs, nil); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("nil classes: got %v, want ErrBadInput", err)
	}
	_, _, err = tab.Numeric(fourDocs)
	checkLineErr(t, err, "truth.csv", `label "pos" is not a number`, 2)

	num, err := ReadTruth(strings.NewReader("task,label\n3,0.5\n1,-2\n"), "truth.csv")
	mustNotErr(t, err)
	vals, has, err := num.Numeric(fourDocs)
	mustNotErr(t, err)
	if diff := cmp.Diff([]float64{0, -2, 0, 0.5}, vals); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, false, true}, has); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, _, err = num.Numeric([]string{"0", "1"})
	checkLineErr(t, err, "truth.csv", `task "3" is not a document (documents have ids 0..1 or those of the ids file)`, 2)
}

func TestReadTruthBad(t *testing.T) {
	for _, tc := range []badCase{
		{"missing column", "task,class\n", `header has columns "task", "class"; want task,label (missing label)`, 1},
		{"duplicate task", "task,label\n0,a\n1,a\n0,b\n", `duplicate truth for task "0" (first on line 2)`, 4},
		{"empty label", "task,label\n0,\n", "empty label (column 2)", 2},
		{"field count", "task,label\n0,a,b\n", "wrong number of fields", 2},
		{"quote", "task,label\n0,\"a\n", "broken CSV quoting", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTruth(strings.NewReader(tc.in), "truth.csv")
			checkLineErr(t, err, "truth.csv", tc.want, tc.line)
		})
	}
	for _, tc := range []badCase{
		{"NaN", "task,label\n0,nan\n", `label "nan" is not a finite number`, 2},
		{"Inf", "task,label\n0,1\n1,+Inf\n", `label "+Inf" is not a finite number`, 3},
		{"huge", "task,label\n0,-2e12\n", `label "-2e12" is beyond ±1e+12`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := ReadTruth(strings.NewReader(tc.in), "truth.csv")
			mustNotErr(t, err)
			_, _, err = tab.Numeric(fourDocs)
			checkLineErr(t, err, "truth.csv", tc.want, tc.line)
		})
	}
}
