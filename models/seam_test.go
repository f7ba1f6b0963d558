package models

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"github.com/maslda/maslda/topics"
)

// bits compares float64s bit for bit (cmp).
var bits = cmp.Comparer(func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })

// denseSums is every number of Summable statistics, in layout order.
func denseSums(t testing.TB, s framework.Stats) []float64 {
	t.Helper()
	sm, ok := s.(framework.Summable)
	if !ok {
		t.Fatalf("%T is not Summable", s)
	}
	return framework.SumsVector(sm)
}

// seamCases are the compositions whose statistics are fixed-size sums,
// each built twice identically by build.
var seamCases = []struct {
	name  string
	build func(t *testing.T) *Model
}{
	{"lda", func(t *testing.T) *Model {
		c, _ := plantedCorpus(t, 3, 150, 40, 3)
		return newLDA(t, c, 3, 4, 2)
	}},
	{"ma-sldar", func(t *testing.T) *Model {
		r, err := Build(mustConfig(t, smallRegConfig), nil, smallRegCorpus(t))
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}},
	{"ma-sldar-w1", func(t *testing.T) *Model {
		src := "seed = 3\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {\n  weight = 1\n}\nannotators \"bias-precision\" {}\n"
		r, err := Build(mustConfig(t, src), nil, smallRegCorpus(t))
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}},
	{"class-prior+confusion", func(t *testing.T) *Model {
		train, _, _ := smallCrowd(t)
		src := "seed = 4\ntopics {\n  k = 4\n}\nresponse \"class-prior\" {}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n"
		r, err := Build(mustConfig(t, src), nil, train)
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}},
	{"ma-sldar-restart-phase", func(t *testing.T) *Model {
		// A restart's candidate (Run.Prepare): plain LDA in PhaseTopics.
		r, err := Build(mustConfig(t, smallRegConfig), nil, smallRegCorpus(t))
		if err != nil {
			t.Fatal(err)
		}
		r.Model.setRestartPhase(true)
		return r.Model
	}},
	{"ma-sldac-mm", func(t *testing.T) *Model {
		train, _, _ := smallCrowd(t)
		src := "seed = 6\ntopics {\n  k = 4\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {}\n"
		r, err := Build(mustConfig(t, src), nil, train)
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}},
	{"class-prior+mace", func(t *testing.T) *Model {
		train, _, _ := smallCrowd(t)
		src := "seed = 5\ntopics {\n  k = 2\n}\nresponse \"class-prior\" {}\nannotators \"mace\" {}\n"
		r, err := Build(mustConfig(t, src), nil, train)
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}},
}

// splits cut n documents into shards: the E-step's own shards, other
// sizes, one document each, the whole corpus, random bundles of random
// positions.
func splits(n int, r *rand.Rand) []struct {
	name  string
	parts [][]int
} {
	cut := func(size int) [][]int {
		var out [][]int
		for s := 0; s < n; s += size {
			var sh []int
			for d := s; d < min(n, s+size); d++ {
				sh = append(sh, d)
			}
			out = append(out, sh)
		}
		return out
	}
	random := make([][]int, 1+r.IntN(9))
	for _, d := range r.Perm(n) {
		k := r.IntN(len(random))
		random[k] = append(random[k], d)
	}
	return []struct {
		name  string
		parts [][]int
	}{
		{"shards of 32", cut(ShardSize)},
		{"shards of 7", cut(7)},
		{"one each", cut(1)},
		{"whole", cut(n)},
		{"random", random},
	}
}

// TestShardEStepEqualsEStep: the shard-level E-step run over any split of
// the corpus, its sums encoded, decoded and merged in a random order,
// gives the statistics of Model.EStep on the whole corpus bit for bit,
// and the γ, q(target) and φ it stores; over several batch iterations
// driven by a loop that keeps the per-document state itself (as an
// engine's driver does), the bounds are Model.EStep's bit for bit.
func TestShardEStepEqualsEStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range seamCases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.build(t), tc.build(t)
			layout, err := b.SumLayout()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d parts, φ in the shard's state: %v", len(layout), b.ShardPhi())
			D := a.NumDocs()
			all := make([]int, D)
			for d := range all {
				all[d] = d
			}
			gamma := make([][]float64, D)
			phi := make([][]float32, D)
			targets := make([]framework.Target, D)
			rng := rand.New(rand.NewPCG(26, 3))
			for it := 1; it <= 3; it++ {
				sa, err := a.EStep(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				want := denseSums(t, sa)
				var sb framework.Stats
				nextGamma := make([][]float64, D)
				nextPhi := make([][]float32, D)
				nextTargets := make([]framework.Target, D)
				for _, sp := range splits(D, rng) {
					var enc [][]byte
					for _, p := range sp.parts {
						sh := &Shard{Index: p, Gamma: make([][]float64, len(p)), Phi: make([][]float32, len(p)), Targets: make([]framework.Target, len(p))}
						for j, d := range p {
							sh.Docs = append(sh.Docs, b.corpus.Docs[d])
							if b.corpus.Answers != nil {
								sh.Answers = append(sh.Answers, b.corpus.Answers.ByDoc[d])
							}
							sh.Gamma[j], sh.Phi[j], sh.Targets[j] = gamma[d], phi[d], targets[d]
						}
						res, err := b.ShardEStep(ctx, sh)
						if err != nil {
							t.Fatal(err)
						}
						buf, err := res.Sums.MarshalBinary()
						if err != nil {
							t.Fatal(err)
						}
						enc = append(enc, buf)
						for j, d := range p {
							if diff := cmp.Diff(a.Gamma(d), res.Gamma[j], bits); diff != "" {
								t.Fatalf("iteration %d, %s: document %d's γ (-EStep +shard):\n%s", it, sp.name, d, diff)
							}
							joint := a.Phase() == framework.PhaseJoint
							if a.Response != nil && joint {
								if diff := cmp.Diff(a.Target(d), res.Targets[j], bits); diff != "" {
									t.Fatalf("iteration %d, %s: document %d's q(target) (-EStep +shard):\n%s", it, sp.name, d, diff)
								}
							}
							if !joint && (res.Targets != nil || res.Phi != nil) {
								t.Fatalf("phase %v: the shard returned q(target) or φ", a.Phase())
							}
							if b.ShardPhi() && joint {
								if diff := cmp.Diff(a.phi.Phi(d), res.Phi[j]); diff != "" {
									t.Fatalf("iteration %d, %s: document %d's φ (-EStep +shard):\n%s", it, sp.name, d, diff)
								}
								nextPhi[d] = res.Phi[j]
							}
							nextGamma[d] = res.Gamma[j]
							if res.Targets != nil {
								nextTargets[d] = res.Targets[j]
							}
						}
					}
					total := framework.NewExactSums(layout)
					for _, j := range rng.Perm(len(enc)) {
						var e framework.ExactSums
						if err := e.UnmarshalBinary(enc[j]); err != nil {
							t.Fatal(err)
						}
						if err := total.Merge(&e); err != nil {
							t.Fatal(err)
						}
					}
					if sb, err = b.Combine(total); err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, denseSums(t, sb), bits); diff != "" {
						t.Fatalf("iteration %d, %s: statistics differ (-EStep +shards):\n%s", it, sp.name, diff)
					}
				}
				gamma, phi, targets = nextGamma, nextPhi, nextTargets
				st := framework.BatchStep(it)
				if err := a.Update(ctx, sa, st); err != nil {
					t.Fatal(err)
				}
				if err := b.Update(ctx, sb, st); err != nil {
					t.Fatal(err)
				}
				ea, eb := a.ELBO(sa, st), b.ELBO(sb, st)
				if math.Float64bits(ea) != math.Float64bits(eb) {
					t.Fatalf("iteration %d: bound %v by EStep, %v by shards", it, ea, eb)
				}
			}
		})
	}
}

// TestShardEStepRefuses: compositions whose statistics are not fixed-size
// sums, or whose state a shard cannot carry, are refused with
// ErrIncompatible naming the reason, and a malformed shard with
// ErrBadInput.
func TestShardEStepRefuses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	train, _, _ := smallCrowd(t)
	for _, src := range []string{
		"topics {\n  k = 2\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n",
		"topics {\n  k = 2\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n}\nannotators \"confusion\" {}\n",
		"topics {\n  k = 2\n}\nresponse \"class-prior\" {}\nannotators \"glad\" {}\n",
		"topics {\n  k = 2\n  fresh_every = 2\n}\n",
	} {
		r, err := Build(mustConfig(t, src), nil, train)
		if err != nil {
			t.Fatal(err)
		}
		sh := &Shard{Index: []int{0}, Docs: train.Docs[:1], Answers: train.Answers.ByDoc[:1]}
		if _, err := r.Model.ShardEStep(ctx, sh); !errors.Is(err, framework.ErrIncompatible) {
			t.Errorf("%q: %v, want ErrIncompatible", src, err)
		} else {
			t.Logf("%v", err)
		}
	}
	m := seamCases[0].build(t)
	for name, sh := range map[string]*Shard{
		"indices":   {Index: []int{0, 1}, Docs: m.corpus.Docs[:1]},
		"γ length":  {Index: []int{0}, Docs: m.corpus.Docs[:1], Gamma: [][]float64{{1, 2}}},
		"word id":   {Index: []int{0}, Docs: []framework.Doc{{Words: []int32{int32(m.Topics.V)}, Counts: []float64{1}, N: 1}}},
		"γ entries": {Index: []int{0}, Docs: m.corpus.Docs[:1], Gamma: [][]float64{}},
	} {
		if _, err := m.ShardEStep(ctx, sh); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
}

// BenchmarkExactEStep: one batch E-step with exact sums (each document's
// statistics added into 192-bit fixed point, seam.go) against the float64
// merge shard by shard (exactOff), on the plain-LDA benchmark corpus
// (BenchmarkEStepIteration's, 11,000 documents, V 20,000, K 50) with one
// worker, and on the MA-sLDAr composition corpus (K 20, K² numbers per
// document for the Gaussian's E[z̄z̄ᵀ]).
func BenchmarkExactEStep(b *testing.B) {
	ctx := context.Background()
	reg := func(b *testing.B) *Model {
		cc, err := compCorpus()
		if err != nil {
			b.Fatal(err)
		}
		src := "seed = 1\ntopics {\n  k = 20\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\nworkers = 1\n"
		r, err := Build(mustConfig(b, src), nil, cc.reg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Model.EStep(ctx, allDocs(r.Model.NumDocs())); err != nil {
			b.Fatal(err)
		}
		return r.Model
	}
	for _, comp := range []struct {
		name  string
		build func(b *testing.B) *Model
	}{
		{"lda", func(b *testing.B) *Model { return newBenchModel(b, "best", 1) }},
		{"ma-sldar", reg},
	} {
		for _, off := range []bool{true, false} {
			name := comp.name + "/exact"
			if off {
				name = comp.name + "/float64"
			}
			b.Run(name, func(b *testing.B) {
				m := comp.build(b)
				all := allDocs(m.NumDocs())
				exactOff = off
				defer func() { exactOff = false }()
				for b.Loop() {
					if _, err := m.EStep(ctx, all); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestSnapshot: a run's snapshot has a stable SHA-256 that changes with
// the globals; a model rebuilt from it without the corpus (FromSnapshot)
// runs the shard-level E-step exactly as the run's own model does; a
// wrong sum, magic, version or a truncated snapshot is refused.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ name, src string }{
		{"ma-sldar", smallRegConfig},
		{"lda", "seed = 7\ntopics {\n  k = 3\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := smallRegCorpus(t)
			if tc.name == "lda" {
				c.Answers = nil
			}
			run, err := Build(mustConfig(t, tc.src), nil, c)
			if err != nil {
				t.Fatal(err)
			}
			m := run.Model
			all := allDocs(m.NumDocs())
			for it := 1; it <= 2; it++ {
				s, err := m.EStep(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Update(ctx, s, framework.BatchStep(it)); err != nil {
					t.Fatal(err)
				}
			}
			snap, err := run.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			again, err := run.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if again.Sum != snap.Sum {
				t.Fatalf("two snapshots of the same globals: %s, %s", snap.Sum, again.Sum)
			}
			w, err := FromSnapshot(snap.Data, snap.Sum, nil)
			if err != nil {
				t.Fatal(err)
			}
			if w.ShardPhi() != m.ShardPhi() {
				t.Fatalf("ShardPhi %v from the snapshot, %v in the run", w.ShardPhi(), m.ShardPhi())
			}
			sh := &Shard{Index: all[:40]}
			for _, d := range sh.Index {
				sh.Docs = append(sh.Docs, c.Docs[d])
				if c.Answers != nil {
					sh.Answers = append(sh.Answers, c.Answers.ByDoc[d])
				}
				sh.Gamma = append(sh.Gamma, m.Gamma(d))
				if m.ShardPhi() {
					sh.Phi = append(sh.Phi, m.phi.Phi(d))
				}
			}
			want, err := m.ShardEStep(ctx, sh)
			if err != nil {
				t.Fatal(err)
			}
			got, err := w.ShardEStep(ctx, sh)
			if err != nil {
				t.Fatal(err)
			}
			wb, _ := want.Sums.MarshalBinary()
			gb, _ := got.Sums.MarshalBinary()
			if !cmp.Equal(wb, gb) {
				t.Errorf("the model from the snapshot sums other statistics")
			}
			if diff := cmp.Diff(want.Gamma, got.Gamma, bits); diff != "" {
				t.Errorf("γ from the snapshot's model (-run +snapshot):\n%s", diff)
			}
			if diff := cmp.Diff(want.Targets, got.Targets, bits); diff != "" {
				t.Errorf("q(target) from the snapshot's model (-run +snapshot):\n%s", diff)
			}
			if diff := cmp.Diff(want.Phi, got.Phi); diff != "" {
				t.Errorf("φ from the snapshot's model (-run +snapshot):\n%s", diff)
			}
			// A run built the same way takes the globals (a driver resuming).
			fresh, err := Build(mustConfig(t, tc.src), nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := fresh.LoadSnapshot(snap.Data, snap.Sum); err != nil {
				t.Fatal(err)
			}
			if s2, err := fresh.Snapshot(); err != nil || s2.Sum != snap.Sum {
				t.Errorf("a run loaded from the snapshot has sum %v (%v), want %s", s2, err, snap.Sum)
			}
			other, err := Build(mustConfig(t, tc.src+"\n# another text\n"), nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if err := other.LoadSnapshot(snap.Data, snap.Sum); !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("LoadSnapshot into a run of another configuration: %v, want ErrBadInput", err)
			}
			// Other globals, another sum.
			s, err := m.EStep(ctx, all)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Update(ctx, s, framework.BatchStep(3)); err != nil {
				t.Fatal(err)
			}
			if next, err := run.Snapshot(); err != nil || next.Sum == snap.Sum {
				t.Errorf("after an update: sum %v (%v), before %s", next.Sum, err, snap.Sum)
			}
			bad := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), snap.Data...)) }
			for name, tt := range map[string]struct {
				data []byte
				sum  string
			}{
				"wrong sum": {snap.Data, again.Sum[:63] + "0"},
				"flipped":   {bad(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }), snap.Sum},
				"magic":     {bad(func(b []byte) []byte { b[0] = 'X'; return b }), ""},
				"version":   {bad(func(b []byte) []byte { b[8] = 9; return b }), ""},
				"truncated": {snap.Data[:len(snap.Data)-3], ""},
				"trailing":  {append(bad(func(b []byte) []byte { return b }), 1), ""},
			} {
				if _, err := FromSnapshot(tt.data, tt.sum, nil); !errors.Is(err, framework.ErrBadInput) {
					t.Errorf("%s: %v, want ErrBadInput", name, err)
				}
			}
		})
	}
}

// TestSoftmaxMMMonotone: MA-sLDAc with the quadratic bound's MM M-step
// (fixed-size statistics, issue 26) never lowers the batch bound — the
// reported value is the minoriser at the new η, below the bound and at or
// above the last one — within each stage (the classifier start re-starts
// the annotators); its truth accuracy is compared with the L-BFGS M-step
// on the same bound.
func TestSoftmaxMMMonotone(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	train, _, truth := smallCrowd(t)
	acc := map[string]float64{}
	for _, mstep := range []string{"mm", "lbfgs"} {
		src := "seed = 8\nrestarts = 1\nconsensus = 1\ntopics {\n  k = 4\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"" + mstep + "\"\n}\nannotators \"confusion\" {}\ninference \"batch\" {\n  max_iters = 60\n  tol = 0\n}\n"
		r, err := Build(mustConfig(t, src), nil, train)
		if err != nil {
			t.Fatal(err)
		}
		prev, stage, drops := math.Inf(-1), -1, 0
		if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
			if p.Stage != stage {
				stage, prev = p.Stage, math.Inf(-1)
			}
			if p.ELBO < prev-1e-9*math.Abs(prev) {
				drops++
				if mstep == "mm" {
					t.Errorf("mm: iteration %d (stage %d): bound %.12g after %.12g", p.Iter, p.Stage, p.ELBO, prev)
				}
			}
			prev = p.ELBO
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		right := 0
		for d, c := range truth {
			if r.Model.Target(d).(*framework.Categorical).Argmax() == c {
				right++
			}
		}
		acc[mstep] = float64(right) / float64(len(truth))
		t.Logf("%s: truth accuracy %.4f, bound %.6g, %d drops", mstep, acc[mstep], prev, drops)
	}
	if acc["mm"] < acc["lbfgs"]-0.03 {
		t.Errorf("truth accuracy with the MM step %.4f, with L-BFGS %.4f", acc["mm"], acc["lbfgs"])
	}
}

// Statistics handed back (RecycleStats) and filled again by the next
// exact E-step are the statistics a fresh buffer gets, bit for bit, even
// when the caller wrote into them after Update (each number is set);
// and they are reused (the topic layer's part is the one handed back).
func TestRecycledStatsEqualFresh(t *testing.T) {
	ctx := context.Background()
	for _, tc := range seamCases {
		t.Run(tc.name, func(t *testing.T) {
			a, b := tc.build(t), tc.build(t)
			all := allDocs(a.NumDocs())
			var recycled *topics.Stats // the topic layer's part handed back last
			for it := 1; it <= 3; it++ {
				sa, err := a.EStep(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				sb, err := b.EStep(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := denseSums(t, sa), denseSums(t, sb); !slices.Equal(got, want) {
					t.Fatalf("iteration %d: the E-step into recycled statistics differs from a fresh one", it)
				}
				if it > 1 && a.exact() && recycled != nil && sa.(*stats).topics != framework.Stats(recycled) {
					t.Errorf("iteration %d: the recycled statistics were not reused", it)
				}
				for _, m := range []*Model{a, b} {
					s := map[*Model]framework.Stats{a: sa, b: sb}[m]
					if err := m.Update(ctx, s, framework.BatchStep(it)); err != nil {
						t.Fatal(err)
					}
				}
				if ts, ok := sa.(*stats).topics.(*topics.Stats); ok {
					for i := range ts.Word {
						ts.Word[i] = 1.5 // written after use: the next E-step must set every number
					}
					ts.DocELBO, ts.Docs = -3, 7
					recycled = ts
				}
				a.RecycleStats(sa)
			}
		})
	}
}
