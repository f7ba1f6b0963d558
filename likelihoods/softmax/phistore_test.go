package softmax

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
)

// mapStore is a framework.PhiStore over a map (tests only).
type mapStore map[int][]float32

func (m mapStore) Phi(i int) []float32 { return m[i] }

// Under the product bound, a response given the model's φ store by UsePhi
// keeps no copy of φ (its statistics are index lists) and its M-step reads
// the store: with the store holding the documents' φ the new η equals that
// of a response that copied φ, bit for bit, and a changed store changes it.
func TestUsePhiReadsTheStore(t *testing.T) {
	const K, C, D, V = 3, 3, 8, 12
	rng := rand.New(rand.NewPCG(5, 6))
	c := &framework.Corpus{V: V, Docs: make([]framework.Doc, D)}
	setup := &framework.Setup{K: K, V: V, Classes: []string{"a", "b", "c"}, Corpus: c}
	store := mapStore{}
	var docs []*framework.DocState
	for i := range c.Docs {
		ds := randomDocState(rng, K, C, 2+rng.IntN(5), 3) // words 0..L−1 < V
		c.Docs[i] = *ds.Doc
		ds.Bind(i, &c.Docs[i], nil) // keeps φ
		store[i] = make([]float32, len(ds.Phi))
		for j, p := range ds.Phi {
			store[i][j] = float32(p)
			ds.Phi[j] = float64(float32(p)) // as the store keeps it
		}
		ds.UpdatePhiBar()
		docs = append(docs, ds)
	}
	fit := func(useStore bool) (*Softmax, *Stats) {
		l, err := New(nil)
		if err != nil {
			t.Fatal(err)
		}
		s := l.(*Softmax)
		if err := s.Init(setup); err != nil {
			t.Fatal(err)
		}
		if !s.NeedsPhi() {
			t.Fatal("the product bound does not declare that its M-step needs φ")
		}
		if useStore {
			s.UsePhi(store)
		}
		st := s.NewStats().(*Stats)
		for _, d := range docs {
			s.Accumulate(st, d)
		}
		if err := s.Update(context.Background(), st, framework.BatchStep(1)); err != nil {
			t.Fatal(err)
		}
		return s, st
	}
	copied, cst := fit(false)
	stored, sst := fit(true)
	if len(cst.extra) != D || len(sst.extra) != 0 || len(sst.Index) != D {
		t.Fatalf("without a store %d copied documents (want %d); with one %d copied and %d indexed (want 0 and %d)", len(cst.extra), D, len(sst.extra), len(sst.Index), D)
	}
	if !slices.Equal(copied.Eta, stored.Eta) {
		t.Errorf("η from the store %v, from copies %v: want equal bit for bit", stored.Eta, copied.Eta)
	}
	// The M-step must read the store, not a copy of d.Phi taken at
	// Accumulate.
	for i := range store {
		slices.Reverse(store[i])
	}
	changed, _ := fit(true)
	for i := range store {
		slices.Reverse(store[i])
	}
	if slices.Equal(changed.Eta, stored.Eta) {
		t.Error("η is unchanged after the store's φ changed: the M-step does not read the store")
	}
}
