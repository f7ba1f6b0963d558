package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/maslda/maslda/cmd/maslda/internal/atomicfile"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// withFile opens path and calls read with it (corpus.ReadPath).
func withFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	return corpus.ReadPath(path, read)
}

// loadDocs reads documents (LDA-C), optional ids and an optional
// vocabulary (corpus.ReadFiles).
func loadDocs(docsPath, idsPath, vocabPath string, minV int) (*framework.Corpus, error) {
	return corpus.ReadFiles(docsPath, idsPath, vocabPath, minV)
}

func docIDs(c *framework.Corpus) []string {
	ids := make([]string, len(c.Docs))
	for i := range c.Docs {
		ids[i] = c.Docs[i].ID
	}
	return ids
}

// loadAnswers reads answers (CSV task,worker,label, or a wide matrix),
// refusing a repeated answer of a worker for a task (loadTrainAnswers
// chooses). ctx stops the reading (exit 130); e logs progress on a large
// file (e may be nil: no progress).
func loadAnswers(ctx context.Context, e *env, csvPath, widePath, missing string) (*corpus.AnswerTable, error) {
	return loadTrainAnswers(ctx, e, csvPath, widePath, missing, corpus.DupError)
}

// loadTrainAnswers is loadAnswers with dup deciding what becomes of
// repeated answers in a CSV file (a wide matrix has one cell per worker
// and task, so none).
func loadTrainAnswers(ctx context.Context, e *env, csvPath, widePath, missing string, dup corpus.Duplicates) (*corpus.AnswerTable, error) {
	opt := corpus.ReadOptions{Duplicates: dup, Context: ctx}
	if e != nil {
		opt.Progress = readProgress(e, csvPath+widePath)
	}
	switch {
	case csvPath != "" && widePath != "":
		return nil, fmt.Errorf("%w: give --answers or --answers-wide, not both", errUsage)
	case csvPath != "":
		return withFile(csvPath, func(r io.Reader, name string) (*corpus.AnswerTable, error) {
			return corpus.ReadAnswersOpts(r, name, opt)
		})
	case widePath != "":
		return withFile(widePath, func(r io.Reader, name string) (*corpus.AnswerTable, error) {
			return corpus.ReadWideAnswersOpts(r, name, missing, opt)
		})
	}
	return nil, nil
}

// readProgress logs a reader's progress (corpus.ReadOptions.Progress):
// a line at info at most once a second while a large file loads, and one
// when it is read if any was logged before.
func readProgress(e *env, file string) func(corpus.ReadProgress) {
	start := time.Now()
	last := start
	logged := false
	return func(p corpus.ReadProgress) {
		now := time.Now()
		switch {
		case p.Done && logged:
			e.log.Info("read", "file", file, "rows", p.Rows, "MB", float64(p.Bytes)/1e6, "seconds", now.Sub(start).Seconds())
		case !p.Done && now.Sub(last) >= time.Second:
			e.log.Info("reading", "file", file, "rows", p.Rows, "MB", float64(p.Bytes)/1e6)
			last, logged = now, true
		}
	}
}

// readClasses reads a --classes file: one class per line, in order (the
// vocabulary format), as train, eval and simulate read it. A value that
// names no file but has a comma is the comma-separated list --classes is
// not: the error says so.
func readClasses(path string) ([]string, error) {
	if _, err := os.Stat(path); os.IsNotExist(err) && strings.Contains(path, ",") {
		return nil, fmt.Errorf("%w: --classes %s: no such file; --classes names a file with one class per line, in order (train, eval and simulate alike), not a comma-separated list: e.g. printf '%%s\\n' %s > classes.txt, then --classes classes.txt", errUsage, path, strings.Join(strings.Split(path, ","), " "))
	}
	return withFile(path, corpus.ReadVocab)
}

// classTwins is a warning when classes differ only in Unicode
// normalisation (normalisationTwins), "" otherwise; file names
// where they were read.
func classTwins(file string, classes []string) string {
	tw := normalisationTwins(classes)
	if tw == nil {
		return ""
	}
	parts := make([]string, len(tw))
	for i, g := range tw {
		q := make([]string, len(g))
		for j, l := range g {
			q[j] = strconv.QuoteToASCII(l) // the code points: they print alike
		}
		parts[i] = strings.Join(q, ", ")
	}
	return fmt.Sprintf("%s: labels %s differ only in Unicode normalisation (NFC and NFD spellings): they print alike but are different classes; write each label one way (e.g. convert the file to NFC with uconv -x any-nfc)", file, strings.Join(parts, "; "))
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

// input is a command's input path and the flag that named it.
type inPath struct{ flag, path string }

// checkOverlap refuses an output that is one of the inputs, lies inside an
// input (a model directory), or contains one (the output directory is
// replaced as a whole). Paths are compared after resolving symbolic links.
func checkOverlap(outFlag, out string, inputs ...inPath) error {
	ro := resolvePath(out)
	if filepath.Dir(ro) == ro {
		return fmt.Errorf("%w: --%s %s is the file-system root, which cannot be replaced; name a new directory or file", framework.ErrBadInput, outFlag, out)
	}
	for _, in := range inputs {
		if in.path == "" {
			continue
		}
		ri := resolvePath(in.path)
		switch {
		case ri == ro:
			return fmt.Errorf("%w: --%s %s is --%s: the output would overwrite the input", errUsage, outFlag, out, in.flag)
		case pathWithin(ro, ri):
			return fmt.Errorf("%w: --%s %s contains --%s %s: the output would replace the input", errUsage, outFlag, out, in.flag, in.path)
		case pathWithin(ri, ro):
			return fmt.Errorf("%w: --%s %s is inside --%s %s: write the output elsewhere", errUsage, outFlag, out, in.flag, in.path)
		}
	}
	return nil
}

// resolvePath is path made absolute with symbolic links resolved as far
// as it exists.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs
	}
	return filepath.Join(resolvePath(parent), filepath.Base(abs))
}

// pathWithin reports whether path is strictly inside dir (both resolved).
func pathWithin(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkOutFile fails early when an output file cannot be written: it is a
// directory, or its directory cannot be created or written (a temporary
// file is created there and removed).
func checkOutFile(outFlag, path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%w: --%s %s is a directory; name a file", framework.ErrBadInput, outFlag, path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--%s %s: %w", outFlag, path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check-")
	if err != nil {
		return fmt.Errorf("--%s %s: cannot write in %s: %w", outFlag, path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// stdoutPath is the --out of a command writing one table that means
// standard output.
const stdoutPath = "-"

// checkOutTable checks the --out of a command that writes one table: not
// an input (checkOverlap) and writable (checkOutFile); standard output
// ("-") always is.
func checkOutTable(outFlag, out string, inputs ...inPath) error {
	if out == stdoutPath {
		return nil
	}
	if err := checkOverlap(outFlag, out, inputs...); err != nil {
		return err
	}
	return checkOutFile(outFlag, out)
}

// writeTable writes a table to path atomically, or to standard output when
// path is "-" (whole: nothing is printed when fill fails).
func (e *env) writeTable(path string, fill func(w io.Writer) error) error {
	if path != stdoutPath {
		return writeFileAtomic(path, fill)
	}
	var buf bytes.Buffer
	if err := fill(&buf); err != nil {
		return err
	}
	_, err := e.stdout.Write(buf.Bytes())
	return err
}
