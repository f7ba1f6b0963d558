package framework_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

type nopSchedule struct{ N int }

func (nopSchedule) Fit(context.Context, framework.Model, *rand.Rand, framework.Observer) (*framework.Result, error) {
	return &framework.Result{}, nil
}

func TestRegistryPanics(t *testing.T) {
	f := func(framework.Params) (framework.Schedule, error) { return nopSchedule{}, nil }
	tests := []struct {
		name string
		do   func(r *framework.Registry)
		want string
	}{
		{"empty name", func(r *framework.Registry) { r.RegisterSchedule("", f) }, "empty name"},
		{"nil factory", func(r *framework.Registry) { r.RegisterSchedule("x", nil) }, "nil factory"},
		{"nil likelihood", func(r *framework.Registry) { r.RegisterLikelihood("x", nil) }, "nil factory"},
		{"nil noise", func(r *framework.Registry) { r.RegisterNoise("x", nil) }, "nil factory"},
		{"duplicate", func(r *framework.Registry) { r.RegisterSchedule("x", f); r.RegisterSchedule("x", f) }, "twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic = %v, want one mentioning %q", r, tc.want)
				}
			}()
			tc.do(framework.NewRegistry())
		})
	}
}

func TestRegistryLookup(t *testing.T) {
	r := framework.NewRegistry()
	for _, n := range []string{"zeta", "alpha", "mid"} {
		r.RegisterSchedule(n, func(p framework.Params) (framework.Schedule, error) {
			s := nopSchedule{N: 1}
			return s, p.Decode(&s)
		})
	}
	if diff := cmp.Diff([]string{"alpha", "mid", "zeta"}, r.Names(framework.KindInference)); diff != "" {
		t.Errorf("Names not sorted:\n%s", diff)
	}
	_, err := r.Schedule("nope", nil)
	if !errors.Is(err, framework.ErrUnknownComponent) || !strings.Contains(err.Error(), `"nope"; registered: alpha, mid, zeta`) {
		t.Errorf("unknown schedule error = %v", err)
	}
	if _, err := r.Likelihood("x", nil); err == nil || !strings.Contains(err.Error(), "registered: (none)") {
		t.Errorf("empty kind error = %v", err)
	}
	bad := errors.New("bad key")
	_, err = r.Schedule("mid", framework.ParamsFunc(func(any) error { return bad }))
	if !errors.Is(err, bad) || !strings.Contains(err.Error(), `inference "mid"`) {
		t.Errorf("decode error not wrapped with the component: %v", err)
	}
	if s, err := r.Schedule("alpha", nil); err != nil || s.(nopSchedule).N != 1 {
		t.Errorf("default params: %v, %v", s, err)
	}
}

func TestTargets(t *testing.T) {
	c := framework.NewCategorical(3)
	copy(c.Log, []float64{0, math.Log(2), math.Log(5)})
	c.Finalize()
	opt := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-15 })
	if diff := cmp.Diff([]float64{0.125, 0.25, 0.625}, c.P, opt); diff != "" {
		t.Errorf("softmax mismatch:\n%s", diff)
	}
	if c.Argmax() != 2 {
		t.Errorf("Argmax = %d", c.Argmax())
	}
	wantH := -(0.125*math.Log(0.125) + 0.25*math.Log(0.25) + 0.625*math.Log(0.625))
	if math.Abs(c.Entropy()-wantH) > 1e-15 {
		t.Errorf("Entropy = %v, want %v", c.Entropy(), wantH)
	}
	c.Reset()
	c.Finalize()
	if math.Abs(c.P[0]-1.0/3) > 1e-15 {
		t.Errorf("reset target not uniform: %v", c.P)
	}
	// Two Gaussian messages: N(1, 1/2) and N(4, 1/6) → precision 8, mean (2+24)/8.
	g := &framework.Gaussian{}
	g.Prec, g.PrecMean = 2+6, 2*1+6*4
	g.Finalize()
	if g.Var != 0.125 || g.Mean != 3.25 {
		t.Errorf("Gaussian = N(%v, %v), want N(3.25, 0.125)", g.Mean, g.Var)
	}
	g.Reset()
	g.Finalize()
	if !math.IsInf(g.Var, 1) {
		t.Errorf("no message: var %v, want +Inf", g.Var)
	}
}

func TestCorpusValidate(t *testing.T) {
	ok := framework.Doc{Words: []int32{0, 2}, Counts: []float64{1, 2}, N: 3}
	tests := []struct {
		name string
		c    framework.Corpus
		want string
	}{
		{"V zero", framework.Corpus{V: 0}, "vocabulary size 0"},
		{"word out of range", framework.Corpus{V: 2, Docs: []framework.Doc{ok}}, "word id 2 outside [0, 2)"},
		{"N mismatch", framework.Corpus{V: 3, Docs: []framework.Doc{{Words: []int32{0}, Counts: []float64{1}, N: 2}}}, "N = 2"},
		{"zero count", framework.Corpus{V: 3, Docs: []framework.Doc{{Words: []int32{0}, Counts: []float64{0}, N: 0}}}, "count 0"},
		{"ragged", framework.Corpus{V: 3, Docs: []framework.Doc{{Words: []int32{0}, N: 0}}}, "1 words but 0 counts"},
		{"answers length", framework.Corpus{V: 3, Docs: []framework.Doc{ok}, Answers: &framework.Answers{}}, "answers for 0 documents"},
		{"worker range", framework.Corpus{V: 3, Docs: []framework.Doc{ok}, Answers: &framework.Answers{ByDoc: [][]framework.Answer{{{Annotator: 1}}}}}, "annotator index 1"},
	}
	for _, tc := range tests {
		err := tc.c.Validate()
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate = %v, want ErrBadInput containing %q", tc.name, err, tc.want)
		}
	}
	good := framework.Corpus{V: 3, Docs: []framework.Doc{ok, {}}}
	if err := good.Validate(); err != nil {
		t.Errorf("valid corpus (with an empty document): %v", err)
	}
}

func TestLineError(t *testing.T) {
	err := framework.Errorf("docs.ldac", 7, "want %d pairs", 3)
	if err.Error() != "docs.ldac:7: want 3 pairs" || !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("LineError = %q", err)
	}
	if got := framework.Errorf("", 0, "x").Error(); got != "<input>: x" {
		t.Errorf("no file, no line: %q", got)
	}
}
