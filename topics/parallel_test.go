package topics

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
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
		l.ensureExp(allWords(V)) // a mini-batch's update leaves them to the sweeps
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

// allWords is the word ids 0, …, V−1.
func allWords(V int) []int32 {
	w := make([]int32, V)
	for i := range w {
		w[i] = int32(i)
	}
	return w
}

// A mini-batch's Update leaves exp(E[log β]) stale (lazy) and ensureExp
// fills a word's row with the eager refresh's bits, once, from any number
// of goroutines at once (run with -race); a full-batch Update and Refresh
// stay eager.
func TestLazyExp(t *testing.T) {
	cfg := Defaults()
	const V = 3001
	mk := func(eager bool) (*Layer, *Stats) {
		l, err := New(cfg, V)
		if err != nil {
			t.Fatal(err)
		}
		l.eager = eager
		l.SetWorkers(3)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range l.Zeta {
			l.Zeta[i] = cfg.Tau + 20*rng.Float64()*rng.Float64()
		}
		l.Refresh()
		st := l.NewStats().(*Stats)
		for i := range st.Word {
			st.Word[i] = 2 * rng.Float64() * rng.Float64()
		}
		return l, st
	}
	want, st := mk(true)
	if err := want.Update(context.Background(), st, framework.Step{Rho: 0.4, Scale: 3}); err != nil {
		t.Fatal(err)
	}
	l, st := mk(false)
	before := slices.Clone(l.ExpElogBeta)
	if err := l.Update(context.Background(), st, framework.Step{Rho: 0.4, Scale: 3}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.ElogBeta, want.ElogBeta) || !slices.Equal(l.ExpElogBeta, before) {
		t.Fatal("a mini-batch's update: E[log β] differs from the eager one's, or the exponentials were refreshed")
	}
	// Eight goroutines fill overlapping words (goroutines 0, 3 and 6 every
	// word): every row once, the eager bits.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			var words []int32
			for w := g % 3; w < V; w += 1 + g%3 {
				words = append(words, int32(w))
			}
			l.ensureExp(words)
		})
	}
	wg.Wait()
	K := l.K
	for w := range V {
		row, ref := l.ExpElogBeta[w*K:][:K], want.ExpElogBeta[w*K:][:K]
		if !slices.Equal(row, ref) {
			t.Fatalf("word %d: exponentials %v, want the eager refresh's %v", w, row[:2], ref[:2])
		}
	}
	// A full-batch update is eager again.
	l2, st2 := mk(false)
	if err := l2.Update(context.Background(), st2, framework.Step{Rho: 0.4, Scale: 3, Full: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l2.ExpElogBeta, want.ExpElogBeta) {
		t.Fatal("a full-batch update left exponentials stale")
	}
}

// Sweeps after a sequence of mini-batch updates give the bits of the same
// sequence with eager refreshes: every word a sweep reads was filled, by
// the unsupervised block update (mulPhi) and by the supervised sweeps with
// an exact quadratic part (sweepQuad, sweepAffine).
func TestLazyExpSweeps(t *testing.T) {
	run := func(eager bool) ([]float64, []float64) {
		l, c := fixture(t, 4)
		l.eager = eager
		ds := framework.NewDocState(l.K, 64)
		s := l.NewScratch()
		rng := rand.New(rand.NewPCG(11, 12))
		var gam []float64
		for it := range 6 {
			st := l.NewStats()
			batch := []int{it % 3, 3 + it%5, 10 + it}
			for bi, d := range batch {
				ds.Bind(d, &c.Docs[d], nil)
				l.Start(ds, nil)
				if bi > 1 {
					for range 5 {
						l.Sweep(ds, nil, s)
					}
				} else { // the first two after the update, supervised alone: sweepQuad, then sweepAffine, fill the rows
					q := &quadSup{u: make([]float64, l.K), h: make([]float64, l.K)}
					for k := range q.u {
						q.u[k], q.h[k] = rng.NormFloat64(), 0.3*rng.NormFloat64()
					}
					for range c.Docs[d].Words {
						q.x, q.c = append(q.x, rng.NormFloat64()), append(q.c, 0.1+rng.Float64())
					}
					var sup framework.LikelihoodLocal = q
					if bi == 1 {
						sup = &affineSup{quadSup: q, t: t}
					}
					for range 3 {
						l.SweepWeighted(ds, sup, 2, s)
					}
				}
				l.Accumulate(st, ds)
				gam = append(gam, ds.Gamma...)
			}
			if err := l.Update(context.Background(), st, framework.Step{Rho: 0.5, Scale: float64(len(c.Docs)) / 3}); err != nil {
				t.Fatal(err)
			}
		}
		return gam, slices.Clone(l.Zeta)
	}
	g1, z1 := run(true)
	g2, z2 := run(false)
	if !slices.Equal(g1, g2) || !slices.Equal(z1, z2) {
		t.Fatal("lazy exponentials changed the sweeps' γ or ζ")
	}
}
