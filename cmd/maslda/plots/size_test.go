package plots

import (
	"errors"
	"io"
	"testing"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/plot/vg"
)

// TestCheckSize: a huge figure is refused before the canvas is allocated
// (plot --width 100000 --height 100000 used to exhaust memory).
func TestCheckSize(t *testing.T) {
	for _, tc := range []struct {
		w, h vg.Length
		ok   bool
	}{
		{6 * vg.Inch, 4 * vg.Inch, true},
		{200 * vg.Inch, 5 * vg.Inch, true},
		{201 * vg.Inch, 1 * vg.Inch, false},
		{40 * vg.Inch, 25 * vg.Inch, true},
		{40 * vg.Inch, 26 * vg.Inch, false},
		{100000 * vg.Inch, 100000 * vg.Inch, false},
	} {
		err := CheckSize(tc.w, tc.h)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, framework.ErrBadInput)) {
			t.Errorf("CheckSize(%v, %v) = %v, want ok %v", tc.w, tc.h, err, tc.ok)
		}
	}
	f := &Figure{Width: 100000 * vg.Inch, Height: 100000 * vg.Inch}
	if err := f.Encode(io.Discard, "png"); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("Encode of a huge figure: %v", err)
	}
}
