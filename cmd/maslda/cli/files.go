package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/maslda/maslda/cmd/maslda/internal/atomicfile"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// withFile opens path and calls read with it.
func withFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	var zero T
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	return read(bufio.NewReaderSize(f, 1<<20), path)
}

// loadDocs reads documents (LDA-C), optional ids and an optional vocabulary.
// With a vocabulary V is its size and every word id must be below it;
// without one V is 1 + the largest id (at least minV).
func loadDocs(docsPath, idsPath, vocabPath string, minV int) (*framework.Corpus, error) {
	type ldac struct {
		docs []framework.Doc
		v    int
	}
	got, err := withFile(docsPath, func(r io.Reader, name string) (ldac, error) {
		d, v, err := corpus.ReadLDAC(r, name)
		return ldac{d, v}, err
	})
	if err != nil {
		return nil, err
	}
	c := &framework.Corpus{Docs: got.docs, V: max(got.v, minV, 1)}
	if idsPath != "" {
		ids, err := withFile(idsPath, corpus.ReadIDs)
		if err != nil {
			return nil, err
		}
		if err := corpus.ApplyIDs(c.Docs, ids, idsPath); err != nil {
			return nil, err
		}
	}
	if vocabPath != "" {
		vocab, err := withFile(vocabPath, corpus.ReadVocab)
		if err != nil {
			return nil, err
		}
		if err := corpus.CheckVocab(c.Docs, len(vocab), docsPath); err != nil {
			return nil, err
		}
		if minV > 0 && len(vocab) != minV {
			return nil, fmt.Errorf("%w: %s has %d terms, the model's vocabulary has %d", framework.ErrBadInput, vocabPath, len(vocab), minV)
		}
		c.V, c.Vocab = len(vocab), vocab
	}
	return c, nil
}

func docIDs(c *framework.Corpus) []string {
	ids := make([]string, len(c.Docs))
	for i := range c.Docs {
		ids[i] = c.Docs[i].ID
	}
	return ids
}

// loadAnswers reads answers (CSV task,worker,label, or a wide matrix).
func loadAnswers(csvPath, widePath, missing string) (*corpus.AnswerTable, error) {
	switch {
	case csvPath != "" && widePath != "":
		return nil, fmt.Errorf("%w: give --answers or --answers-wide, not both", errUsage)
	case csvPath != "":
		return withFile(csvPath, corpus.ReadAnswers)
	case widePath != "":
		return withFile(widePath, func(r io.Reader, name string) (*corpus.AnswerTable, error) {
			return corpus.ReadWideAnswers(r, name, missing)
		})
	}
	return nil, nil
}

// writeFileAtomic writes path through a temporary file in the same
// directory, renamed into place only when complete (atomicfile.Write).
func writeFileAtomic(path string, fill func(w io.Writer) error) error {
	return atomicfile.Write(path, fill)
}

func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// readTruthTable reads ground truth from --truth (CSV task,label) or
// --truth-column (one label per line; task = line number from 0). It
// returns nil, nil when neither is given.
func readTruthTable(csvPath, colPath string) (*corpus.TruthTable, error) {
	switch {
	case csvPath != "" && colPath != "":
		return nil, fmt.Errorf("%w: give --truth or --truth-column, not both", errUsage)
	case csvPath != "":
		return withFile(csvPath, corpus.ReadTruth)
	case colPath != "":
		vals, err := withFile(colPath, corpus.ReadColumn)
		if err != nil {
			return nil, err
		}
		t := corpus.TruthFromColumn(vals)
		t.Name = colPath
		return t, nil
	}
	return nil, nil
}
