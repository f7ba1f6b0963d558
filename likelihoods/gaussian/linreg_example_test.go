package gaussian_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian" // registers "gaussian" and "linreg" on framework.Default
	"github.com/maslda/maslda/models"
)

// A configuration selects the response by name. After training, Predict
// turns a document's φ̄ into N(η·φ̄ + b, σ²).
func ExampleNewLinReg() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 2
}
response "linreg" {
  intercept = true
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
	if err := resp.Init(&framework.Setup{K: 2}); err != nil {
		fmt.Println(err)
		return
	}
	lr := resp.(*gaussian.Response)
	// η and b as training or LoadParams would leave them.
	copy(lr.Eta, []float64{1, 9})
	lr.B = 0.5
	d := &framework.DocState{PhiBar: []float64{0.75, 0.25}, Target: resp.NewTarget()}
	resp.Predict(d)
	g := d.Target.(*framework.Gaussian)
	fmt.Printf("x̂ = %.2f (variance %.2f); needs frozen topics: %v\n", g.Mean, g.Var, lr.FixedFeatures())
	// Output: x̂ = 3.50 (variance 1.00); needs frozen topics: true
}

// TestHCLBlock: the block is decoded strictly over the defaults, and a
// misspelt key is an error listing the valid ones.
func TestLinRegHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  gaussian.Params
		err   string
	}{
		{`response "linreg" {}`, gaussian.LinRegDefaults(), ""},
		{"response \"linreg\" {\n sigma2 = 0.5\n estimate_sigma2 = true\n l2 = 0\n intercept = true\n}", gaussian.Params{Sigma2: 0.5, EstimateSigma2: true, Intercept: true}, ""},
		{"response \"linreg\" {\n ridge = 3\n}", gaussian.Params{}, "estimate_sigma2, exact_iters, exact_tol, intercept, l2, sigma2"},
		{"response \"linreg\" {\n sigma2 = 0\n}", gaussian.Params{}, "sigma2 = 0"},
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
		if got := l.(*gaussian.Response).Config; got != tc.want {
			t.Errorf("%s: decoded %+v, want %+v", tc.block, got, tc.want)
		}
	}
}
