package corpus

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// TestParseNumberDecimalOnly (issue 30, item 7): numeric labels are
// decimal numbers; Go's underscores (1_000) and hexadecimal (0x10,
// 0x1p4), which strconv.ParseFloat accepts, are not numbers, and a
// gaussian answer written so is an error naming file and line.
func TestParseNumberDecimalOnly(t *testing.T) {
	type res struct {
		V       float64
		Numeric bool
	}
	for _, tc := range []struct {
		in   string
		want res
	}{
		{"1000", res{1000, true}},
		{"-0.5", res{-0.5, true}},
		{"+1e3", res{1000, true}},
		{".5", res{0.5, true}},
		{"1_000", res{}},
		{"1_0.5", res{}},
		{"0x10", res{}},
		{"-0X1p4", res{}},
		{"0", res{0, true}},
		{"0.x", res{}},
		{"abc", res{}},
	} {
		v, ok := ParseNumber(tc.in)
		if diff := cmp.Diff(tc.want, res{v, ok}); diff != "" {
			t.Errorf("ParseNumber(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	if v, ok := ParseNumber("NaN"); !ok || !math.IsNaN(v) {
		t.Errorf("NaN: %v %v, want numeric NaN (refused later as not finite)", v, ok)
	}
	tab, err := ReadAnswers(strings.NewReader("task,worker,label\n0,a,1000\n1,a,1_000\n"), "g.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tab.Numeric([]string{"0", "1"})
	var le *framework.LineError
	if !errors.As(err, &le) || le.File != "g.csv" || le.Line != 3 || !strings.Contains(err.Error(), `"1_000" is not a number`) {
		t.Errorf("Numeric with 1_000: %v, want g.csv:3 naming it", err)
	}
}
