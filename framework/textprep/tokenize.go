package textprep

import (
	"bufio"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/maslda/maslda/framework"
	"github.com/rivo/uniseg"
)

//go:embed stopwords_en.txt
var englishStopWords string

// EnglishStopWords returns the embedded English stop-word list (the
// Snowball English list with its contractions, plus s, t, can, will, just,
// don and now), in file order.
func EnglishStopWords() []string {
	words, err := ReadStopWords(strings.NewReader(englishStopWords), "stopwords_en.txt")
	if err != nil {
		panic(err) // the embedded file is tested
	}
	return words
}

// ReadStopWords reads a stop-word list: one word per line, surrounding
// whitespace removed; blank lines and lines starting with # are ignored.
// Words are lower-cased (tokens are compared in lower case). A word with
// inner whitespace is an error, since no token can contain whitespace.
func ReadStopWords(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var words []string
	for line := 1; sc.Scan(); line++ {
		w := strings.TrimSpace(sc.Text())
		if line == 1 {
			w = strings.TrimPrefix(w, "\ufeff")
		}
		if w == "" || strings.HasPrefix(w, "#") {
			continue
		}
		if !utf8.ValidString(w) {
			return nil, framework.Errorf(name, line, "invalid UTF-8")
		}
		if strings.IndexFunc(w, unicode.IsSpace) >= 0 {
			return nil, framework.Errorf(name, line, "stop word %q contains whitespace: want one word per line", w)
		}
		words = append(words, normalizeWord(strings.ToLower(w)))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return words, nil
}

// TokenOptions configures the tokenizer. The zero value only segments text
// into words and drops those without a letter; DefaultTokenOptions gives the
// usual pipeline.
type TokenOptions struct {
	// StripHeaders removes everything up to the first empty line (the
	// e-mail or news headers; all of a text without an empty line).
	StripHeaders bool `json:"strip_headers"`
	// StripFooters removes everything from the last line that is empty or
	// only dashes ("-- ", the signature separator), unless that is the
	// first line, after trimming surrounding whitespace from the text.
	StripFooters bool `json:"strip_footers"`
	// StripQuotes removes quoted lines: lines starting with ">" or "|",
	// "In article" or "Quoted from", and lines containing "writes:",
	// "writes in", "wrote:", "says:" or "said:".
	StripQuotes bool `json:"strip_quotes"`
	// Lowercase lower-cases tokens (strings.ToLower).
	Lowercase bool `json:"lowercase"`
	// KeepNumbers keeps tokens with a digit but no letter ("2024", "3.14");
	// otherwise a token needs a letter.
	KeepNumbers bool `json:"keep_numbers"`
	// MinLength and MaxLength bound a token's length in runes before
	// stemming (MaxLength 0: no bound).
	MinLength int `json:"min_length"`
	MaxLength int `json:"max_length"`
	// StopWords are dropped (compared in lower case, before stemming).
	StopWords []string `json:"-"`
	// Stem applies the Snowball (Porter2) English stemmer, which also
	// lower-cases.
	Stem bool `json:"stem"`
	// Bigrams adds, after the unigrams of a document, every pair of
	// adjacent kept tokens joined by "_".
	Bigrams bool `json:"bigrams"`
}

// DefaultTokenOptions lower-cases, drops tokens without a letter or
// shorter than 2 runes, drops the embedded English stop words and stems.
// No stripping, no bigrams.
func DefaultTokenOptions() TokenOptions {
	return TokenOptions{Lowercase: true, MinLength: 2, StopWords: EnglishStopWords(), Stem: true}
}

// Tokenizer turns a text into tokens. It is safe for concurrent use.
type Tokenizer struct {
	opt  TokenOptions
	stop map[string]bool
}

// NewTokenizer checks the options and builds a tokenizer.
func NewTokenizer(opt TokenOptions) (*Tokenizer, error) {
	if opt.MinLength < 0 || opt.MaxLength < 0 || (opt.MaxLength > 0 && opt.MaxLength < opt.MinLength) {
		return nil, fmt.Errorf("%w: token length bounds [%d, %d] (max 0 means no bound)", framework.ErrBadInput, opt.MinLength, opt.MaxLength)
	}
	t := &Tokenizer{opt: opt, stop: make(map[string]bool, len(opt.StopWords))}
	for _, w := range opt.StopWords {
		t.stop[normalizeWord(strings.ToLower(w))] = true
	}
	return t, nil
}

// Options returns the tokenizer's options.
func (t *Tokenizer) Options() TokenOptions { return t.opt }

// Tokens runs the whole pipeline on text: line endings normalized to LF,
// the configured stripping, word segmentation, filtering, lower-casing,
// stop words, stemming and bigrams. It appends the tokens to dst.
func (t *Tokenizer) Tokens(dst []string, text string) []string {
	return t.tokens(dst, text, nil)
}

// stemCache memoizes stems for one goroutine; it is reset when it grows
// past stemCacheMax entries, so it stays bounded.
type stemCache map[string]string

const stemCacheMax = 1 << 16

func (t *Tokenizer) tokens(dst []string, text string, cache stemCache) []string {
	text = t.Strip(text)
	first := len(dst)
	Words(text, func(w string) {
		if tok, ok := t.token(w, cache); ok {
			dst = append(dst, tok)
		}
	})
	if t.opt.Bigrams {
		last := len(dst)
		for i := first; i+1 < last; i++ {
			dst = append(dst, dst[i]+"_"+dst[i+1])
		}
	}
	return dst
}

// Strip normalizes CRLF and lone CR line endings to LF and applies the
// configured stripping steps in the order of scikit-learn's
// fetch_20newsgroups: headers, footers, quotes.
func (t *Tokenizer) Strip(text string) string {
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	if t.opt.StripHeaders {
		text = StripHeaders(text)
	}
	if t.opt.StripFooters {
		text = StripFooters(text)
	}
	if t.opt.StripQuotes {
		text = StripQuotes(text)
	}
	return text
}

// Token applies the per-word steps to one segment of Words: apostrophe
// normalization, the letter (or digit) test, lower-casing, the length
// bounds, stop words and stemming. ok is false when the word is dropped.
func (t *Tokenizer) Token(w string) (tok string, ok bool) { return t.token(w, nil) }

func (t *Tokenizer) token(w string, cache stemCache) (tok string, ok bool) {
	if !t.keep(w) {
		return "", false
	}
	w = normalizeWord(w)
	if t.opt.Lowercase {
		w = strings.ToLower(w)
	}
	if n := utf8.RuneCountInString(w); n < t.opt.MinLength || (t.opt.MaxLength > 0 && n > t.opt.MaxLength) {
		return "", false
	}
	if len(t.stop) > 0 {
		lw := w
		if !t.opt.Lowercase {
			lw = strings.ToLower(w)
		}
		if t.stop[lw] {
			return "", false
		}
	}
	if t.opt.Stem {
		w = t.stem(w, cache)
	}
	return w, w != ""
}

func (t *Tokenizer) stem(w string, cache stemCache) string {
	if cache == nil {
		return stem(w)
	}
	if s, ok := cache[w]; ok {
		return s
	}
	s := stem(w)
	if len(cache) >= stemCacheMax {
		clear(cache)
	}
	cache[w] = s
	return s
}

// stem is Snowball's English stemmer with stop words stemmed too (the
// tokenizer has its own stop-word step). Non-ASCII words go through it as
// well; the stemmer only changes English suffixes.
func stem(w string) string { return english.Stem(w, true) }

// keep reports whether a segment is a word: it has a letter (or a digit
// with KeepNumbers) and no whitespace or control character.
func (t *Tokenizer) keep(w string) bool {
	has := false
	for _, r := range w {
		switch {
		case unicode.IsLetter(r):
			has = true
		case t.opt.KeepNumbers && unicode.IsDigit(r):
			has = true
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return false
		}
	}
	return has
}

// normalizeWord turns the typographic apostrophe U+2019 into ', so that
// "don’t" and "don't" are the same token.
func normalizeWord(w string) string {
	if strings.IndexRune(w, '\u2019') < 0 {
		return w
	}
	return strings.ReplaceAll(w, "\u2019", "'")
}

// Words calls fn with every segment of text between Unicode (UAX #29) word
// boundaries, including spaces and punctuation; the concatenation of the
// segments is text. Invalid UTF-8 bytes become segments of their own.
func Words(text string, fn func(w string)) {
	state := -1
	var w string
	for len(text) > 0 {
		w, text, state = uniseg.FirstWordInString(text, state)
		fn(w)
	}
}

// StripHeaders removes the e-mail or news headers: everything up to and
// including the first empty line ("\n\n"). A text without an empty line is
// all header and becomes empty (scikit-learn's strip_newsgroup_header).
func StripHeaders(text string) string {
	_, after, _ := strings.Cut(text, "\n\n")
	return after
}

// StripQuotes removes quoted lines (scikit-learn's
// strip_newsgroup_quoting): lines starting with ">", "|", "In article" or
// "Quoted from", and lines containing "writes in", "writes:", "wrote:",
// "says:" or "said:" (the attribution lines).
func StripQuotes(text string) string {
	if text == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if isQuoteLine(l) {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

func isQuoteLine(l string) bool {
	for _, p := range []string{">", "|", "In article", "Quoted from"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	for _, s := range []string{"writes in", "writes:", "wrote:", "says:", "said:"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// StripFooters removes a signature block (scikit-learn's
// strip_newsgroup_footer): the text, with surrounding whitespace trimmed,
// is cut before its last line that is empty or only dashes and spaces
// (such as the separator "-- "). When no such line exists, or it is the
// first line, the text is returned unchanged.
func StripFooters(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Trim(strings.TrimSpace(lines[i]), "-") == "" {
			if i == 0 {
				return text
			}
			return strings.Join(lines[:i], "\n")
		}
	}
	return text
}
