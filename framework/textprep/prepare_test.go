package textprep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// plain keeps every letter token, lower-cased: no stop words, no stems.
var plain = TokenOptions{Lowercase: true, MinLength: 1}

func plainConfig() Config {
	c := DefaultConfig()
	c.Tokens, c.StopWordsSource = plain, "none"
	return c
}

// prepare runs Prepare on a lines file of the given documents.
func prepare(t *testing.T, lines string, cfg Config) (*Manifest, string, error) {
	t.Helper()
	in := writeTemp(t, t.TempDir(), "docs.txt", lines)
	return prepareInput(t, InputOptions{Path: in, Format: Lines}, cfg)
}

func prepareInput(t *testing.T, in InputOptions, cfg Config) (*Manifest, string, error) {
	t.Helper()
	src, err := Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := t.TempDir()
	m, err := Prepare(context.Background(), src, cfg, out)
	return m, out, err
}

func readOut(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pruneDocs: df apple 4, banana 3, cherry 1, date 1, elder 1; counts
// apple 4, banana 3, elder 3, cherry 1, date 1.
const pruneDocs = "apple banana cherry\napple banana\napple date\napple banana elder elder elder\n"

func TestPruning(t *testing.T) {
	for _, tc := range []struct {
		name           string
		minDF          int
		maxDF          float64
		maxVocab       int
		vocab, docs    string
		empty, emptied int
		dropped        int64
	}{
		{"none", 1, 1, 0, "apple\nbanana\nelder\ncherry\ndate\n",
			"3 0:1 1:1 3:1\n2 0:1 1:1\n2 0:1 4:1\n3 0:1 1:1 2:3\n", 0, 0, 0},
		{"min-df 2", 2, 1, 0, "apple\nbanana\n",
			"2 0:1 1:1\n2 0:1 1:1\n1 0:1\n2 0:1 1:1\n", 0, 0, 5},
		{"max-df 0.75", 1, 0.75, 0, "banana\nelder\ncherry\ndate\n",
			"2 0:1 2:1\n1 0:1\n1 3:1\n2 0:1 1:3\n", 0, 0, 4},
		{"max-vocab 3: ties by term", 1, 1, 3, "apple\nbanana\nelder\n",
			"2 0:1 1:1\n2 0:1 1:1\n1 0:1\n3 0:1 1:1 2:3\n", 0, 0, 2},
		{"max-vocab 4", 1, 1, 4, "apple\nbanana\nelder\ncherry\n",
			"3 0:1 1:1 3:1\n2 0:1 1:1\n1 0:1\n3 0:1 1:1 2:3\n", 0, 0, 1},
		{"min-df 2, max-df 0.75: an emptied document", 2, 0.75, 0, "banana\n",
			"1 0:1\n1 0:1\n0\n1 0:1\n", 1, 1, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := plainConfig()
			cfg.MinDF, cfg.MaxDF, cfg.MaxVocab = tc.minDF, tc.maxDF, tc.maxVocab
			m, out, err := prepare(t, pruneDocs, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.vocab, readOut(t, out, VocabFile)); diff != "" {
				t.Errorf("vocab (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.docs, readOut(t, out, DocsFile)); diff != "" {
				t.Errorf("docs (-want +got):\n%s", diff)
			}
			c := m.Counts
			if c.EmptyDocuments != tc.empty || c.EmptiedDocuments != tc.emptied || c.DroppedTokens != tc.dropped || c.TokenizerTokens != 12 || c.Tokens != 12-tc.dropped {
				t.Errorf("counts %+v", *c)
			}
			// The files read back with the corpus readers.
			docs, _, err := corpus.ReadLDAC(strings.NewReader(readOut(t, out, DocsFile)), DocsFile)
			if err != nil || len(docs) != 4 {
				t.Fatalf("ReadLDAC: %d docs, %v", len(docs), err)
			}
			vocab, err := corpus.ReadVocab(strings.NewReader(readOut(t, out, VocabFile)), VocabFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := corpus.CheckVocab(docs, len(vocab), DocsFile); err != nil {
				t.Error(err)
			}
			if got := readOut(t, out, IDsFile); got != "1\n2\n3\n4\n" {
				t.Errorf("ids %q", got)
			}
		})
	}
}

func TestEmptyDocuments(t *testing.T) {
	// Document 2 is all stop words (empty before any vocabulary), document 3
	// is blank, document 4 loses its only term to min-df, and so does
	// "moons" in document 1.
	cfg := DefaultConfig()
	cfg.MinDF = 2
	m, out, err := prepare(t, "moons orbit planets\nthe and of\n\nunique\nplanet orbits\n", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readOut(t, out, DocsFile), "2 0:1 1:1\n0\n0\n0\n2 0:1 1:1\n"; got != want {
		t.Errorf("docs %q, want %q", got, want)
	}
	if got := readOut(t, out, VocabFile); got != "orbit\nplanet\n" {
		t.Errorf("vocab %q", got)
	}
	want := Counts{Documents: 5, Unlabeled: 5, TokenizerTokens: 6, Tokens: 4, Vocabulary: 2, DroppedTokens: 2, DroppedTerms: 2, EmptyDocuments: 3, EmptiedDocuments: 1}
	if diff := cmp.Diff(want, *m.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestNoTermLeft(t *testing.T) {
	cfg := plainConfig()
	cfg.MinDF = 5
	_, _, err := prepare(t, pruneDocs, cfg)
	if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "no term is left in the vocabulary (5 distinct terms in 4 training documents; min-df 5, max-df 1)") {
		t.Errorf("err = %v", err)
	}
}

func TestFixedVocabulary(t *testing.T) {
	cfg := plainConfig()
	_, train, err := prepare(t, "apple banana\nbanana cherry\n", cfg)
	if err != nil {
		t.Fatal(err)
	}
	vocab, err := corpus.ReadVocab(strings.NewReader(readOut(t, train, VocabFile)), VocabFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Vocab = vocab
	// kiwi (twice) and mango are unknown; the last document has only them.
	m, out, err := prepare(t, "cherry kiwi apple kiwi\nmango kiwi\nbanana\n", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := readOut(t, out, VocabFile), readOut(t, train, VocabFile); got != want {
		t.Errorf("vocab %q, want the training one %q", got, want)
	}
	// Training vocabulary: banana (2), apple, cherry.
	if got, want := readOut(t, out, DocsFile), "2 1:1 2:1\n0\n1 0:1\n"; got != want {
		t.Errorf("docs %q, want %q", got, want)
	}
	want := Counts{Documents: 3, Unlabeled: 3, TokenizerTokens: 7, Tokens: 3, Vocabulary: 3, DroppedTokens: 4, DroppedTerms: 2, EmptyDocuments: 1, EmptiedDocuments: 1}
	if diff := cmp.Diff(want, *m.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if !m.Settings.FixedVocabulary {
		t.Error("manifest does not say the vocabulary was fixed")
	}
}

func TestAssignSplit(t *testing.T) {
	count := func(class []int32, part []uint8, classes int) (train, test []int) {
		train, test = make([]int, classes+1), make([]int, classes+1)
		for i, c := range class {
			if part[i] == 0 {
				train[c+1]++
			} else {
				test[c+1]++
			}
		}
		return train, test
	}
	classesOf := func(sizes ...int) []int32 {
		var c []int32
		for k, n := range sizes {
			for range n {
				c = append(c, int32(k-1)) // the first size is the unlabeled stratum
			}
		}
		rand.New(rand.NewPCG(1, 2)).Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
		return c
	}
	for _, tc := range []struct {
		name      string
		sizes     []int // unlabeled, class 0, class 1, ...
		split     float64
		wantTrain []int
	}{
		{"exact", []int{0, 40, 20, 12}, 0.75, []int{0, 30, 15, 9}},
		{"largest remainder", []int{0, 5, 5, 5}, 0.5, []int{0, 3, 2, 2}},
		{"remainders by size", []int{0, 3, 7, 10}, 0.75, []int{0, 2, 5, 8}},
		{"unlabeled stratum", []int{8, 4}, 0.25, []int{2, 1}},
		{"tiny classes", []int{0, 1, 1, 1, 1}, 0.75, []int{0, 1, 1, 1, 0}},
		{"20 Newsgroups super-classes", []int{0, 4891, 3952, 3979, 2625}, 0.75, []int{0, 3668, 2964, 2984, 1969}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class := classesOf(tc.sizes...)
			part := AssignSplit(class, len(tc.sizes)-1, tc.split, 42)
			train, test := count(class, part, len(tc.sizes)-1)
			if diff := cmp.Diff(tc.wantTrain, train); diff != "" {
				t.Errorf("training documents per stratum (-want +got):\n%s", diff)
			}
			total := 0
			for k, n := range tc.sizes {
				total += n
				if train[k]+test[k] != n {
					t.Errorf("stratum %d: %d + %d != %d", k, train[k], test[k], n)
				}
			}
			sum := 0
			for _, n := range train {
				sum += n
			}
			if want := int(tc.split * float64(total)); sum != want {
				t.Errorf("%d training documents, want ⌊%v·%d⌋ = %d", sum, tc.split, total, want)
			}
			if again := AssignSplit(class, len(tc.sizes)-1, tc.split, 42); !slices.Equal(part, again) {
				t.Error("not deterministic")
			}
		})
	}
	if p := AssignSplit([]int32{0, 1, -1}, 2, 0, 1); !slices.Equal(p, []uint8{0, 0, 0}) {
		t.Errorf("no split: %v", p)
	}
}

// labeledCSV makes a CSV of n documents per class from clearly separated
// word lists.
func labeledCSV(sizes map[string]int, seed uint64) string {
	words := map[string][]string{
		"space": {"orbit", "planet", "rocket", "galaxy", "comet"},
		"music": {"guitar", "melody", "rhythm", "concert", "chord"},
		"food":  {"recipe", "flour", "butter", "oven", "dough"},
	}
	r := rand.New(rand.NewPCG(seed, 9))
	var b strings.Builder
	b.WriteString("id,text,label\n")
	labels := []string{"food", "music", "space"}
	i := 0
	for _, l := range labels {
		for range sizes[l] {
			var text []string
			for range 12 {
				text = append(text, words[l][r.IntN(5)])
			}
			fmt.Fprintf(&b, "d%03d,\"%s, the end.\",%s\n", i, strings.Join(text, " "), l)
			i++
		}
	}
	return b.String()
}

func TestSplit(t *testing.T) {
	in := writeTemp(t, t.TempDir(), "docs.csv", labeledCSV(map[string]int{"space": 40, "music": 20, "food": 12}, 1))
	opt := InputOptions{Path: in, Format: CSV, IDColumn: "id", TextColumn: "text", LabelColumn: "label"}
	cfg := DefaultConfig()
	cfg.Split, cfg.Seed = 0.75, 7
	m, out, err := prepareInput(t, opt, cfg)
	if err != nil {
		t.Fatal(err)
	}
	train, test := m.Parts["train"], m.Parts["test"]
	if diff := cmp.Diff(map[string]int{"space": 30, "music": 15, "food": 9}, train.Labels); diff != "" {
		t.Errorf("training labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"space": 10, "music": 5, "food": 3}, test.Labels); diff != "" {
		t.Errorf("test labels (-want +got):\n%s", diff)
	}
	for _, part := range []string{"train", "test"} {
		dir := filepath.Join(out, part)
		n := m.Parts[part].Documents
		truth, err := corpus.ReadTruth(strings.NewReader(readOut(t, dir, LabelsFile)), LabelsFile)
		if err != nil || len(truth.Rows) != n {
			t.Fatalf("%s: %d labels for %d documents: %v", part, len(truth.Rows), n, err)
		}
		ids, err := corpus.ReadIDs(strings.NewReader(readOut(t, dir, IDsFile)), IDsFile)
		if err != nil || len(ids) != n {
			t.Fatalf("%s: %d ids: %v", part, len(ids), err)
		}
		for i, row := range truth.Rows {
			if row.Task != ids[i] {
				t.Fatalf("%s: label row %d is for %q, document %q", part, i, row.Task, ids[i])
			}
		}
		var pm Manifest
		if err := json.Unmarshal([]byte(readOut(t, dir, ManifestFile)), &pm); err != nil {
			t.Fatal(err)
		}
		if pm.Part != part || pm.Counts == nil || pm.Counts.Documents != n || pm.Parts != nil {
			t.Errorf("%s/manifest.json: part %q counts %+v parts %v", part, pm.Part, pm.Counts, pm.Parts)
		}
	}
	if readOut(t, filepath.Join(out, "train"), VocabFile) != readOut(t, filepath.Join(out, "test"), VocabFile) {
		t.Error("the test vocabulary is not the training one")
	}
	// The training vocabulary is the 15 words (stemmed) plus "end".
	if train.Vocabulary != 16 {
		t.Errorf("vocabulary %d, want 16", train.Vocabulary)
	}
}

// TestDeterministic: the same input, seed and settings give byte-identical
// files, whatever the number of workers; another seed another split.
func TestDeterministic(t *testing.T) {
	in := writeTemp(t, t.TempDir(), "docs.csv", labeledCSV(map[string]int{"space": 300, "music": 200, "food": 100}, 2))
	opt := InputOptions{Path: in, Format: CSV, IDColumn: "id", TextColumn: "text", LabelColumn: "label"}
	run := func(workers int, seed uint64) map[string][]byte {
		cfg := DefaultConfig()
		cfg.Split, cfg.Seed, cfg.Workers, cfg.Tokens.Bigrams = 0.75, seed, workers, true
		_, out, err := prepareInput(t, opt, cfg)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(out, p)
				files[rel], _ = os.ReadFile(p)
			}
			return err
		})
		return files
	}
	a, b := run(1, 5), run(4, 5)
	if len(a) != 11 {
		t.Fatalf("%d files, want 11: %v", len(a), slices.Sorted(mapKeys(a)))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
	c := run(2, 6)
	if bytes.Equal(a["train/ids.txt"], c["train/ids.txt"]) {
		t.Error("seeds 5 and 6 give the same split")
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestLabelMapAndManifest(t *testing.T) {
	dir := t.TempDir()
	writeTemp(t, dir, "tree/comp.graphics/1", "pixels shaders")
	writeTemp(t, dir, "tree/comp.windows.x/2", "windows pixels")
	writeTemp(t, dir, "tree/alt.atheism/3", "dropped text")
	writeTemp(t, dir, "tree/loose", "no label")
	cfg := DefaultConfig()
	cfg.LabelMap = []LabelRule{{"comp.*", "comp"}}
	m, out, err := prepareInput(t, InputOptions{Path: filepath.Join(dir, "tree"), Format: Dir, LabelDir: true}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantRead := ReadCounts{DocumentsRead: 4, DroppedByLabelMap: 2, DroppedLabels: map[string]int{"alt.atheism": 1, "(no label)": 1}, Documents: 2, Tokens: 4, DistinctTerms: 3}
	if diff := cmp.Diff(wantRead, m.Read); diff != "" {
		t.Errorf("read counts (-want +got):\n%s", diff)
	}
	if got := readOut(t, out, LabelsFile); got != "task,label\ncomp.graphics/1,comp\ncomp.windows.x/2,comp\n" {
		t.Errorf("labels %q", got)
	}
	var back Manifest
	if err := json.Unmarshal([]byte(readOut(t, out, ManifestFile)), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*m, back, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".StopWords" }, cmp.Ignore())); diff != "" {
		t.Errorf("manifest.json differs from the returned manifest (-returned +file):\n%s", diff)
	}
	if back.Settings.StopWords.Source != "embedded" || back.Settings.StopWords.Count != 181 {
		t.Errorf("stop words %+v", back.Settings.StopWords)
	}
	// Temporary files are gone.
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{DocsFile, IDsFile, LabelsFile, ManifestFile, VocabFile}, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestDocumentErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		opt           InputOptions
		want          string
	}{
		{"duplicate id", "id,text\na,x\nb,y\na,z\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"}, `FILE:4: duplicate id "a" (first on line 2)`},
		{"label with a line break", "id,text,label\na,x,\"l1\nl2\"\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text", LabelColumn: "label"}, "FILE:2: label \"l1\\nl2\" contains a line break"},
		{"id with a line break", "id,text\n\"a\nb\",x\n", InputOptions{Format: CSV, IDColumn: "id", TextColumn: "text"}, "FILE:2: id \"a\\nb\" is empty, has surrounding whitespace or a line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Path = writeTemp(t, dir, strings.ReplaceAll(tc.name, " ", "_"), tc.content)
			_, _, err := prepareInput(t, tc.opt, DefaultConfig())
			want := strings.ReplaceAll(tc.want, "FILE", tc.opt.Path)
			var le *framework.LineError
			if err == nil || err.Error() != want || !errors.As(err, &le) {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
	_, _, err := prepare(t, "", DefaultConfig())
	if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), "no documents") {
		t.Errorf("empty input: err = %v", err)
	}
}

// TestIDCollisions: with every id hashing alike, distinct ids pass and a
// repeated one is still reported on its line.
func TestIDCollisions(t *testing.T) {
	defer func(h func(string) uint64) { hashID = h }(hashID)
	hashID = func(string) uint64 { return 7 }
	cfg := plainConfig()
	if _, _, err := prepare(t, "a\nb\nc\n", cfg); err != nil {
		t.Fatalf("distinct ids: %v", err)
	}
	in := writeTemp(t, t.TempDir(), "d.txt", "x\ta\ny\tb\nx\tc\n")
	_, _, err := prepareInput(t, InputOptions{Path: in, Format: Lines, LineFields: []string{"id", "text"}}, cfg)
	if err == nil || err.Error() != in+`:3: duplicate id "x" (first on line 1)` {
		t.Errorf("err = %v", err)
	}
}

func TestTarDuplicatePath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dup.tar")
	makeTar(t, p, false, [][2]string{{"g/1", "one"}, {"g/2", "two"}, {"g/1", "again"}})
	_, _, err := prepareInput(t, InputOptions{Path: p, Format: Dir}, plainConfig())
	if err == nil || err.Error() != p+`:g/1: duplicate id "g/1" (the same path twice)` {
		t.Errorf("err = %v", err)
	}
}

func TestConfigCheck(t *testing.T) {
	for _, mod := range []func(*Config){
		func(c *Config) { c.MinDF = 0 },
		func(c *Config) { c.MaxDF = 0 },
		func(c *Config) { c.MaxDF = 1.5 },
		func(c *Config) { c.MaxVocab = -1 },
		func(c *Config) { c.Split = 1 },
		func(c *Config) { c.Split = -0.5 },
		func(c *Config) { c.Vocab = []string{} },
		func(c *Config) { c.Vocab = []string{"a", "a"} },
	} {
		cfg := plainConfig()
		mod(&cfg)
		if _, _, err := prepare(t, "a b\n", cfg); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("%+v: err = %v", cfg, err)
		}
	}
}

func TestCancel(t *testing.T) {
	in := writeTemp(t, t.TempDir(), "docs.csv", labeledCSV(map[string]int{"space": 3000}, 3))
	src, err := Open(InputOptions{Path: in, Format: CSV, IDColumn: "id", TextColumn: "text"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := DefaultConfig()
	cfg.Progress = func(p Progress) { cancel() }
	if _, err := Prepare(ctx, src, cfg, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestProgress(t *testing.T) {
	var phases []string
	var last Progress
	cfg := plainConfig()
	cfg.Progress = func(p Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		last = p
	}
	if _, _, err := prepare(t, pruneDocs, cfg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read", "count", "write"}, phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	if last.Done != 4 || last.Total != 4 {
		t.Errorf("last progress %+v", last)
	}
}
