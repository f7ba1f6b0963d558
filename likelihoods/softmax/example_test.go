package softmax_test

import (
	"fmt"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/softmax" // registers "softmax" on framework.Default
	"github.com/maslda/maslda/models"
)

// A configuration selects the response by name; its block holds the
// parameters (all optional: l2 defaults to 1/D, max_iters to 50, svi_iters
// to 5). After training, Predict turns a document's φ̄ into class
// probabilities softmax(η φ̄).
func Example() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 2
}
response "softmax" {
  l2 = 0.01
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
	// η (C×K, class-major) as training or LoadParams would leave it:
	// topic 0 speaks for "sport", topic 1 for "politics".
	copy(resp.(*softmax.Softmax).Eta, []float64{3, -3, -3, 3})

	d := framework.NewDocState(2, 0)
	d.Bind(0, &framework.Doc{}, nil)
	copy(d.PhiBar, []float64{0.9, 0.1}) // φ̄_d from the topic layer
	d.Target = resp.NewTarget()
	resp.Predict(d)
	t := d.Target.(*framework.Categorical)
	fmt.Printf("P(sport) = %.4f, P(politics) = %.4f\n", t.P[0], t.P[1])
	// Output: P(sport) = 0.9918, P(politics) = 0.0082
}
