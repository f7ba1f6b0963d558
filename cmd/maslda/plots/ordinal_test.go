package plots

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

const ordinalJSON = `[
 {"name": "a0", "shift": 0.1, "stretch": 0.9, "precision": 5, "accuracy": 0.7},
 {"name": "a1", "shift": 1.2, "stretch": 1, "precision": 3, "accuracy": 0.4},
 {"name": "a2", "shift": 0, "stretch": 2.4, "precision": 0.8, "accuracy": 0.3}
]`

// TestOrdinalShiftAnnotators: ordinal-shift annotators.json is read by its
// keys, drawn with and without a truth, and refused where it does not fit.
func TestOrdinalShiftAnnotators(t *testing.T) {
	est := readAnn(t, ordinalJSON)
	if est.Kind != KindOrdinalShift || est.C() != 0 || est.List[1].Shift != 1.2 || est.List[2].Stretch != 2.4 || est.List[0].Precision != 5 || est.List[0].Accuracy != 0.7 || est.List[2].Line != 4 {
		t.Fatalf("ordinal-shift annotators: %+v", est)
	}
	for _, opt := range []OrdinalShiftOptions{
		{},
		{TrueShift: []float64{0, 1, 0}, TrueStretch: []float64{1, 1, 2.5}, TruePrecision: []float64{6, 4, 1}, Title: "t"},
		{TrueShift: []float64{0, 1, 0}, Select: []string{"a1"}},
	} {
		f, err := OrdinalShiftFigure(est, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		if want := 1 + min(len(opt.TruePrecision), 1); len(f.Panels[0]) != want {
			t.Errorf("%+v: %d panels, want %d", opt, len(f.Panels[0]), want)
		}
		var b bytes.Buffer
		if err := f.Encode(&b, "svg"); err != nil || b.Len() == 0 {
			t.Errorf("%+v: encode: %v", opt, err)
		}
	}
	for _, tc := range []struct {
		opt  OrdinalShiftOptions
		want string
	}{
		{OrdinalShiftOptions{TrueShift: []float64{0, 1}, TrueNames: []string{"a0", "a1", "a2"}}, "3 true names, 2 shifts"},
		{OrdinalShiftOptions{TrueShift: []float64{0, 1}, Select: []string{"a2"}}, `annotator "a2" has no true parameters`},
		{OrdinalShiftOptions{TrueStretch: []float64{1, 1, 1}}, "without the true shifts"},
		{OrdinalShiftOptions{TrueShift: []float64{0}, TrueNames: []string{"zz"}}, `no annotator of annotators.json is among the true ones`},
		{OrdinalShiftOptions{Select: []string{"b9"}}, `unknown annotator "b9"`},
	} {
		if _, err := OrdinalShiftFigure(est, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%+v: %v, want ErrBadInput containing %q", tc.opt, err, tc.want)
		}
	}
	if _, err := OrdinalShiftFigure(readAnn(t, confusionJSON), OrdinalShiftOptions{}); err == nil || !strings.Contains(err.Error(), "need ordinal-shift annotators") {
		t.Errorf("confusion annotators: %v", err)
	}
	if _, err := ConfusionFigure(est, ConfusionOptions{}); err == nil {
		t.Error("confusion matrices of ordinal-shift annotators")
	}
	if _, err := ReadAnnotators(strings.NewReader("[\n {\"name\": \"a0\", \"shift\": 0, \"precision\": 1}\n]"), "annotators.json"); err == nil || !strings.Contains(err.Error(), `annotators.json:2: ordinal-shift annotator needs "shift", "stretch" and "precision"`) {
		t.Errorf("no stretch: %v", err)
	}
	if _, err := ReadAnnotators(strings.NewReader("[\n {\"name\": \"a0\", \"shift\": 0, \"stretch\": 1, \"precision\": 0}\n]"), "annotators.json"); err == nil || !strings.Contains(err.Error(), "want finite numbers and a positive precision") {
		t.Errorf("precision 0: %v", err)
	}
	// annotators.json of ordinal-shift annotators has no answer counts:
	// boxes needs the answers with it (cmd/maslda/cli's TestOrdinalEndToEnd)
	if _, err := AnnotatorBoxes(est, nil, nil, false); err == nil || !strings.Contains(err.Error(), "0 answers") {
		t.Errorf("boxes of ordinal-shift annotators without answers: %v", err)
	}
}
