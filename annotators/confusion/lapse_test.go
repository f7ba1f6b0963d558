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
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "annotators.lapse") {
			t.Errorf("lapse %v: error %v, want ErrBadInput naming annotators.lapse", bad, err)
		}
	}
}

// TestLapseStart: the classifier start judges each answer against the
// classifier and the other answers' lapsed messages. Three annotators, two
// classes, the classifier at (0.4, 0.6); annotator 0 answers class 0 with
// π^0 = [[0.999, 0.001], [1e-6, 1 − 1e-6]], annotator 1 answers class 1
// with π^1 = [[0.9, 0.1], [0.1, 0.9]] (both rows as written), annotator 2
// answers class 1. Annotator 2's answer is judged against log 0.4 +
// m_0(0) + m_1(0) and log 0.6 + m_0(1) + m_1(1), m_r the messages of the
// others' answers. Without a lapse annotator 0's answer says class 0 by
// log(0.999/1e-6) ≈ 13.8 nats and wins; with δ = 0.5 (δ/C = 0.25) its
// message is log(0.4995 + 0.25) against log(0.5e-6 + 0.25), 1.10 nats,
// annotator 1's log(0.45 + 0.25) against log(0.05 + 0.25), 0.85 nats the
// other way, and the classifier's log 1.5 = 0.41 tips it to class 1.
func TestLapseStart(t *testing.T) {
	const C = 2
	pis := [][][]float64{
		{{0.999, 0.001}, {1e-6, 1 - 1e-6}},
		{{0.9, 0.1}, {0.1, 0.9}},
		{{0.8, 0.2}, {0.2, 0.8}},
	}
	for _, tc := range []struct {
		lapse float64
		want  int // the class annotator 2's answer is counted under
	}{{0, 0}, {0.5, 1}} {
		m := &Model{cfg: Config{Lapse: tc.lapse, StartLabels: StartOthers}, nr: 3, nc: C, elogT: make([]float64, 3*C*C)}
		for r, pi := range pis {
			for c := range C {
				for l := range C {
					m.elogT[(r*C+l)*C+c] = math.Log(pi[c][l])
				}
			}
		}
		as := []framework.Answer{{Annotator: 0, Class: 0}, {Annotator: 1, Class: 1}, {Annotator: 2, Class: 1}}
		pred := &framework.Categorical{P: []float64{0.4, 0.6}, Log: []float64{math.Log(0.4), math.Log(0.6)}}
		var cells []int
		if _, err := m.startDoc(as, pred, make([]float64, C), make([]float64, C), func(cell int) { cells = append(cells, cell) }); err != nil {
			t.Fatal(err)
		}
		if got, want := cells[2], (2*C+tc.want)*C+1; got != want {
			t.Errorf("lapse %v: annotator 2's answer counted in cell %d, want %d (class %d)", tc.lapse, got, want, tc.want)
		}
	}
}
