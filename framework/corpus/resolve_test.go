package corpus_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/targets"
)

// TestResolveByKind: resolving by a kind of target gives what the
// categorical and numeric readers give, and a declared class nobody chose
// stays a class.
func TestResolveByKind(t *testing.T) {
	ids := []string{"d0", "d1", "d2"}
	for _, tc := range []struct {
		name    string
		csv     string
		kind    framework.TargetKind
		classes []string
		want    func(t *corpus.AnswerTable) (*framework.Answers, error)
		err     string
	}{
		{"categorical", "task,worker,label\nd0,w1,b\nd2,w2,a\nd0,w2,b\n", targets.Categorical{}, nil,
			func(t *corpus.AnswerTable) (*framework.Answers, error) { return t.Categorical(ids, nil) }, ""},
		{"declared classes", "task,worker,label\nd0,w1,b\nd2,w2,a\n", targets.Categorical{}, []string{"c", "b", "a"},
			func(t *corpus.AnswerTable) (*framework.Answers, error) {
				return t.Categorical(ids, []string{"c", "b", "a"})
			}, ""},
		{"gaussian", "task,worker,label\nd0,w1,1.5\nd1,w1,-2\n", targets.Gaussian{}, nil,
			func(t *corpus.AnswerTable) (*framework.Answers, error) { return t.Numeric(ids) }, ""},
		{"an answer outside the classes", "task,worker,label\nd0,w1,b\nd2,w2,x\n", targets.Categorical{}, []string{"a", "b"}, nil,
			`a.csv:3: label "x" is not a class; the 2 classes are "a", "b"`},
		{"classes for numbers", "task,worker,label\nd0,w1,1\n", targets.Gaussian{}, []string{"a", "b"}, nil,
			`a.csv: classes given for answers of kind "gaussian", which has none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, err := corpus.ReadAnswers(strings.NewReader(tc.csv), "a.csv")
			if err != nil {
				t.Fatal(err)
			}
			got, err := table.Resolve(ids, tc.kind, tc.classes)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := tc.want(table)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveTruth(t *testing.T) {
	ids := []string{"d0", "d1", "d2"}
	tt, err := corpus.ReadTruth(strings.NewReader("task,label\nd2,b\nd0,a\n"), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tt.Resolve(ids, targets.Categorical{}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	want := &framework.Truth{Classes: []string{"a", "b"}, Has: []bool{true, false, true}, Class: []int32{0, -1, 1}, Value: []float64{0, 0, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := tt.Resolve(ids, targets.Categorical{}, nil); err == nil || !strings.Contains(err.Error(), "categorical truth needs the list of classes") {
		t.Errorf("no classes: %v", err)
	}
	if _, err := tt.Resolve(ids, targets.Gaussian{}, nil); err == nil || !strings.Contains(err.Error(), `t.csv:2: label "b" is not a number`) {
		t.Errorf("labels as numbers: %v", err)
	}
}
