package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// ReadIDs reads document ids, one per line, with surrounding whitespace
// (and CR) removed. An empty id (a blank line before the last non-blank
// one), a carriage return inside an id and a repeated id are errors; blank
// lines at the end are ignored.
func ReadIDs(r io.Reader, name string) ([]string, error) {
	var ids []string
	first := map[string]int{}
	err := readLines(r, name, "expected one document id per line", func(line int, text string) error {
		id := trim(text)
		if err := checkUTF8(name, line, "id", id); err != nil {
			return err
		}
		if strings.IndexByte(id, '\r') >= 0 {
			return framework.Errorf(name, line, "id %q contains a carriage return", id)
		}
		if l, dup := first[id]; dup {
			return framework.Errorf(name, line, "duplicate id %q (first on line %d)", id, l)
		}
		first[id] = line
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// ApplyIDs sets docs[i].ID = ids[i]. The numbers of ids and documents must
// be equal; name is the ids file, named in the error.
func ApplyIDs(docs []framework.Doc, ids []string, name string) error {
	switch {
	case len(ids) > len(docs):
		return framework.Errorf(name, len(docs)+1, "id %q has no document: the file has %d ids but there are %d documents", ids[len(docs)], len(ids), len(docs))
	case len(ids) < len(docs):
		return framework.Errorf(name, 0, "the file has %d ids but there are %d documents", len(ids), len(docs))
	}
	for i := range docs {
		docs[i].ID = ids[i]
	}
	return nil
}

// ReadVocab reads a vocabulary: line v (1-based) is the term of word id
// v−1. The line ending (LF or CRLF) is removed and the rest is kept as is,
// spaces included. A blank line (empty or only whitespace) before the last
// term, a carriage return inside a term and a repeated term are errors;
// blank lines at the end are ignored.
func ReadVocab(r io.Reader, name string) ([]string, error) {
	var terms []string
	first := map[string]int{}
	err := readLines(r, name, "expected one term per line", func(line int, text string) error {
		if err := checkUTF8(name, line, "term", text); err != nil {
			return err
		}
		if strings.IndexByte(text, '\r') >= 0 {
			return framework.Errorf(name, line, "term %q contains a carriage return", text)
		}
		if l, dup := first[text]; dup {
			return framework.Errorf(name, line, "duplicate term %q (first on line %d)", text, l)
		}
		first[text] = line
		terms = append(terms, text)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return terms, nil
}

// WriteVocab writes terms one per line. A term that would not read back
// as itself (empty or only whitespace, containing a line break, or
// repeated) is an error wrapping framework.ErrBadInput.
func WriteVocab(w io.Writer, terms []string) error {
	bw := bufio.NewWriter(w)
	seen := make(map[string]int, len(terms))
	for v, t := range terms {
		if trim(t) == "" || strings.ContainsAny(t, "\r\n") {
			return fmt.Errorf("%w: term %d %q is blank or contains a line break", framework.ErrBadInput, v, t)
		}
		if u, dup := seen[t]; dup {
			return fmt.Errorf("%w: term %d %q repeats term %d", framework.ErrBadInput, v, t, u)
		}
		seen[t] = v
		bw.WriteString(t)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadColumn reads one value per line (for example a labels_train.txt file
// with one label per document), with surrounding whitespace removed. A
// blank line before the last value and a carriage return inside a value are
// errors; blank lines at the end are ignored. Values are not interpreted.
func ReadColumn(r io.Reader, name string) ([]string, error) {
	var vals []string
	err := readLines(r, name, "expected one value per line", func(line int, text string) error {
		v := trim(text)
		if err := checkUTF8(name, line, "value", v); err != nil {
			return err
		}
		if strings.IndexByte(v, '\r') >= 0 {
			return framework.Errorf(name, line, "value %q contains a carriage return", v)
		}
		vals = append(vals, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return vals, nil
}

// TruthFromColumn makes a positional truth table from ReadColumn's values:
// row i is the truth of document i (task strconv.Itoa(i), line i+1).
// Its Wide shape makes the resolvers require one value per document. Set
// Name to the file's name for error messages.
func TruthFromColumn(values []string) *TruthTable {
	t := &TruthTable{Rows: make([]TruthRow, len(values)), Wide: &WideShape{Rows: len(values), Cols: 1}}
	for i, v := range values {
		t.Rows[i] = TruthRow{Task: strconv.Itoa(i), Label: v, Line: i + 1}
	}
	return t
}
