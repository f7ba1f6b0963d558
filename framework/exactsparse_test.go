package framework_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// parts is a Summable for tests: parts of any length, whose Sums visits
// only the non-zero runs of each part (as a sparse component does).
type parts struct {
	names []string
	xs    [][]float64
}

func newParts(lens ...int) *parts {
	p := &parts{}
	for i, n := range lens {
		p.names = append(p.names, string(rune('a'+i)))
		p.xs = append(p.xs, make([]float64, n))
	}
	return p
}

func (p *parts) Merge(o framework.Stats) {
	for i, x := range o.(*parts).xs {
		for j, v := range x {
			p.xs[i][j] += v
		}
	}
}
func (p *parts) Reset() {
	for _, x := range p.xs {
		clear(x)
	}
}
func (p *parts) SumLayout() []framework.SumPart {
	var l []framework.SumPart
	for i, x := range p.xs {
		l = append(l, framework.SumPart{Name: p.names[i], Len: len(x)})
	}
	return l
}
func (p *parts) Sums(visit func(part, off int, xs []float64)) {
	for k, x := range p.xs {
		for i := 0; i < len(x); {
			if x[i] == 0 {
				i++
				continue
			}
			j := i
			for j < len(x) && x[j] != 0 {
				j++
			}
			visit(k, i, x[i:j])
			i = j
		}
	}
}
func (p *parts) SetSums(get func(part int, dst []float64)) {
	for k, x := range p.xs {
		get(k, x)
	}
}

// TestExactSumsSparse: the sums record the blocks they touch (Reset,
// Merge, Err and Round visit those only). Parts of odd lengths (blocks
// straddle them, one part is empty), sparse documents, sums reused after
// Reset and merged directly in random order give math/big's totals, and
// an error names the first bad number in layout order whatever the order
// in which the blocks were touched. With a large part rarely touched, the
// touched blocks are few (visited block by block), otherwise many (every
// number visited in order); with a part of 70,000 numbers or more,
// MergeRound runs on 3 goroutines.
func TestExactSumsSparse(t *testing.T) {
	t.Run("many", func(t *testing.T) { testExactSumsSparse(t, []int{37, 5, 0, 3, 50}, 0) })
	t.Run("few", func(t *testing.T) { testExactSumsSparse(t, []int{37, 5, 0, 3, 50, 4000}, 20000) })
	t.Run("parallel few", func(t *testing.T) { testExactSumsSparse(t, []int{37, 5, 0, 3, 50, 100000}, 20000) })
	t.Run("parallel many", func(t *testing.T) { testExactSumsSparse(t, []int{37, 5, 0, 3, 50, 70000}, 16) })
}

// testExactSumsSparse runs TestExactSumsSparse on parts of lengths lens,
// the sixth part's numbers non-zero in a document with probability
// 1/rare.
func testExactSumsSparse(t *testing.T, lens []int, rare int) {
	r := rand.New(rand.NewPCG(27, 4))
	docs := make([]*parts, 60)
	for d := range docs {
		p := newParts(lens...)
		for k, x := range p.xs {
			for i := range x {
				// part d and the last 20 numbers of e: never touched;
				// f: rarely
				if k == 5 && r.IntN(rare) == 0 || k != 3 && k < 5 && !(k == 4 && i >= 30) && r.IntN(8) == 0 {
					x[i] = randAddend(r)
				}
			}
		}
		docs[d] = p
	}
	layout := newParts(lens...).SumLayout()
	// The totals by math/big, number by number.
	want := newParts(lens...)
	for k, x := range want.xs {
		for i := range x {
			var xs []float64
			for _, d := range docs {
				if v := d.xs[k][i]; v != 0 {
					xs = append(xs, v)
				}
			}
			x[i], _ = bigSum(xs)
		}
	}
	same := func(t *testing.T, what string, got *parts) {
		t.Helper()
		for k, x := range want.xs {
			for i, v := range x {
				if math.Float64bits(got.xs[k][i]) != math.Float64bits(v) {
					t.Errorf("%s: %s[%d] = %v, math/big %v", what, want.names[k], i, got.xs[k][i], v)
				}
			}
		}
	}
	// Workers' sums, reused: each first holds other documents, then is
	// Reset, then takes its share.
	ws := make([]*framework.ExactSums, 4)
	for i := range ws {
		ws[i] = framework.NewExactSums(layout)
		for range 5 {
			if err := ws[i].Add(docs[r.IntN(len(docs))]); err != nil {
				t.Fatal(err)
			}
		}
		ws[i].Reset()
	}
	for _, d := range r.Perm(len(docs)) {
		if err := ws[r.IntN(len(ws))].Add(docs[d]); err != nil {
			t.Fatal(err)
		}
	}
	tot := framework.NewExactSums(layout)
	if err := tot.Add(docs[0]); err != nil { // then emptied
		t.Fatal(err)
	}
	tot.Reset()
	for _, i := range r.Perm(len(ws)) {
		if err := tot.Merge(ws[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := newParts(lens...)
	for _, x := range got.xs {
		for i := range x {
			x[i] = 7 // Round sets every number, the untouched ones to 0
		}
	}
	if err := tot.Round(got); err != nil {
		t.Fatal(err)
	}
	same(t, "merged", got)
	// Merged into the first worker's sums and rounded on 3 goroutines,
	// as Model.exactPass does.
	for _, x := range got.xs {
		for i := range x {
			x[i] = 7
		}
	}
	if err := ws[0].MergeRound(got, ws[1:], 3); err != nil {
		t.Fatal(err)
	}
	same(t, "merged into the first", got)
	got.Reset()
	if err := ws[0].Round(got); err != nil {
		t.Fatal(err)
	}
	same(t, "merged into the first, rounded again", got)
	// Encoded and decoded.
	b, err := tot.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var dec framework.ExactSums
	if err := dec.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	again := framework.NewExactSums(layout)
	if err := again.Merge(&dec); err != nil {
		t.Fatal(err)
	}
	got.Reset()
	if err := again.Round(got); err != nil {
		t.Fatal(err)
	}
	same(t, "decoded", got)

	// Bad numbers touched late in layout order first: the error names
	// the first in layout order (e[20]'s block was touched before a[9]'s).
	bad := framework.NewExactSums(layout)
	late, early := newParts(lens...), newParts(lens...)
	late.xs[4][20] = math.Inf(1)
	early.xs[0][9] = math.NaN()
	early.xs[0][30] = 1
	for _, p := range []*parts{late, early} {
		if err := bad.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	other := framework.NewExactSums(layout)
	if len(lens) > 5 { // bad numbers in the other part of MergeRound's goroutines
		late.xs[5][lens[5]-3] = math.NaN()
		if err := other.Add(late); err != nil {
			t.Fatal(err)
		}
	}
	out := newParts(lens...)
	out.xs[0][0] = 7
	for what, err := range map[string]error{"Err": bad.Err(), "Round": bad.Round(newParts(lens...)), "MergeRound": bad.MergeRound(out, []*framework.ExactSums{other}, 3)} {
		if err == nil || !strings.Contains(err.Error(), "a[9]") {
			t.Errorf("%s: %v, want an error naming a[9]", what, err)
		}
	}
	if out.xs[0][0] != 7 {
		t.Errorf("MergeRound changed its target after failing")
	}
	bad.Reset()
	if err := bad.Err(); err != nil {
		t.Errorf("Err after Reset: %v", err)
	}
}

// BenchmarkExactSumsVocab times the exact E-step's passes over the sums
// of a large vocabulary (the shape "vocab" of models' BenchmarkShapes:
// K 20, V 100,000, about 60,000 word occurrences in 1,200 documents,
// half of them to each of two workers): Reset of a worker's sums, Merge
// of the second worker's into the first's, Round of the total, and
// MergeRound of both on two goroutines (the exact E-step's serial pass
// before it); and Reset, Merge and Round of a mini-batch's sums (2,000
// rows: a pass per update under SVI).
func BenchmarkExactSumsVocab(b *testing.B) {
	const K, V = 20, 100000
	r := rand.New(rand.NewPCG(27, 5))
	layout := newParts(K*V, 2).SumLayout()
	row := make([]float64, K)
	for k := range row {
		row[k] = r.Float64()
	}
	fill := func(e *framework.ExactSums, n int) {
		words := newParts(K*V, 2)
		for range n {
			w := r.IntN(V)
			copy(words.xs[0][w*K:], row)
		}
		if err := e.Add(words); err != nil {
			b.Fatal(err)
		}
	}
	w1, w2 := framework.NewExactSums(layout), framework.NewExactSums(layout)
	fill(w1, 30000)
	fill(w2, 30000)
	out := newParts(K*V, 2)
	b.Run("reset", func(b *testing.B) {
		e := framework.NewExactSums(layout)
		for b.Loop() {
			b.StopTimer()
			if err := e.Merge(w1); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			e.Reset()
		}
	})
	b.Run("merge", func(b *testing.B) {
		e := framework.NewExactSums(layout)
		if err := e.Merge(w1); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := e.Merge(w2); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("round", func(b *testing.B) {
		e := framework.NewExactSums(layout)
		for _, w := range []*framework.ExactSums{w1, w2} {
			if err := e.Merge(w); err != nil {
				b.Fatal(err)
			}
		}
		for b.Loop() {
			if err := e.Round(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	// A mini-batch's sums (SVI, a shard of the seam): 2,000 rows.
	few := framework.NewExactSums(layout)
	fill(few, 2000)
	b.Run("reset-merge-round-sparse", func(b *testing.B) {
		e := framework.NewExactSums(layout)
		for b.Loop() {
			e.Reset()
			if err := e.Merge(few); err != nil {
				b.Fatal(err)
			}
			if err := e.Round(out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mergeround-2", func(b *testing.B) {
		e := framework.NewExactSums(layout)
		for b.Loop() {
			b.StopTimer()
			e.Reset()
			if err := e.Merge(w1); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if err := e.MergeRound(out, []*framework.ExactSums{w2}, 2); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestExactSumsDenseErrors: sums whose blocks are all touched are checked
// number by number in order (MergeRound's dense pass, on 3 goroutines):
// the first bad number in layout order is named, and the target is left
// unchanged.
func TestExactSumsDenseErrors(t *testing.T) {
	layout := newParts(70000, 3).SumLayout()
	a, b := newParts(70000, 3), newParts(70000, 3)
	for i := range a.xs[0] {
		a.xs[0][i] = 1
	}
	a.xs[0][50000] = math.Inf(-1)
	b.xs[0][60000] = math.NaN()
	b.xs[1][1] = math.NaN()
	ea, eb := framework.NewExactSums(layout), framework.NewExactSums(layout)
	if err := ea.Add(a); err != nil {
		t.Fatal(err)
	}
	if err := eb.Add(b); err != nil {
		t.Fatal(err)
	}
	out := newParts(70000, 3)
	out.xs[0][0] = 7
	err := ea.MergeRound(out, []*framework.ExactSums{eb}, 3)
	if err == nil || !strings.Contains(err.Error(), "a[50000]") {
		t.Errorf("MergeRound: %v, want an error naming a[50000]", err)
	}
	if out.xs[0][0] != 7 {
		t.Error("MergeRound changed its target after failing")
	}
}

// TestExactSumsBadMerged: an out-of-range addend of sums merged into
// others (Merge, MergeRound) makes the total fail, naming the number and
// its first out-of-range addend (Fixed.Merge's: the receiver's first).
func TestExactSumsBadMerged(t *testing.T) {
	layout := newParts(40, 3).SumLayout()
	good, inf, nan := newParts(40, 3), newParts(40, 3), newParts(40, 3)
	good.xs[0][5], good.xs[1][1] = 1, 2
	inf.xs[1][1] = math.Inf(1)
	nan.xs[1][1] = math.NaN()
	sums := func(ps ...*parts) *framework.ExactSums {
		e := framework.NewExactSums(layout)
		for _, p := range ps {
			if err := e.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		return e
	}
	want := func(what string, err error, addend string) {
		t.Helper()
		if err == nil || !errors.Is(err, framework.ErrInexact) || !strings.Contains(err.Error(), "b[1]") || !strings.Contains(err.Error(), "addend "+addend) {
			t.Errorf("%s: %v, want ErrInexact naming b[1] and its addend %s", what, err, addend)
		}
	}
	tot := sums(good)
	if err := tot.Merge(sums(inf)); err != nil {
		t.Fatal(err)
	}
	if err := tot.Merge(sums(nan)); err != nil {
		t.Fatal(err)
	}
	want("Merge then Err", tot.Err(), "+Inf")
	want("Merge then Round", tot.Round(newParts(40, 3)), "+Inf")
	out := newParts(40, 3)
	out.xs[0][0] = 7
	want("MergeRound", sums(good).MergeRound(out, []*framework.ExactSums{sums(nan), sums(inf)}, 2), "NaN")
	if out.xs[0][0] != 7 {
		t.Error("MergeRound changed its target after failing")
	}
	tot.Reset()
	if err := tot.Err(); err != nil {
		t.Errorf("Err after Reset: %v", err)
	}
}

// TestExactSumsOverflowFirst: totals of magnitude 2^63 or more in several
// numbers, their blocks touched in decreasing order, merged from two
// sums: Round and MergeRound name the first in layout order and leave
// their target unchanged.
func TestExactSumsOverflowFirst(t *testing.T) {
	layout := newParts(70000, 3).SumLayout()
	for _, idx := range [][]int{{13, 5}, {65000, 40000, 9, 21}} {
		a, b := framework.NewExactSums(layout), framework.NewExactSums(layout)
		for _, i := range idx { // blocks touched in the order of idx
			one := newParts(70000, 3)
			one.xs[0][i] = 0x1p62
			for _, e := range []*framework.ExactSums{a, a, b, b} {
				if err := e.Add(one); err != nil {
					t.Fatal(err)
				}
			}
		}
		first := slices.Min(idx)
		name := fmt.Sprintf("a[%d]", first)
		out := newParts(70000, 3)
		out.xs[0][0] = 7
		err := a.MergeRound(out, []*framework.ExactSums{b}, 3)
		if err == nil || !errors.Is(err, framework.ErrInexact) || !strings.Contains(err.Error(), name+":") {
			t.Errorf("MergeRound of %v: %v, want ErrInexact naming %s", idx, err, name)
		}
		if err := a.Round(out); err == nil || !strings.Contains(err.Error(), name+":") {
			t.Errorf("Round of %v: %v, want an error naming %s", idx, err, name)
		}
		if out.xs[0][0] != 7 {
			t.Error("the target changed after failing")
		}
	}
}
