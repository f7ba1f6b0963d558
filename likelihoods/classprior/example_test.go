package classprior_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/classprior" // registers "class-prior" on framework.Default
	"github.com/maslda/maslda/models"
)

// A configuration selects the response by name. After an M-step on the
// documents' q(c_d) the class prior is the posterior mean of π; it is also
// what Predict gives every new document.
func Example() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 1
}
response "class-prior" {
  alpha    = 2
  estimate = "point"
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
	if err := resp.Init(&framework.Setup{K: 1, Classes: []string{"spam", "ham"}}); err != nil {
		fmt.Println(err)
		return
	}
	// Three documents' q(c_d), as an E-step with annotators would leave them.
	st := resp.NewStats()
	for _, spam := range []float64{0.9, 0.8, 0.0} {
		t := framework.NewCategorical(2)
		t.P[0], t.P[1] = spam, 1-spam
		resp.Accumulate(st, &framework.DocState{Doc: &framework.Doc{}, Target: t})
	}
	if err := resp.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
		fmt.Println(err)
		return
	}
	d := &framework.DocState{Doc: &framework.Doc{}, Target: resp.NewTarget()}
	resp.Predict(d)
	p := d.Target.(*framework.Categorical).P
	// π̂ ∝ (1.7 + 1, 1.3 + 1): Σ_d λ_d plus α − 1 = 1 pseudo-count per class.
	fmt.Printf("P(spam) = %.3f, P(ham) = %.3f\n", p[0], p[1])
	// Output: P(spam) = 0.540, P(ham) = 0.460
}

// TestHCLBlock: the block is decoded strictly, and a misspelt key is an
// error listing the valid ones.
func TestHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  classprior.Params
		err   string
	}{
		{`response "class-prior" {}`, classprior.Defaults(), ""},
		{"response \"class-prior\" {\n alpha = 0.5\n}", classprior.Params{Alpha: 0.5, Estimate: classprior.Variational}, ""},
		{"response \"class-prior\" {\n alpha = 3\n estimate = \"point\"\n}", classprior.Params{Alpha: 3, Estimate: classprior.Point}, ""},
		{"response \"class-prior\" {\n alfa = 3\n}", classprior.Params{}, "alpha, estimate"},
		{"response \"class-prior\" {\n estimate = \"ml\"\n}", classprior.Params{}, `valid: "variational" (default), "point"`},
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
		if got := l.(*classprior.Response).Config; got != tc.want {
			t.Errorf("%s: decoded %+v, want %+v", tc.block, got, tc.want)
		}
	}
}
