package plots_test

import (
	"bytes"
	"fmt"
	"log"
	"strings"

	"github.com/maslda/maslda/cmd/maslda/plots"
)

// Summarize a results.csv (three seeds of one setting, one seed of
// another) and draw held-out accuracy versus K as an SVG.
func ExampleMetricFigure() {
	const results = `experiment,model,k,alpha,tau,omega,seed,status,heldout_accuracy,error
20ng,ma-sldac,20,,,,1,done,0.70,
20ng,ma-sldac,20,,,,2,done,0.72,
20ng,ma-sldac,20,,,,3,done,0.74,
20ng,ma-sldac,20,0.5,,,1,done,0.65,
20ng,ma-sldac,50,,,,1,failed,,out of memory
20ng,lda+logreg(mv),20,,,,1,done,0.61,
`
	res, err := plots.ReadResults(strings.NewReader(results), "results.csv", "heldout_accuracy")
	if err != nil {
		log.Fatal(err)
	}
	series, err := plots.Summarize(res, plots.SummaryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range series {
		for _, p := range s.Points {
			fmt.Printf("%s K=%d: %.3f ± %.3f over %d seeds (%s, best of %d settings)\n", s.Model, p.K, p.Mean, p.SD, p.N, p.Setting, p.Settings)
		}
	}
	fig, err := plots.MetricFigure(series, plots.MetricOptions{Metric: "heldout_accuracy"})
	if err != nil {
		log.Fatal(err)
	}
	var svg bytes.Buffer
	if err := fig.Encode(&svg, "svg"); err != nil {
		log.Fatal(err)
	}
	fmt.Println(strings.HasPrefix(svg.String(), "<?xml"))
	// Output:
	// ma-sldac K=20: 0.720 ± 0.020 over 3 seeds (defaults, best of 2 settings)
	// lda+logreg(mv) K=20: 0.610 ± 0.000 over 1 seeds (defaults, best of 1 settings)
	// true
}
