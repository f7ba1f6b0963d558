package framework

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Sentinel errors; wrap them with %w and test with errors.Is.
var (
	// ErrBadInput marks malformed user input (files, configuration values).
	ErrBadInput = errors.New("bad input")
	// ErrUnknownComponent marks a plug-in name that is not registered.
	ErrUnknownComponent = errors.New("unknown component")
	// ErrIncompatible marks components that cannot be composed (for example
	// a categorical noise model on a Gaussian target).
	ErrIncompatible = errors.New("incompatible components")
	// ErrNotTrained marks use of a model before it was fitted or loaded.
	ErrNotTrained = errors.New("model not trained")
)

// LineError is a parse error located in a file. It wraps ErrBadInput.
type LineError struct {
	File string // file name as the user gave it (may be empty)
	Line int    // 1-based line number; 0 when the error concerns the whole file
	Msg  string
}

func (e *LineError) Error() string {
	f := e.File
	if f == "" {
		f = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", f, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", f, e.Msg)
}

// Unwrap makes errors.Is(err, ErrBadInput) true.
func (e *LineError) Unwrap() error { return ErrBadInput }

// Errorf builds a *LineError with a formatted message.
func Errorf(file string, line int, format string, args ...any) error {
	return &LineError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// JSONErrorAt builds a *LineError for a JSON decoding error in data (the
// whole file named file): the line is that of the syntax or type error's
// offset when err carries one, else of off (the decoder's position).
func JSONErrorAt(file string, data []byte, err error, off int64) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		off = te.Offset
	}
	line := 1 + bytes.Count(data[:min(max(int(off), 0), len(data))], []byte("\n"))
	return Errorf(file, line, "%v", err)
}
