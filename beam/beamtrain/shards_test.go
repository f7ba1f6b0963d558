package beamtrain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
)

// writeLDAC writes docs to path in LDA-C.
func writeLDAC(t *testing.T, path string, docs []framework.Doc) {
	t.Helper()
	var b bytes.Buffer
	if err := corpus.WriteLDAC(&b, docs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGlobalsOnShards: the driver of a run built without its documents
// (models.BuildGlobals, the seeded start read from the shards), over
// LDA-C shards streamed from one file (ShardLDAC, shards of 11) or given
// as files of uneven sizes (ScanShards), gives the in-process run's
// bounds and globals bit for bit (LDA, MA-sLDAr, MA-sLDAc with the MM
// step).
func TestGlobalsOnShards(t *testing.T) {
	const iters = 3
	ctx := context.Background()
	for _, tc := range compositions {
		c := testCorpus(t, tc.kind)
		wantRun := build(t, tc.src, tc.kind)
		want := inProcess(t, wantRun, iters)
		wantSnap, err := wantRun.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		for _, how := range []string{"streamed", "pre-sharded"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				dir, work := t.TempDir(), t.TempDir()
				var l *Layout
				var err error
				if how == "streamed" {
					writeLDAC(t, filepath.Join(dir, "docs.ldac"), c.Docs)
					l, err = ShardLDAC(ctx, filepath.Join(dir, "docs.ldac"), 0, work, 11)
				} else {
					var paths []string
					for i, cut := range [][2]int{{0, 40}, {40, 41}, {41, 100}, {100, len(c.Docs)}} {
						p := filepath.Join(dir, string(rune('a'+i))+".ldac")
						writeLDAC(t, p, c.Docs[cut[0]:cut[1]])
						paths = append(paths, p)
					}
					l, err = ScanShards(ctx, paths, 0)
				}
				if err != nil {
					t.Fatal(err)
				}
				if l.Docs != len(c.Docs) || l.V > c.V {
					t.Fatalf("layout of %d documents, V %d; the corpus has %d, V %d", l.Docs, l.V, len(c.Docs), c.V)
				}
				info := models.CorpusInfo{Docs: l.Docs, V: c.V, Fetch: l.Fetch}
				if c.Answers != nil && tc.kind != "" {
					if err := l.WriteAnswers(work, c.Answers); err != nil {
						t.Fatal(err)
					}
					info.Answers = c.Answers
				}
				cfg, err := models.ParseConfig([]byte(tc.src), "test.hcl")
				if err != nil {
					t.Fatal(err)
				}
				r, err := models.BuildGlobals(cfg, nil, info)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Train(ctx, r, Options{Dir: work, Layout: l, MaxIters: iters, Run: prismRun})
				if err != nil {
					t.Fatal(err)
				}
				sameAsInProcess(t, "shards", res.Trace, want[:iters], r, wantSnap.Sum)
			})
		}
	}
}

// TestShardErrors: bad documents and shards are errors naming the file
// and line, never a panic.
func TestShardErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := file("good.ldac", "1 0:2\n2 1:1 3:1\n")
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"malformed line", func() error {
			_, err := ShardLDAC(ctx, file("bad.ldac", "1 0:2\n2 1:1\n"), 0, t.TempDir(), 1)
			return err
		}, "bad.ldac:2"},
		{"out of vocabulary", func() error {
			_, err := ShardLDAC(ctx, good, 3, t.TempDir(), 1)
			return err
		}, "good.ldac:2: word id 3 is out of vocabulary"},
		{"empty file", func() error {
			_, err := ShardLDAC(ctx, file("empty.ldac", ""), 0, t.TempDir(), 1)
			return err
		}, "no documents"},
		{"empty shard", func() error {
			_, err := ScanShards(ctx, []string{good, file("empty2.ldac", "\n")}, 0)
			return err
		}, "empty2.ldac"},
		{"malformed shard", func() error {
			_, err := ScanShards(ctx, []string{good, file("bad2.ldac", "1 0:1\n1 x:1\n")}, 0)
			return err
		}, "bad2.ldac:2"},
		{"shard changed after its layout", func() error {
			p := file("changing.ldac", "1 0:1\n1 1:1\n")
			l, err := ScanShards(ctx, []string{p}, 0)
			if err != nil {
				return err
			}
			file("changing.ldac", "1 0:1\n")
			_, err = l.Fetch([]int{0})
			return err
		}, "changing.ldac has 1 documents, the shards' layout says 2"},
		{"fetch outside", func() error {
			l, err := ScanShards(ctx, []string{good}, 0)
			if err != nil {
				return err
			}
			_, err = l.Fetch([]int{2})
			return err
		}, "document 2 is in no shard"},
		{"answers of other documents", func() error {
			l, err := ScanShards(ctx, []string{good}, 0)
			if err != nil {
				return err
			}
			return l.WriteAnswers(t.TempDir(), &framework.Answers{ByDoc: make([][]framework.Answer, 3)})
		}, "answers for 3 documents, the shards hold 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, want an error with %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}
