package corpus

import (
	"errors"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestInvalidUTF8 (issue 30, item 4): a vocabulary term, an id, a label,
// a task or a worker that is not valid UTF-8 is an error naming the file
// and line (a framework.LineError), in every reader of terms and labels;
// valid UTF-8 (and a BOM) is read as before.
func TestInvalidUTF8(t *testing.T) {
	read := map[string]func(s string) error{
		"vocab":   func(s string) error { _, err := ReadVocab(strings.NewReader(s), "v.txt"); return err },
		"ids":     func(s string) error { _, err := ReadIDs(strings.NewReader(s), "v.txt"); return err },
		"column":  func(s string) error { _, err := ReadColumn(strings.NewReader(s), "v.txt"); return err },
		"answers": func(s string) error { _, err := ReadAnswers(strings.NewReader(s), "v.txt"); return err },
		"truth":   func(s string) error { _, err := ReadTruth(strings.NewReader(s), "v.txt"); return err },
		"wide":    func(s string) error { _, err := ReadWideAnswers(strings.NewReader(s), "v.txt", "-1"); return err },
	}
	for _, tc := range []struct {
		reader, input string
		line          int // 0: no error
		what          string
	}{
		{"vocab", "café\nna\xefve\n", 2, "term"},
		{"vocab", "\xef\xbb\xbfcafé\nnaïve\n", 0, ""},
		{"vocab", "ok\n\xc3\x28\n", 2, "term"},
		{"ids", "d1\nd\xff2\n", 2, "id"},
		{"column", "pos\n\xe9t\xe9\n", 2, "value"},
		{"answers", "task,worker,label\n0,w1,pos\n0,w2,n\xe9g\n", 3, "label"},
		{"answers", "task,worker,label\n0,w\xff,pos\n", 2, "worker"},
		{"answers", "task,worker,label\n\xff,w1,pos\n", 2, "task"},
		{"answers", "task,worker,label\n0,w1,négatif\n", 0, ""},
		{"truth", "task,label\n0,\xe9\n", 2, "label"},
		{"wide", "1 2\n3 \xff\n", 2, "row"},
	} {
		err := read[tc.reader](tc.input)
		if tc.line == 0 {
			if err != nil {
				t.Errorf("%s %q: %v", tc.reader, tc.input, err)
			}
			continue
		}
		var le *framework.LineError
		if !errors.As(err, &le) || le.File != "v.txt" || le.Line != tc.line || !errors.Is(err, framework.ErrBadInput) ||
			!strings.Contains(err.Error(), tc.what) || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("%s %q: %v; want v.txt:%d naming the %s as not valid UTF-8", tc.reader, tc.input, err, tc.line, tc.what)
		}
	}
}
