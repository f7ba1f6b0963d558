package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/textprep"
)

// corpusDir is a directory `maslda prepare` wrote: its documents, ids,
// vocabulary and labels, each "" when absent (the documents are not).
type corpusDir struct {
	dir, docs, ids, vocab, labels string
}

// openCorpusDir finds the files of --corpus DIR: DIR itself, or for a
// split corpus (prepare --split) DIR/part (train or test).
func openCorpusDir(dir, part string) (*corpusDir, error) {
	if !exists(filepath.Join(dir, textprep.DocsFile)) {
		sub := filepath.Join(dir, part)
		if !exists(filepath.Join(sub, textprep.DocsFile)) {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("%w: --corpus %s: not a directory (a directory that maslda prepare wrote)", framework.ErrBadInput, dir)
			}
			return nil, fmt.Errorf("%w: --corpus %s: no %s there nor in %s/ (maslda prepare --out DIR writes one)", framework.ErrBadInput, dir, textprep.DocsFile, part)
		}
		dir = sub
	}
	c := &corpusDir{dir: dir, docs: filepath.Join(dir, textprep.DocsFile)}
	for _, f := range []struct {
		path *string
		name string
	}{{&c.ids, textprep.IDsFile}, {&c.vocab, textprep.VocabFile}, {&c.labels, textprep.LabelsFile}} {
		if p := filepath.Join(dir, f.name); exists(p) {
			*f.path = p
		}
	}
	return c, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// useCorpusDir sets the flags --corpus stands for, refusing those given
// beside it: docs, ids and vocab always (they must agree), the truth only
// when not given otherwise (labels.csv is the documents' own labels).
func (c *corpusDir) apply(docs, ids, vocab *string, truth ...*string) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"docs", docs}, {"ids", ids}, {"vocab", vocab}} {
		if f.v != nil && *f.v != "" {
			return fmt.Errorf("%w: --corpus gives --%s (%s): not both", errUsage, f.name, c.dir)
		}
	}
	*docs = c.docs
	if ids != nil {
		*ids = c.ids
	}
	if vocab != nil {
		*vocab = c.vocab
	}
	given := false
	for _, t := range truth {
		given = given || *t != ""
	}
	if len(truth) > 0 && !given {
		*truth[0] = c.labels
	}
	return nil
}

// idsHint adds to an answer whose task is not a document, when the
// documents were numbered from 0 (no --ids) but prepare's ids.txt lies
// beside them, how to use it.
func idsHint(err error, docsPath, idsPath string) error {
	if err == nil || idsPath != "" || docsPath == "" || !strings.Contains(err.Error(), "is not a document") {
		return err
	}
	ids := filepath.Join(filepath.Dir(docsPath), textprep.IDsFile)
	if _, statErr := os.Stat(ids); errors.Is(statErr, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w (without --ids the documents are numbered from 0; give --ids %s, or --corpus %s for the whole prepared corpus)", err, ids, filepath.Dir(docsPath))
}
