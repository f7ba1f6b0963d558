package corpus

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func TestReadIDs(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"basic", "doc-a\ndoc-b\n", []string{"doc-a", "doc-b"}},
		{"crlf, no final newline", "doc-a\r\ndoc b\r\nc", []string{"doc-a", "doc b", "c"}},
		{"whitespace trimmed, trailing blanks ignored", "  x \t\ny\n\n\r\n", []string{"x", "y"}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadIDs(strings.NewReader(tc.in), "ids.txt")
			mustNotErr(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadIDsBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty id", "a\n\nb\n", "blank line: expected one document id per line", 2},
		{"whitespace id", "a\n  \nb", "blank line", 2},
		{"duplicate", "a\nb\nc\r\nb\r\n", `duplicate id "b" (first on line 2)`, 4},
		{"carriage return inside", "a\nb\rc\r\n", `id "b\rc" contains a carriage return`, 2},
		{"duplicate after trimming", "a\n a \n", `duplicate id "a" (first on line 1)`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadIDs(strings.NewReader(tc.in), "ids.txt")
			checkLineErr(t, err, "ids.txt", tc.want, tc.line)
		})
	}
}

func TestApplyIDs(t *testing.T) {
	docs := []framework.Doc{{ID: "0"}, {ID: "1"}}
	mustNotErr(t, ApplyIDs(docs, []string{"x", "y"}, "ids.txt"))
	if diff := cmp.Diff([]framework.Doc{{ID: "x"}, {ID: "y"}}, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	checkLineErr(t, ApplyIDs(docs, []string{"x", "y", "z"}, "ids.txt"), "ids.txt", `id "z" has no document: the file has 3 ids but there are 2 documents`, 3)
	checkLineErr(t, ApplyIDs(docs, []string{"x"}, "ids.txt"), "ids.txt", "the file has 1 ids but there are 2 documents", 0)
}

func TestReadVocab(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"basic", "good\nfood\n", []string{"good", "food"}},
		{"internal and edge spaces kept", "good food\n great\r\nx", []string{"good food", " great", "x"}},
		{"trailing blank lines", "a\nb\n\n\n", []string{"a", "b"}},
		{"unicode", "café\n日本\n", []string{"café", "日本"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadVocab(strings.NewReader(tc.in), "vocab.txt")
			mustNotErr(t, err)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadVocabBad(t *testing.T) {
	for _, tc := range []badCase{
		{"empty line", "a\n\nb\n", "blank line: expected one term per line", 2},
		{"duplicate", "a\nb\nc\na\n", `duplicate term "a" (first on line 1)`, 4},
		{"carriage return inside", "a\nb\rc\n", `term "b\rc" contains a carriage return`, 2},
		{"double CR", "a\r\r\n", "contains a carriage return", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadVocab(strings.NewReader(tc.in), "vocab.txt")
			checkLineErr(t, err, "vocab.txt", tc.want, tc.line)
		})
	}
}

func TestVocabRoundTrip(t *testing.T) {
	terms := []string{"good", "good food", " x", "y\t", "日本"}
	var buf bytes.Buffer
	mustNotErr(t, WriteVocab(&buf, terms))
	got, err := ReadVocab(&buf, "rt.txt")
	mustNotErr(t, err)
	if diff := cmp.Diff(terms, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range [][]string{{""}, {" "}, {"a\nb"}, {"a\r"}, {"a", "a"}} {
		if err := WriteVocab(&bytes.Buffer{}, bad); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("WriteVocab(%q) = %v, want ErrBadInput", bad, err)
		}
	}
}

func TestReadColumn(t *testing.T) {
	got, err := ReadColumn(strings.NewReader("1 \n5 \r\n0.25\n\n"), "labels.txt")
	mustNotErr(t, err)
	if diff := cmp.Diff([]string{"1", "5", "0.25"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = ReadColumn(strings.NewReader("1\n\n2\n"), "labels.txt")
	checkLineErr(t, err, "labels.txt", "blank line: expected one value per line", 2)
	_, err = ReadColumn(strings.NewReader("1\n2\r3\n"), "labels.txt")
	checkLineErr(t, err, "labels.txt", `value "2\r3" contains a carriage return`, 2)
}

func TestTruthFromColumn(t *testing.T) {
	tt := TruthFromColumn([]string{"0.5", "1", "-0.1"})
	tt.Name = "labels.txt"
	want := &TruthTable{Name: "labels.txt", Rows: []TruthRow{
		{Task: "0", Label: "0.5", Line: 1}, {Task: "1", Label: "1", Line: 2}, {Task: "2", Label: "-0.1", Line: 3},
	}, Wide: &WideShape{Rows: 3, Cols: 1}}
	if diff := cmp.Diff(want, tt); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Positional: resolves by row even with an ids file's ids.
	vals, has, err := tt.Numeric([]string{"x", "y", "z"})
	mustNotErr(t, err)
	if diff := cmp.Diff([]float64{0.5, 1, -0.1}, vals); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{true, true, true}, has); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, _, err = tt.Numeric([]string{"0", "1"})
	checkLineErr(t, err, "labels.txt", "the file has 3 rows but there are 2 documents", 0)
	cls, err := TruthFromColumn([]string{"b", "a"}).Categorical([]string{"0", "1"}, []string{"a", "b"})
	mustNotErr(t, err)
	if diff := cmp.Diff([]int{1, 0}, cls); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
