package gaussian_test

import (
	"fmt"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian"
)

// Example shows the local step's target update for one document with the
// topics fixed: the response's prior message N(η·φ̄ + b, σ²) combined with
// one annotator's evidence (precision 8, bias-corrected answer 2), and the
// prediction for the same document, which has no evidence.
func Example() {
	resp, err := gaussian.New(gaussian.Params{Sigma2: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := resp.Init(&framework.Setup{K: 3}); err != nil {
		fmt.Println(err)
		return
	}
	copy(resp.Eta, []float64{1, 2, 4})

	// Four tokens: word 0 once, in topic 0; word 1 three times, split
	// between topics 1 and 2. φ̄ = (1/4, 3/8, 3/8), η·φ̄ = 5/2.
	doc := &framework.Doc{Words: []int32{0, 1}, Counts: []float64{1, 3}, N: 4}
	ds := framework.NewDocState(3, doc.Len())
	ds.Bind(0, doc, nil)
	copy(ds.PhiRow(0), []float64{1, 0, 0})
	copy(ds.PhiRow(1), []float64{0, 0.5, 0.5})
	ds.UpdatePhiBar()
	ds.Target = resp.NewTarget()

	local := resp.NewLocal()
	local.Begin(ds)
	local.TargetTerm(ds)
	q := ds.Target.(*framework.Gaussian)
	q.Prec += 8 // what a noise model's Evidence adds
	q.PrecMean += 8 * 2
	q.Finalize()
	fmt.Printf("q(x) = N(%.3f, %.3f)\n", q.Mean, q.Var)

	// The supervision term of word 1 (MODEL.md §3): with m = 2.1, N = 4,
	// σ² = ½, η·s = 10 and η·φ_1 = 3, ρ = 1.05η − (2·7 + η)∘η/16: the
	// truth is below η·φ̄ = 2.5, so topic 2 (η = 4) is pushed down.
	rho := make([]float64, 3)
	local.PhiTerm(rho, ds, 1)
	fmt.Printf("ρ for word 1: %.3f\n", rho)

	resp.Predict(ds)
	fmt.Printf("prediction N(%.3f, %.3f)\n", q.Mean, q.Var)
	// Output:
	// q(x) = N(2.100, 0.100)
	// ρ for word 1: [0.113 0.100 -0.300]
	// prediction N(2.500, 0.500)
}
