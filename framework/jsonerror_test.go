package framework_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestJSONErrorAt: a JSON syntax or type error is reported at the line of
// its offset, wrapping ErrBadInput; another error at the given offset's.
func TestJSONErrorAt(t *testing.T) {
	cases := []struct {
		name string
		data string
		want int
	}{
		{"syntax error on line 3", "[\n 1,\n 2 x\n]", 3},
		{"type error on line 2", "[\n \"a\"\n]", 2},
	}
	for _, c := range cases {
		var v []int
		err := json.NewDecoder(bytes.NewReader([]byte(c.data))).Decode(&v)
		got := framework.JSONErrorAt("f.json", []byte(c.data), err, 0)
		var le *framework.LineError
		if !errors.As(got, &le) || le.File != "f.json" || le.Line != c.want || !errors.Is(got, framework.ErrBadInput) {
			t.Errorf("%s: %v, want f.json line %d", c.name, got, c.want)
		}
	}
	if le := framework.JSONErrorAt("f", []byte("a\nb\nc"), errors.New("x"), 4); le.(*framework.LineError).Line != 3 {
		t.Errorf("plain error at offset 4: %v, want line 3", le)
	}
}
