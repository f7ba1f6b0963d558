package ordinalshift_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/annotators/ordinalshift" // registers "ordinal-shift" on framework.Default
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// Simulated answers of three annotators on items of known level, fitted
// with the truth known (λ one-hot): the harsh annotator's shift, the
// extreme one's stretch and the careless one's precision come back.
func Example() {
	levels := []string{"1", "2", "3", "4", "5"}
	planted := []ordinalshift.Annotator{
		{Shift: -1, Stretch: 1, Precision: 3},  // harsh: a level low
		{Shift: 0, Stretch: 2, Precision: 3},   // the extremes
		{Shift: 0, Stretch: 1, Precision: 0.7}, // careless
	}
	rng := rand.New(rand.NewPCG(1, 2))
	truth := make([]int, 5000)
	for d := range truth {
		truth[d] = rng.IntN(len(levels))
	}
	answers := ordinalshift.Sample(truth, len(levels), planted, 0, rng)
	m, err := ordinalshift.New(ordinalshift.Defaults())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Init(&framework.Setup{Classes: levels, Annotators: []string{"harsh", "extreme", "careless"}}); err != nil {
		fmt.Println(err)
		return
	}
	s := m.NewStats()
	for d, as := range answers {
		t := framework.NewCategorical(len(levels))
		t.Log[truth[d]] = 50
		t.Finalize()
		m.Accumulate(s, &framework.DocState{Answers: as, Target: t})
	}
	if err := m.Update(context.Background(), s, framework.BatchStep(1)); err != nil {
		fmt.Println(err)
		return
	}
	for r, a := range m.Annotators() {
		fmt.Printf("%-8s shift %5.2f stretch %4.2f precision %4.2f\n", m.Workers[r], a.Shift, a.Stretch, a.Precision)
	}
	// Output:
	// harsh    shift -1.00 stretch 1.00 precision 2.97
	// extreme  shift  0.01 stretch 2.00 precision 3.04
	// careless shift  0.03 stretch 0.98 precision 0.69
}

// TestHCLBlock: the block is decoded strictly over the defaults; a
// misspelt key lists the valid ones; bad values are ErrBadInput.
func TestHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  ordinalshift.Params
		err   string
	}{
		{`annotators "ordinal-shift" {}`, ordinalshift.Defaults(), ""},
		{"annotators \"ordinal-shift\" {\n prior_count = 0.5\n precision = 4\n}", ordinalshift.Params{PriorCount: 0.5, Precision: 4, MaxIters: 50}, ""},
		{"annotators \"ordinal-shift\" {\n shift = 1\n}", ordinalshift.Params{}, "max_iters, precision, prior_count"},
		{"annotators \"ordinal-shift\" {\n prior_count = 0\n}", ordinalshift.Params{}, "prior_count = 0"},
		{"annotators \"ordinal-shift\" {\n precision = -1\n}", ordinalshift.Params{}, "precision = -1"},
		{"annotators \"ordinal-shift\" {\n max_iters = 0\n}", ordinalshift.Params{}, "max_iters = 0"},
	} {
		cfg, err := models.ParseConfig([]byte("response \"softmax\" {}\n"+tc.block), "t.hcl")
		if err != nil {
			t.Fatalf("%s: %v", tc.block, err)
		}
		n, err := framework.Default.Noise(cfg.Annotators.Name, cfg.Annotators.Params)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.block, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.block, err)
			continue
		}
		if diff := cmp.Diff(tc.want, n.(*ordinalshift.Model).Config); diff != "" {
			t.Errorf("%s: params (−want +got):\n%s", tc.block, diff)
		}
	}
}

// TestReport: one row per annotator, in the order of the workers, with the
// reference annotator's numbers after Init.
func TestReport(t *testing.T) {
	m, err := ordinalshift.New(ordinalshift.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Init(&framework.Setup{Classes: []string{"lo", "mid", "hi"}, Annotators: []string{"ann", "bob"}}); err != nil {
		t.Fatal(err)
	}
	header, rows, _ := m.Report()
	want := [][]string{{"ann", "0", "1", "2", "0.641411"}, {"bob", "0", "1", "2", "0.641411"}}
	if diff := cmp.Diff([]string{"annotator", "shift", "stretch", "precision", "accuracy"}, header); diff != "" {
		t.Errorf("header (−want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (−want +got):\n%s", diff)
	}
}
