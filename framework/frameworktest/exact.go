package frameworktest

import (
	"bytes"
	"math"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
)

// dense is every number of Summable statistics, in layout order.
func dense(s framework.Summable) []float64 { return framework.SumsVector(s) }

func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// checkExactSums, for statistics that are framework.Summable (fixed-size
// sums, issue 26): the layout does not depend on the documents; Merge adds
// the numbers elementwise (bit for bit); the exact sums of the documents'
// statistics, one document at a time, give the same bits for any split of
// the documents and any order of adding and merging, through the binary
// encoding; and the statistics rounded from them (SetSums) have the
// union's bound. Statistics that are not Summable are not checked (the
// component then trains on one machine only).
func (c *component) checkExactSums(t TB) {
	g := c.warm(t)
	if _, ok := g.NewStats().(framework.Summable); !ok {
		return
	}
	docs := c.f.docs
	layout := g.NewStats().(framework.Summable).SumLayout()
	u := accumulate(g, docs).(framework.Summable)
	if l := u.SumLayout(); len(l) != len(layout) {
		t.Fatalf("the layout of statistics has %d parts with %d documents, %d without: it must not depend on the documents", len(l), len(docs), len(layout))
	} else {
		for i := range l {
			if l[i] != layout[i] {
				t.Fatalf("layout part %d is %+v with %d documents, %+v without: it must not depend on the documents", i, l[i], len(docs), layout[i])
			}
		}
	}
	// Merge adds elementwise.
	a, b := accumulate(g, docs[:5]).(framework.Summable), accumulate(g, docs[5:]).(framework.Summable)
	da, db := dense(a), dense(b)
	a.Merge(b)
	sum := make([]float64, len(da))
	for i := range da {
		sum[i] = da[i] + db[i]
	}
	if i := sameBits(dense(a), sum); i >= 0 {
		t.Errorf("Merge is not the elementwise sum of the numbers Sums visits (number %d: %v, want %v + %v)", i, dense(a)[i], da[i], db[i])
	}
	// Exact sums of single documents, any split and order.
	perDoc := make([][]byte, len(docs))
	for i, d := range docs {
		s := g.NewStats()
		g.Accumulate(s, d)
		e := framework.NewExactSums(layout)
		if err := e.Add(s.(framework.Summable)); err != nil {
			t.Fatalf("ExactSums.Add: %v", err)
		}
		buf, err := e.MarshalBinary()
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		perDoc[i] = buf
	}
	rng := rand.New(rand.NewPCG(26, 26))
	total := func(order []int, parts int) []byte {
		ps := make([]*framework.ExactSums, parts)
		for i := range ps {
			ps[i] = framework.NewExactSums(layout)
		}
		for _, i := range order {
			var e framework.ExactSums
			if err := e.UnmarshalBinary(perDoc[i]); err != nil {
				t.Fatalf("UnmarshalBinary: %v", err)
			}
			if err := ps[rng.IntN(parts)].Merge(&e); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
		tot := framework.NewExactSums(layout)
		for _, j := range rng.Perm(parts) {
			if err := tot.Merge(ps[j]); err != nil {
				t.Fatalf("Merge: %v", err)
			}
		}
		buf, err := tot.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
		return buf
	}
	inOrder := make([]int, len(docs))
	for i := range inOrder {
		inOrder[i] = i
	}
	want := total(inOrder, 1)
	for k := range 4 {
		if got := total(rng.Perm(len(docs)), 1+k*2); !bytes.Equal(got, want) {
			t.Fatalf("the exact sums of the documents' statistics depend on the split and order (split %d)", k)
		}
	}
	var e framework.ExactSums
	if err := e.UnmarshalBinary(want); err != nil {
		t.Fatalf("UnmarshalBinary: %v", err)
	}
	r := g.NewStats()
	if err := e.Round(r.(framework.Summable)); err != nil {
		t.Fatalf("Round: %v", err)
	}
	for _, sc := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: sc, Full: sc == 1, Iter: 2}
		if got, w := g.ELBO(r, st), g.ELBO(u, st); !near(got, w, 1e-11, 1e-11) {
			t.Errorf("S = %v: ELBO of the statistics rounded from exact sums %.15g, of the union %.15g", sc, got, w)
		}
	}
	if d := maxDiff(dense(r.(framework.Summable)), dense(u)); d > 1e-9*math.Max(1, maxAbs(dense(u))) {
		t.Errorf("statistics rounded from exact sums differ from the union's by %.3g", d)
	}
}
