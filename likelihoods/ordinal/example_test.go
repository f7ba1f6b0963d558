package ordinal_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/ordinal" // registers "ordinal" on framework.Default
	"github.com/maslda/maslda/models"
)

// A configuration selects the response by name; the levels are the classes
// in order. After training, Predict turns a document's φ̄ into the level
// probabilities of the ordered logit at the score η·φ̄.
func Example() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 2
}
response "ordinal" {
  levels = ["bad", "fair", "good"]
}
`), "example.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := resp.Init(&framework.Setup{K: 2, Classes: []string{"bad", "fair", "good"}}); err != nil {
		fmt.Println(err)
		return
	}
	o := resp.(*ordinal.Response)
	// η and the cut points as training or LoadParams would leave them.
	copy(o.Eta, []float64{-3, 3})
	copy(o.Cuts, []float64{-1, 1})
	d := &framework.DocState{PhiBar: []float64{0.2, 0.8}, Target: resp.NewTarget()}
	resp.Predict(d)
	p := d.Target.(*framework.Categorical).P
	fmt.Printf("levels %v; score %.1f: P = %.3f %.3f %.3f\n", o.Levels(), -3*0.2+3*0.8, p[0], p[1], p[2])
	// Output: levels [bad fair good]; score 1.8: P = 0.057 0.253 0.690
}

// TestHCLBlock: the block is decoded strictly over the defaults; a
// misspelt key lists the valid ones; bad values are ErrBadInput; levels
// other than the classes are ErrIncompatible at Init.
func TestHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  ordinal.Params
		err   string
	}{
		{`response "ordinal" {}`, ordinal.Defaults(), ""},
		{"response \"ordinal\" {\n l2 = 0\n prior_count = 3\n max_iters = 7\n}", ordinal.Params{L2: 0, PriorCount: 3, MaxIters: 7, SVIIters: 5}, ""},
		{"response \"ordinal\" {\n levels = [\"lo\", \"hi\"]\n}", ordinal.Params{L2: 0.01, PriorCount: 1, MaxIters: 100, SVIIters: 5, Levels: []string{"lo", "hi"}}, ""},
		{"response \"ordinal\" {\n cuts = 3\n}", ordinal.Params{}, "l2, levels, max_iters, prior_count, svi_iters"},
		{"response \"ordinal\" {\n prior_count = -1\n}", ordinal.Params{}, "prior_count = -1"},
		{"response \"ordinal\" {\n levels = [\"one\"]\n}", ordinal.Params{}, "at least 2"},
		{"response \"ordinal\" {\n svi_iters = 0\n}", ordinal.Params{}, "svi_iters = 0"},
	} {
		cfg, err := models.ParseConfig([]byte(tc.block), "t.hcl")
		if err != nil {
			t.Fatalf("%s: %v", tc.block, err)
		}
		l, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
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
		if diff := cmp.Diff(tc.want, l.(*ordinal.Response).Config, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: params (−want +got):\n%s", tc.block, diff)
		}
	}
	r, err := ordinal.New(ordinal.Params{L2: 0.01, PriorCount: 1, MaxIters: 1, SVIIters: 1, Levels: []string{"1", "2", "3"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Init(&framework.Setup{K: 2, Classes: []string{"1", "3", "2"}}); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("Init with the levels out of order: %v, want ErrIncompatible", err)
	}
	if err := r.Init(&framework.Setup{K: 2, Classes: []string{"1"}}); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("Init with one level: %v, want ErrBadInput", err)
	}
}
