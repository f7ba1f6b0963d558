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
// sumZetaTerms' chunk, with fewer ring slots than chunks at 2 and 3).
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

// New's E[log β] (refreshUniform) is Refresh's, bit for bit.
func TestNewRefreshUniform(t *testing.T) {
	cfg := Defaults()
	l, err := New(cfg, 1003)
	if err != nil {
		t.Fatal(err)
	}
	eb, xb, ts := slices.Clone(l.ElogBeta), slices.Clone(l.ExpElogBeta), slices.Clone(l.TopicSum)
	l.Refresh()
	if !slices.Equal(eb, l.ElogBeta) || !slices.Equal(xb, l.ExpElogBeta) || !slices.Equal(ts, l.TopicSum) {
		t.Error("New's E[log β] differs from Refresh's")
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
