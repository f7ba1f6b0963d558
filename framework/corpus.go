package framework

import (
	"fmt"
	"math"
)

// Doc is one document in the sparse LDA-C representation: unique word ids
// with their counts (MODEL.md, "Notation": w_d = {(v, n_dv)}).
type Doc struct {
	ID     string    // the document's identifier (its line number unless an ids file gives one)
	Words  []int32   // unique word ids, each in [0, V)
	Counts []float64 // n_dv > 0, aligned with Words
	N      float64   // N_d = Σ_v n_dv
}

// Len is the number of unique words.
func (d *Doc) Len() int { return len(d.Words) }

// Answer is one annotator's answer for one document, resolved to indices.
type Answer struct {
	Annotator int32   // annotator index into Answers.Annotators
	Class     int32   // class index into Answers.Classes; -1 for numeric answers
	Value     float64 // the numeric answer; for categorical answers, float64(Class)
}

// Answers holds every answer of a corpus, grouped by document.
type Answers struct {
	Annotators []string   // annotator names; index = Answer.Worker
	Classes    []string   // class names for categorical answers; nil for numeric ones
	ByDoc      [][]Answer // ByDoc[d] are the answers for document d (may be empty)
}

// Count is the total number of answers.
func (a *Answers) Count() int {
	n := 0
	for _, x := range a.ByDoc {
		n += len(x)
	}
	return n
}

// OrderAnnotators renumbers the annotators to the order of names (a saved
// model's, for a warm start): Annotators becomes names and every
// Answer.Annotator is remapped; an annotator of names who gave no answer here
// keeps its place. An annotator who answered but is not in names is an
// error wrapping ErrBadInput that names it.
func (a *Answers) OrderAnnotators(names []string) error {
	pos := make(map[string]int32, len(names))
	for i, n := range names {
		if _, dup := pos[n]; dup {
			return fmt.Errorf("%w: annotator %q listed twice", ErrBadInput, n)
		}
		pos[n] = int32(i)
	}
	remap := make([]int32, len(a.Annotators))
	for i, w := range a.Annotators {
		k, ok := pos[w]
		if !ok {
			return fmt.Errorf("%w: annotator %q is not one of the %d annotators %v", ErrBadInput, w, len(names), names)
		}
		remap[i] = k
	}
	for _, x := range a.ByDoc {
		for j := range x {
			x[j].Annotator = remap[x[j].Annotator]
		}
	}
	a.Annotators = append([]string(nil), names...)
	return nil
}

// DocMean is the mean of a document's answer values; ok is false when it
// has no answers.
func DocMean(as []Answer) (mean float64, ok bool) {
	if len(as) == 0 {
		return 0, false
	}
	for _, x := range as {
		mean += x.Value
	}
	return mean / float64(len(as)), true
}

// MeanDocMean is the mean, over the documents with answers, of each
// document's mean answer (DocMean); 0 when there are none or the result is
// not finite. The numeric responses start their prior mean there.
func (a *Answers) MeanDocMean() float64 {
	sum, n := 0.0, 0
	for _, as := range a.ByDoc {
		if m, ok := DocMean(as); ok {
			sum += m
			n++
		}
	}
	if n == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		return 0
	}
	return sum / float64(n)
}

// Check checks that a holds the answers of docs documents, each with an
// annotator and (categorical answers) a class in range: Corpus.Validate's
// check of its answers, for a corpus whose documents are not held
// (models.BuildGlobals).
func (a *Answers) Check(docs int) error {
	if len(a.ByDoc) != docs {
		return fmt.Errorf("%w: answers for %d documents, corpus has %d", ErrBadInput, len(a.ByDoc), docs)
	}
	for d, as := range a.ByDoc {
		for _, x := range as {
			if x.Annotator < 0 || int(x.Annotator) >= len(a.Annotators) {
				return fmt.Errorf("%w: document %d: annotator index %d outside [0, %d)", ErrBadInput, d, x.Annotator, len(a.Annotators))
			}
			if a.Classes != nil && (x.Class < 0 || int(x.Class) >= len(a.Classes)) {
				return fmt.Errorf("%w: document %d: class index %d outside [0, %d)", ErrBadInput, d, x.Class, len(a.Classes))
			}
		}
	}
	return nil
}

// Numeric reports whether the answers are numbers rather than classes.
func (a *Answers) Numeric() bool { return a.Classes == nil }

// Corpus is a set of documents over a vocabulary of size V, with optional
// term strings and optional crowd answers.
type Corpus struct {
	Docs    []Doc
	V       int      // vocabulary size; every word id is < V
	Vocab   []string // optional: Vocab[v] is the term of word id v (len V when set)
	Answers *Answers // optional: nil for plain LDA or prediction
}

// Validate checks the invariants every component relies on, so that a
// programmatically built corpus gets an error rather than a panic.
func (c *Corpus) Validate() error {
	if c.V <= 0 {
		return fmt.Errorf("%w: vocabulary size %d, want > 0", ErrBadInput, c.V)
	}
	if c.Vocab != nil && len(c.Vocab) != c.V {
		return fmt.Errorf("%w: vocabulary has %d terms but V = %d", ErrBadInput, len(c.Vocab), c.V)
	}
	for i := range c.Docs {
		d := &c.Docs[i]
		if len(d.Words) != len(d.Counts) {
			return fmt.Errorf("%w: document %d: %d words but %d counts", ErrBadInput, i, len(d.Words), len(d.Counts))
		}
		n := 0.0
		for j, w := range d.Words {
			if w < 0 || int(w) >= c.V {
				return fmt.Errorf("%w: document %d: word id %d outside [0, %d)", ErrBadInput, i, w, c.V)
			}
			if !(d.Counts[j] > 0) || d.Counts[j] > 1e15 {
				return fmt.Errorf("%w: document %d: count %v for word %d, want a positive finite number", ErrBadInput, i, d.Counts[j], w)
			}
			n += d.Counts[j]
		}
		if n != d.N {
			return fmt.Errorf("%w: document %d: N = %v but counts sum to %v", ErrBadInput, i, d.N, n)
		}
	}
	if c.Answers != nil {
		if err := c.Answers.Check(len(c.Docs)); err != nil {
			return err
		}
	}
	return nil
}

// Tokens is the total number of tokens Σ_d N_d.
func (c *Corpus) Tokens() float64 {
	t := 0.0
	for i := range c.Docs {
		t += c.Docs[i].N
	}
	return t
}
