package corpus

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func TestReadLDAC(t *testing.T) {
	tests := []struct {
		name string
		in   string
		docs []framework.Doc
		v    int
	}{
		{"basic", "2 0:1 3:2\n1 1:5\n", []framework.Doc{
			{ID: "0", Words: []int32{0, 3}, Counts: []float64{1, 2}, N: 3},
			{ID: "1", Words: []int32{1}, Counts: []float64{5}, N: 5},
		}, 4},
		{"crlf", "2 0:1 3:2\r\n1 1:5\r\n", []framework.Doc{
			{ID: "0", Words: []int32{0, 3}, Counts: []float64{1, 2}, N: 3},
			{ID: "1", Words: []int32{1}, Counts: []float64{5}, N: 5},
		}, 4},
		{"no final newline", "2 0:1 3:2\n1 1:5", []framework.Doc{
			{ID: "0", Words: []int32{0, 3}, Counts: []float64{1, 2}, N: 3},
			{ID: "1", Words: []int32{1}, Counts: []float64{5}, N: 5},
		}, 4},
		{"empty documents", "0\n1 2:1\n0", []framework.Doc{
			{ID: "0"}, {ID: "1", Words: []int32{2}, Counts: []float64{1}, N: 1}, {ID: "2"},
		}, 3},
		{"only empty documents", "0\n0\n", []framework.Doc{{ID: "0"}, {ID: "1"}}, 0},
		{"empty input", "", nil, 0},
		{"duplicates summed and sorted", "4 5:1 2:2 5:3 0:1\n", []framework.Doc{
			{ID: "0", Words: []int32{0, 2, 5}, Counts: []float64{1, 2, 4}, N: 7},
		}, 6},
		{"zero counts dropped but count for V", "3 7:0 1:1 1:0\n", []framework.Doc{
			{ID: "0", Words: []int32{1}, Counts: []float64{1}, N: 1},
		}, 8},
		{"all counts zero", "1 4:0\n", []framework.Doc{{ID: "0"}}, 5},
		{"trailing blank lines", "1 0:1\n\n \t\r\n\n", []framework.Doc{
			{ID: "0", Words: []int32{0}, Counts: []float64{1}, N: 1},
		}, 1},
		{"tabs, runs of spaces, trailing space", "  2\t0:1   1:1  \n", []framework.Doc{
			{ID: "0", Words: []int32{0, 1}, Counts: []float64{1, 1}, N: 2},
		}, 2},
		{"leading zeros", "1 007:010\n", []framework.Doc{
			{ID: "0", Words: []int32{7}, Counts: []float64{10}, N: 10},
		}, 8},
		{"largest id and count", "1 2147483646:1000000000\n", []framework.Doc{
			{ID: "0", Words: []int32{2147483646}, Counts: []float64{1e9}, N: 1e9},
		}, 2147483647},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, v, err := ReadLDAC(strings.NewReader(tc.in), "docs.txt")
			mustNotErr(t, err)
			if diff := cmp.Diff(tc.docs, docs); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
			if v != tc.v {
				t.Errorf("V = %d, want %d", v, tc.v)
			}
		})
	}
}

func TestReadLDACBad(t *testing.T) {
	tests := []badCase{
		{"M larger than pairs", "2 0:1\n", "M = 2 but the line has 1 id:count pairs", 1},
		{"M smaller than pairs", "1 0:1\n1 0:1 2:2\n", "M = 1 but the line has 2", 2},
		{"M not a number", "x 0:1\n", `M "x" is not a non-negative integer`, 1},
		{"M negative", "-1\n", `M "-1" is not a non-negative integer`, 1},
		{"pair alone, no M", "0:1\n", `M "0:1" is not`, 1},
		{"no count", "1 0:1\n1 3:\n", `malformed pair "3:"`, 2},
		{"no id", "1 :2\n", `malformed pair ":2"`, 1},
		{"no colon", "1 3\n", `malformed pair "3"`, 1},
		{"two colons", "1 3:2:1\n", `malformed pair "3:2:1"`, 1},
		{"letters", "1 a:b\n", `word id "a" is not a non-negative integer`, 1},
		{"negative id", "0\n0\n1 -1:2\n", "word id -1 is negative", 3},
		{"id too large", "1 2147483647:1\n", "word id 2147483647 is larger than 2147483646", 1},
		{"id with sign", "1 +3:1\n", `word id "+3" is not a non-negative integer`, 1},
		{"negative count", "1 3:-2\n", "count -2 is negative", 1},
		{"fractional count", "1 3:1.5\n", `count "1.5" is not a non-negative integer`, 1},
		{"exponent count", "1 3:1e3\n", `count "1e3" is not a non-negative integer`, 1},
		{"count too large", "1 3:1000000001\n", "count 1000000001 is larger than 1000000000", 1},
		{"summed count too large", "2 3:600000000 3:600000000\n", "the counts of word id 3 add up to more than 1000000000", 1},
		{"blank line inside", "1 0:1\n\n1 0:1\n", "blank line: expected M followed by M id:count pairs", 2},
		{"whitespace line inside", "1 0:1\r\n \r\n\r\n1 0:1\r\n", "blank line", 2},
		{"leading blank line", "\n1 0:1\n", "blank line", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, _, err := ReadLDAC(strings.NewReader(tc.in), "docs.txt")
			checkLineErr(t, err, "docs.txt", tc.want, tc.line)
			if docs != nil {
				t.Errorf("got docs %v with the error", docs)
			}
		})
	}
}

func TestReadLDACLongLine(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 32
	_, _, err := ReadLDAC(strings.NewReader("1 0:1\n3 0:1 1:1 2:1 3:1 4:1 5:1 6:1 7:1\n"), "docs.txt")
	checkLineErr(t, err, "docs.txt", "line longer than the limit of 32 bytes", 2)
	// A line just under the limit is fine.
	_, _, err = ReadLDAC(strings.NewReader("1 0:1\n3 0:1 1:1 2:1\n"), "docs.txt")
	mustNotErr(t, err)
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadIOError(t *testing.T) {
	_, _, err := ReadLDAC(failingReader{}, "docs.txt")
	if err == nil || !strings.Contains(err.Error(), "docs.txt: disk on fire") {
		t.Errorf("got %v, want the read error with the file name", err)
	}
	if errors.Is(err, framework.ErrBadInput) {
		t.Errorf("an I/O error is not bad input: %v", err)
	}
}

func TestCheckVocab(t *testing.T) {
	docs, v, err := ReadLDAC(strings.NewReader("1 0:1\n0\n2 1:1 4:2\n1 9:1\n"), "docs.txt")
	mustNotErr(t, err)
	if v != 10 {
		t.Fatalf("V = %d, want 10", v)
	}
	mustNotErr(t, CheckVocab(docs, 10, "docs.txt"))
	checkLineErr(t, CheckVocab(docs, 5, "docs.txt"), "docs.txt", "word id 9 is out of vocabulary: the vocabulary has 5 terms (ids 0..4)", 4)
	checkLineErr(t, CheckVocab(docs, 4, "docs.txt"), "docs.txt", "word id 4 is out of vocabulary", 3)
	checkLineErr(t, CheckVocab(docs, 0, "docs.txt"), "docs.txt", "word id 0 is out of vocabulary", 1)
}

func TestLDACRoundTrip(t *testing.T) {
	docs := []framework.Doc{
		{ID: "0", Words: []int32{0, 3, 17}, Counts: []float64{1, 2, 1000}, N: 1003},
		{ID: "1"},
		{ID: "2", Words: []int32{2}, Counts: []float64{1}, N: 1},
	}
	var buf bytes.Buffer
	mustNotErr(t, WriteLDAC(&buf, docs))
	if want := "3 0:1 3:2 17:1000\n0\n1 2:1\n"; buf.String() != want {
		t.Errorf("wrote %q, want %q", buf.String(), want)
	}
	got, v, err := ReadLDAC(&buf, "rt.txt")
	mustNotErr(t, err)
	if diff := cmp.Diff(docs, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if v != 18 {
		t.Errorf("V = %d, want 18", v)
	}
}

func TestWriteLDACBad(t *testing.T) {
	for name, d := range map[string]framework.Doc{
		"fractional count": {Words: []int32{1}, Counts: []float64{1.5}, N: 1.5},
		"zero count":       {Words: []int32{1}, Counts: []float64{0}},
		"NaN count":        {Words: []int32{1}, Counts: []float64{nan()}},
		"misaligned":       {Words: []int32{1, 2}, Counts: []float64{1}},
		"negative id":      {Words: []int32{-1}, Counts: []float64{1}},
	} {
		err := WriteLDAC(&bytes.Buffer{}, []framework.Doc{d})
		if !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: got %v, want ErrBadInput", name, err)
		}
	}
}

// TestScanLDAC: the streaming reader gives ReadLDAC's documents and V
// with their line numbers, and an error from its callback stops it.
func TestScanLDAC(t *testing.T) {
	src := "2 0:1 3:2\n0\n1 5:0\n1 2:4\n"
	want, wantV, err := ReadLDAC(strings.NewReader(src), "x.ldac")
	if err != nil {
		t.Fatal(err)
	}
	var got []framework.Doc
	var lines []int
	V, err := ScanLDAC(strings.NewReader(src), "x.ldac", func(d framework.Doc, line int) error {
		got, lines = append(got, d), append(lines, line)
		return nil
	})
	if err != nil || V != wantV || !cmp.Equal(got, want) || !cmp.Equal(lines, []int{1, 2, 3, 4}) {
		t.Fatalf("ScanLDAC: %v, V %d, %v at lines %v; ReadLDAC: V %d, %v", err, V, got, lines, wantV, want)
	}
	stop := errors.New("stop")
	n := 0
	if _, err := ScanLDAC(strings.NewReader(src), "x.ldac", func(framework.Doc, int) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("a failing callback: %v after %d documents", err, n)
	}
	if _, err := ScanLDAC(strings.NewReader("1 2:1\n2 1:1\n"), "x.ldac", func(framework.Doc, int) error { return nil }); err == nil || !strings.Contains(err.Error(), "x.ldac:2") {
		t.Errorf("a malformed second line: %v, want x.ldac:2", err)
	}
}
