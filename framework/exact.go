package framework

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// ErrInexact marks a sum that the exact accumulator cannot represent: an
// addend that is NaN, infinite or of magnitude ≥ 2^63, or a total of
// magnitude ≥ 2^63 (docs/design.md, "Beyond one machine: the seam").
var ErrInexact = errors.New("exact sum out of range")

// Fixed is an exact, order-independent sum of float64 numbers in
// fixed point: each addend x is rounded once to the nearest multiple of
// 2^−64 (ties to even), and the rounded addends are summed exactly as
// integers of 192 bits (ext, hi, lo in two's complement; value
// (ext·2^128 + hi·2^64 + lo)·2^−64). Integer addition being associative
// and commutative, any split of the addends into partial sums and any
// order of merging them give the same bits. An addend that is NaN,
// infinite or of magnitude ≥ 2^63 makes the sum invalid (Err); a total
// of magnitude ≥ 2^63 makes Float64 fail. The 64 bits above the 128 keep
// the sum exact through up to 2^63 addends of magnitude < 2^63, so
// whether it fits is a property of the total, not of the order.
//
// Resolution: 2^−64 ≈ 5.4e−20 absolute. A number smaller than that is
// lost; addends of statistics (counts, sums of probabilities, bounds of
// magnitude far above 1e−19) are rounded in bits they do not have.
// The zero value is a valid empty sum.
type Fixed struct {
	sum192
	bad float64 // the first addend out of range (never 0); 0 when none
}

// sum192 is the value of a Fixed, (ext·2^128 + hi·2^64 + lo)·2^−64,
// without its record of an out-of-range addend: 24 bytes, the number
// that ExactSums keeps for each of its sums (it records out-of-range
// addends apart, ExactSums.bad).
type sum192 struct {
	lo, hi uint64
	ext    int64
}

// fixedLimit is 2^63: addends and totals must be smaller in magnitude.
const fixedLimit = 9223372036854775808.0

// toFixed returns round(x·2^64) (ties to even) as a 128-bit two's
// complement integer (hi, lo); ok is false when x is NaN, infinite or
// |x| ≥ 2^63.
func toFixed(x float64) (hi, lo uint64, ok bool) {
	b := math.Float64bits(x)
	exp := int(b>>52) & 0x7ff
	if exp >= 1023+63 { // NaN, ±Inf, |x| ≥ 2^63
		return 0, 0, false
	}
	mant := b&(1<<52-1) | 1<<52
	// |x| = mant·2^(exp−1075), |x|·2^64 = mant·2^(exp−1011); exp−1011 ≤ 74.
	switch sh := exp - 1011; {
	case sh >= 64:
		hi = mant << (sh - 64)
	case sh >= 0:
		hi, lo = mant>>(64-sh), mant<<sh // a shift by 64 gives 0
	case sh > -54:
		r := uint(-sh)
		q := mant >> r
		rem := mant & (1<<r - 1)
		half := uint64(1) << (r - 1)
		if rem > half || rem == half && q&1 == 1 {
			q++
		}
		lo = q
	default:
		return 0, 0, true // |x|·2^64 < 2^53·2^−54 = 1/2 (zero and subnormals too)
	}
	if b>>63 != 0 {
		lo, hi = negate128(lo, hi)
	}
	return hi, lo, true
}

func negate128(lo, hi uint64) (uint64, uint64) {
	lo, c := bits.Sub64(0, lo, 0)
	hi, _ = bits.Sub64(0, hi, c)
	return lo, hi
}

// add adds the sign-extended 128-bit integer (hi, lo) into (ext, hi, lo).
func (f *sum192) add(hi, lo uint64) {
	var c uint64
	f.lo, c = bits.Add64(f.lo, lo, 0)
	f.hi, c = bits.Add64(f.hi, hi, c)
	f.ext += int64(c) + int64(hi)>>63
}

// Add adds x to the sum. A NaN, infinite or too large x makes the sum
// invalid (Err reports the first such addend).
func (f *Fixed) Add(x float64) {
	hi, lo, ok := toFixed(x)
	if !ok {
		if f.bad == 0 {
			f.bad = x
		}
		return
	}
	f.add(hi, lo)
}

// Merge adds the sum g into f.
func (f *Fixed) Merge(g Fixed) {
	f.merge(g.sum192)
	if f.bad == 0 {
		f.bad = g.bad
	}
}

// merge adds g into f.
func (f *sum192) merge(g sum192) {
	var c uint64
	f.lo, c = bits.Add64(f.lo, g.lo, 0)
	f.hi, c = bits.Add64(f.hi, g.hi, c)
	f.ext += g.ext + int64(c)
}

// zero reports whether the sum is 0.
func (f *sum192) zero() bool { return f.lo == 0 && f.hi == 0 && f.ext == 0 }

// Err is nil unless an addend was NaN, infinite or of magnitude ≥ 2^63
// (an error wrapping ErrInexact naming it).
func (f *Fixed) Err() error {
	if f.bad != 0 {
		return fmt.Errorf("%w: addend %v (want a finite number of magnitude < 2^63)", ErrInexact, f.bad)
	}
	return nil
}

// Float64 is the sum rounded to the nearest float64 (ties to even). It
// fails, wrapping ErrInexact, when an addend was invalid or the total's
// magnitude is 2^63 or more.
func (f *Fixed) Float64() (float64, error) {
	if err := f.Err(); err != nil {
		return math.NaN(), err
	}
	if !f.fits() {
		return math.NaN(), fmt.Errorf("%w: the total's magnitude is 2^63 or more", ErrInexact)
	}
	return f.float(), nil
}

// fits reports whether the total's magnitude is below 2^63.
func (f *sum192) fits() bool { return f.ext == int64(f.hi)>>63 && !(f.hi == 1<<63 && f.lo == 0) }

// valid reports whether Float64 succeeds.
func (f *Fixed) valid() bool { return f.bad == 0 && f.fits() }

// float is Float64 of a valid sum.
func (f *sum192) float() float64 {
	lo, hi := f.lo, f.hi
	neg := int64(hi) < 0
	if neg {
		lo, hi = negate128(lo, hi)
	}
	v := roundScaled(hi, lo)
	if neg {
		v = -v
	}
	return v
}

// roundScaled is (hi·2^64 + lo)·2^−64 rounded to the nearest float64, ties
// to even (hi < 2^63).
func roundScaled(hi, lo uint64) float64 {
	var n int // bit length of hi:lo
	if hi != 0 {
		n = 128 - bits.LeadingZeros64(hi)
	} else {
		n = 64 - bits.LeadingZeros64(lo)
	}
	if n <= 53 {
		return float64(lo) * 0x1p-64 // exact: lo < 2^53, hi = 0
	}
	r := uint(n - 53) // bits to drop, 1..74
	var q, rem, half uint64
	var above bool // rem > half, for r > 64
	if r < 64 {
		q = hi<<(64-r) | lo>>r
		rem = lo & (1<<r - 1)
		half = 1 << (r - 1)
	} else if r == 64 {
		q, rem, half = hi, lo, 1<<63
	} else {
		s := r - 64
		q = hi >> s
		remHi := hi & (1<<s - 1)
		halfHi := uint64(1) << (s - 1)
		// compare (remHi, lo) with (halfHi, 0)
		switch {
		case remHi > halfHi || remHi == halfHi && lo > 0:
			above = true
		case remHi == halfHi && lo == 0:
			rem, half = 1, 1 // a tie
		default:
			rem, half = 0, 1
		}
	}
	if above || rem > half || rem == half && q&1 == 1 {
		q++
	}
	return float64(q) * pow2(int(r)-64) // q ≤ 2^53: exact (math.Ldexp's result)
}

// pow2 is 2^e for −1022 ≤ e ≤ 1023.
func pow2(e int) float64 { return math.Float64frombits(uint64(1023+e) << 52) }

// fixedBytes is the size of one encoded Fixed: lo, hi, ext.
const fixedBytes = 24

// SumPart names one part of a Summable's numbers and gives its length.
type SumPart struct {
	Name string
	Len  int
}

// Summable is an optional capability of Stats whose Merge adds a fixed
// number of float64s elementwise (fixed by the component's dimensions, not
// by the number of documents): statistics that any engine can combine as
// fixed-size sums, exactly and in any order, through ExactSums.
type Summable interface {
	Stats
	// SumLayout lists the parts of the numbers in a fixed order.
	SumLayout() []SumPart
	// Sums calls visit with slices of the parts' numbers (the part's
	// index in SumLayout, the offset of xs in the part), every number at
	// most once; a number it does not visit is zero (a sparse component
	// skips the rows it never touched). visit only reads xs.
	Sums(visit func(part, off int, xs []float64))
	// SetSums sets every number: get fills dst, the whole of part
	// `part`, once for each part. The statistics are then those whose
	// Sums are the numbers given.
	SetSums(get func(part int, dst []float64))
}

// ScalarSums passes the values of ps to visit as one part (index part,
// offset 0): a helper for a Summable's Sums over its scalar fields.
func ScalarSums(part int, visit func(part, off int, xs []float64), ps ...*float64) {
	var buf [8]float64
	xs := buf[:0]
	for _, p := range ps {
		xs = append(xs, *p)
	}
	visit(part, 0, xs)
}

// SetScalarSums sets the scalar fields ps from part `part` of get: a
// helper for a Summable's SetSums.
func SetScalarSums(part int, get func(part int, dst []float64), ps ...*float64) {
	var buf [8]float64
	xs := buf[:0]
	for range ps {
		xs = append(xs, 0)
	}
	get(part, xs)
	for i, p := range ps {
		*p = xs[i]
	}
}

// SliceSums visits each of xs whole, as parts first, first+1, …: a helper
// for a Summable's Sums over dense slices.
func SliceSums(first int, visit func(part, off int, xs []float64), xs ...[]float64) {
	for i, x := range xs {
		visit(first+i, 0, x)
	}
}

// SetSliceSums fills each of xs from parts first, first+1, … of get: a
// helper for a Summable's SetSums.
func SetSliceSums(first int, get func(part int, dst []float64), xs ...[]float64) {
	for i, x := range xs {
		get(first+i, x)
	}
}

// SumsVector returns every number of s in layout order (the numbers Sums
// does not visit are zero): for tests and for comparing statistics.
func SumsVector(s Summable) []float64 {
	l := s.SumLayout()
	start := make([]int, len(l)+1)
	for i, p := range l {
		start[i+1] = start[i] + p.Len
	}
	out := make([]float64, start[len(l)])
	s.Sums(func(part, off int, xs []float64) { copy(out[start[part]+off:], xs) })
	return out
}

// DocSums are Summable: two numbers.
var _ Summable = (*DocSums)(nil)

// SumLayout is "docsums" of 2 numbers: Docs and Sum.
func (s *DocSums) SumLayout() []SumPart { return []SumPart{{Name: "docsums", Len: 2}} }

// Sums visits Docs and Sum.
func (s *DocSums) Sums(visit func(part, off int, xs []float64)) {
	ScalarSums(0, visit, &s.Docs, &s.Sum)
}

// SetSums sets Docs and Sum.
func (s *DocSums) SetSums(get func(part int, dst []float64)) { SetScalarSums(0, get, &s.Docs, &s.Sum) }

// ExactSums are the exact, order-independent sums (Fixed) of Summable
// statistics of one layout: Add adds statistics, Merge adds other sums,
// Round writes the totals back as float64 statistics, and
// MarshalBinary/UnmarshalBinary carry them between processes. Adding the
// statistics of any split of a set of documents, in any order and merged
// in any order, gives the same bits.
//
// The sums are compact: they hold the blocks of exactBlock consecutive
// numbers that an Add, a Merge or an UnmarshalBinary may have made
// non-zero (the topic layer's statistics of a worker touch a fraction of
// its K×V rows), one after the other in the order first touched, each
// number's sum in 24 bytes (sum192; the out-of-range addends, which make
// a sum invalid, are recorded apart), with the position of every block
// in an index (slot). Reset, Merge, Err and Round visit the touched
// blocks only, and the memory a worker's sums touch is its own blocks'.
// Where a block is kept, and in what order the blocks are visited,
// changes no bit of a sum.
type ExactSums struct {
	layout  []SumPart
	start   []int           // offset of each part in the numbers
	n       int             // the number of numbers
	slot    []int32         // slot[b]: 1 + the position of block b in touched (and in acc, in blocks); 0 when untouched
	touched []int32         // the blocks kept, in the order first touched
	acc     [][]sum192      // the sums of the touched blocks' numbers, block after block, in pages of exactPage blocks (at); zero beyond the len(touched) blocks in use
	bad     map[int]float64 // the first out-of-range addend of each number that had one
}

// exactBlock is the number of consecutive numbers of ExactSums kept
// together (2^exactShift; 192 bytes of sums).
const (
	exactShift = 3
	exactBlock = 1 << exactShift
)

// exactPageShift sets the blocks of a page of ExactSums.acc: 2^11 (393
// KB of sums), or every block of a smaller layout. The sums grow a page at
// a time: nothing is copied as they grow, and a new page's memory is
// touched only as its blocks are used.
const (
	exactPageShift = 11
	exactPage      = 1 << exactPageShift
)

// ExactBytesPerNumber is the most memory ExactSums take per number of
// their layout, when every block is touched: a 24-byte sum (sum192) and
// the 4-byte index entry (slot) of each block of exactBlock numbers.
const ExactBytesPerNumber = 24 + 4.0/exactBlock

// maxExactNumbers is the most numbers ExactSums hold: the blocks are
// numbered in int32.
const maxExactNumbers = math.MaxInt32 * exactBlock

// NewExactSums returns empty sums of the layout. It panics when the
// layout has more than 2^31·8 numbers (400 GB of sums).
func NewExactSums(layout []SumPart) *ExactSums {
	e := &ExactSums{layout: append([]SumPart(nil), layout...), start: make([]int, len(layout)+1)}
	for i, p := range layout {
		e.start[i+1] = e.start[i] + p.Len
	}
	e.n = e.start[len(layout)]
	if e.n > maxExactNumbers {
		panic(fmt.Sprintf("framework: exact sums of %d numbers (at most %d)", e.n, maxExactNumbers))
	}
	e.slot = make([]int32, (e.n+exactBlock-1)>>exactShift)
	e.touched = make([]int32, 0, len(e.slot)) // 1/48 of the sums' most memory: never regrown
	return e
}

// pos is the sums of the block at position j (of touched, < len(slot)).
func (e *ExactSums) pos(j int) []sum192 {
	return e.acc[j>>exactPageShift][(j&(exactPage-1))*exactBlock:][:exactBlock]
}

// newBlock keeps block b (untouched so far), its numbers 0, and returns
// its position.
func (e *ExactSums) newBlock(b int) int {
	j := len(e.touched)
	e.touched = append(e.touched, int32(b))
	e.slot[b] = int32(j + 1)
	e.pages(j + 1)
	return j
}

// pages adds the pages that positions [0, n) need (new pages are zero;
// Reset clears the blocks it drops, so every block beyond the ones in use
// is zero).
func (e *ExactSums) pages(n int) {
	for len(e.acc) <= (n-1)>>exactPageShift {
		e.acc = append(e.acc, make([]sum192, min(exactPage, len(e.slot))*exactBlock))
	}
}

// keepAll keeps the blocks of bs (distinct) that e does not keep yet, at
// the positions that newBlock called on each in turn would give them:
// the parts (MergeRound's, c of them, on its goroutines) first count the
// new blocks of their ranges of bs, then write them at their offsets in
// touched and slot (each block by one goroutine).
func (e *ExactSums) keepAll(bs []int32, c int, parts func(n int, f func(j, lo, hi int))) {
	before := make([]int, c+1) // before[j+1]: the new blocks of part j; then the new blocks before part j
	parts(len(bs), func(j, lo, hi int) {
		n := 0
		for _, b := range bs[lo:hi] {
			if e.slot[b] == 0 {
				n++
			}
		}
		before[j+1] = n
	})
	for j := 1; j <= c; j++ {
		before[j] += before[j-1]
	}
	start, total := len(e.touched), before[c]
	if total == 0 {
		return
	}
	e.touched = slices.Grow(e.touched, total)[:start+total]
	e.pages(start + total)
	parts(len(bs), func(j, lo, hi int) {
		at := start + before[j]
		for _, b := range bs[lo:hi] {
			if e.slot[b] == 0 {
				e.touched[at] = b
				e.slot[b] = int32(at + 1)
				at++
			}
		}
	})
}

// blockAt is the sums of block b, kept (and then 0) if it was not.
func (e *ExactSums) blockAt(b int) []sum192 {
	j := int(e.slot[b]) - 1
	if j < 0 {
		j = e.newBlock(b)
	}
	return e.pos(j)
}

// kept is the sums of block b, or nil when it is untouched.
func (e *ExactSums) kept(b int) []sum192 {
	j := int(e.slot[b]) - 1
	if j < 0 {
		return nil
	}
	return e.pos(j)
}

// markBad records x, out of range, as an addend of number i (the first
// one of that number only).
func (e *ExactSums) markBad(i int, x float64) {
	if e.bad == nil {
		e.bad = make(map[int]float64)
	}
	if _, ok := e.bad[i]; !ok {
		e.bad[i] = x
	}
}

// mergeBad records o's out-of-range addends in e's (Fixed.Merge's: a
// number's first stays first).
func (e *ExactSums) mergeBad(o *ExactSums) {
	for i, x := range o.bad {
		e.markBad(i, x)
	}
}

// Layout is the layout of the sums.
func (e *ExactSums) Layout() []SumPart { return e.layout }

// Reset empties the sums.
func (e *ExactSums) Reset() {
	for _, b := range e.touched {
		e.slot[b] = 0
	}
	for p, n := 0, len(e.touched)*exactBlock; n > 0; p++ {
		m := min(n, len(e.acc[p]))
		clear(e.acc[p][:m])
		n -= m
	}
	e.touched = e.touched[:0]
	clear(e.bad)
}

// CheckLayout fails, wrapping ErrIncompatible and naming the first
// difference, unless want is the sums' layout.
func (e *ExactSums) CheckLayout(want []SumPart) error {
	if len(want) != len(e.layout) {
		return fmt.Errorf("%w: exact sums of %d parts, want %d (%s)", ErrIncompatible, len(e.layout), len(want), layoutString(want))
	}
	for i, p := range want {
		if e.layout[i] != p {
			return fmt.Errorf("%w: exact sums: part %d is %q of %d numbers, want %q of %d", ErrIncompatible, i, e.layout[i].Name, e.layout[i].Len, p.Name, p.Len)
		}
	}
	return nil
}

func layoutString(l []SumPart) string {
	s := ""
	for i, p := range l {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s[%d]", p.Name, p.Len)
	}
	return s
}

// Add adds every number of s (statistics of the sums' layout).
func (e *ExactSums) Add(s Summable) error {
	if err := e.CheckLayout(s.SumLayout()); err != nil {
		return err
	}
	var err error
	s.Sums(func(part, off int, xs []float64) {
		if err != nil {
			return
		}
		if part < 0 || part >= len(e.layout) || off < 0 || off+len(xs) > e.layout[part].Len {
			err = fmt.Errorf("%w: exact sums: %T visited part %d [%d, %d), outside its layout (%s)", ErrIncompatible, s, part, off, off+len(xs), layoutString(e.layout))
			return
		}
		for at := e.start[part] + off; len(xs) > 0; {
			o := at & (exactBlock - 1)
			m := min(len(xs), exactBlock-o)
			acc := e.blockAt(at >> exactShift)[o:][:m]
			for i, x := range xs[:m] {
				hi, lo, ok := toFixed(x)
				if !ok {
					e.markBad(at+i, x)
					continue
				}
				acc[i].add(hi, lo)
			}
			xs = xs[m:]
			at += m
		}
	})
	return err
}

// Merge adds the sums o (of the same layout) into e.
func (e *ExactSums) Merge(o *ExactSums) error {
	if err := e.CheckLayout(o.layout); err != nil {
		return err
	}
	for j, b := range o.touched {
		dst, src := e.blockAt(int(b)), o.pos(j)
		for i := range dst {
			dst[i].merge(src[i])
		}
	}
	e.mergeBad(o)
	return nil
}

// firstBad is the index of the first number (in layout order) that had
// an out-of-range addend, or −1.
func (e *ExactSums) firstBad() int {
	first := -1
	for i := range e.bad {
		if first < 0 || i < first {
			first = i
		}
	}
	return first
}

// fixed is number i as a Fixed (its sum and its first out-of-range
// addend).
func (e *ExactSums) fixed(i int) Fixed {
	f := Fixed{bad: e.bad[i]}
	if blk := e.kept(i >> exactShift); blk != nil {
		f.sum192 = blk[i&(exactBlock-1)]
	}
	return f
}

// at names number i (an index into the numbers) by its part and its
// index in the part.
func (e *ExactSums) at(i int) (string, int) {
	p := 0
	for e.start[p+1] <= i {
		p++
	}
	return e.layout[p].Name, i - e.start[p]
}

// Err is nil unless an addend was out of range (ErrInexact), naming the
// part and the index of the first such number.
func (e *ExactSums) Err() error {
	if i := e.firstBad(); i >= 0 {
		name, j := e.at(i)
		f := e.fixed(i)
		return fmt.Errorf("exact sums: %s[%d]: %w", name, j, f.Err())
	}
	return nil
}

// Round sets s (statistics of the sums' layout) to the totals, each
// rounded to the nearest float64. It fails, wrapping ErrInexact and
// naming the number, when an addend or a total was out of range; s is
// then unchanged.
func (e *ExactSums) Round(s Summable) error { return e.MergeRound(s, nil, 1) }

// exactChunk is the fewest blocks MergeRound gives a goroutine.
const exactChunk = 1 << 12

// MergeRound merges the sums others (of e's layout) into e and sets s to
// the totals as Round does, on up to workers goroutines, which take
// contiguous ranges of the numbers in turn (a serial pass, on large sums,
// of the E-step of every worker count: models.Model's exactPass): the
// same bits and the same errors as Merge of each of others in turn and
// then Round. Nothing is merged when a layout differs.
func (e *ExactSums) MergeRound(s Summable, others []*ExactSums, workers int) error {
	if err := e.CheckLayout(s.SumLayout()); err != nil {
		return err
	}
	for _, o := range others {
		if err := e.CheckLayout(o.layout); err != nil {
			return err
		}
	}
	nb := len(e.slot)
	w := max(1, min(workers, nb/exactChunk))
	// c parts (8 a goroutine with more than one goroutine, 1 otherwise).
	c := 1
	if w > 1 {
		c = 8 * w
	}
	// parts calls f(j, lo, hi) with the c parts [lo, hi) of [0, n), in
	// turn on whichever of w goroutines (the calling one among them) is
	// free: one slowed by the machine's other work leaves its share to
	// the others.
	parts := func(n int, f func(j, lo, hi int)) {
		if c == 1 || n < 64*c { // a small part of the layout: no goroutine
			f(0, 0, n)
			return
		}
		var next atomic.Int64
		run := func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= c {
					return
				}
				f(j, j*n/c, (j+1)*n/c)
			}
		}
		var wg sync.WaitGroup
		for range w - 1 {
			wg.Go(run)
		}
		run()
		wg.Wait()
	}
	// Keep every block that others touched (before any merging: e's blocks
	// then stay where they are while the goroutines merge into them).
	for _, o := range others {
		e.keepAll(o.touched, c, parts)
		e.mergeBad(o)
	}
	// Merge each of others' blocks into e's (others one after the other:
	// two of them may hold the same block), reading theirs in their order;
	// then find the first number of each part of e's blocks, read in
	// their order, whose total Float64 refuses (out-of-range addends are
	// in e.bad).
	for _, o := range others {
		parts(len(o.touched), func(_, lo, hi int) {
			for j, b := range o.touched[lo:hi] {
				dst := e.pos(int(e.slot[b]) - 1)
				for i, f := range o.pos(lo + j) {
					dst[i].merge(f)
				}
			}
		})
	}
	over := make([]int, c) // −1: none
	for j := range over {
		over[j] = -1
	}
	parts(len(e.touched), func(j, lo, hi int) {
		for p, b := range e.touched[lo:hi] {
			for i, f := range e.pos(lo + p) {
				if !f.fits() {
					if k := int(b)<<exactShift + i; over[j] < 0 || k < over[j] {
						over[j] = k
					}
					break
				}
			}
		}
	})
	first := e.firstBad()
	for _, i := range over {
		if i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first >= 0 { // s is left unchanged
		f := e.fixed(first)
		_, err := f.Float64()
		name, j := e.at(first)
		return fmt.Errorf("exact sums: %s[%d]: %w", name, j, err)
	}
	s.SetSums(func(part int, dst []float64) {
		base := e.start[part]
		parts(len(dst), func(_, lo, hi int) {
			for i := lo; i < hi; {
				k := base + i // the number's index in the layout
				end := min(hi, i+exactBlock-k&(exactBlock-1))
				if blk := e.kept(k >> exactShift); blk == nil {
					clear(dst[i:end])
				} else {
					src := blk[k&(exactBlock-1):][:end-i]
					for t := range src {
						dst[i+t] = src[t].float()
					}
				}
				i = end
			}
		})
	})
	return nil
}

// exactMagic and exactVersion head the binary encoding of ExactSums.
const (
	exactMagic   = "MASLDAX1"
	exactVersion = 1
)

// MarshalBinary encodes the sums: "MASLDAX1", the format version (uint32
// LE), the layout (number of parts; each part's name length, name and
// length), the number of non-zero entries, and each of those as its index
// (uint64) and its 192-bit value (lo, hi uint64, ext int64), all little
// endian. It fails (ErrInexact) when an addend was out of range: an
// invalid sum is not sent on.
func (e *ExactSums) MarshalBinary() ([]byte, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	b := append([]byte(nil), exactMagic...)
	b = binary.LittleEndian.AppendUint32(b, exactVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(e.layout)))
	for _, p := range e.layout {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.Name)))
		b = append(b, p.Name...)
		b = binary.LittleEndian.AppendUint64(b, uint64(p.Len))
	}
	nz := 0
	for j := range e.touched {
		for _, f := range e.pos(j) {
			if !f.zero() {
				nz++
			}
		}
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(nz))
	for blk := range e.slot { // in index order
		for i, f := range e.kept(blk) {
			if !f.zero() {
				b = binary.LittleEndian.AppendUint64(b, uint64(blk<<exactShift+i))
				b = binary.LittleEndian.AppendUint64(b, f.lo)
				b = binary.LittleEndian.AppendUint64(b, f.hi)
				b = binary.LittleEndian.AppendUint64(b, uint64(f.ext))
			}
		}
	}
	return b, nil
}

// UnmarshalBinary decodes sums written by MarshalBinary, replacing e's
// layout and contents. A wrong magic, another version or a truncated or
// inconsistent encoding is an error wrapping ErrBadInput; compare the
// layout with CheckLayout.
func (e *ExactSums) UnmarshalBinary(data []byte) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: exact sums: "+format, append([]any{ErrBadInput}, args...)...)
	}
	if len(data) < len(exactMagic)+8 || string(data[:len(exactMagic)]) != exactMagic {
		return bad("not an encoding of exact sums (want the magic %q)", exactMagic)
	}
	r := data[len(exactMagic):]
	if v := binary.LittleEndian.Uint32(r); v != exactVersion {
		return bad("format version %d; this build reads version %d", v, exactVersion)
	}
	np := binary.LittleEndian.Uint32(r[4:])
	r = r[8:]
	var layout []SumPart
	total := uint64(0)
	for i := uint32(0); i < np; i++ {
		if len(r) < 4 {
			return bad("truncated in the layout")
		}
		n := uint64(binary.LittleEndian.Uint32(r))
		r = r[4:]
		if uint64(len(r)) < n+8 {
			return bad("truncated in the layout")
		}
		name := string(r[:n])
		l := binary.LittleEndian.Uint64(r[n:])
		r = r[n+8:]
		total += l
		if l > maxExactNumbers || total > maxExactNumbers {
			return bad("part %q of %d numbers is too large", name, l)
		}
		layout = append(layout, SumPart{Name: name, Len: int(l)})
	}
	if len(r) < 8 {
		return bad("truncated before the entries")
	}
	nz := binary.LittleEndian.Uint64(r)
	r = r[8:]
	if nz > total || uint64(len(r)) != nz*(8+fixedBytes) {
		return bad("%d entries in %d bytes for %d numbers", nz, len(r), total)
	}
	out := NewExactSums(layout)
	last := -1
	for k := uint64(0); k < nz; k++ {
		i := binary.LittleEndian.Uint64(r)
		if i >= total || int(i) <= last {
			return bad("entry index %d out of order or range", i)
		}
		last = int(i)
		out.blockAt(int(i) >> exactShift)[i&(exactBlock-1)] = sum192{
			lo:  binary.LittleEndian.Uint64(r[8:]),
			hi:  binary.LittleEndian.Uint64(r[16:]),
			ext: int64(binary.LittleEndian.Uint64(r[24:])),
		}
		r = r[8+fixedBytes:]
	}
	*e = *out
	return nil
}
