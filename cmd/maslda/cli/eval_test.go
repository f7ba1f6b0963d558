package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestClassMetricsByHand(t *testing.T) {
	// pred a a b c, truth a b b c: 3 of 4 right. F1(a) = 2·1/(2+1+0),
	// F1(b) = 2·1/(2+0+1), F1(c) = 1; macro = (2/3 + 2/3 + 1)/3 = 7/9.
	got := classMetrics([]string{"a", "a", "b", "c"}, []string{"a", "b", "b", "c"})
	want := ClassMetrics{N: 4, Accuracy: 0.75, MacroF1: 7.0 / 9, Classes: []string{"a", "b", "c"},
		Confusion: [][]int{{1, 0, 0}, {1, 1, 0}, {0, 0, 1}}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("classMetrics mismatch (-want +got):\n%s", diff)
	}
}

func TestRegressionMetricsByHand(t *testing.T) {
	// pred 1 2 3, truth 1 2 4: residuals 0 0 −1; MAE 1/3, RMSE √(1/3);
	// mean 7/3, SS_tot = (16 + 1 + 25)/9 = 42/9, R² = 1 − 1/(42/9) = 33/42.
	got, err := regressionMetrics([]string{"1", "2", "3"}, []string{"1", "2", "4"}, "p")
	if err != nil {
		t.Fatal(err)
	}
	want := RegressionMetrics{N: 3, R2: 33.0 / 42, MAE: 1.0 / 3, RMSE: math.Sqrt(1.0 / 3)}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("regressionMetrics mismatch (-want +got):\n%s", diff)
	}
	if _, err := regressionMetrics([]string{"1", "2"}, []string{"3", "3"}, "p"); err == nil {
		t.Error("constant truth: want an error (R² undefined)")
	}
	if _, err := regressionMetrics([]string{"x"}, []string{"3"}, "p"); err == nil {
		t.Error("non-numeric prediction: want an error")
	}
}

func TestEvalCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cls := write("pred.csv", "task,label,p:a,p:b\nd1,a,0.9,0.1\nd2,b,0.2,0.8\nd3,a,0.6,0.4\nextra,b,0,1\n")
	truth := write("truth.csv", "task,label\nd1,a\nd2,b\nd3,b\nd4,a\n")
	reg := write("post.csv", "task,label,var\n0,1,0.1\n1,2,0.1\n2,3,0.1\n")
	col := write("labels.txt", "1\n2\n4\n")
	bad := write("bad.csv", "id,label\n")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--pred", cls, "--truth", truth, "--json"}, ExitOK, `{"n":3,"accuracy":0.6666666666666666,"macro_f1":0.6666666666666666,"classes":["a","b"],"confusion":[[1,0],[1,1]]}`},
		{[]string{"--pred", reg, "--truth-column", col, "--json"}, ExitOK, `{"n":3,"r2":0.7857142857142857,"mae":0.3333333333333333,"rmse":0.5773502691896257}`},
		{[]string{"--pred", cls, "--truth", truth}, ExitOK, "accuracy   0.6667"},
		{[]string{"--pred", bad, "--truth", truth}, ExitError, "bad.csv:1: header"},
		{[]string{"--pred", cls}, ExitUsage, "missing --truth"},
		{[]string{"--pred", cls, "--truth-column", col}, ExitError, "no task of"},
		{[]string{"--pred", write("pred0.csv", "task,label,p:a,p:b\n0,a,0.9,0.1\n1,b,0.2,0.8\n2,a,0.6,0.4\n"), "--truth-column", write("num.txt", "0.5\n0.25\n0.75\n")}, ExitError,
			`num.txt:1: label "0.5": none of the truth's labels is a class predicted in`},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := MainContext(context.Background(), append([]string{"eval"}, tc.args...), &out, &errb)
		got := out.String() + errb.String()
		if code != tc.code || !strings.Contains(got, tc.want) {
			t.Errorf("eval %v: exit %d, output %q; want exit %d containing %q", tc.args, code, got, tc.code, tc.want)
		}
		if tc.code == ExitOK && strings.Contains(strings.Join(tc.args, " "), "--json") {
			var m map[string]any
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Errorf("eval --json printed invalid JSON: %v", err)
			}
		}
	}
}
