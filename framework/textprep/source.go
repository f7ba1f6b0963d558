package textprep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/maslda/maslda/framework/corpus"
	"hash"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// Format is the layout of the input.
type Format string

// Input formats.
const (
	// CSV: RFC 4180 with a header; one record per document.
	CSV Format = "csv"
	// JSONL: one JSON object per line; blank lines are skipped.
	JSONL Format = "jsonl"
	// Dir: a directory tree, or a tar archive (optionally gzip-compressed),
	// with one document per regular file.
	Dir Format = "dir"
	// Lines: one document per line, optionally with tab-separated id and
	// label fields before the text.
	Lines Format = "lines"
)

// InputOptions says where the documents are and how to read them.
type InputOptions struct {
	Path     string   `json:"path"`
	Format   Format   `json:"format"`
	Encoding Encoding `json:"encoding"`
	// CSV and JSONL: the columns (keys) of the document id, text and
	// label, matched ignoring letter case. An empty IDColumn numbers the
	// documents by line; an empty LabelColumn means no labels.
	IDColumn    string `json:"id_column,omitempty"`
	TextColumn  string `json:"text_column,omitempty"`
	LabelColumn string `json:"label_column,omitempty"`
	// Lines: the tab-separated fields of a line, from "id", "label" and
	// "text", with "text" last (it takes the rest of the line, tabs
	// included). Default: just "text". Without an id field a document's id
	// is its line number.
	LineFields []string `json:"line_fields,omitempty"`
	// Dir: LabelDir labels each document with the name of its parent
	// directory (files at the top have no label); Include, when not empty,
	// keeps only the files whose name or slash-separated path below the
	// input matches one of the path.Match globs.
	LabelDir bool     `json:"label_dir,omitempty"`
	Include  []string `json:"include,omitempty"`
}

// Labeled reports whether the options give documents labels.
func (o *InputOptions) Labeled() bool {
	switch o.Format {
	case CSV, JSONL:
		return o.LabelColumn != ""
	case Lines:
		return slices.Contains(o.LineFields, "label")
	case Dir:
		return o.LabelDir
	}
	return false
}

// Document is one raw document.
type Document struct {
	ID       string
	Text     string
	Label    string // meaningful when HasLabel
	HasLabel bool
	File     string // where it was read, for errors
	Line     int    // its first line in File (0 for a whole file)
}

// InputFile identifies a file that was read, for the manifest.
type InputFile struct {
	Role   string `json:"role"` // "input", "stopwords", "vocab", "label-map"
	Path   string `json:"path"`
	SHA256 string `json:"sha256"` // of the bytes; for a directory, see Dir
	Bytes  int64  `json:"bytes"`
	Files  int    `json:"files,omitempty"` // a directory's files read
}

// Source yields documents in a fixed order. Next returns io.EOF after the
// last one; Inputs is complete after that.
type Source interface {
	Next() (*Document, error)
	Options() InputOptions
	Inputs() []InputFile
	// Progress is how many of the total input bytes were read so far.
	Progress() (done, total int64)
	Close() error
}

// maxLineBytes bounds a line of the line-based formats (JSONL, lines).
var maxLineBytes = 64 << 20

// Open opens the input. It checks the options and, for CSV, reads the
// header. Labels, ids and text are validated as documents are read.
func Open(o InputOptions) (Source, error) {
	if o.Encoding == "" {
		o.Encoding = UTF8
	}
	if o.Encoding != UTF8 && o.Encoding != Latin1 {
		return nil, fmt.Errorf("%w: encoding %q; valid: utf8, latin1", framework.ErrBadInput, o.Encoding)
	}
	for _, g := range o.Include {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("%w: include glob %q: %v", framework.ErrBadInput, g, err)
		}
	}
	if len(o.Include) > 0 && o.Format != Dir {
		return nil, fmt.Errorf("%w: include globs apply to the dir format only", framework.ErrBadInput)
	}
	switch o.Format {
	case CSV, JSONL:
		if o.TextColumn == "" {
			return nil, fmt.Errorf("%w: no text column given", framework.ErrBadInput)
		}
	case Lines:
		if len(o.LineFields) == 0 {
			o.LineFields = []string{"text"}
		}
		if err := checkLineFields(o.LineFields); err != nil {
			return nil, err
		}
	case Dir:
		fi, err := os.Stat(o.Path)
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			return openDir(o)
		}
		return openTar(o)
	default:
		return nil, fmt.Errorf("%w: format %q; valid: csv, jsonl, dir, lines", framework.ErrBadInput, o.Format)
	}
	in, err := openInput(o.Path)
	if err != nil {
		return nil, err
	}
	dec, err := decoder(in.r, o.Path, o.Encoding)
	if err != nil {
		in.f.Close()
		return nil, err
	}
	s := &streamSource{opt: o, in: in}
	switch o.Format {
	case CSV:
		err = s.openCSV(dec)
	default:
		s.br = bufio.NewReaderSize(dec, 64<<10)
	}
	if err != nil {
		in.f.Close()
		return nil, err
	}
	return s, nil
}

func checkLineFields(f []string) error {
	seen := map[string]bool{}
	for i, x := range f {
		if x != "id" && x != "label" && x != "text" {
			return fmt.Errorf("%w: line field %q; valid: id, label, text", framework.ErrBadInput, x)
		}
		if seen[x] {
			return fmt.Errorf("%w: line field %q given twice", framework.ErrBadInput, x)
		}
		seen[x] = true
		if x == "text" && i != len(f)-1 {
			return fmt.Errorf("%w: line fields %s: text must be the last field", framework.ErrBadInput, strings.Join(f, ","))
		}
	}
	if !seen["text"] {
		return fmt.Errorf("%w: line fields %s: no text field", framework.ErrBadInput, strings.Join(f, ","))
	}
	return nil
}

// input is a file read through a byte counter and a SHA-256 hash.
type input struct {
	path string
	f    *os.File
	size int64
	cnt  counter
	h    hash.Hash
	r    io.Reader // the file's bytes, counted and hashed
}

type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func openInput(p string) (*input, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s is a directory (use the dir format)", framework.ErrBadInput, p)
	}
	in := &input{path: p, f: f, size: fi.Size(), h: sha256.New()}
	in.cnt.r = f
	in.r = io.TeeReader(&in.cnt, in.h)
	return in, nil
}

// finish reads the rest of the file into the hash and describes it.
func (in *input) finish() (InputFile, error) {
	if _, err := io.Copy(io.Discard, in.r); err != nil {
		return InputFile{}, err
	}
	return InputFile{Role: "input", Path: in.path, SHA256: hex.EncodeToString(in.h.Sum(nil)), Bytes: in.cnt.n}, nil
}

// streamSource reads CSV, JSONL and lines files.
type streamSource struct {
	opt    InputOptions
	in     *input
	done   []InputFile
	cr     *csv.Reader
	cols   [3]int // CSV: id, text, label columns (-1: none)
	nf     int
	br     *bufio.Reader
	line   int
	buf    []byte
	blanks []int       // lines format: blank lines not yet known to be inside the file
	queue  []*Document // lines format: documents read ahead
}

func (s *streamSource) Options() InputOptions         { return s.opt }
func (s *streamSource) Inputs() []InputFile           { return s.done }
func (s *streamSource) Progress() (done, total int64) { return s.in.cnt.n, s.in.size }
func (s *streamSource) Close() error                  { return s.in.f.Close() }

func (s *streamSource) Next() (*Document, error) {
	var d *Document
	var err error
	switch s.opt.Format {
	case CSV:
		d, err = s.nextCSV()
	case JSONL:
		d, err = s.nextJSONL()
	default:
		d, err = s.nextLine()
	}
	if err == io.EOF && s.done == nil {
		f, ferr := s.in.finish()
		if ferr != nil {
			return nil, ferr
		}
		s.done = []InputFile{f}
	}
	return d, err
}

// wantColumns lists the configured columns: id (may be empty), text, label
// (may be empty).
func (s *streamSource) wantColumns() []string {
	return []string{s.opt.IDColumn, s.opt.TextColumn, s.opt.LabelColumn}
}

func (s *streamSource) describeWant() string {
	var w []string
	for _, c := range s.wantColumns() {
		if c != "" {
			w = append(w, strconv.Quote(c))
		}
	}
	return strings.Join(w, ", ")
}

// matchColumns finds the configured columns among names (exact match
// first, else ignoring case). It returns the index of each (-1 when not
// configured) and the missing ones.
func (s *streamSource) matchColumns(names []string) (cols [3]int, missing []string, err error) {
	for k, want := range s.wantColumns() {
		cols[k] = -1
		if want == "" {
			continue
		}
		if j := slices.Index(names, want); j >= 0 {
			cols[k] = j
			continue
		}
		for j, n := range names {
			if strings.EqualFold(n, want) {
				if cols[k] >= 0 {
					return cols, nil, fmt.Errorf("columns %q and %q both match %q", names[cols[k]], n, want)
				}
				cols[k] = j
			}
		}
		if cols[k] < 0 {
			missing = append(missing, strconv.Quote(want))
		}
	}
	return cols, missing, nil
}

func (s *streamSource) openCSV(r io.Reader) error {
	name := s.opt.Path
	s.cr = csv.NewReader(r)
	s.cr.FieldsPerRecord = 0
	s.cr.ReuseRecord = true
	header, err := s.cr.Read()
	if err == io.EOF {
		return framework.Errorf(name, 1, "empty file: expected a header line naming the columns %s", s.describeWant())
	}
	if err != nil {
		return csvError(name, err, 0)
	}
	names := make([]string, len(header))
	for j, h := range header {
		names[j] = strings.TrimSpace(h)
	}
	cols, missing, err := s.matchColumns(names)
	if err != nil {
		return framework.Errorf(name, 1, "header: %v", err)
	}
	if missing != nil {
		return framework.Errorf(name, 1, "header has columns %s; want %s (missing %s)", corpus.QuoteList(names), s.describeWant(), strings.Join(missing, ", "))
	}
	s.cols, s.nf = cols, len(header)
	return nil
}

func (s *streamSource) nextCSV() (*Document, error) {
	rec, err := s.cr.Read()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, csvError(s.opt.Path, err, s.nf)
	}
	line, _ := s.cr.FieldPos(0)
	get := func(k int) string { return rec[s.cols[k]] }
	return s.document(line, s.cols[0] >= 0, get, s.cols[2] >= 0)
}

// document builds a document from the fields of a record; get(0) is the
// id, get(1) the text and get(2) the label.
func (s *streamSource) document(line int, hasID bool, get func(k int) string, hasLabel bool) (*Document, error) {
	d := &Document{File: s.opt.Path, Line: line, Text: get(1)}
	if hasID {
		d.ID = strings.TrimSpace(get(0))
		if d.ID == "" {
			return nil, framework.Errorf(s.opt.Path, line, "empty id")
		}
	} else {
		d.ID = strconv.Itoa(line)
	}
	if hasLabel {
		d.Label = strings.TrimSpace(get(2))
		d.HasLabel = d.Label != ""
	}
	return d, nil
}

// csvError turns an encoding/csv error into a *framework.LineError.
func csvError(name string, err error, nf int) error {
	var le *framework.LineError
	if errors.As(err, &le) {
		return err
	}
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", name, err)
	}
	where := ""
	if pe.StartLine != 0 && pe.StartLine != pe.Line {
		where = fmt.Sprintf(" (in the record that starts on line %d)", pe.StartLine)
	}
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		return framework.Errorf(name, pe.Line, "wrong number of fields: the header has %d", nf)
	case errors.Is(pe.Err, csv.ErrQuote), errors.Is(pe.Err, csv.ErrBareQuote):
		return framework.Errorf(name, pe.Line, "broken CSV quoting at column %d%s: %v (a field with a quote must be quoted and its quotes doubled)", pe.Column, where, pe.Err)
	}
	return framework.Errorf(name, pe.Line, "bad CSV%s: %v", where, pe.Err)
}

// readLine reads the next line without its line ending (LF or CRLF).
func (s *streamSource) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.buf = append(s.buf, chunk...)
		if len(s.buf) > maxLineBytes {
			return nil, framework.Errorf(s.opt.Path, s.line+1, "line longer than the limit of %d bytes", maxLineBytes)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || len(s.buf) == 0) {
			var le *framework.LineError
			if err != io.EOF && !errors.As(err, &le) {
				err = fmt.Errorf("%s: %w", s.opt.Path, err)
			}
			return nil, err
		}
		s.line++
		b := bytes.TrimSuffix(s.buf, []byte("\n"))
		return bytes.TrimSuffix(b, []byte("\r")), nil
	}
}

func (s *streamSource) nextJSONL() (*Document, error) {
	for {
		b, err := s.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		return s.parseJSON(b)
	}
}

func (s *streamSource) parseJSON(b []byte) (*Document, error) {
	name, line := s.opt.Path, s.line
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, framework.Errorf(name, line, "not a JSON object: want one object per line")
		}
		return nil, framework.Errorf(name, line, "bad JSON: %v", err)
	}
	if obj == nil {
		return nil, framework.Errorf(name, line, "not a JSON object: want one object per line")
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	cols, missing, err := s.matchColumns(keys)
	if err != nil {
		return nil, framework.Errorf(name, line, "%v", err)
	}
	if missing != nil {
		return nil, framework.Errorf(name, line, "object has keys %s; want %s (missing %s)", corpus.QuoteList(keys), s.describeWant(), strings.Join(missing, ", "))
	}
	var vals [3]string
	var null [3]bool
	for k, c := range cols {
		if c < 0 {
			continue
		}
		v, isNull, err := jsonScalar(obj[keys[c]])
		if err != nil {
			return nil, framework.Errorf(name, line, "key %q: %v", keys[c], err)
		}
		vals[k], null[k] = v, isNull
	}
	if null[1] {
		return nil, framework.Errorf(name, line, "key %q is null: want the text as a string", keys[cols[1]])
	}
	if cols[0] >= 0 && null[0] {
		return nil, framework.Errorf(name, line, "key %q is null: want the id as a string or number", keys[cols[0]])
	}
	return s.document(line, cols[0] >= 0, func(k int) string { return vals[k] }, cols[2] >= 0 && !null[2])
}

// jsonScalar gives the text of a JSON string, number or boolean.
func jsonScalar(raw json.RawMessage) (v string, null bool, err error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return "", true, nil
	case raw[0] == '"':
		err = json.Unmarshal(raw, &v)
		return v, false, err
	case string(raw) == "null":
		return "", true, nil
	case string(raw) == "true" || string(raw) == "false" || raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'):
		return string(raw), false, nil
	}
	return "", false, fmt.Errorf("an object or array: want a string or number")
}

// nextLine reads the lines format. Blank lines are empty documents when
// the line is only text, errors otherwise; blank lines at the end of the
// file are ignored either way.
func (s *streamSource) nextLine() (*Document, error) {
	fields := s.opt.LineFields
	for len(s.queue) == 0 {
		b, err := s.readLine()
		if err != nil {
			return nil, err // io.EOF drops pending blank lines at the end
		}
		if len(bytes.TrimSpace(b)) == 0 {
			s.blanks = append(s.blanks, s.line)
			continue
		}
		if len(s.blanks) > 0 {
			if len(fields) > 1 {
				return nil, framework.Errorf(s.opt.Path, s.blanks[0], "blank line: want %d tab-separated fields (%s)", len(fields), strings.Join(fields, ", "))
			}
			for _, l := range s.blanks {
				s.queue = append(s.queue, &Document{ID: strconv.Itoa(l), File: s.opt.Path, Line: l})
			}
			s.blanks = s.blanks[:0]
		}
		d, err := s.parseLine(s.line, string(b))
		if err != nil {
			return nil, err
		}
		s.queue = append(s.queue, d)
	}
	d := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	return d, nil
}

func (s *streamSource) parseLine(line int, text string) (*Document, error) {
	fields := s.opt.LineFields
	parts := strings.SplitN(text, "\t", len(fields))
	if len(parts) < len(fields) {
		return nil, framework.Errorf(s.opt.Path, line, "%d tab-separated fields, want %d (%s)", len(parts), len(fields), strings.Join(fields, ", "))
	}
	var vals [3]string
	for i, f := range fields {
		switch f {
		case "id":
			vals[0] = parts[i]
		case "text":
			vals[1] = parts[i]
		case "label":
			vals[2] = parts[i]
		}
	}
	return s.document(line, slices.Contains(fields, "id"), func(k int) string { return vals[k] }, slices.Contains(fields, "label"))
}
