package confusion

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/maslda/maslda/framework"
)

// TestLapse checks the lapse's message and split on values worked by hand
// (δ = 0.1, C = 2: δ/C = 0.05), and that Validate refuses δ outside [0, 1).
func TestLapse(t *testing.T) {
	m := &Model{cfg: Config{Lapse: 0.1}, nc: 2}
	h := func(w float64) float64 { return -w*math.Log(w) - (1-w)*math.Log(1-w) }
	cases := []struct {
		name    string
		pi      float64 // exp(E[log π])
		message float64 // log(0.9·π + 0.05)
		w       float64 // 0.9·π / (0.9·π + 0.05)
	}{
		{"a likely answer", 0.5, math.Log(0.5), 0.9},
		{"a certain answer", 1, math.Log(0.95), 0.9 / 0.95},
		{"a nearly impossible answer", 1e-9, math.Log(0.9e-9 + 0.05), 0.9e-9 / (0.9e-9 + 0.05)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := math.Log(tc.pi)
			w, rest := m.lapseSplit(e)
			wantRest := tc.w*math.Log(0.9) + (1-tc.w)*math.Log(0.05) + h(tc.w)
			got := []float64{m.lapsed(e), w, rest, w*e + rest}
			want := []float64{tc.message, tc.w, wantRest, tc.message}
			if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 1e-15)); d != "" {
				t.Errorf("(message, w, rest, w·e + rest) (-want +got):\n%s", d)
			}
		})
	}
	// Without a lapse the message is E[log π] itself.
	if got := (&Model{cfg: Config{}, nc: 2}).lapsed(-3); got != -3 {
		t.Errorf("lapse 0: message %v, want -3", got)
	}
	for _, bad := range []float64{-0.1, 1, 2, math.NaN()} {
		cfg := Defaults()
		cfg.Lapse = bad
		err := cfg.Validate()
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(fmtErr(err), "annotators.lapse") {
			t.Errorf("lapse %v: error %v, want ErrBadInput naming annotators.lapse", bad, err)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
