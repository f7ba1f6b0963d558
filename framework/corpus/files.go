package corpus

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/maslda/maslda/framework"
)

// ReadPath opens path and calls read (any reader of this package, or one of
// the same shape) on it, buffered, with path as the file's name in errors.
func ReadPath[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	return read(bufio.NewReaderSize(f, 1<<20), path)
}

// ReadFiles reads a corpus from its files: documents (LDA-C), optional ids
// (one per line, in document order) and an optional vocabulary (one term per
// line). With a vocabulary V is its size and every word id must be below it
// (and, when minV > 0, a model's vocabulary size, equal to it); without one
// V is 1 + the largest id (at least minV). Errors name the file and line.
func ReadFiles(docsPath, idsPath, vocabPath string, minV int) (*framework.Corpus, error) {
	type ldac struct {
		docs []framework.Doc
		v    int
	}
	got, err := ReadPath(docsPath, func(r io.Reader, name string) (ldac, error) {
		d, v, err := ReadLDAC(r, name)
		return ldac{d, v}, err
	})
	if err != nil {
		return nil, err
	}
	if len(got.docs) == 0 {
		return nil, framework.Errorf(docsPath, 0, "no documents: the file is empty; expected one LDA-C line per document (M id:count ...)")
	}
	c := &framework.Corpus{Docs: got.docs, V: max(got.v, minV, 1)}
	if idsPath != "" {
		ids, err := ReadPath(idsPath, ReadIDs)
		if err != nil {
			return nil, err
		}
		if err := ApplyIDs(c.Docs, ids, idsPath); err != nil {
			return nil, err
		}
	}
	if vocabPath != "" {
		vocab, err := ReadPath(vocabPath, ReadVocab)
		if err != nil {
			return nil, err
		}
		if err := CheckVocab(c.Docs, len(vocab), docsPath); err != nil {
			return nil, err
		}
		if minV > 0 && len(vocab) != minV {
			return nil, fmt.Errorf("%w: %s has %d terms, the model's vocabulary has %d", framework.ErrBadInput, vocabPath, len(vocab), minV)
		}
		c.V, c.Vocab = len(vocab), vocab
	}
	return c, nil
}
