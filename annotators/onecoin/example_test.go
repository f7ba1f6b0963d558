package onecoin_test

import (
	"context"
	"fmt"

	"github.com/maslda/maslda/annotators/onecoin"
	"github.com/maslda/maslda/framework"
)

// One task answered "x" by an annotator, out of 3 classes, whose true
// class is surely "x": the batch update sets q(a) to Beta(α + 1, β + 0) =
// Beta(3, 1) under the default prior Beta(2, 1); a right answer then
// weighs ψ(3) − ψ(4) = −1/3 and a wrong one ψ(1) − ψ(4) − log 2.
func Example() {
	n, _ := onecoin.New(nil)
	m := n.(*onecoin.Model)
	_ = m.Init(&framework.Setup{K: 1, V: 1, Annotators: []string{"ann"}, Classes: []string{"x", "y", "z"}})
	ds := framework.NewDocState(1, 0)
	ds.Bind(0, &framework.Doc{}, []framework.Answer{{Annotator: 0, Class: 0}})
	tg := framework.NewCategorical(3)
	ds.Target = tg
	tg.Reset()
	s := m.NewStats()
	copy(tg.P, []float64{1, 0, 0})
	m.Accumulate(s, ds)
	_ = m.Update(context.Background(), s, framework.BatchStep(1))
	fmt.Printf("q(a) = Beta(%g, %g), mean %.3f\n", m.A[0], m.B[0], m.Acc[0])
	tg.Reset()
	m.Evidence(ds)
	fmt.Printf("evidence: right %.3f, wrong %.3f\n", tg.Log[0], tg.Log[1])
	// Output:
	// q(a) = Beta(3, 1), mean 0.750
	// evidence: right -0.333, wrong -2.526
}
