package textprep

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"
)

// FuzzTokenizer: the pipeline never panics and, with lower-casing and
// stemming, yields non-empty lower-case tokens without whitespace (valid
// UTF-8 when the text is).
func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{
		"", "Hello, World!", newsPost, "don’t stop", "İstanbul ǅ ΣΑΣ", "e-mail 3.14 x_y __",
		"東京都 naïve café", "a\u0301\u200d\u00ad b", "\xff\xfeabc", "-- \n\n>quote\n|x\nIn article",
		"RUNNING generously caresses", "yyy y'y 'tis", "\r\n\r\n\r",
	} {
		f.Add(s, true, true)
	}
	tokenizers := map[[2]bool]*Tokenizer{}
	for _, strip := range []bool{false, true} {
		for _, bigrams := range []bool{false, true} {
			o := DefaultTokenOptions()
			o.StripHeaders, o.StripFooters, o.StripQuotes, o.Bigrams = strip, strip, strip, bigrams
			o.MinLength = 1
			tk, err := NewTokenizer(o)
			if err != nil {
				f.Fatal(err)
			}
			tokenizers[[2]bool{strip, bigrams}] = tk
		}
	}
	f.Fuzz(func(t *testing.T, text string, strip, bigrams bool) {
		tk := tokenizers[[2]bool{strip, bigrams}]
		toks := tk.Tokens(nil, text)
		cache := stemCache{}
		if again := tk.tokens(nil, text, cache); strings.Join(again, "\x00") != strings.Join(toks, "\x00") {
			t.Fatalf("cached and uncached tokens differ: %q vs %q", again, toks)
		}
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("empty token in %q", toks)
			}
			if strings.ToLower(tok) != tok {
				t.Fatalf("token %q is not lower case", tok)
			}
			if strings.IndexFunc(tok, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
				t.Fatalf("token %q has whitespace or a control character", tok)
			}
			if utf8.ValidString(text) && !utf8.ValidString(tok) {
				t.Fatalf("token %q is not valid UTF-8", tok)
			}
		}
	})
}

// FuzzDecoder: the UTF-8 decoder passes valid text through unchanged
// whatever the read sizes, and fails on invalid text on the line of the
// first invalid byte; Latin-1 always decodes to valid UTF-8 of the same
// number of runes as bytes.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte("héllo\nwörld ✓\n"))
	f.Add([]byte("ok\n\xe2\x82"))
	f.Add([]byte("\xef\xbb\xbfbom"))
	f.Add([]byte("a\nb\xff\nc"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec, _ := decoder(iotest.OneByteReader(bytes.NewReader(data)), "x", UTF8)
		got, err := io.ReadAll(dec)
		want := bytes.TrimPrefix(data, []byte("\ufeff"))
		if utf8.Valid(data) {
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("valid input: err %v, got %q", err, got)
			}
		} else {
			if err == nil {
				t.Fatalf("invalid input accepted")
			}
			// got is the valid prefix; the error is on its line.
			if !bytes.HasPrefix(want, got) || !utf8.Valid(got) {
				t.Fatalf("prefix %q of %q", got, want)
			}
			line := bytes.Count(got, []byte("\n")) + 1
			if !strings.HasPrefix(err.Error(), "x:"+strconv.Itoa(line)+": invalid UTF-8") {
				t.Fatalf("err %v, want line %d", err, line)
			}
		}
		l1, _ := decoder(iotest.HalfReader(bytes.NewReader(data)), "x", Latin1)
		s, err := io.ReadAll(l1)
		if err != nil || !utf8.Valid(s) || utf8.RuneCount(s) != len(data) {
			t.Fatalf("latin1: %v, %q", err, s)
		}
	})
}
