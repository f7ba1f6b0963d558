package beamtrain

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// Shard is one shard of the corpus: an LDA-C file of Docs documents, the
// first of which is document Offset of the corpus, and, with answers, a
// file of their answers (gob, [][]framework.Answer).
type Shard struct {
	Path    string `json:"path"`
	Offset  int    `json:"offset"`
	Docs    int    `json:"docs"`
	Answers string `json:"answers,omitempty"`
}

// Layout is the corpus as shards (shards.json in the work directory):
// what the driver knows of the documents. Its memory is that of the list
// of shards, not of the documents.
type Layout struct {
	Docs   int     `json:"docs"`
	V      int     `json:"v"` // 1 + the largest word id of the documents (0 for none)
	Shards []Shard `json:"shards"`
}

func shardLDACPath(dir string, s int) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%05d.ldac", s))
}
func answersPath(dir string, s int) string {
	return filepath.Join(dir, fmt.Sprintf("answers-%05d.bin", s))
}

// checkVocab is the error of a word id outside a vocabulary of vocab
// terms (0: no vocabulary) on line of the file name.
func checkVocab(d *framework.Doc, vocab int, name string, line int) error {
	if vocab <= 0 {
		return nil
	}
	for _, w := range d.Words {
		if int(w) >= vocab {
			return framework.Errorf(name, line, "word id %d is out of vocabulary: the vocabulary has %d terms (ids 0..%d)", w, vocab, vocab-1)
		}
	}
	return nil
}

// shardWriter writes documents into LDA-C shard files of size documents
// each, every file through a temporary file and a rename.
type shardWriter struct {
	dir  string
	size int
	l    *Layout
	f    *os.File
	bw   *bufio.Writer
	one  [1]framework.Doc
}

func (w *shardWriter) add(d framework.Doc) error {
	if w.f == nil {
		s := len(w.l.Shards)
		path := shardLDACPath(w.dir, s)
		f, err := os.CreateTemp(w.dir, "."+filepath.Base(path)+".tmp-*")
		if err != nil {
			return err
		}
		w.f, w.bw = f, bufio.NewWriterSize(f, 1<<20)
		w.l.Shards = append(w.l.Shards, Shard{Path: path, Offset: w.l.Docs})
	}
	w.one[0] = d
	if err := corpus.WriteLDAC(w.bw, w.one[:]); err != nil {
		return err
	}
	sh := &w.l.Shards[len(w.l.Shards)-1]
	sh.Docs++
	w.l.Docs++
	if sh.Docs == w.size {
		return w.close()
	}
	return nil
}

// close finishes the open shard file (if any) by rename.
func (w *shardWriter) close() error {
	if w.f == nil {
		return nil
	}
	f := w.f
	w.f = nil
	err := w.bw.Flush()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), w.l.Shards[len(w.l.Shards)-1].Path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// abort removes the open shard's temporary file.
func (w *shardWriter) abort() {
	if w.f != nil {
		w.f.Close()
		os.Remove(w.f.Name())
		w.f = nil
	}
}

// newShardWriter starts a layout of shards of size documents in dir
// (created if need be).
func newShardWriter(dir string, size int) (*shardWriter, error) {
	if size < 1 {
		return nil, fmt.Errorf("%w: shards of %d documents, want ≥ 1", framework.ErrBadInput, size)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &shardWriter{dir: dir, size: size, l: &Layout{}}, nil
}

// ShardLDAC streams the LDA-C file docsPath into shard files of size
// documents in dir (shard-NNNNN.ldac, LDA-C: what corpus.ReadLDAC reads
// back as the same documents) and returns their layout; it holds one
// document at a time. vocab > 0 is the number of terms of a vocabulary
// file: a word id at or above it is an error. Errors name the file and
// line (corpus.ScanLDAC's, and the vocabulary's).
func ShardLDAC(ctx context.Context, docsPath string, vocab int, dir string, size int) (*Layout, error) {
	w, err := newShardWriter(dir, size)
	if err != nil {
		return nil, err
	}
	l := w.l
	V, err := corpus.ReadPath(docsPath, func(r io.Reader, name string) (int, error) {
		return corpus.ScanLDAC(r, name, func(d framework.Doc, line int) error {
			if l.Docs%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := checkVocab(&d, vocab, name, line); err != nil {
				return err
			}
			return w.add(d)
		})
	})
	if err == nil {
		err = w.close()
	}
	if err != nil {
		w.abort()
		return nil, err
	}
	if l.Docs == 0 {
		return nil, framework.Errorf(docsPath, 0, "no documents: the file is empty; expected one LDA-C line per document (M id:count ...)")
	}
	l.V = V
	return l, nil
}

// ScanShards takes LDA-C files that are already shards of a corpus, in
// the corpus's order (the first document of each follows the last of the
// one before), and returns their layout: each file is read through once
// (corpus.ScanLDAC, one document at a time) to count and check its
// documents; nothing is copied. vocab as in ShardLDAC.
func ScanShards(ctx context.Context, paths []string, vocab int) (*Layout, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no shard files", framework.ErrBadInput)
	}
	l := &Layout{}
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sh := Shard{Path: p, Offset: l.Docs}
		V, err := corpus.ReadPath(p, func(r io.Reader, name string) (int, error) {
			return corpus.ScanLDAC(r, name, func(d framework.Doc, line int) error {
				sh.Docs++
				return checkVocab(&d, vocab, name, line)
			})
		})
		if err != nil {
			return nil, err
		}
		if sh.Docs == 0 {
			return nil, framework.Errorf(p, 0, "no documents: a shard file must hold at least one LDA-C line")
		}
		l.Docs += sh.Docs
		l.V = max(l.V, V)
		l.Shards = append(l.Shards, sh)
	}
	return l, nil
}

// WriteCorpusShards writes the documents (and answers) of an in-memory
// corpus as shards of size documents in dir.
func WriteCorpusShards(c *framework.Corpus, dir string, size int) (*Layout, error) {
	w, err := newShardWriter(dir, size)
	if err != nil {
		return nil, err
	}
	l := w.l
	for _, d := range c.Docs {
		if err := w.add(d); err != nil {
			w.abort()
			return nil, err
		}
		for _, x := range d.Words {
			l.V = max(l.V, int(x)+1)
		}
	}
	if err := w.close(); err != nil {
		return nil, err
	}
	if c.Answers != nil {
		if err := l.WriteAnswers(dir, c.Answers); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// WriteAnswers writes each shard's answers (a.ByDoc of its documents) to
// answers-NNNNN.bin in dir and records the files in the layout.
func (l *Layout) WriteAnswers(dir string, a *framework.Answers) error {
	if len(a.ByDoc) != l.Docs {
		return fmt.Errorf("%w: answers for %d documents, the shards hold %d", framework.ErrBadInput, len(a.ByDoc), l.Docs)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for s := range l.Shards {
		sh := &l.Shards[s]
		p := answersPath(dir, s)
		if err := writeGob(p, a.ByDoc[sh.Offset:sh.Offset+sh.Docs]); err != nil {
			return err
		}
		sh.Answers = p
	}
	return nil
}

// readShard reads shard s's documents (and answers, when it has them),
// checking them against the layout.
func (l *Layout) readShard(s int) ([]framework.Doc, [][]framework.Answer, error) {
	sh := l.Shards[s]
	docs, err := corpus.ReadPath(sh.Path, func(r io.Reader, name string) ([]framework.Doc, error) {
		d, _, err := corpus.ReadLDAC(r, name)
		return d, err
	})
	if err != nil {
		return nil, nil, err
	}
	if len(docs) != sh.Docs {
		return nil, nil, fmt.Errorf("%w: %s has %d documents, the shards' layout says %d (was it changed?)", framework.ErrBadInput, sh.Path, len(docs), sh.Docs)
	}
	var ans [][]framework.Answer
	if sh.Answers != "" {
		if err := readGob(sh.Answers, &ans); err != nil {
			return nil, nil, err
		}
		if len(ans) != sh.Docs {
			return nil, nil, fmt.Errorf("%w: %s has the answers of %d documents, its shard %d", framework.ErrBadInput, sh.Answers, len(ans), sh.Docs)
		}
	}
	return docs, ans, nil
}

// shardOf is the shard holding document d.
func (l *Layout) shardOf(d int) int {
	s, found := slices.BinarySearchFunc(l.Shards, d, func(sh Shard, d int) int {
		switch {
		case d < sh.Offset:
			return 1
		case d >= sh.Offset+sh.Docs:
			return -1
		}
		return 0
	})
	if !found {
		return -1
	}
	return s
}

// Fetch returns the documents of the given indices in that order, each
// shard read once (models.CorpusInfo.Fetch: the seeded initial topics).
func (l *Layout) Fetch(idx []int) ([]framework.Doc, error) {
	out := make([]framework.Doc, len(idx))
	need := map[int][]int{} // shard → positions in idx
	for i, d := range idx {
		s := l.shardOf(d)
		if s < 0 {
			return nil, fmt.Errorf("%w: document %d is in no shard (%d documents)", framework.ErrBadInput, d, l.Docs)
		}
		need[s] = append(need[s], i)
	}
	shards := make([]int, 0, len(need))
	for s := range need {
		shards = append(shards, s)
	}
	slices.Sort(shards)
	for _, s := range shards {
		docs, _, err := l.readShard(s)
		if err != nil {
			return nil, err
		}
		for _, i := range need[s] {
			out[i] = docs[idx[i]-l.Shards[s].Offset]
		}
	}
	return out, nil
}

// check refuses a layout whose shards do not follow one another.
func (l *Layout) check() error {
	off := 0
	for s, sh := range l.Shards {
		if sh.Offset != off || sh.Docs < 1 {
			return fmt.Errorf("%w: shard %d (%s) starts at document %d with %d documents; want the start %d and at least one", framework.ErrBadInput, s, sh.Path, sh.Offset, sh.Docs, off)
		}
		off += sh.Docs
	}
	if off != l.Docs || off == 0 {
		return fmt.Errorf("%w: the shards hold %d documents, the layout says %d", framework.ErrBadInput, off, l.Docs)
	}
	return nil
}

// writeLayout writes shards.json in dir.
func (l *Layout) write(dir string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, "shards.json"), append(b, '\n'))
}
