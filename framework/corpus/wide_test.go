package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func TestReadWideAnswers(t *testing.T) {
	rows := []RawAnswer{
		{Task: "0", Worker: "a0", Label: "0.6", Line: 1},
		{Task: "0", Worker: "a2", Label: "0.5", Line: 1},
		{Task: "2", Worker: "a1", Label: "-0.1", Line: 3},
		{Task: "2", Worker: "a2", Label: "1.1", Line: 3},
	}
	tests := []struct {
		name, in, missing string
		rows              []RawAnswer
		shape             WideShape
	}{
		{"sentinel as number", "0.6 999999999 0.5\n999999999.0 999999999 9.99999999e8\n999999999 -0.1 1.1\n", "999999999", rows, WideShape{3, 3}},
		{"crlf, tabs, trailing space, no final newline", "0.6\t999999999  0.5 \r\n999999999 999999999 999999999\r\n999999999 -0.1 1.1", "999999999", rows, WideShape{3, 3}},
		{"trailing blank lines", "0.6 999999999 0.5\n999999999 999999999 999999999\n999999999 -0.1 1.1\n\n\n", "999999999", rows, WideShape{3, 3}},
		{"sentinel -1", "2 -1\n-1.0 x\n", "-1", []RawAnswer{
			{Task: "0", Worker: "a0", Label: "2", Line: 1},
			{Task: "1", Worker: "a1", Label: "x", Line: 2},
		}, WideShape{2, 2}},
		{"string sentinel", "NA b\nc NA\n", "NA", []RawAnswer{
			{Task: "0", Worker: "a1", Label: "b", Line: 1},
			{Task: "1", Worker: "a0", Label: "c", Line: 2},
		}, WideShape{2, 2}},
		{"NaN sentinel", "nan 1\n2 NaN\n", "NaN", []RawAnswer{
			{Task: "0", Worker: "a1", Label: "1", Line: 1},
			{Task: "1", Worker: "a0", Label: "2", Line: 2},
		}, WideShape{2, 2}},
		{"sentinel with surrounding spaces", "1 -1\n", " -1 ", []RawAnswer{
			{Task: "0", Worker: "a0", Label: "1", Line: 1},
		}, WideShape{1, 2}},
		{"no sentinel", "1 999999999\n", "", []RawAnswer{
			{Task: "0", Worker: "a0", Label: "1", Line: 1},
			{Task: "0", Worker: "a1", Label: "999999999", Line: 1},
		}, WideShape{1, 2}},
		{"empty", "", "-1", nil, WideShape{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadWideAnswers(strings.NewReader(tc.in), "answers.txt", tc.missing)
			mustNotErr(t, err)
			want := &AnswerTable{Name: "answers.txt", Rows: tc.rows, Wide: &tc.shape}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadWideAnswersBad(t *testing.T) {
	for _, tc := range []badCase{
		{"ragged rows", "1 2 3\n1 2 3\n1 2\n", "row has 2 columns but line 1 has 3 (one column per annotator)", 3},
		{"NaN label", "1 2\n3 NaN\n", `column 2: label "NaN" is not a finite number`, 2},
		{"Inf label", "inf 2\n", `column 1: label "inf" is not a finite number`, 1},
		{"overflowing label", "1 1e999\n", `label "1e999" is not a finite number`, 1},
		{"blank row", "1 2\n\n1 2\n", "blank line: expected one whitespace-separated answer per annotator", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadWideAnswers(strings.NewReader(tc.in), "answers.txt", "999999999")
			checkLineErr(t, err, "answers.txt", tc.want, tc.line)
		})
	}
}

func TestWideResolve(t *testing.T) {
	tab, err := ReadWideAnswers(strings.NewReader("0.5 -1\n-1 -1\n1 0.5\n"), "answers.txt", "-1")
	mustNotErr(t, err)
	want := &framework.Answers{
		Annotators: []string{"a0", "a1"},
		ByDoc: [][]framework.Answer{
			{{Annotator: 0, Class: -1, Value: 0.5}},
			nil,
			{{Annotator: 0, Class: -1, Value: 1}, {Annotator: 1, Class: -1, Value: 0.5}},
		},
	}
	// Positional: row i is document i, whatever the ids.
	for _, ids := range [][]string{{"0", "1", "2"}, {"x", "y", "z"}} {
		got, err := tab.Numeric(ids)
		mustNotErr(t, err)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ids %q (-want +got):\n%s", ids, diff)
		}
	}
	cat, err := tab.Categorical([]string{"x", "y", "z"}, nil)
	mustNotErr(t, err)
	if diff := cmp.Diff([]string{"0.5", "1"}, cat.Classes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = tab.Numeric([]string{"0", "1", "2", "3"})
	checkLineErr(t, err, "answers.txt", "the file has 3 rows but there are 4 documents", 0)
	_, err = tab.Categorical([]string{"0", "1"}, nil)
	checkLineErr(t, err, "answers.txt", "the file has 3 rows but there are 2 documents", 0)
}
