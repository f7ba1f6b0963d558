package textprep

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func writeTemp(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// doc is the part of a Document the tests compare.
type doc struct {
	ID, Text, Label string
	HasLabel        bool
	Line            int
}

// readAll opens o and reads every document.
func readAll(t *testing.T, o InputOptions) ([]doc, Source, error) {
	t.Helper()
	src, err := Open(o)
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { src.Close() })
	var docs []doc
	for {
		d, err := src.Next()
		if err == io.EOF {
			return docs, src, nil
		}
		if err != nil {
			return docs, src, err
		}
		docs = append(docs, doc{d.ID, d.Text, d.Label, d.HasLabel, d.Line})
	}
}

func mustReadAll(t *testing.T, o InputOptions) ([]doc, Source) {
	t.Helper()
	docs, src, err := readAll(t, o)
	if err != nil {
		t.Fatal(err)
	}
	return docs, src
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func TestReadCSV(t *testing.T) {
	content := "\ufeffText,ID,extra,Label\n\"multi\nline, \"\"quoted\"\"\",d1,x, pos \nplain,d2,y,\n"
	p := writeTemp(t, t.TempDir(), "in.csv", content)
	docs, src := mustReadAll(t, InputOptions{Path: p, Format: CSV, IDColumn: "id", TextColumn: "text", LabelColumn: "label"})
	want := []doc{
		{ID: "d1", Text: "multi\nline, \"quoted\"", Label: "pos", HasLabel: true, Line: 2},
		{ID: "d2", Text: "plain", Line: 4},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantIn := []InputFile{{Role: "input", Path: p, SHA256: sha(content), Bytes: int64(len(content))}}
	if diff := cmp.Diff(wantIn, src.Inputs()); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	// Without an id column the id is the record's line.
	docs, _ = mustReadAll(t, InputOptions{Path: p, Format: CSV, TextColumn: "text"})
	if docs[0].ID != "2" || docs[1].ID != "4" {
		t.Errorf("ids %q %q, want 2 and 4", docs[0].ID, docs[1].ID)
	}
}

func TestReadJSONL(t *testing.T) {
	content := `{"id": 7, "text": "first doc", "label": "a"}` + "\n\n" +
		`{"ID": "x", "Text": "second", "label": null, "more": [1]}` + "\r\n" +
		`{"id": "y", "text": "third", "label": 2.5}`
	p := writeTemp(t, t.TempDir(), "in.jsonl", content)
	docs, _ := mustReadAll(t, InputOptions{Path: p, Format: JSONL, IDColumn: "id", TextColumn: "text", LabelColumn: "label"})
	want := []doc{
		{ID: "7", Text: "first doc", Label: "a", HasLabel: true, Line: 1},
		{ID: "x", Text: "second", Line: 3},
		{ID: "y", Text: "third", Label: "2.5", HasLabel: true, Line: 4},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, dir, "in.txt", "first doc\n\n  \nfourth\n\n\n")
	docs, _ := mustReadAll(t, InputOptions{Path: p, Format: Lines})
	want := []doc{{ID: "1", Text: "first doc", Line: 1}, {ID: "2", Line: 2}, {ID: "3", Line: 3}, {ID: "4", Text: "fourth", Line: 4}}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p = writeTemp(t, dir, "r8.txt", "earn\tprofit rose\tsharply\r\nacq\tbuys stake\n")
	docs, _ = mustReadAll(t, InputOptions{Path: p, Format: Lines, LineFields: []string{"label", "text"}})
	want = []doc{
		{ID: "1", Text: "profit rose\tsharply", Label: "earn", HasLabel: true, Line: 1},
		{ID: "2", Text: "buys stake", Label: "acq", HasLabel: true, Line: 2},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p = writeTemp(t, dir, "ids.txt", "a1\t0.5\tgood film\n")
	docs, _ = mustReadAll(t, InputOptions{Path: p, Format: Lines, LineFields: []string{"id", "label", "text"}})
	if diff := cmp.Diff([]doc{{ID: "a1", Text: "good film", Label: "0.5", HasLabel: true, Line: 1}}, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReadDir(t *testing.T) {
	root := t.TempDir()
	writeTemp(t, root, "comp.graphics/1", "pixels")
	writeTemp(t, root, "comp.graphics/2.txt", "shaders")
	writeTemp(t, root, "sci.space/10", "orbits")
	writeTemp(t, root, "sci.space/.hidden", "skip me")
	writeTemp(t, root, ".git/config", "skip me")
	writeTemp(t, root, "README", "top level")
	docs, src := mustReadAll(t, InputOptions{Path: root, Format: Dir, LabelDir: true})
	want := []doc{
		{ID: "README", Text: "top level"},
		{ID: "comp.graphics/1", Text: "pixels", Label: "comp.graphics", HasLabel: true},
		{ID: "comp.graphics/2.txt", Text: "shaders", Label: "comp.graphics", HasLabel: true},
		{ID: "sci.space/10", Text: "orbits", Label: "sci.space", HasLabel: true},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	listing := sha("top level") + "  README\n" + sha("pixels") + "  comp.graphics/1\n" + sha("shaders") + "  comp.graphics/2.txt\n" + sha("orbits") + "  sci.space/10\n"
	wantIn := []InputFile{{Role: "input", Path: root, SHA256: sha(listing), Bytes: 28, Files: 4}}
	if diff := cmp.Diff(wantIn, src.Inputs()); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if done, total := src.Progress(); done != 28 || total != 28 {
		t.Errorf("progress %d/%d, want 28/28", done, total)
	}
	docs, _ = mustReadAll(t, InputOptions{Path: root, Format: Dir, Include: []string{"*.txt", "sci.space/*"}})
	if len(docs) != 2 || docs[0].ID != "comp.graphics/2.txt" || docs[1].ID != "sci.space/10" {
		t.Errorf("include: got %+v", docs)
	}
}

// makeTar writes a tar archive of files (in order), gzip-compressed if gz.
func makeTar(t *testing.T, path string, gz bool, files [][2]string) {
	t.Helper()
	var buf bytes.Buffer
	var w io.Writer = &buf
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = zw
	}
	tw := tar.NewWriter(w)
	for _, f := range files {
		if strings.HasSuffix(f[0], "/") {
			tw.WriteHeader(&tar.Header{Name: f[0], Typeflag: tar.TypeDir, Mode: 0o755})
			continue
		}
		tw.WriteHeader(&tar.Header{Name: f[0], Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f[1]))})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	if zw != nil {
		zw.Close()
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadTar(t *testing.T) {
	files := [][2]string{
		{"./data/", ""},
		{"./data/train/rec.autos/1", "engines"},
		{"./data/train/._rec.autos", "mac junk"},
		{"./data/test/sci.med/2", "caf\xe9"},
	}
	for _, gz := range []bool{true, false} {
		p := filepath.Join(t.TempDir(), "a.tar.gz")
		makeTar(t, p, gz, files)
		docs, src := mustReadAll(t, InputOptions{Path: p, Format: Dir, LabelDir: true, Encoding: Latin1})
		want := []doc{
			{ID: "data/train/rec.autos/1", Text: "engines", Label: "rec.autos", HasLabel: true},
			{ID: "data/test/sci.med/2", Text: "café", Label: "sci.med", HasLabel: true},
		}
		if diff := cmp.Diff(want, docs); diff != "" {
			t.Errorf("gzip %v: (-want +got):\n%s", gz, diff)
		}
		raw, _ := os.ReadFile(p)
		if in := src.Inputs(); len(in) != 1 || in[0].SHA256 != sha(string(raw)) || in[0].Bytes != int64(len(raw)) {
			t.Errorf("gzip %v: inputs %+v, want the archive's checksum", gz, in)
		}
		// In UTF-8 the Latin-1 byte is an error naming the member and line.
		_, _, err := readAll(t, InputOptions{Path: p, Format: Dir})
		if err == nil || err.Error() != p+":data/test/sci.med/2:1: invalid UTF-8 (byte 0xe9); if the file is Latin-1, use the latin1 encoding" {
			t.Errorf("gzip %v: err = %v", gz, err)
		}
	}
	p := writeTemp(t, t.TempDir(), "not.tar", "just some text, not an archive at all......")
	if _, _, err := readAll(t, InputOptions{Path: p, Format: Dir}); err == nil || !strings.Contains(err.Error(), "not a directory or a readable tar archive") {
		t.Errorf("err = %v", err)
	}
}

func TestEncodings(t *testing.T) {
	dir := t.TempDir()
	p := writeTemp(t, dir, "l1.txt", "caf\xe9 \xfcber\n\xff\n")
	docs, _ := mustReadAll(t, InputOptions{Path: p, Format: Lines, Encoding: Latin1})
	if len(docs) != 2 || docs[0].Text != "café über" || docs[1].Text != "ÿ" {
		t.Errorf("latin1: %+v", docs)
	}
	_, _, err := readAll(t, InputOptions{Path: p, Format: Lines})
	if err == nil || err.Error() != p+":1: invalid UTF-8 (byte 0xe9); if the file is Latin-1, use the latin1 encoding" {
		t.Errorf("err = %v", err)
	}
	p = writeTemp(t, dir, "trunc.txt", "ok\nends in \xe2\x82")
	if _, _, err := readAll(t, InputOptions{Path: p, Format: Lines}); err == nil || err.Error() != p+":2: invalid UTF-8 (byte 0xe2); if the file is Latin-1, use the latin1 encoding" {
		t.Errorf("err = %v", err)
	}
	if _, err := Open(InputOptions{Path: p, Format: Lines, Encoding: "utf16"}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("utf16: err = %v", err)
	}
}

// TestUTF8Reader reads through the decoder in reads of every size.
func TestUTF8Reader(t *testing.T) {
	text := strings.Repeat("héllo wörld ✓ 😀\n", 5000)
	for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader, iotest.DataErrReader, func(r io.Reader) io.Reader { return r }} {
		dec, _ := decoder(wrap(strings.NewReader("\ufeff"+text)), "x", UTF8)
		got, err := io.ReadAll(iotest.OneByteReader(dec))
		if err != nil || string(got) != text {
			t.Fatalf("err %v, text intact %v", err, string(got) == text)
		}
	}
	bad := strings.Repeat("ok ✓\n", 3000) + "bad \xc3( here"
	dec, _ := decoder(iotest.HalfReader(strings.NewReader(bad)), "x", UTF8)
	got, err := io.ReadAll(dec)
	if err == nil || err.Error() != "x:3001: invalid UTF-8 (byte 0xc3); if the file is Latin-1, use the latin1 encoding" {
		t.Errorf("err = %v", err)
	}
	if string(got) != bad[:len(bad)-len("\xc3( here")] {
		t.Errorf("the valid text before the error was not delivered whole")
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		opt           InputOptions
		want          string // the error, with FILE for the path
	}{
		{"csv missing column", "doc,body,label\n1,x,y\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:1: header has columns "doc", "body", "label"; want "id", "text" (missing "id", "text")`},
		{"csv broken quoting", "id,text\n1,\"fine\"\n2,bro\"ken\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:3: broken CSV quoting at column 6: bare " in non-quoted-field (a field with a quote must be quoted and its quotes doubled)`},
		{"csv unterminated quote", "id,text\n1,\"never closed\n2,x\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:3: broken CSV quoting at column 5 (in the record that starts on line 2): extraneous or missing " in quoted-field (a field with a quote must be quoted and its quotes doubled)`},
		{"csv field count", "id,text\n1,x,extra\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:2: wrong number of fields: the header has 2`},
		{"csv empty", "", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:1: empty file: expected a header line naming the columns "id", "text"`},
		{"csv empty id", "id,text\n ,x\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"}, `FILE:2: empty id`},
		{"csv invalid utf-8", "id,text\n1,ok\n2,caf\xe9\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"},
			`FILE:3: invalid UTF-8 (byte 0xe9); if the file is Latin-1, use the latin1 encoding`},
		{"jsonl missing key", "{\"id\":1,\"text\":\"a\"}\n{\"id\":2,\"body\":\"b\"}\n", InputOptions{Format: JSONL, IDColumn: "id", TextColumn: "text"},
			`FILE:2: object has keys "body", "id"; want "id", "text" (missing "text")`},
		{"jsonl bad json", "{\"id\":1,\"text\":\"a\"\n", InputOptions{Format: JSONL, IDColumn: "id", TextColumn: "text"},
			`FILE:1: bad JSON: unexpected end of JSON input`},
		{"jsonl not an object", "[1,2]\n", InputOptions{Format: JSONL, IDColumn: "id", TextColumn: "text"},
			`FILE:1: not a JSON object: want one object per line`},
		{"jsonl text not a string", "{\"id\":1,\"text\":{}}\n", InputOptions{Format: JSONL, IDColumn: "id", TextColumn: "text"},
			`FILE:1: key "text": an object or array: want a string or number`},
		{"jsonl null text", "{\"id\":1,\"text\":null}\n", InputOptions{Format: JSONL, IDColumn: "id", TextColumn: "text"},
			`FILE:1: key "text" is null: want the text as a string`},
		{"lines too few fields", "earn\tok\nno tab here\n", InputOptions{Format: Lines, LineFields: []string{"label", "text"}},
			`FILE:2: 1 tab-separated fields, want 2 (label, text)`},
		{"lines blank line with fields", "earn\tok\n\nacq\tx\n", InputOptions{Format: Lines, LineFields: []string{"label", "text"}},
			`FILE:2: blank line: want 2 tab-separated fields (label, text)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, dir, strings.ReplaceAll(tc.name, " ", "_"), tc.content)
			tc.opt.Path = p
			_, _, err := readAll(t, tc.opt)
			want := strings.ReplaceAll(tc.want, "FILE", p)
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant %s", err, want)
			}
			var le *framework.LineError
			if !errors.As(err, &le) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("%T is not a *framework.LineError", err)
			}
		})
	}
}

func TestOpenOptions(t *testing.T) {
	p := writeTemp(t, t.TempDir(), "x.txt", "a\n")
	for _, o := range []InputOptions{
		{Path: p, Format: "xml"},
		{Path: p, Format: CSV},
		{Path: p, Format: Lines, LineFields: []string{"text", "id"}},
		{Path: p, Format: Lines, LineFields: []string{"id", "id", "text"}},
		{Path: p, Format: Lines, LineFields: []string{"id"}},
		{Path: p, Format: Lines, LineFields: []string{"name", "text"}},
		{Path: p, Format: Lines, Include: []string{"*"}},
		{Path: p, Format: Dir, Include: []string{"[bad"}},
	} {
		if src, err := Open(o); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("Open(%+v): err = %v", o, err)
			if src != nil {
				src.Close()
			}
		}
	}
}

func TestLabelMap(t *testing.T) {
	rules, err := ReadLabelMap(strings.NewReader("# 20NG\ncomp.*\tcomp\n\ntalk.politics.*  politics\n"), "m.txt")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]LabelRule{{"comp.*", "comp"}, {"talk.politics.*", "politics"}}, rules); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for in, want := range map[string]string{"comp.graphics": "comp", "talk.politics.guns": "politics", "talk.religion.misc": "", "comp": ""} {
		if got, ok := MapLabel(rules, in); got != want || ok != (want != "") {
			t.Errorf("MapLabel(%q) = %q, %v", in, got, ok)
		}
	}
	for content, want := range map[string]string{
		"comp.* comp extra\n": `m.txt:1: 3 fields: want a pattern and a label, e.g. "comp.* comp"`,
		"ok x\n[bad y\n":      `m.txt:2: pattern "[bad": syntax error in pattern`,
		"# nothing\n":         `m.txt: no rules: want lines "pattern label"`,
	} {
		if _, err := ReadLabelMap(strings.NewReader(content), "m.txt"); err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %s", content, err, want)
		}
	}
}
