package topics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
)

// Refresh and GlobalELBO give the same bits for any number of workers,
// on a layer large enough to be split (K·V above parallelMin and above
// zetaChunk), and GlobalELBO's sum is its chunks' sums added in order.
func TestParallelPassesBitIdentical(t *testing.T) {
	cfg := Defaults()
	const V = 7001
	var want *Layer
	var wantELBO float64
	for _, w := range []int{1, 2, 3, 7} {
		l, err := New(cfg, V)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(8, 9))
		for i := range l.Zeta {
			l.Zeta[i] = cfg.Tau + 50*rng.Float64()*rng.Float64()
		}
		l.SetWorkers(w)
		l.Refresh()
		e := l.GlobalELBO()
		if want == nil {
			want, wantELBO = l, e
			lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
			byHand := float64(l.K) * (lg(V*l.Tau) - V*lg(l.Tau))
			for _, s := range l.TopicSum {
				byHand -= lg(s)
			}
			for lo := 0; lo < len(l.Zeta); lo += zetaChunk {
				p := 0.0
				for i := lo; i < min(len(l.Zeta), lo+zetaChunk); i++ {
					p += lg(l.Zeta[i]) + (l.Tau-l.Zeta[i])*l.ElogBeta[i]
				}
				byHand += p
			}
			if math.Float64bits(e) != math.Float64bits(byHand) {
				t.Errorf("one worker: GlobalELBO %v, by hand %v", e, byHand)
			}
			continue
		}
		if !slices.Equal(l.ElogBeta, want.ElogBeta) || !slices.Equal(l.ExpElogBeta, want.ExpElogBeta) {
			t.Errorf("%d workers: E[log β] differs from one worker's", w)
		}
		if math.Float64bits(e) != math.Float64bits(wantELBO) {
			t.Errorf("%d workers: GlobalELBO %v, one worker %v", w, e, wantELBO)
		}
	}
}

// New's E[log β] (refreshUniform) is Refresh's, bit for bit, and so is
// NewWorkers' for any number of workers (on a layer large enough to be
// split).
func TestNewRefreshUniform(t *testing.T) {
	cfg := Defaults()
	for _, tc := range []struct{ v, workers int }{{1003, 1}, {7001, 1}, {7001, 2}, {7001, 3}} {
		l, err := NewWorkers(cfg, tc.v, tc.workers)
		if err != nil {
			t.Fatal(err)
		}
		if tc.workers == 1 {
			if n, err := New(cfg, tc.v); err != nil || !slices.Equal(n.Zeta, l.Zeta) || !slices.Equal(n.ElogBeta, l.ElogBeta) {
				t.Errorf("V %d: New differs from NewWorkers with one worker (%v)", tc.v, err)
			}
		}
		if tc.v*cfg.K >= parallelMin && len(slices.Compact(slices.Clone(l.Zeta))) != 1 {
			t.Errorf("V %d, %d workers: ζ is not τ everywhere", tc.v, tc.workers)
		}
		eb, xb, ts := slices.Clone(l.ElogBeta), slices.Clone(l.ExpElogBeta), slices.Clone(l.TopicSum)
		l.Refresh()
		if !slices.Equal(eb, l.ElogBeta) || !slices.Equal(xb, l.ExpElogBeta) || !slices.Equal(ts, l.TopicSum) {
			t.Errorf("V %d, %d workers: New's E[log β] differs from Refresh's", tc.v, tc.workers)
		}
	}
}

// ELBO's word term Σ_kv Word_kv E[log β_kv] has the same bits for any
// number of workers, on statistics touching enough words to be split
// (pipeline), in an order that is not the words': the parts of
// wordTermChunk touched words, each summed in order, added in order.
func TestWordTermBitIdentical(t *testing.T) {
	cfg := Defaults()
	cfg.K = 3
	const V = 3 * parallelMin / 2
	var want float64
	for i, w := range []int{1, 2, 3, 7} {
		l, err := NewWorkers(cfg, V, w)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(8, 9))
		for i := range l.Zeta {
			l.Zeta[i] = cfg.Tau + 50*r.Float64()*r.Float64()
		}
		l.Refresh()
		st := l.NewStats().(*Stats)
		for _, v := range r.Perm(V)[:V-100] {
			st.touch(int32(v))
			for k := range cfg.K {
				st.Word[v*cfg.K+k] = 3 * r.Float64()
			}
		}
		got := l.wordTerm(st)
		if i == 0 {
			// The parts by hand.
			var parts []float64
			for lo := 0; lo < len(st.touched); lo += wordTermChunk {
				p := 0.0
				for _, v := range st.touched[lo:min(len(st.touched), lo+wordTermChunk)] {
					for k := range cfg.K {
						p += st.Word[int(v)*cfg.K+k] * l.ElogBeta[int(v)*cfg.K+k]
					}
				}
				parts = append(parts, p)
			}
			for _, p := range parts {
				want += p
			}
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("one worker: %v, the parts added by hand %v", got, want)
			}
			continue
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%d workers: %v, one worker %v", w, got, want)
		}
	}
}

// Update (the blend of ζ with the topics' sums taken as the workers
// finish its chunks) gives the bits of the blend followed by Refresh, for
// any number of workers.
func TestUpdateBitIdentical(t *testing.T) {
	cfg := Defaults()
	const V = 7001
	fill := func(l *Layer) *Stats {
		rng := rand.New(rand.NewPCG(8, 9))
		for i := range l.Zeta {
			l.Zeta[i] = cfg.Tau + 50*rng.Float64()*rng.Float64()
		}
		st := l.NewStats().(*Stats)
		for i := range st.Word {
			st.Word[i] = 3 * rng.Float64() * rng.Float64()
		}
		return st
	}
	want, err := New(cfg, V)
	if err != nil {
		t.Fatal(err)
	}
	st := fill(want)
	const r, sc = 0.3, 2.5
	for i := range want.Zeta {
		want.Zeta[i] = (1-r)*want.Zeta[i] + r*(cfg.Tau+sc*st.Word[i])
	}
	want.Refresh()
	for _, w := range []int{1, 2, 3, 7} {
		l, err := New(cfg, V)
		if err != nil {
			t.Fatal(err)
		}
		st := fill(l)
		l.SetWorkers(w)
		if err := l.Update(context.Background(), st, framework.Step{Rho: r, Scale: sc}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.Zeta, want.Zeta) || !slices.Equal(l.TopicSum, want.TopicSum) || !slices.Equal(l.ElogBeta, want.ElogBeta) || !slices.Equal(l.ExpElogBeta, want.ExpElogBeta) {
			t.Errorf("%d workers: ζ, the topics' sums or E[log β] differ from the blend and Refresh", w)
		}
	}
}

// SetSums lists the rows with a non-zero entry in word order for any
// number of workers (the marks set on the workers), after statistics that
// touched other rows.
func TestSetSumsTouchedAcrossWorkers(t *testing.T) {
	cfg := Defaults()
	cfg.K = 3
	const V = parallelMin // K·V above parallelMin: split
	dense := make([]float64, V*cfg.K)
	r := rand.New(rand.NewPCG(4, 4))
	var want []int32
	for v := range V {
		if r.IntN(3) == 0 {
			dense[v*cfg.K+r.IntN(cfg.K)] = r.Float64() + 0.5
			want = append(want, int32(v))
		}
	}
	for _, w := range []int{1, 2, 3, 7} {
		l, err := NewWorkers(cfg, V, w)
		if err != nil {
			t.Fatal(err)
		}
		st := l.NewStats().(*Stats)
		for v := range 50 { // touched before: unmarked by SetSums
			st.touch(int32(3 * v))
			st.Word[3*v*cfg.K] = 9
		}
		st.SetSums(func(part int, dst []float64) {
			if part == 0 {
				copy(dst, dense)
			} else {
				clear(dst)
			}
		})
		if !slices.Equal(st.touched, want) || !slices.Equal(st.Word, dense) {
			t.Errorf("%d workers: %d touched rows, want %d (in word order), or other numbers", w, len(st.touched), len(want))
		}
		in := make([]bool, V)
		for _, v := range want {
			in[v] = true
		}
		for v, m := range st.mark {
			if m != in[v] {
				t.Fatalf("%d workers: row %d marked %v", w, v, m)
			}
		}
	}
}
