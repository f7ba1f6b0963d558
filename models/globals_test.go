package models

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/maslda/maslda/framework"
)

// infoOf describes c to BuildGlobals, fetching its documents; fetched
// counts the documents asked for.
func infoOf(c *framework.Corpus, fetched *int) CorpusInfo {
	return CorpusInfo{Docs: len(c.Docs), V: c.V, Vocab: c.Vocab, Answers: c.Answers,
		Fetch: func(idx []int) ([]framework.Doc, error) {
			*fetched += len(idx)
			out := make([]framework.Doc, len(idx))
			for i, d := range idx {
				out[i] = c.Docs[d]
			}
			return out, nil
		}}
}

// TestBuildGlobalsEqualsBuild: a run built without its documents
// (BuildGlobals) has Build's globals (the snapshot's SHA-256) and, its
// E-steps run as one shard with the per-document state carried by the
// caller, Build's bounds and globals after every batch iteration, bit for
// bit (LDA with the seeded start, MA-sLDAr with its φ warm starts and the
// exact pilot's weight, MA-sLDAc with the MM step, whose default L2 is
// 1/D, and the class prior with the confusion annotators' majority
// start); and it holds no per-document state.
func TestBuildGlobalsEqualsBuild(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	lda, _ := plantedCorpus(t, 3, 150, 40, 3)
	cases := []struct {
		name, src string
		c         *framework.Corpus
	}{
		{"lda", "seed = 1\ntopics {\n  k = 3\n}\n", lda},
		{"ma-sldar", smallRegConfig, smallRegCorpus(t)},
		{"ma-sldac-mm", "seed = 6\ntopics {\n  k = 4\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n", train},
		{"class-prior+confusion", "seed = 4\ntopics {\n  k = 4\n}\nresponse \"class-prior\" {}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n", train},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Build(mustConfig(t, tc.src), nil, tc.c)
			if err != nil {
				t.Fatal(err)
			}
			fetched := 0
			got, err := BuildGlobals(mustConfig(t, tc.src), nil, infoOf(tc.c, &fetched))
			if err != nil {
				t.Fatal(err)
			}
			if k := want.Model.Topics.K; fetched != k*3 {
				t.Errorf("%d documents fetched for the seeded start, want %d", fetched, k*3)
			}
			m := got.Model
			if m.gamma != nil || m.seen != nil || m.targets != nil || m.phi != nil || m.Corpus() != nil {
				t.Errorf("per-document state allocated: γ %d, targets %d, φ store %v, corpus %v", len(m.gamma), len(m.targets), m.phi != nil, m.Corpus() != nil)
			}
			if m.NumDocs() != len(tc.c.Docs) || m.ShardPhi() != want.Model.ShardPhi() || got.Config.Restarts != want.Config.Restarts {
				t.Errorf("NumDocs %d, ShardPhi %v, restarts %d; Build's %d, %v, %d", m.NumDocs(), m.ShardPhi(), got.Config.Restarts, want.Model.NumDocs(), want.Model.ShardPhi(), want.Config.Restarts)
			}
			same := func(when string) {
				t.Helper()
				a, err := want.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				b, err := got.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if a.Sum != b.Sum {
					t.Fatalf("%s: globals' SHA-256 %s built without the documents, %s by Build", when, b.Sum, a.Sum)
				}
			}
			same("built")
			all := make([]int, len(tc.c.Docs))
			sh := &Shard{Index: all, Docs: tc.c.Docs}
			for i := range all {
				all[i] = i
			}
			if tc.c.Answers != nil && m.Response != nil {
				sh.Answers = tc.c.Answers.ByDoc
			}
			for it := 1; it <= 3; it++ {
				st := framework.BatchStep(it)
				ws, err := want.Model.EStep(ctx, all)
				if err != nil {
					t.Fatal(err)
				}
				if err := want.Model.Update(ctx, ws, st); err != nil {
					t.Fatal(err)
				}
				we := want.Model.ELBO(ws, st)
				res, err := m.ShardEStep(ctx, sh)
				if err != nil {
					t.Fatal(err)
				}
				sh.Gamma, sh.Phi, sh.Targets = res.Gamma, res.Phi, res.Targets
				gs, err := m.Combine(res.Sums)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Update(ctx, gs, st); err != nil {
					t.Fatal(err)
				}
				if ge := m.ELBO(gs, st); math.Float64bits(ge) != math.Float64bits(we) {
					t.Errorf("iteration %d: bound %v built without the documents, %v by Build", it, ge, we)
				}
				same("after an iteration")
			}
			if _, err := m.EStep(ctx, all); !errors.Is(err, framework.ErrNotTrained) {
				t.Errorf("EStep of a run without documents: %v, want ErrNotTrained", err)
			}
			if _, err := got.Fit(ctx, nil); !errors.Is(err, framework.ErrIncompatible) {
				t.Errorf("Fit of a run without documents: %v, want ErrIncompatible", err)
			}
		})
	}
}

// TestBuildGlobalsRefuses: bad descriptions are errors, not panics.
func TestBuildGlobalsRefuses(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	crowd := "seed = 4\ntopics {\n  k = 4\n}\nresponse \"class-prior\" {}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n"
	n := 0
	fail := errors.New("unreadable shard")
	for _, tc := range []struct {
		name, src string
		info      CorpusInfo
		want      error
	}{
		{"no documents", "topics {\n  k = 2\n}\n", CorpusInfo{V: 5}, framework.ErrBadInput},
		{"no vocabulary", "topics {\n  k = 2\n}\n", CorpusInfo{Docs: 3}, framework.ErrBadInput},
		{"seeded without fetch", "topics {\n  k = 2\n}\n", CorpusInfo{Docs: 3, V: 5}, framework.ErrIncompatible},
		{"fetch fails", "topics {\n  k = 2\n}\n", CorpusInfo{Docs: 3, V: 5, Fetch: func([]int) ([]framework.Doc, error) { return nil, fail }}, fail},
		{"fetch gives too few", "topics {\n  k = 2\n}\n", CorpusInfo{Docs: 3, V: 5, Fetch: func([]int) ([]framework.Doc, error) { return nil, nil }}, framework.ErrBadInput},
		{"fetched word outside V", "topics {\n  k = 2\n}\n", CorpusInfo{Docs: 3, V: 5, Fetch: func(idx []int) ([]framework.Doc, error) {
			docs := make([]framework.Doc, len(idx))
			docs[1] = framework.Doc{Words: []int32{7}, Counts: []float64{1}, N: 1}
			return docs, nil
		}}, framework.ErrBadInput},
		{"answers of other documents", crowd, func() CorpusInfo { i := infoOf(train, &n); i.Docs--; return i }(), framework.ErrBadInput},
		{"annotators without answers", crowd, func() CorpusInfo { i := infoOf(train, &n); i.Answers = nil; return i }(), framework.ErrBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildGlobals(mustConfig(t, tc.src), nil, tc.info)
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestBuildGlobalsMemory: the memory BuildGlobals allocates does not grow
// with the number of documents (plain LDA, random start: K·V only).
func TestBuildGlobalsMemory(t *testing.T) {
	alloc := func(D int) uint64 {
		var a, b runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		r, err := BuildGlobals(mustConfig(t, "workers = 1\ntopics {\n  k = 20\n  init = \"random\"\n}\n"), nil, CorpusInfo{Docs: D, V: 2000})
		if err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		runtime.KeepAlive(r)
		return b.TotalAlloc - a.TotalAlloc
	}
	small, large := alloc(1000), alloc(100_000_000)
	t.Logf("allocated building the globals of 1,000 documents: %d bytes; of 100,000,000: %d bytes", small, large)
	if large > 2*small+1<<20 {
		t.Errorf("building the globals of 10^8 documents allocated %d bytes, of 1,000 %d: it grows with D", large, small)
	}
}
