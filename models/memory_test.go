package models

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestMemoryGuard: a run or a model whose K·V cannot fit is refused before
// anything is allocated, with the estimate and the limit.
func TestMemoryGuard(t *testing.T) {
	defer func(f func() (float64, string)) { memoryLimit = f }(memoryLimit)
	memoryLimit = func() (float64, string) { return 1 << 30, "the test's limit" }

	m := EstimateMemory(20, 2_000_000_000, 10, 100, 2, 1)
	if got, want := m.Topics, 3*8*20*2e9; got != want {
		t.Errorf("topics %v, want %v", got, want)
	}
	if got, want := m.Stats, (2*(24.5+8)+8)*20*2e9; got != want { // the exact E-step's sums: more than the float64 merge's 5·8 bytes
		t.Errorf("stats %v, want %v", got, want)
	}
	c := &framework.Corpus{V: 2_147_483_647, Docs: []framework.Doc{{Words: []int32{2_147_483_646}, Counts: []float64{1}, N: 1}}}
	_, err := Build(mustConfig(t, "workers = 2\ntopics {\nk = 20\n}\n"), nil, c)
	want := "the run needs about 3880.0 GiB (topics K·V 960.0 GiB, E-step statistics for 2 workers 2920.0 GiB"
	if err == nil || !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "but 1.0 GiB is available (the test's limit)") {
		t.Fatalf("Build: %v\nwant ErrBadInput containing %q", err, want)
	}

	// A model.json claiming v = 2e9.
	small, _ := plantedCorpus(t, 2, 20, 10, 2)
	r, err := Build(mustConfig(t, "topics {\nk = 2\n}\ninference \"batch\" {\nmax_iters = 1\n}\n"), nil, small)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := r.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	editManifest(t, dir, func(man map[string]any) { man["v"] = 2_000_000_000 })
	if _, err := Load(dir, nil); err == nil || !strings.Contains(err.Error(), "model.json: v = 2000000000, k = 2: bad input: the run needs about") {
		t.Fatalf("Load: %v", err)
	}
}

// The model's φ store is counted under the softmax's product bound
// (framework.PhiUser) and under two-stage; with both, stage 2's copies of
// φ in the softmax's statistics are counted too.
func TestMemoryCountsPhiStore(t *testing.T) {
	t.Parallel()
	c, _ := plantedCorpus(t, 2, 20, 10, 2)
	c.Answers = &framework.Answers{Annotators: []string{"a"}, Classes: []string{"x", "y"}, ByDoc: make([][]framework.Answer, len(c.Docs))}
	uniq := 0
	for i := range c.Docs {
		uniq += len(c.Docs[i].Words)
	}
	per := func(resp string) float64 {
		return runMemory(mustConfig(t, "topics {\nk = 3\n}\n"+resp+"\nannotators \"confusion\" {}\n"), framework.Default, c.V, c).PerDoc
	}
	prod, quad := per(`response "softmax" {}`), per("response \"softmax\" {\n bound = \"quadratic\"\n}")
	if got, want := prod-quad, float64(4*3*uniq); got != want {
		t.Errorf("product − quadratic per-document estimate %v, want 4·K·Σ L_d = %v", got, want)
	}
	two := "\ninference \"two-stage\" {}"
	prod2, quad2 := per(`response "softmax" {}`+two), per("response \"softmax\" {\n bound = \"quadratic\"\n}"+two)
	if prod2 != prod+float64(4*3*uniq) || quad2 != prod {
		t.Errorf("under two-stage: product %v, quadratic %v per document; want %v (the store and stage 2's copies) and %v (the store)", prod2, quad2, prod+float64(4*3*uniq), prod)
	}
}
