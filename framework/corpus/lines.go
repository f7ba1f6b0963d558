package corpus

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maslda/maslda/framework"
)

// maxLineBytes is the longest line the line-based readers accept. It is a
// variable so that tests can lower it.
var maxLineBytes = 64 << 20

// blanks are the characters trimmed from ids, labels and CSV fields and the
// separators of the whitespace-separated formats (ASCII only, so that the
// formats do not depend on Unicode tables).
const blanks = " \t\r\v\f"

func isBlank(r rune) bool {
	return r == ' ' || r == '\t' || r == '\r' || r == '\v' || r == '\f'
}

// trim removes surrounding ASCII whitespace.
func trim(s string) string { return strings.Trim(s, blanks) }

// fields splits s at runs of ASCII whitespace.
func fields(s string) []string { return strings.FieldsFunc(s, isBlank) }

// readLines calls fn with every line of r that is not blank (empty or only
// whitespace), with its 1-based number; the text has its line ending (LF or
// CRLF) removed and is otherwise as in the file. Blank lines at the end of
// the input are ignored; a blank line followed by a non-blank one is an
// error saying blankMsg. A line longer than maxLineBytes is an error.
// A read error that is not about the input's content is returned wrapped
// with the file name (it is not a *framework.LineError).
func readLines(r io.Reader, name, blankMsg string, fn func(line int, text string) error) error {
	sc := bufio.NewScanner(SkipBOM(r))
	sc.Buffer(make([]byte, 0, min(64<<10, maxLineBytes)), maxLineBytes)
	line, firstBlank := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if trim(text) == "" {
			if firstBlank == 0 {
				firstBlank = line
			}
			continue
		}
		if firstBlank != 0 {
			return framework.Errorf(name, firstBlank, "blank line: %s (only blank lines at the end of the file are ignored)", blankMsg)
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return framework.Errorf(name, line+1, "line longer than the limit of %d bytes", maxLineBytes)
		}
		return fmt.Errorf("%s: %w", displayName(name), err)
	}
	return nil
}

// checkUTF8 refuses text that is not valid UTF-8 (what is named by what,
// on line of file name), naming the first invalid byte.
func checkUTF8(name string, line int, what, text string) error {
	if utf8.ValidString(text) {
		return nil
	}
	at := 0
	for at < len(text) {
		r, size := utf8.DecodeRuneInString(text[at:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		at += size
	}
	return framework.Errorf(name, line, "%s %q is not valid UTF-8 (byte %#x at byte %d): the file must be UTF-8; convert it (e.g. iconv -f latin1 -t utf-8), or use maslda prepare --encoding", what, text, text[at], at+1)
}

func displayName(name string) string {
	if name == "" {
		return "<input>"
	}
	return name
}

// parseDigits parses a non-empty string of ASCII digits (no sign, no
// spaces) whose value is at most limit. ok is false when s has another
// character; tooBig is true when the value exceeds limit.
func parseDigits(s string, limit int64) (v int64, ok, tooBig bool) {
	if s == "" {
		return 0, false, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if !tooBig {
			v = v*10 + int64(c-'0')
			if v > limit {
				tooBig = true
			}
		}
	}
	if tooBig {
		return 0, true, true
	}
	return v, true, false
}

// parseNumber parses s as a float64. numeric is true when s is a
// well-formed number, including values out of range (which give ±Inf) and
// "NaN"/"Inf"; use finite to tell those apart.
func parseNumber(s string) (v float64, numeric bool) {
	if !decimal(s) {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return v, true
	}
	var ne *strconv.NumError
	if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
		return v, true
	}
	return 0, false
}

// ParseNumber parses a numeric label as the readers do: a decimal
// number (an optional sign, digits, an optional fraction and exponent:
// 1000, -0.5, 1e3; also NaN and Inf, which numeric readers then refuse).
// Go's own syntax beyond that, which strconv.ParseFloat accepts, is not a
// number here: underscores between digits (1_000) and hexadecimal
// (0x10, 0x1p4). numeric is false for anything else; values out of the
// float64 range are numeric and ±Inf.
func ParseNumber(s string) (v float64, numeric bool) { return parseNumber(s) }

// decimal refuses what strconv.ParseFloat accepts beyond decimal
// notation: underscores and a hexadecimal prefix.
func decimal(s string) bool {
	if strings.IndexByte(s, '_') >= 0 {
		return false
	}
	t := strings.TrimLeft(s, "+-")
	return !(len(t) >= 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return v-v == 0 }

// formatNumber is the canonical text of a numeric label.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// QuoteList formats strings as a comma-separated list of quoted strings,
// eliding the middle of long lists (for error messages that list what was
// found or what is valid).
func QuoteList(ss []string) string {
	const most = 20
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		if len(ss) > most && i == most-2 {
			fmt.Fprintf(&b, "... (%d more), ", len(ss)-most+1)
			b.WriteString(strconv.Quote(ss[len(ss)-1]))
			break
		}
		b.WriteString(strconv.Quote(s))
	}
	return b.String()
}

// BOM is the UTF-8 byte-order mark.
const BOM = "\ufeff"

// SkipBOM returns r without a UTF-8 byte-order mark at its very start.
// The rule of every maslda reader: a byte-order mark at the start of a
// file is ignored (editors on Windows write one); anywhere else it is an
// ordinary character, which the file's format then accepts or rejects.
func SkipBOM(r io.Reader) io.Reader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	if b, err := br.Peek(len(BOM)); err == nil && string(b) == BOM {
		br.Discard(len(BOM))
	}
	return br
}
