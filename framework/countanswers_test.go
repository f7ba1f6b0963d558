package framework_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func TestCountAnswers(t *testing.T) {
	answers := func(as ...framework.Answer) *framework.Corpus {
		return &framework.Corpus{Answers: &framework.Answers{ByDoc: [][]framework.Answer{as}}}
	}
	for _, tc := range []struct {
		name   string
		corpus *framework.Corpus
		want   []int
		err    string
	}{
		{"no corpus", nil, []int{0, 0}, ""},
		{"counted", answers(framework.Answer{Annotator: 1, Class: 2}, framework.Answer{Annotator: 1, Class: 0}, framework.Answer{Annotator: 0, Class: 1}), []int{1, 2}, ""},
		{"annotator outside", answers(framework.Answer{Annotator: 2, Class: 0}), nil, "annotators x: document 0: answer of annotator 2, class 0 outside 2 annotators, 3 classes"},
		{"class outside", answers(framework.Answer{Annotator: 0, Class: 3}), nil, "class 3 outside"},
	} {
		s := &framework.Setup{Annotators: []string{"a", "b"}, Classes: []string{"p", "q", "r"}, Corpus: tc.corpus}
		got, err := s.CountAnswers("x")
		if tc.err != "" {
			if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want ErrBadInput with %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
}
