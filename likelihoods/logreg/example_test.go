package logreg_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/logreg" // registers "logreg" on framework.Default
	"github.com/maslda/maslda/models"
)

// A configuration selects the response by name. After training, Predict
// turns a document's φ̄ into class probabilities softmax(η φ̄).
func Example() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 2
}
response "logreg" {
  l2 = 0.1
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
	if err := resp.Init(&framework.Setup{K: 2, Classes: []string{"sport", "politics"}}); err != nil {
		fmt.Println(err)
		return
	}
	lr := resp.(*logreg.Response)
	// η (C×K, class-major) as training or LoadParams would leave it.
	copy(lr.Eta, []float64{2, -2, -2, 2})
	d := &framework.DocState{PhiBar: []float64{0.75, 0.25}, Target: resp.NewTarget()}
	resp.Predict(d)
	p := d.Target.(*framework.Categorical).P
	fmt.Printf("P(sport) = %.4f, P(politics) = %.4f; needs frozen topics: %v\n", p[0], p[1], lr.FixedFeatures())
	// Output: P(sport) = 0.8808, P(politics) = 0.1192; needs frozen topics: true
}

// TestHCLBlock: the block is decoded strictly over the defaults, and a
// misspelt key is an error listing the valid ones.
func TestHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  logreg.Params
		err   string
	}{
		{`response "logreg" {}`, logreg.Defaults(), ""},
		{"response \"logreg\" {\n l2 = 0\n max_iters = 7\n}", logreg.Params{L2: 0, MaxIters: 7, SVIIters: 5}, ""},
		{"response \"logreg\" {\n lambda = 3\n}", logreg.Params{}, "l2, max_iters, svi_iters"},
		{"response \"logreg\" {\n l2 = -1\n}", logreg.Params{}, "l2 = -1"},
	} {
		cfg, err := models.ParseConfig([]byte(tc.block), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		l, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
		if tc.err != "" {
			if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want ErrBadInput mentioning %q", tc.block, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := l.(*logreg.Response).Config; got != tc.want {
			t.Errorf("%s: decoded %+v, want %+v", tc.block, got, tc.want)
		}
	}
}
