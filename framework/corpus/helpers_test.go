package corpus

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// badCase is an input that must be rejected with a *framework.LineError on
// the given line whose message contains want.
type badCase struct {
	name string
	in   string
	want string
	line int
}

// checkLineErr fails t unless err is a *framework.LineError for file on
// line whose message contains want, and wraps framework.ErrBadInput.
func checkLineErr(t *testing.T, err error, file, want string, line int) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q on line %d", want, line)
	}
	if !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("error %q does not wrap framework.ErrBadInput", err)
	}
	var le *framework.LineError
	if !errors.As(err, &le) {
		t.Fatalf("error %q (%T) is not a *framework.LineError", err, err)
	}
	if le.File != file {
		t.Errorf("error %q names file %q, want %q", err, le.File, file)
	}
	if le.Line != line {
		t.Errorf("error %q is on line %d, want %d", err, le.Line, line)
	}
	if !strings.Contains(le.Msg, want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

// mustNotErr fails t on an error.
func mustNotErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func nan() float64 { return math.NaN() }
