package framework_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestSaveRunning: running statistics round-trip bit for bit (NaN and −0
// too), absent ones leave the slices alone, and a wrong length, another
// magic or trailing bytes are errors that change nothing.
func TestSaveRunning(t *testing.T) {
	a, b := []float64{1.5, math.NaN(), math.Copysign(0, -1)}, []float64{math.Pi}
	var buf bytes.Buffer
	if err := framework.SaveRunning(&buf, "MAGIC", true, 0.75, a, b); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	ga, gb := make([]float64, 3), make([]float64, 1)
	ok, w, err := framework.LoadRunning(bytes.NewReader(raw), "MAGIC", ga, gb)
	if err != nil || !ok || w != 0.75 {
		t.Fatalf("load: %v, %v, %v", ok, w, err)
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(ga[i]) {
			t.Errorf("value %d: %v, want %v", i, ga[i], a[i])
		}
	}
	if gb[0] != math.Pi {
		t.Errorf("second slice %v", gb)
	}
	for name, tc := range map[string]struct {
		raw  []byte
		vals [][]float64
	}{
		"wrong length": {raw, [][]float64{make([]float64, 2), make([]float64, 1)}},
		"trailing":     {append(append([]byte(nil), raw...), 0), [][]float64{make([]float64, 3), make([]float64, 1)}},
		"truncated":    {raw[:len(raw)-3], [][]float64{make([]float64, 3), make([]float64, 1)}},
		"other magic":  {append([]byte("MAGIX"), raw[5:]...), [][]float64{make([]float64, 3), make([]float64, 1)}},
	} {
		tc.vals[0][0] = 42
		if _, _, err := framework.LoadRunning(bytes.NewReader(tc.raw), "MAGIC", tc.vals...); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
		if tc.vals[0][0] != 42 {
			t.Errorf("%s: the slices changed", name)
		}
	}
	buf.Reset()
	if err := framework.SaveRunning(&buf, "MAGIC", false, 0); err != nil {
		t.Fatal(err)
	}
	ga[0] = 7
	if ok, _, err := framework.LoadRunning(&buf, "MAGIC", ga); err != nil || ok || ga[0] != 7 {
		t.Errorf("absent: %v, %v, %v", ok, err, ga)
	}
}
