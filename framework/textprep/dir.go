package textprep

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/maslda/maslda/framework"
)

// included reports whether a file at slash path rel below the input is
// read: no element of rel starts with "." (hidden files and directories are
// skipped), and with include globs its name or rel matches one.
func included(rel string, include []string) bool {
	for _, e := range strings.Split(rel, "/") {
		if strings.HasPrefix(e, ".") {
			return false
		}
	}
	if len(include) == 0 {
		return true
	}
	base := path.Base(rel)
	for _, g := range include {
		if ok, _ := path.Match(g, base); ok {
			return true
		}
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
	}
	return false
}

// fileDocument makes the document of the file at slash path rel.
func fileDocument(o *InputOptions, file, rel, text string) *Document {
	d := &Document{ID: rel, Text: text, File: file}
	if dir := path.Dir(rel); o.LabelDir && dir != "." {
		d.Label, d.HasLabel = path.Base(dir), true
	}
	return d
}

// readText reads a whole file's text through the encoding's decoder.
func readText(r io.Reader, name string, enc Encoding) (string, error) {
	dec, err := decoder(r, name, enc)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if _, err := io.Copy(&b, dec); err != nil {
		var le *framework.LineError
		if !errors.As(err, &le) {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return "", err
	}
	return b.String(), nil
}

// dirSource walks a directory tree in lexical order, one frame per open
// directory, so that memory is proportional to the depth and the largest
// directory, not to the tree.
type dirSource struct {
	opt     InputOptions
	stack   []dirFrame
	listing hash.Hash // "sha256  path\n" of each file read, as sha256sum prints
	files   int
	read    int64
	total   int64
	done    []InputFile
}

type dirFrame struct {
	rel     string // slash path below the root ("" for the root)
	entries []os.DirEntry
	i       int
}

func openDir(o InputOptions) (*dirSource, error) {
	s := &dirSource{opt: o, listing: sha256.New()}
	// A first walk for the total size, for progress.
	err := filepath.WalkDir(o.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(o.Path, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if included(rel, o.Include) {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				s.total += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(o.Path)
	if err != nil {
		return nil, err
	}
	s.stack = []dirFrame{{entries: entries}}
	return s, nil
}

func (s *dirSource) Options() InputOptions         { return s.opt }
func (s *dirSource) Inputs() []InputFile           { return s.done }
func (s *dirSource) Progress() (done, total int64) { return s.read, s.total }
func (s *dirSource) Close() error                  { return nil }

func (s *dirSource) Next() (*Document, error) {
	for len(s.stack) > 0 {
		top := &s.stack[len(s.stack)-1]
		if top.i == len(top.entries) {
			s.stack = s.stack[:len(s.stack)-1]
			continue
		}
		e := top.entries[top.i]
		top.i++
		rel := path.Join(top.rel, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		full := filepath.Join(s.opt.Path, filepath.FromSlash(rel))
		if e.IsDir() {
			entries, err := os.ReadDir(full)
			if err != nil {
				return nil, err
			}
			s.stack = append(s.stack, dirFrame{rel: rel, entries: entries})
			continue
		}
		if !included(rel, s.opt.Include) {
			continue
		}
		fi, err := os.Stat(full) // follows symbolic links
		if err != nil {
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if strings.ContainsAny(rel, "\r\n") {
			return nil, framework.Errorf(full, 0, "file name contains a line break: it cannot be a document id")
		}
		text, sum, n, err := s.readFile(full)
		if err != nil {
			return nil, err
		}
		s.files++
		s.read += n
		fmt.Fprintf(s.listing, "%s  %s\n", sum, rel)
		return fileDocument(&s.opt, full, rel, text), nil
	}
	if s.done == nil {
		s.done = []InputFile{{Role: "input", Path: s.opt.Path, SHA256: hex.EncodeToString(s.listing.Sum(nil)), Bytes: s.read, Files: s.files}}
	}
	return nil, io.EOF
}

func (s *dirSource) readFile(full string) (text, sum string, n int64, err error) {
	f, err := os.Open(full)
	if err != nil {
		return "", "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	c := &counter{r: f}
	text, err = readText(io.TeeReader(c, h), full, s.opt.Encoding)
	if err != nil {
		return "", "", 0, err
	}
	return text, hex.EncodeToString(h.Sum(nil)), c.n, nil
}

// tarSource reads the regular files of a tar archive, gzip-compressed or
// not, in archive order.
type tarSource struct {
	opt  InputOptions
	in   *input
	gz   *gzip.Reader
	tr   *tar.Reader
	done []InputFile
}

func openTar(o InputOptions) (*tarSource, error) {
	in, err := openInput(o.Path)
	if err != nil {
		return nil, err
	}
	s := &tarSource{opt: o, in: in}
	br := bufio.NewReaderSize(in.r, 64<<10)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if s.gz, err = gzip.NewReader(br); err != nil {
			in.f.Close()
			return nil, framework.Errorf(o.Path, 0, "not a gzip-compressed tar archive: %v", err)
		}
		r = s.gz
	}
	s.tr = tar.NewReader(r)
	return s, nil
}

func (s *tarSource) Options() InputOptions         { return s.opt }
func (s *tarSource) Inputs() []InputFile           { return s.done }
func (s *tarSource) Progress() (done, total int64) { return s.in.cnt.n, s.in.size }
func (s *tarSource) Close() error                  { return s.in.f.Close() }

func (s *tarSource) Next() (*Document, error) {
	for {
		hdr, err := s.tr.Next()
		if err == io.EOF {
			if s.done == nil {
				f, err := s.in.finish()
				if err != nil {
					return nil, err
				}
				s.done = []InputFile{f}
			}
			return nil, io.EOF
		}
		if err != nil {
			return nil, framework.Errorf(s.opt.Path, 0, "not a directory or a readable tar archive: %v", err)
		}
		if hdr.Typeflag != tar.TypeReg && hdr.Typeflag != '\x00' {
			continue
		}
		rel := strings.TrimPrefix(path.Clean("/"+hdr.Name), "/")
		if rel == "" || !included(rel, s.opt.Include) {
			continue
		}
		name := s.opt.Path + ":" + rel
		if strings.ContainsAny(rel, "\r\n") {
			return nil, framework.Errorf(name, 0, "file name contains a line break: it cannot be a document id")
		}
		text, err := readText(s.tr, name, s.opt.Encoding)
		if err != nil {
			return nil, err
		}
		return fileDocument(&s.opt, name, rel, text), nil
	}
}
