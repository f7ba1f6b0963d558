package corpus

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

const (
	// MaxWordID is the largest word id ReadLDAC accepts (2^31 − 2, so that
	// V = 1 + id fits in an int32).
	MaxWordID = math.MaxInt32 - 1
	// MaxCount is the largest count of one word in one document, after
	// duplicate ids are summed.
	MaxCount = 1_000_000_000
)

const ldacExpect = "expected M followed by M id:count pairs"

type pair struct {
	id    int32
	count int64
}

// ReadLDAC reads documents in LDA-C format: line i (0-based) is document i,
// written "M id:count id:count ..." with M the number of pairs and 0-based
// word ids. Document i gets the ID strconv.Itoa(i), its word ids sorted in
// increasing order with their counts, and N the sum of its counts.
//
// V is 1 + the largest word id in the file (also counting pairs whose count
// is 0), or 0 when there is none. The rules (see the package documentation)
// are: M must equal the number of pairs; ids are integers in [0, MaxWordID];
// counts are integers in [0, MaxCount]; pairs with count 0 are dropped; a
// word id repeated in one line has its counts summed; "0" alone is an empty
// document; a blank line is an error except at the end of the file.
func ReadLDAC(r io.Reader, name string) (docs []framework.Doc, V int, err error) {
	V, err = ScanLDAC(r, name, func(d framework.Doc, _ int) error {
		docs = append(docs, d)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return docs, V, nil
}

// ScanLDAC reads documents in LDA-C format as ReadLDAC does, one at a
// time: fn gets each document (ID strconv.Itoa(i) for the i-th, its own
// slices) with its line number, in order, and may keep it; an error from
// fn stops the scan and is returned. It holds one line at a time, so a
// corpus larger than memory can be streamed (an engine's driver writing
// shards, maslda-beam). V is as ReadLDAC's.
func ScanLDAC(r io.Reader, name string, fn func(d framework.Doc, line int) error) (V int, err error) {
	maxID := int64(-1)
	var ps []pair
	n := 0
	err = readLines(r, name, ldacExpect, func(line int, text string) error {
		var d framework.Doc
		var err error
		d, ps, err = parseLDACLine(name, line, text, ps[:0], &maxID)
		if err != nil {
			return err
		}
		d.ID = strconv.Itoa(n)
		n++
		return fn(d, line)
	})
	if err != nil {
		return 0, err
	}
	return int(maxID + 1), nil
}

func parseLDACLine(name string, line int, text string, ps []pair, maxID *int64) (framework.Doc, []pair, error) {
	tok := fields(text)
	m, ok, big := parseDigits(tok[0], math.MaxInt32)
	if !ok || big {
		return framework.Doc{}, ps, framework.Errorf(name, line, "M %q is not a non-negative integer: %s", tok[0], ldacExpect)
	}
	if int(m) != len(tok)-1 {
		return framework.Doc{}, ps, framework.Errorf(name, line, "M = %d but the line has %d id:count pairs: %s", m, len(tok)-1, ldacExpect)
	}
	for _, t := range tok[1:] {
		id, count, err := parsePair(name, line, t)
		if err != nil {
			return framework.Doc{}, ps, err
		}
		if id > *maxID {
			*maxID = id
		}
		if count > 0 {
			ps = append(ps, pair{int32(id), count})
		}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.id, b.id) })
	// Sum the counts of repeated ids in place.
	n := 0
	for _, p := range ps {
		if n > 0 && ps[n-1].id == p.id {
			ps[n-1].count += p.count
			if ps[n-1].count > MaxCount {
				return framework.Doc{}, ps, framework.Errorf(name, line, "the counts of word id %d add up to more than %d", p.id, MaxCount)
			}
			continue
		}
		ps[n] = p
		n++
	}
	ps = ps[:n]
	var d framework.Doc
	if n > 0 {
		d.Words = make([]int32, n)
		d.Counts = make([]float64, n)
		for j, p := range ps {
			d.Words[j] = p.id
			d.Counts[j] = float64(p.count)
			d.N += d.Counts[j]
		}
	}
	return d, ps, nil
}

// parsePair parses "id:count".
func parsePair(name string, line int, t string) (id, count int64, err error) {
	i := strings.IndexByte(t, ':')
	if i < 0 || strings.IndexByte(t[i+1:], ':') >= 0 {
		return 0, 0, framework.Errorf(name, line, "malformed pair %q: want id:count, e.g. 17:2", t)
	}
	is, cs := t[:i], t[i+1:]
	if is == "" || cs == "" {
		return 0, 0, framework.Errorf(name, line, "malformed pair %q: want id:count, e.g. 17:2", t)
	}
	id, ok, big := parseDigits(is, MaxWordID)
	switch {
	case !ok && is[0] == '-':
		return 0, 0, framework.Errorf(name, line, "pair %q: word id %s is negative (ids are 0-based)", t, is)
	case !ok:
		return 0, 0, framework.Errorf(name, line, "pair %q: word id %q is not a non-negative integer", t, is)
	case big:
		return 0, 0, framework.Errorf(name, line, "pair %q: word id %s is larger than %d", t, is, MaxWordID)
	}
	count, ok, big = parseDigits(cs, MaxCount)
	switch {
	case !ok && cs[0] == '-':
		return 0, 0, framework.Errorf(name, line, "pair %q: count %s is negative", t, cs)
	case !ok:
		return 0, 0, framework.Errorf(name, line, "pair %q: count %q is not a non-negative integer", t, cs)
	case big:
		return 0, 0, framework.Errorf(name, line, "pair %q: count %s is larger than %d", t, cs, MaxCount)
	}
	return id, count, nil
}

// CheckVocab reports the first word id that is outside a vocabulary of V
// terms (for example the terms of a vocabulary file) as an error on that
// document's line of the LDA-C file name (line = document index + 1).
func CheckVocab(docs []framework.Doc, V int, name string) error {
	for i := range docs {
		for _, w := range docs[i].Words {
			if w < 0 || int(w) >= V {
				return framework.Errorf(name, i+1, "word id %d is out of vocabulary: the vocabulary has %d terms (ids 0..%d)", w, V, V-1)
			}
		}
	}
	return nil
}

// WriteLDAC writes docs in LDA-C format, one line per document with its
// pairs in stored order. Counts must be positive integers of at most
// MaxCount and word ids non-negative; otherwise nothing more is written and
// the error wraps framework.ErrBadInput. IDs are not written.
func WriteLDAC(w io.Writer, docs []framework.Doc) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := range docs {
		d := &docs[i]
		if len(d.Words) != len(d.Counts) {
			return fmt.Errorf("%w: document %d: %d words but %d counts", framework.ErrBadInput, i, len(d.Words), len(d.Counts))
		}
		buf = strconv.AppendInt(buf[:0], int64(len(d.Words)), 10)
		for j, wd := range d.Words {
			c := d.Counts[j]
			if wd < 0 {
				return fmt.Errorf("%w: document %d: negative word id %d", framework.ErrBadInput, i, wd)
			}
			if !(c >= 1 && c <= MaxCount && c == math.Trunc(c)) {
				return fmt.Errorf("%w: document %d: count %v of word %d is not an integer in [1, %d]", framework.ErrBadInput, i, c, wd, MaxCount)
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(wd), 10)
			buf = append(buf, ':')
			buf = strconv.AppendInt(buf, int64(c), 10)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
