package models_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"runtime"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// emptyDocsDigest trains a composition on a corpus of documents without
// words (as `train --answers` without `--docs` builds it) for a few batch
// iterations and returns a SHA-256 of the bits of every posterior, γ and
// bound. TestEmptyDocsDigest pins them: the fast path of documents without
// words (Model.emptyStep, the topic layer's emptyDoc cache) must leave
// every bit as the general local step computed it (the digests were taken
// before the fast path existed: docs/performance.md). The four summable
// compositions were re-recorded when the E-step began to sum statistics
// exactly (issue 26, models/seam.go), after checking that the general
// local step (both fast paths disabled) gives the same new digests.
func emptyDocsDigest(t testing.TB, src string) string {
	t.Helper()
	c := dsCorpus()
	c.Docs = c.Docs[:600]
	c.Answers.ByDoc = c.Answers.ByDoc[:600]
	cfg, err := models.ParseConfig([]byte(src), "empty.hcl")
	if err != nil {
		t.Fatal(err)
	}
	run, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	m := run.Model
	all := make([]int, len(c.Docs))
	for d := range all {
		all[d] = d
	}
	h := sha256.New()
	put := func(x float64) { _ = binary.Write(h, binary.LittleEndian, math.Float64bits(x)) }
	for it := 1; it <= 4; it++ {
		s, err := m.EStep(context.Background(), all)
		if err != nil {
			t.Fatal(err)
		}
		st := framework.BatchStep(it)
		if err := m.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		put(m.ELBO(s, st))
	}
	for d := range all {
		for _, g := range m.Gamma(d) {
			put(g)
		}
		for _, p := range m.Target(d).(*framework.Categorical).P {
			put(p)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

var emptyDocsCases = []struct{ name, src, want string }{
	{"dawid-skene", "model = \"dawid-skene\"\n", "d1c35fbc240e3539"},
	{"dawid-skene(bayes)", "model = \"dawid-skene(bayes)\"\n", "503c3364159d2a6d"},
	{"ds-warm", "model = \"dawid-skene\"\ntopics {\n  k = 1\n  local_init = \"warm\"\n}\n", "d1c35fbc240e3539"},
	{"ds-fresh-k3", "model = \"dawid-skene\"\ntopics {\n  k = 3\n  local_init = \"fresh\"\n}\n", "3811b668e397fddb"},
	{"softmax-k2", "response \"softmax\" {}\nannotators \"confusion\" {}\ntopics {\n  k = 2\n}\n", "dcd81ea700716ad5"},
}

func TestEmptyDocsDigest(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("digests taken on amd64 (other architectures may fuse multiply-adds)")
	}
	for _, tc := range emptyDocsCases {
		got := emptyDocsDigest(t, tc.src)
		if os.Getenv("MASLDA_PRINT_DIGESTS") != "" {
			fmt.Printf("%s %s\n", tc.name, got)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: digest %s, want %s", tc.name, got, tc.want)
		}
	}
}
