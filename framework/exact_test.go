package framework_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

// bigQuant is round(x·2^64), ties to even, computed with math/big.
func bigQuant(x float64) *big.Int {
	f := new(big.Float).SetFloat64(x)
	f.SetMantExp(f, 64)
	i, _ := f.Int(nil) // toward zero
	frac := new(big.Float).Sub(f, new(big.Float).SetInt(i))
	frac.Abs(frac)
	c := frac.Cmp(big.NewFloat(0.5))
	if c > 0 || c == 0 && i.Bit(0) == 1 {
		if x < 0 {
			i.Sub(i, big.NewInt(1))
		} else {
			i.Add(i, big.NewInt(1))
		}
	}
	return i
}

// bigSum is the exact sum of the quantised addends, rounded to float64
// (ties to even), and whether its magnitude is below 2^63.
func bigSum(xs []float64) (float64, bool) {
	s := new(big.Int)
	for _, x := range xs {
		s.Add(s, bigQuant(x))
	}
	lim := new(big.Int).Lsh(big.NewInt(1), 127)
	if new(big.Int).Abs(s).Cmp(lim) >= 0 {
		return 0, false
	}
	f := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).SetInt(s)
	f.SetMantExp(f, -64)
	v, _ := f.Float64()
	return v, true
}

func fixedSum(t *testing.T, xs []float64) (float64, error) {
	t.Helper()
	var f framework.Fixed
	for _, x := range xs {
		f.Add(x)
	}
	return f.Float64()
}

func TestFixedTable(t *testing.T) {
	tiny := math.Ldexp(1, -64)
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"empty", nil, 0},
		{"one", []float64{1}, 1},
		{"negative", []float64{-2.5}, -2.5},
		{"cancellation float64 loses", []float64{1e16, 1, -1e16}, 1},
		{"0.1 ten times", []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1.0000000000000000000},
		{"resolution", []float64{tiny, tiny}, 2 * tiny},
		{"half resolution ties to even (0)", []float64{tiny / 2}, 0},
		{"1.5 resolution ties to even (2)", []float64{1.5 * tiny}, 2 * tiny},
		{"below resolution", []float64{1e-30, 1e-30}, 0},
		{"subnormal", []float64{5e-324}, 0},
		{"largest addend", []float64{math.Nextafter(1<<63, 0), -math.Nextafter(1<<63, 0), 3}, 3},
		{"near the limit", []float64{math.Ldexp(1, 62), math.Ldexp(1, 62) - 1024}, math.Ldexp(1, 63) - 1024},
		{"mixed magnitudes", []float64{1e18, 1e-18, -1e18}, bigOnly([]float64{1e-18})},
		{"round the total to even", []float64{1, math.Ldexp(1, -53)}, 1},
		{"round the total up", []float64{1, math.Ldexp(1, -53), tiny}, 1 + math.Ldexp(1, -52)},
		{"negative zero", []float64{math.Copysign(0, -1)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fixedSum(t, tt.xs)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(got) != math.Float64bits(tt.want) {
				t.Errorf("sum = %v (%x), want %v (%x)", got, math.Float64bits(got), tt.want, math.Float64bits(tt.want))
			}
			if b, ok := bigSum(tt.xs); !ok || b != got {
				t.Errorf("math/big says %v (in range %v), got %v", b, ok, got)
			}
		})
	}
}

func bigOnly(xs []float64) float64 { v, _ := bigSum(xs); return v }

func TestFixedOutOfRange(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
	}{
		{"NaN", []float64{1, math.NaN(), 2}},
		{"+Inf", []float64{math.Inf(1)}},
		{"-Inf", []float64{math.Inf(-1)}},
		{"addend 2^63", []float64{math.Ldexp(1, 63)}},
		{"addend -2^63", []float64{-math.Ldexp(1, 63)}},
		{"total 2^63", []float64{math.Ldexp(1, 62), math.Ldexp(1, 62)}},
		{"total -2^63", []float64{-math.Ldexp(1, 62), -math.Ldexp(1, 62)}},
		{"total far out", []float64{1e18, 1e18, 1e18, 1e18, 1e18, 1e18, 1e18, 1e18, 1e18, 1e18}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fixedSum(t, tt.xs)
			if !errors.Is(err, framework.ErrInexact) {
				t.Fatalf("sum = %v, %v; want an error wrapping ErrInexact", got, err)
			}
			if !math.IsNaN(got) {
				t.Errorf("value %v with the error, want NaN", got)
			}
		})
	}
	// An intermediate total out of range is fine when the final one is not:
	// whether it fits is a property of the total, not of the order.
	xs := []float64{math.Ldexp(1, 62), math.Ldexp(1, 62), math.Ldexp(1, 62), -math.Ldexp(1, 62), -math.Ldexp(1, 62), 5}
	if got, err := fixedSum(t, xs); err != nil || got != math.Ldexp(1, 62)+5 {
		t.Errorf("intermediate overflow: %v, %v; want %v", got, err, math.Ldexp(1, 62)+5)
	}
}

// randAddend draws numbers of very different magnitudes and signs,
// including some that cancel and some below the resolution.
func randAddend(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return r.NormFloat64()
	case 1:
		return math.Ldexp(r.Float64()-0.5, r.IntN(120)-70) // 2^−70 … 2^49
	case 2:
		return float64(r.IntN(1000) - 500)
	case 3:
		return -r.ExpFloat64() * 1e12
	case 4:
		return math.Ldexp(float64(r.Int64N(1<<53)), -64-r.IntN(20)) // at and below the resolution
	default:
		return r.Float64() * 1e-3
	}
}

// TestFixedProperty: any split of the same addends into partial sums,
// merged in any order, gives the same bits, and they are math/big's.
func TestFixedProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	for trial := range 300 {
		n := 1 + r.IntN(200)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = randAddend(r)
		}
		want, ok := bigSum(xs)
		if !ok {
			t.Fatalf("trial %d: out of range", trial)
		}
		serial, err := fixedSum(t, xs)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(serial) != math.Float64bits(want) {
			t.Fatalf("trial %d: serial %v, math/big %v", trial, serial, want)
		}
		for split := range 5 {
			perm := r.Perm(n)
			parts := make([]framework.Fixed, 1+r.IntN(8))
			for _, i := range perm {
				parts[r.IntN(len(parts))].Add(xs[i])
			}
			var tot framework.Fixed
			for _, j := range r.Perm(len(parts)) {
				tot.Merge(parts[j])
			}
			got, err := tot.Float64()
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(got) != math.Float64bits(serial) {
				t.Fatalf("trial %d, split %d: %v, serial %v", trial, split, got, serial)
			}
		}
	}
}

// FuzzFixed: the sum of any two or three numbers equals math/big's, in
// every order.
func FuzzFixed(f *testing.F) {
	f.Add(1.0, 2.0, -3.0)
	f.Add(1e16, 1.0, -1e16)
	f.Add(math.Ldexp(1, -65), math.Ldexp(3, -65), 0.0)
	f.Fuzz(func(t *testing.T, a, b, c float64) {
		xs := []float64{a, b, c}
		want, ok := bigSum(xs)
		for _, p := range [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}} {
			var s framework.Fixed
			for _, i := range p {
				s.Add(xs[i])
			}
			got, err := s.Float64()
			inRange := ok
			for _, x := range xs {
				if !(math.Abs(x) < math.Ldexp(1, 63)) {
					inRange = false
				}
			}
			if !inRange {
				if err == nil {
					t.Fatalf("%v: %v without an error", xs, got)
				}
				continue
			}
			if err != nil || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%v in order %v: %v, %v; math/big %v", xs, p, got, err, want)
			}
		}
	})
}

// vec is a Summable for tests: a vector part and two scalars.
type vec struct {
	V    []float64
	A, B float64
}

func (v *vec) Merge(o framework.Stats) {
	t := o.(*vec)
	for i := range v.V {
		v.V[i] += t.V[i]
	}
	v.A += t.A
	v.B += t.B
}
func (v *vec) Reset() { clear(v.V); v.A, v.B = 0, 0 }
func (v *vec) SumLayout() []framework.SumPart {
	return []framework.SumPart{{Name: "v", Len: len(v.V)}, {Name: "ab", Len: 2}}
}
func (v *vec) Sums(visit func(part, off int, xs []float64)) {
	// sparse: only the non-zero runs of V
	for i := 0; i < len(v.V); {
		if v.V[i] == 0 {
			i++
			continue
		}
		j := i
		for j < len(v.V) && v.V[j] != 0 {
			j++
		}
		visit(0, i, v.V[i:j])
		i = j
	}
	framework.ScalarSums(1, visit, &v.A, &v.B)
}
func (v *vec) SetSums(get func(part int, dst []float64)) {
	get(0, v.V)
	framework.SetScalarSums(1, get, &v.A, &v.B)
}

func TestExactSumsSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 2))
	const n = 7
	docs := make([]*vec, 100)
	for d := range docs {
		v := &vec{V: make([]float64, n), A: randAddend(r), B: randAddend(r)}
		for i := range v.V {
			if r.IntN(3) > 0 {
				v.V[i] = randAddend(r)
			}
		}
		docs[d] = v
	}
	layout := (&vec{V: make([]float64, n)}).SumLayout()
	total := func(parts [][]int) *vec {
		t.Helper()
		var encoded [][]byte
		for _, p := range parts {
			e := framework.NewExactSums(layout)
			for _, d := range p {
				if err := e.Add(docs[d]); err != nil {
					t.Fatal(err)
				}
			}
			b, err := e.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			encoded = append(encoded, b)
		}
		tot := framework.NewExactSums(layout)
		for _, j := range r.Perm(len(encoded)) {
			var e framework.ExactSums
			if err := e.UnmarshalBinary(encoded[j]); err != nil {
				t.Fatal(err)
			}
			if err := tot.Merge(&e); err != nil {
				t.Fatal(err)
			}
		}
		out := &vec{V: make([]float64, n)}
		if err := tot.Round(out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := make([]int, len(docs))
	for i := range all {
		all[i] = i
	}
	want := total([][]int{all})
	// The union by math/big, number by number.
	for i := 0; i < n+2; i++ {
		var xs []float64
		for _, d := range docs {
			xs = append(xs, append(append([]float64(nil), d.V...), d.A, d.B)[i])
		}
		b, _ := bigSum(xs)
		got := append(append([]float64(nil), want.V...), want.A, want.B)[i]
		if math.Float64bits(b) != math.Float64bits(got) {
			t.Errorf("number %d: %v, math/big %v", i, got, b)
		}
	}
	splits := []struct {
		name  string
		parts func() [][]int
	}{
		{"halves", func() [][]int { return [][]int{all[:50], all[50:]} }},
		{"reversed shards of 32", func() [][]int {
			var p [][]int
			for s := len(all); s > 0; s -= 32 {
				p = append(p, all[max(0, s-32):s])
			}
			return p
		}},
		{"one per document", func() [][]int {
			var p [][]int
			for _, d := range all {
				p = append(p, []int{d})
			}
			return p
		}},
		{"random bundles", func() [][]int {
			p := make([][]int, 9)
			for _, d := range r.Perm(len(all)) {
				k := r.IntN(len(p))
				p[k] = append(p[k], d)
			}
			return p
		}},
		{"with empty parts", func() [][]int { return [][]int{nil, all[:3], nil, all[3:]} }},
	}
	for _, s := range splits {
		t.Run(s.name, func(t *testing.T) {
			if diff := cmp.Diff(want, total(s.parts()), cmp.Comparer(func(a, b float64) bool {
				return math.Float64bits(a) == math.Float64bits(b)
			})); diff != "" {
				t.Errorf("split differs from the union (-union +split):\n%s", diff)
			}
		})
	}
}

func TestExactSumsErrors(t *testing.T) {
	layout := []framework.SumPart{{Name: "v", Len: 3}, {Name: "ab", Len: 2}}
	e := framework.NewExactSums(layout)
	if err := e.Add(&vec{V: make([]float64, 4)}); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("another layout: %v, want ErrIncompatible", err)
	}
	if err := e.Add(&vec{V: []float64{1, math.Inf(1), 2}}); err != nil {
		t.Fatal(err)
	}
	out := &vec{V: []float64{7, 7, 7}}
	if err := e.Round(out); !errors.Is(err, framework.ErrInexact) {
		t.Errorf("Round after +Inf: %v, want ErrInexact", err)
	} else if out.V[0] != 7 {
		t.Errorf("Round changed its target after failing: %v", out.V)
	}
	if _, err := e.MarshalBinary(); !errors.Is(err, framework.ErrInexact) {
		t.Errorf("MarshalBinary after +Inf: %v, want ErrInexact", err)
	}

	good := framework.NewExactSums(layout)
	if err := good.Add(&vec{V: []float64{1, 2, 3}, A: 4}); err != nil {
		t.Fatal(err)
	}
	b, err := good.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"magic", corrupt(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"version", corrupt(func(b []byte) []byte { b[8] = 2; return b })},
		{"truncated", b[:len(b)-1]},
		{"trailing", append(append([]byte(nil), b...), 0)},
	} {
		var d framework.ExactSums
		if err := d.UnmarshalBinary(tt.data); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", tt.name, err)
		}
	}
	var d framework.ExactSums
	if err := d.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if err := d.CheckLayout([]framework.SumPart{{Name: "v", Len: 4}, {Name: "ab", Len: 2}}); !errors.Is(err, framework.ErrIncompatible) {
		t.Errorf("decoded sums of another layout: %v, want ErrIncompatible", err)
	}
}

// BenchmarkSum compares the exact accumulation of a statistics vector
// with float64 addition: the same 4096 addends into 4096 sums.
func BenchmarkSum(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = r.Float64() * 100
	}
	b.Run("float64", func(b *testing.B) {
		acc := make([]float64, len(xs))
		for b.Loop() {
			for i, x := range xs {
				acc[i] += x
			}
		}
	})
	b.Run("fixed128", func(b *testing.B) {
		acc := make([]framework.Fixed, len(xs))
		for b.Loop() {
			for i, x := range xs {
				acc[i].Add(x)
			}
		}
	})
}
