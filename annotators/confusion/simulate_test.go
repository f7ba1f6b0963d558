package confusion

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

func TestMajorityVote(t *testing.T) {
	dst := make([]float64, 3)
	for _, c := range []struct {
		as   []framework.Answer
		want []float64
		ok   bool
	}{
		{nil, []float64{0, 0, 0}, false},
		{[]framework.Answer{ans(0, 2)}, []float64{0, 0, 1}, true},
		{[]framework.Answer{ans(0, 2), ans(1, 0), ans(2, 2)}, []float64{0, 0, 1}, true},
		{[]framework.Answer{ans(0, 1), ans(1, 0)}, []float64{0.5, 0.5, 0}, true},
		{[]framework.Answer{ans(0, 1), ans(1, 0), ans(2, 2)}, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, true},
	} {
		dst[1] = 7 // stale content must go
		ok := MajorityVote(dst, c.as)
		if ok != c.ok || !slices.Equal(dst, c.want) {
			t.Errorf("%v: %v %v, want %v %v", c.as, dst, ok, c.want, c.ok)
		}
	}
}

func TestFromAccuracies(t *testing.T) {
	acc := []float64{0.737, 0.468, 0.284, 0.278, 0.260}
	pis, err := FromAccuracies(acc, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckMatrices(pis, ""); err != nil {
		t.Fatal(err)
	}
	for r, m := range pis {
		for c, row := range m {
			for l, x := range row {
				want := (1 - acc[r]) / 3
				if c == l {
					want = acc[r]
				}
				if x != want {
					t.Errorf("π^%d_{%d,%d} = %v, want %v", r, c, l, x, want)
				}
			}
		}
	}
	for _, bad := range []struct {
		acc []float64
		C   int
	}{{acc, 1}, {[]float64{1.2}, 3}, {[]float64{math.NaN()}, 3}, {[]float64{-0.1}, 2}} {
		if _, err := FromAccuracies(bad.acc, bad.C); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("FromAccuracies(%v, %d): %v", bad.acc, bad.C, err)
		}
	}
}

// TestSample: distinct annotators per document chosen uniformly, answers
// distributed as π^r_{c_true}, reproducible from the seed.
func TestSample(t *testing.T) {
	pis := [][][]float64{
		{{0.9, 0.1, 0}, {0.2, 0.7, 0.1}, {0, 0, 1}},
		{{1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}, {1. / 3, 1. / 3, 1. / 3}},
		{{0, 1, 0}, {0, 0, 1}, {1, 0, 0}},
		{{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}},
	}
	const D, perDoc = 30000, 2
	rng := rand.New(rand.NewPCG(11, 12))
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(3)
	}
	out, err := Sample(truth, pis, perDoc, rng)
	if err != nil {
		t.Fatal(err)
	}
	var count [4][3][3]float64
	var per [4]float64
	for d, as := range out {
		if len(as) != perDoc || as[0].Annotator >= as[1].Annotator {
			t.Fatalf("document %d: answers %v, want %d from distinct annotators in order", d, as, perDoc)
		}
		for _, a := range as {
			count[a.Annotator][truth[d]][a.Class]++
			per[a.Annotator]++
			if a.Value != float64(a.Class) {
				t.Fatalf("answer value %v for class %d", a.Value, a.Class)
			}
		}
	}
	// Each annotator answers a document with probability perDoc/R = ½.
	for r, n := range per {
		if sd := math.Sqrt(D * 0.25); math.Abs(n-D/2) > 5*sd {
			t.Errorf("annotator %d answered %v times, want %v ± %.0f", r, n, D/2, 5*sd)
		}
	}
	for r := range pis {
		for c := range pis[r] {
			n := count[r][c][0] + count[r][c][1] + count[r][c][2]
			for l, p := range pis[r][c] {
				got := count[r][c][l] / n
				if sd := math.Sqrt(p * (1 - p) / n); math.Abs(got-p) > 5*sd+1e-12 {
					t.Errorf("π^%d_{%d,%d}: frequency %.4f, want %.4f ± %.4f", r, c, l, got, p, 5*sd)
				}
			}
		}
	}
	again, _ := Sample(truth, pis, perDoc, rand.New(rand.NewPCG(11, 12)))
	first, _ := Sample(truth, pis, perDoc, rand.New(rand.NewPCG(11, 12)))
	if !slices.EqualFunc(again, first, slices.Equal) {
		t.Errorf("same seed, different answers")
	}
	if all, err := Sample(truth[:5], pis, 4, rng); err != nil || len(all[0]) != 4 {
		t.Errorf("perDoc = R: %v %v", all, err)
	}
	if none, err := Sample(truth[:5], pis, 0, rng); err != nil || len(none[0]) != 0 {
		t.Errorf("perDoc = 0: %v %v", none, err)
	}
	for _, c := range []struct {
		truth  []int
		pis    [][][]float64
		perDoc int
		rng    *rand.Rand
	}{
		{truth[:3], pis, 5, rng},
		{truth[:3], pis, -1, rng},
		{[]int{3}, pis, 1, rng},
		{truth[:3], pis, 1, nil},
		{truth[:3], nil, 1, rng},
	} {
		if _, err := Sample(c.truth, c.pis, c.perDoc, c.rng); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("Sample(%v, %d annotators, %d): %v", c.truth, len(c.pis), c.perDoc, err)
		}
	}
}

func TestParseMatrices(t *testing.T) {
	good := `[
  [[0.9, 0.1],
   [0.2, 0.8]],
  [[0.5, 0.5], [0.5, 0.5]]
]`
	pis, err := ParseMatrices(strings.NewReader(good), "pis.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(pis) != 2 || pis[0][1][0] != 0.2 {
		t.Errorf("parsed %v", pis)
	}
	for _, c := range []struct{ name, text, msg string }{
		{"row sum", "[\n[[1, 0], [0, 1]],\n[[0.5, 0.4], [0.5, 0.5]]\n]", "pis.json:3: annotator 1: row 0 sums to 0.9"},
		{"negative", "[[[1.2, -0.2], [0, 1]]]", "pis.json:1: annotator 0: π[0][1] = -0.2"},
		{"not square", "[[[1, 0, 0], [0, 1, 0]]]", "annotator 0, row 0: 3 entries, want 2"},
		{"different C", "[\n[[1, 0], [0, 1]],\n[[1]]\n]", "pis.json:3: annotator 1: 1 rows, want 2"},
		{"empty matrix", "[[]]", "annotator 0: 0 rows"},
		{"empty list", "[]", "no confusion matrices"},
		{"not a list", `{"a": 1}`, "want a JSON list"},
		{"syntax", "[\n[[1, 0], [0, 1]],\n[[1, 0] [0, 1]]\n]", "pis.json:3: annotator 1:"},
		{"type", "[\n[[1, 0], [0, \"x\"]]\n]", "pis.json:2: annotator 0:"},
		{"trailing", "[[[1]]] 5", "after the list"},
		{"unterminated", "[[[1]]", "pis.json:1:"},
		{"empty", "", "pis.json:1:"},
	} {
		_, err := ParseMatrices(strings.NewReader(c.text), "pis.json")
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err %v, want ErrBadInput containing %q", c.name, err, c.msg)
		}
	}
	if _, err := ReadMatrices(t.TempDir() + "/missing.json"); err == nil {
		t.Errorf("missing file accepted")
	}
}
