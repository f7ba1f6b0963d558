package gaussian

import (
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/topics"
)

// BenchmarkSweepLong measures one sweep of a long document with high
// counts (the shapes benchmark's "long": about 200 distinct words of about
// 290 tokens each, K 20, V 500) under the Gaussian response's exact
// quadratic φ step (model=ma-sldar: topics.Layer.SweepWeighted with
// PhiTermQuad) against plain LDA's sweep of the same document
// (model=lda): an op is three sweeps from plain LDA's fixed point (as in
// the fresh start), the state restored before each op. Compare the two ns/op
// within one run (docs/performance.md, "MA-sLDAr on long documents"):
//
//	go test ./likelihoods/gaussian -run '^$' -bench '^BenchmarkSweepLong$' -count 5
func BenchmarkSweepLong(b *testing.B) {
	const K = 20
	c, _, err := synth.LDA(synth.LDASpec{D: 4, V: 500, K: K, DocLen: 58000, Alpha: 0.1, TopicConc: 0.01}, rand.New(rand.NewPCG(27, 1)))
	if err != nil {
		b.Fatal(err)
	}
	cfg := topics.Defaults()
	cfg.K = K
	l, err := topics.New(cfg, 500)
	if err != nil {
		b.Fatal(err)
	}
	l.Init(c, rand.New(rand.NewPCG(27, 2)))
	doc := &c.Docs[0]
	ds := framework.NewDocState(K, doc.Len())
	ds.Bind(0, doc, nil)
	scr := l.NewScratch()
	l.Infer(ds, nil, scr)
	phi, gamma := append([]float64(nil), ds.Phi...), append([]float64(nil), ds.Gamma...)
	rng := rand.New(rand.NewPCG(27, 3))
	eta := make([]float64, K)
	for k := range eta {
		eta[k] = 40 * rng.NormFloat64()
	}
	r := newResp(b, Params{Sigma2: 300, L2: 0.01, Weight: 1}, K, eta, 50)
	ds.Target = &framework.Gaussian{Mean: 60, Var: 10}
	lc := r.NewLocal()
	reset := func() {
		copy(ds.Phi, phi)
		copy(ds.Gamma, gamma)
		topics.ElogDirichlet(ds.ElogTheta, ds.Gamma)
		ds.UpdatePhiBar()
	}
	for _, m := range []struct {
		name string
		sup  framework.LikelihoodLocal
	}{{"lda", nil}, {"ma-sldar", lc}} {
		b.Run("model="+m.name, func(b *testing.B) {
			for b.Loop() {
				reset()
				for range 3 {
					if m.sup != nil {
						m.sup.Begin(ds)
					}
					l.SweepWeighted(ds, m.sup, 1, scr)
				}
			}
			b.ReportMetric(float64(doc.Len()), "words/doc")
		})
	}
}
