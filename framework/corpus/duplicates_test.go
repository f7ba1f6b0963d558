package corpus

import (
	"errors"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

func TestReadAnswersDuplicates(t *testing.T) {
	// w1 answers task a three times (A, B, C), w2 answers b twice (A, A).
	const in = "task,worker,label\na,w1,A\nb,w2,A\na,w1,B\nb,w1,B\nb,w2,A\na,w1,C\n"
	row := func(task, worker, label string, line int) RawAnswer {
		return RawAnswer{Task: task, Worker: worker, Label: label, Line: line}
	}
	for _, tc := range []struct {
		dup     string
		want    []RawAnswer
		repeats int
		err     string // substring of the error, "" for none
	}{
		{"keep", []RawAnswer{row("a", "w1", "A", 2), row("b", "w2", "A", 3), row("a", "w1", "B", 4), row("b", "w1", "B", 5), row("b", "w2", "A", 6), row("a", "w1", "C", 7)}, 3, ""},
		{"first", []RawAnswer{row("a", "w1", "A", 2), row("b", "w2", "A", 3), row("b", "w1", "B", 5)}, 3, ""},
		{"last", []RawAnswer{row("b", "w1", "B", 5), row("b", "w2", "A", 6), row("a", "w1", "C", 7)}, 3, ""},
		{"error", nil, 0, `:4: duplicate answer of worker "w1" for task "a" (first on line 2)`},
	} {
		t.Run(tc.dup, func(t *testing.T) {
			d, err := ParseDuplicates(tc.dup)
			if err != nil {
				t.Fatal(err)
			}
			if d.String() != tc.dup {
				t.Errorf("String() = %q", d.String())
			}
			got, err := ReadAnswersWith(strings.NewReader(in), "x.csv", d)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Repeats != tc.repeats {
				t.Errorf("Repeats = %d, want %d", got.Repeats, tc.repeats)
			}
			if len(got.Rows) != len(tc.want) {
				t.Fatalf("rows %v, want %v", got.Rows, tc.want)
			}
			for i := range tc.want {
				if got.Rows[i] != tc.want[i] {
					t.Errorf("row %d = %v, want %v", i, got.Rows[i], tc.want[i])
				}
			}
			// Kept repeats are counted as answers.
			a, err := got.Categorical([]string{"a", "b"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if a.Count() != len(tc.want) {
				t.Errorf("Count() = %d, want %d", a.Count(), len(tc.want))
			}
		})
	}
	if _, err := ParseDuplicates("all"); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("ParseDuplicates(all) = %v", err)
	}
	// ReadAnswers keeps refusing repeats.
	if _, err := ReadAnswers(strings.NewReader(in), "x.csv"); err == nil {
		t.Error("ReadAnswers accepted a repeated answer")
	}
}
