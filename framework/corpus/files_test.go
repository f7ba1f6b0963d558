package corpus_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// TestReadFiles: a corpus from its files (the command line's and
// maslda-beam's reader): V from the vocabulary or the largest id, ids
// applied, and every bad input an error naming its file.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	docs := write("docs.ldac", "2 0:1 3:2\n1 1:4\n")
	ids := write("ids.txt", "a\nb\n")
	vocab := write("vocab.txt", "w0\nw1\nw2\nw3\nw4\n")
	c, err := corpus.ReadFiles(docs, ids, vocab, 0)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		V   int
		IDs []string
	}
	if diff := cmp.Diff(got{5, []string{"a", "b"}}, got{c.V, []string{c.Docs[0].ID, c.Docs[1].ID}}); diff != "" {
		t.Errorf("with ids and vocabulary (-want +got):\n%s", diff)
	}
	if c, err = corpus.ReadFiles(docs, "", "", 10); err != nil || c.V != 10 {
		t.Errorf("without a vocabulary, minV 10: V %v, err %v", c, err)
	}
	for _, tc := range []struct {
		name             string
		docs, ids, vocab string
		minV             int
		want             string
		bad              bool
	}{
		{"missing", filepath.Join(dir, "nope.ldac"), "", "", 0, "nope.ldac", false},
		{"empty", write("empty.ldac", ""), "", "", 0, "empty.ldac", true},
		{"ids", docs, write("ids1.txt", "a\n"), "", 0, "ids1.txt", true},
		{"vocabulary too small", docs, "", write("v2.txt", "w0\nw1\n"), 0, "docs.ldac", true},
		{"vocabulary not the model's", docs, "", vocab, 7, "vocab.txt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := corpus.ReadFiles(tc.docs, tc.ids, tc.vocab, tc.minV)
			if err == nil || !strings.Contains(err.Error(), tc.want) || tc.bad != errors.Is(err, framework.ErrBadInput) {
				t.Errorf("error %v, want one naming %s (bad input: %v)", err, tc.want, tc.bad)
			}
		})
	}
}
