package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBOMRule: every reader ignores a UTF-8 byte-order mark at the start
// of the file (it used to be kept in vocabulary term 0, read into an id,
// or rejected, depending on the reader).
func TestBOMRule(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		read        func(r *strings.Reader) (any, error)
	}{
		{"ldac", "2 0:1 3:2\n1 1:1\n", func(r *strings.Reader) (any, error) { d, v, err := ReadLDAC(r, "f"); return []any{d, v}, err }},
		{"ids", "doc-a\ndoc-b\n", func(r *strings.Reader) (any, error) { return ReadIDs(r, "f") }},
		{"vocab", "alpha\nbeta\n", func(r *strings.Reader) (any, error) { return ReadVocab(r, "f") }},
		{"column", "0.5\n1\n", func(r *strings.Reader) (any, error) { return ReadColumn(r, "f") }},
		{"answers", "task,worker,label\n0,a,x\n", func(r *strings.Reader) (any, error) { return ReadAnswers(r, "f") }},
		{"truth", "task,label\n0,x\n", func(r *strings.Reader) (any, error) { return ReadTruth(r, "f") }},
		{"wide", "1 999\n0 1\n", func(r *strings.Reader) (any, error) { return ReadWideAnswers(r, "f", "999") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.read(strings.NewReader(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tc.read(strings.NewReader(BOM + tc.input))
			if err != nil {
				t.Fatalf("with a byte-order mark: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("with a byte-order mark (-without +with):\n%s", diff)
			}
		})
	}
}
