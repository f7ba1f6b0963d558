package confusion

import (
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// BenchmarkStats measures one shard's statistics cycle of the E-step
// (Reset, Accumulate 32 documents with 3 answers each, Merge into a total)
// with R = 1000 annotators and C = 8 classes: "touched" is the Stats as
// implemented; "dense" zeroes and merges the whole R×C×C array instead.
func BenchmarkStats(b *testing.B) {
	const R, C, docs = 1000, 8, 32
	rng := rand.New(rand.NewPCG(1, 1))
	byDoc, lams := randomDocs(rng, docs, R, C)
	for d := range byDoc {
		byDoc[d] = byDoc[d][:0]
		for _, r := range rng.Perm(R)[:3] {
			byDoc[d] = append(byDoc[d], ans(r, rng.IntN(C)))
		}
	}
	m := newModel(b, Defaults(), R, C, nil)
	states := make([]*framework.DocState, docs)
	for d := range states {
		states[d] = docState(byDoc[d], lams[d])
	}
	b.Run("touched", func(b *testing.B) {
		shard, total := m.NewStats(), m.NewStats()
		for b.Loop() {
			shard.Reset()
			for _, d := range states {
				m.Accumulate(shard, d)
			}
			total.Merge(shard)
		}
	})
	b.Run("dense", func(b *testing.B) {
		shard, total := m.NewStats().(*Stats), m.NewStats().(*Stats)
		for b.Loop() {
			clear(shard.Counts)
			for _, d := range states {
				m.Accumulate(shard, d)
			}
			for i, x := range shard.Counts {
				total.Counts[i] += x
			}
		}
	})
}

// BenchmarkUpdate is one global update (ξ and E[log π]) for R = 1000, C = 8.
func BenchmarkUpdate(b *testing.B) {
	const R, C = 1000, 8
	m := newModel(b, Defaults(), R, C, nil)
	s := m.NewStats()
	for b.Loop() {
		if err := m.Update(b.Context(), s, framework.BatchStep(1)); err != nil {
			b.Fatal(err)
		}
	}
}
