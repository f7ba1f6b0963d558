package corpus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestReadOptsContextAndProgress (issue 30, item 5): the readers of
// answers report progress every ChunkRows rows and at the end, and stop
// between chunks when the context is cancelled, with an error naming the
// file and wrapping context.Canceled; the table read with options equals
// the one read without.
func TestReadOptsContextAndProgress(t *testing.T) {
	const n = 2*ChunkRows + 7
	var csv, wide strings.Builder
	csv.WriteString("task,worker,label\n")
	for i := range n {
		fmt.Fprintf(&csv, "%d,w%d,%s\n", i, i%3, []string{"a", "b"}[i%2])
		fmt.Fprintf(&wide, "%d -1\n", i%2)
	}
	read := map[string]func(o ReadOptions) (*AnswerTable, error){
		"csv": func(o ReadOptions) (*AnswerTable, error) {
			return ReadAnswersOpts(strings.NewReader(csv.String()), "a.csv", o)
		},
		"wide": func(o ReadOptions) (*AnswerTable, error) {
			return ReadWideAnswersOpts(strings.NewReader(wide.String()), "a.csv", "-1", o)
		},
	}
	plain := map[string]func() (*AnswerTable, error){
		"csv": func() (*AnswerTable, error) {
			return ReadAnswersWith(strings.NewReader(csv.String()), "a.csv", DupKeep)
		},
		"wide": func() (*AnswerTable, error) { return ReadWideAnswers(strings.NewReader(wide.String()), "a.csv", "-1") },
	}
	for _, kind := range []string{"csv", "wide"} {
		var got []ReadProgress
		tab, err := read[kind](ReadOptions{Context: context.Background(), Progress: func(p ReadProgress) { got = append(got, p) }})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		rows := []int{ChunkRows, 2 * ChunkRows, n}
		if len(got) != 3 || !got[2].Done || got[0].Done || got[2].Bytes < got[1].Bytes || got[0].Bytes <= 0 {
			t.Errorf("%s: progress %+v, want rows %v, the last Done and bytes not decreasing", kind, got, rows)
		}
		for i := range min(len(got), 3) {
			if got[i].Rows != rows[i] {
				t.Errorf("%s: progress %d at %d rows, want %d", kind, i, got[i].Rows, rows[i])
			}
		}
		want, err := plain[kind]()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, tab) {
			t.Errorf("%s: the table with options differs from the one without", kind)
		}

		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		_, err = read[kind](ReadOptions{Context: ctx, Progress: func(ReadProgress) { calls++; cancel() }})
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), fmt.Sprintf("a.csv: reading stopped after %d rows", ChunkRows)) {
			t.Errorf("%s cancelled: %v, want context.Canceled after the first chunk", kind, err)
		}
		if calls != 1 {
			t.Errorf("%s cancelled: %d progress calls, want 1 (the context is checked after each report)", kind, calls)
		}
	}
}
