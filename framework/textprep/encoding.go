package textprep

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/maslda/maslda/framework"
)

// Encoding is the character encoding of the input files.
type Encoding string

// Encodings.
const (
	// UTF8: invalid UTF-8 is an error naming the file and line; a leading
	// byte-order mark is removed.
	UTF8 Encoding = "utf8"
	// Latin1 (ISO 8859-1): each byte is one rune, U+0000 to U+00FF.
	Latin1 Encoding = "latin1"
)

// decoder returns a reader of r's text as valid UTF-8.
func decoder(r io.Reader, name string, enc Encoding) (io.Reader, error) {
	switch enc {
	case UTF8, "":
		return &utf8Reader{r: bufio.NewReaderSize(r, 64<<10), name: name, line: 1}, nil
	case Latin1:
		return &latin1Reader{r: r}, nil
	}
	return nil, fmt.Errorf("%w: encoding %q; valid: utf8, latin1", framework.ErrBadInput, enc)
}

// utf8Reader passes valid UTF-8 through and fails, naming the file and
// line, at the first invalid byte. It removes a leading byte-order mark.
// buf[off:valid] is validated and not yet delivered; buf[valid:end] is an
// incomplete sequence waiting for more bytes.
type utf8Reader struct {
	r               *bufio.Reader
	name            string
	line            int // line of buf[valid]
	buf             []byte
	off, valid, end int
	err             error // from r
	bad             error // the encoding error, delivered after the valid bytes
	started         bool
}

func (u *utf8Reader) Read(p []byte) (int, error) {
	if !u.started {
		u.started = true
		u.buf = make([]byte, 32<<10)
		if b, err := u.r.Peek(3); err == nil && string(b) == "\ufeff" {
			u.r.Discard(3)
		}
	}
	for u.off == u.valid {
		if u.bad != nil {
			return 0, u.bad
		}
		if u.err != nil {
			if u.end > u.valid {
				u.bad = framework.Errorf(u.name, u.line, "invalid UTF-8 (byte 0x%02x); if the file is Latin-1, use the latin1 encoding", u.buf[u.valid])
				return 0, u.bad
			}
			return 0, u.err
		}
		n := copy(u.buf, u.buf[u.valid:u.end])
		u.off, u.valid, u.end = 0, 0, n
		m, err := u.r.Read(u.buf[u.end:])
		u.end += m
		u.err = err
		u.validate()
	}
	n := copy(p, u.buf[u.off:u.valid])
	u.off += n
	return n, nil
}

// validate extends buf[:valid] over the complete, valid runes read.
func (u *utf8Reader) validate() {
	i, b := u.valid, u.buf[:u.end]
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == '\n' {
				u.line++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if utf8.FullRune(b[i:]) {
				u.bad = framework.Errorf(u.name, u.line, "invalid UTF-8 (byte 0x%02x); if the file is Latin-1, use the latin1 encoding", c)
			}
			break // else: the rest of the sequence comes with the next read
		}
		i += size
	}
	u.valid = i
}

// latin1Reader converts ISO 8859-1 to UTF-8.
type latin1Reader struct {
	r   io.Reader
	in  []byte
	out []byte // out[off:] converted and not yet delivered
	off int
	err error
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	for l.off == len(l.out) {
		if l.err != nil {
			return 0, l.err
		}
		if l.in == nil {
			l.in = make([]byte, 16<<10)
		}
		var n int
		n, l.err = l.r.Read(l.in)
		l.out, l.off = l.out[:0], 0
		for _, c := range l.in[:n] {
			if c < utf8.RuneSelf {
				l.out = append(l.out, c)
			} else {
				l.out = utf8.AppendRune(l.out, rune(c))
			}
		}
	}
	n := copy(p, l.out[l.off:])
	l.off += n
	return n, nil
}
