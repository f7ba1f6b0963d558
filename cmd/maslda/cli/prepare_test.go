package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework/textprep"
)

// plantedClasses are clearly separated word lists with their Snowball
// stems.
var plantedClasses = []struct {
	label        string
	words, stems []string
}{
	{"space", []string{"orbit", "planets", "rockets", "galaxies", "comets", "telescope"}, []string{"orbit", "planet", "rocket", "galaxi", "comet", "telescop"}},
	{"music", []string{"guitars", "melodies", "rhythm", "concerts", "chords", "singing"}, []string{"guitar", "melodi", "rhythm", "concert", "chord", "sing"}},
	{"food", []string{"recipes", "flour", "butter", "ovens", "dough", "baking"}, []string{"recip", "flour", "butter", "oven", "dough", "bake"}},
}

// plantedCSV writes a CSV (id,text,label) of perDoc documents per class,
// each made of one class's words with stop words and punctuation.
func plantedCSV(t *testing.T, dir string, perClass int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString("id,text,label\n")
	for i := range perClass * len(plantedClasses) {
		c := plantedClasses[i%len(plantedClasses)]
		var words []string
		for range 25 {
			w := c.words[r.IntN(len(c.words))]
			if r.IntN(4) == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			words = append(words, w)
			if r.IntN(5) == 0 {
				words = append(words, []string{"the", "and", "of", "it's", "42"}[r.IntN(5)])
			}
		}
		fmt.Fprintf(&b, "doc-%03d,\"%s.\",%s\n", i, strings.Join(words, " "), c.label)
	}
	return writeFile(t, filepath.Join(dir, "docs.csv"), b.String())
}

// TestPrepareTrainTopics: prepare → train → topics recovers the planted
// word lists as topics.
func TestPrepareTrainTopics(t *testing.T) {
	dir := t.TempDir()
	in := plantedCSV(t, dir, 40, 1)
	out := filepath.Join(dir, "corpus")
	mustRun(t, "prepare", "--input", in, "--format", "csv", "--label-column", "label", "--out", out, "--min-df", "2")
	vocab, _ := os.ReadFile(filepath.Join(out, "vocab.txt"))
	var all []string
	for _, c := range plantedClasses {
		all = append(all, c.stems...)
	}
	slices.Sort(all)
	got := strings.Fields(string(vocab))
	slices.Sort(got)
	if diff := cmp.Diff(all, got); diff != "" {
		t.Fatalf("vocabulary (-want +got):\n%s", diff)
	}
	cfg := writeFile(t, filepath.Join(dir, "k3.hcl"), "seed = 1\ntopics {\n  k = 3\n  alpha = 0.1\n}\ninference \"batch\" {\n  max_iters = 40\n}\n")
	model := filepath.Join(dir, "model")
	mustRun(t, "train", "--docs", filepath.Join(out, "docs.ldac"), "--ids", filepath.Join(out, "ids.txt"),
		"--vocab", filepath.Join(out, "vocab.txt"), "--config", cfg, "--out", model, "--progress", "never", "--log-level", "warn")
	top := mustRun(t, "topics", "--model", model, "--top", "6").stdout
	var topics [][]string
	for _, line := range strings.Split(strings.TrimSpace(top), "\n") {
		var words []string
		for _, f := range strings.Fields(line)[2:] {
			if !strings.HasPrefix(f, "(") {
				words = append(words, f)
			}
		}
		slices.Sort(words)
		topics = append(topics, words)
	}
	for _, c := range plantedClasses {
		want := slices.Sorted(slices.Values(c.stems))
		if !slices.ContainsFunc(topics, func(words []string) bool { return slices.Equal(words, want) }) {
			t.Errorf("no topic has the top words %v of %s; topics:\n%s", want, c.label, top)
		}
	}
}

// treeFiles reads every file below dir.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestPrepareSplitDeterministic(t *testing.T) {
	dir := t.TempDir()
	in := plantedCSV(t, dir, 40, 2)
	args := func(out, workers string) []string {
		return []string{"prepare", "--input", in, "--format", "csv", "--label-column", "label", "--split", "0.75", "--seed", "3", "--bigrams", "--workers", workers, "--out", out}
	}
	mustRun(t, args(filepath.Join(dir, "a"), "1")...)
	mustRun(t, args(filepath.Join(dir, "b"), "3")...)
	a, b := treeFiles(t, filepath.Join(dir, "a")), treeFiles(t, filepath.Join(dir, "b"))
	if len(a) != 11 {
		t.Fatalf("%d files: %v", len(a), slices.Sorted(func(yield func(string) bool) {
			for k := range a {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("outputs differ (-1 worker +3 workers):\n%s", diff)
	}
	var m textprep.Manifest
	if err := json.Unmarshal([]byte(a["manifest.json"]), &m); err != nil {
		t.Fatal(err)
	}
	for part, want := range map[string]int{"train": 30, "test": 10} {
		c := m.Parts[part]
		for _, cl := range plantedClasses {
			if c.Labels[cl.label] != want {
				t.Errorf("%s: %d documents of %s, want %d", part, c.Labels[cl.label], cl.label, want)
			}
		}
	}
	if a["train/vocab.txt"] != a["test/vocab.txt"] {
		t.Error("the test set does not use the training vocabulary")
	}
	// Running again over an existing output replaces it.
	mustRun(t, args(filepath.Join(dir, "a"), "2")...)
	if diff := cmp.Diff(a, treeFiles(t, filepath.Join(dir, "a"))); diff != "" {
		t.Errorf("rerun differs:\n%s", diff)
	}
}

func TestPrepareApplyVocab(t *testing.T) {
	dir := t.TempDir()
	train := writeFile(t, filepath.Join(dir, "train.txt"), "orbit planet\nplanet rocket\n")
	mustRun(t, "prepare", "--input", train, "--format", "lines", "--out", filepath.Join(dir, "train"))
	newDocs := writeFile(t, filepath.Join(dir, "new.txt"), "rocket banana planet banana\nkiwi\n")
	r := mustRun(t, "prepare", "--input", newDocs, "--format", "lines", "--vocab", filepath.Join(dir, "train", "vocab.txt"), "--out", filepath.Join(dir, "new"))
	if !strings.Contains(r.stderr, "out_of_vocabulary_tokens=3") || !strings.Contains(r.stderr, "emptied_by_vocabulary=1") {
		t.Errorf("log lacks the counts:\n%s", r.stderr)
	}
	files := treeFiles(t, filepath.Join(dir, "new"))
	if files["docs.ldac"] != "2 0:1 2:1\n0\n" || files["vocab.txt"] != "planet\norbit\nrocket\n" {
		t.Errorf("docs %q vocab %q", files["docs.ldac"], files["vocab.txt"])
	}
	var m textprep.Manifest
	if err := json.Unmarshal([]byte(files["manifest.json"]), &m); err != nil {
		t.Fatal(err)
	}
	if c := m.Counts; c.DroppedTokens != 3 || c.DroppedTerms != 2 || c.EmptiedDocuments != 1 || !m.Settings.FixedVocabulary {
		t.Errorf("counts %+v", *c)
	}
	if len(m.Inputs) != 2 || m.Inputs[1].Role != "vocab" || len(m.Inputs[1].SHA256) != 64 {
		t.Errorf("inputs %+v", m.Inputs)
	}
}

func TestPrepareTarLabelMap(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range [][2]string{
		{"20news/train/comp.graphics/1", "From: a@b\nSubject: pixels\n\nShaders and pixels.\n-- \nSig Nature\n"},
		{"20news/train/sci.space/2", "From: c@d\n\nIn article <x> e@f writes:\n> moon cheese\nOrbits of planets.\n"},
		{"20news/test/alt.atheism/3", "From: g@h\n\nDropped by the map.\n"},
		{"20news/test/talk.politics.guns/4", "From: i@j\n\nLaws about guns.\n"},
	} {
		tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(f[1]))
	}
	tw.Close()
	zw.Close()
	archive := filepath.Join(dir, "news.tar.gz")
	if err := os.WriteFile(archive, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lm := writeFile(t, filepath.Join(dir, "map.txt"), "comp.* comp\nsci.* sci\ntalk.politics.* politics\n")
	out := filepath.Join(dir, "out")
	mustRun(t, "prepare", "--input", archive, "--format", "dir", "--label-dir", "--label-map", lm,
		"--strip-headers", "--strip-quotes", "--strip-footers", "--out", out)
	files := treeFiles(t, out)
	if diff := cmp.Diff("task,label\n20news/train/comp.graphics/1,comp\n20news/train/sci.space/2,sci\n20news/test/talk.politics.guns/4,politics\n", files["labels.csv"]); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	vocab := strings.Fields(files["vocab.txt"])
	slices.Sort(vocab)
	if diff := cmp.Diff([]string{"gun", "law", "orbit", "pixel", "planet", "shader"}, vocab); diff != "" {
		t.Errorf("vocab (-want +got):\n%s", diff)
	}
}

func TestPrepareUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.csv"), "id,text\n1,hello world\n")
	base := []string{"prepare", "--input", in, "--out", filepath.Join(dir, "out")}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prepare", "--format", "csv", "--out", "x"}, "maslda prepare: missing --input\n"},
		{append(base, "--format", "xml"), "maslda prepare: --format \"xml\"; valid: csv, jsonl, dir, lines\n"},
		{append(base, "--format", "csv", "--seed", "3"), "maslda prepare: --seed needs --split\n"},
		{append(base, "--format", "csv", "--split", "1.5"), "maslda prepare: --split 1.5, want a fraction in (0, 1)\n"},
		{append(base, "--format", "csv", "--include", "*.txt"), "maslda prepare: --include applies to --format dir only\n"},
		{append(base, "--format", "lines", "--label-column", "l"), "maslda prepare: --label-column applies to --format csv, jsonl only\n"},
		{append(base, "--format", "csv", "--vocab", "v.txt", "--min-df", "2"), "maslda prepare: --vocab fixes the vocabulary: --min-df, --max-df and --max-vocab do not apply\n"},
		{append(base, "--format", "csv", "--max-df", "0"), "maslda prepare: --max-df 0, want a fraction in (0, 1]\n"},
		{append(base, "--format", "csv", "--encoding", "utf16"), "maslda prepare: --encoding \"utf16\"; valid: utf8, latin1\n"},
		{append(base, "--format", "csv", "--label-map", "m.txt"), "maslda prepare: --label-map needs labels (--label-column, --label-dir or a label line field)\n"},
		{append(base, "--format", "csv", "--stopwords", "s.txt", "--no-stopwords"), "maslda prepare: give --stopwords or --no-stopwords, not both\n"},
		{[]string{"prepare", "--input", in, "--format", "csv", "--out", dir}, "maslda prepare: --out " + dir + " contains --input " + in + ": the output would replace the input\n"},
	} {
		r := run(t, tc.args...)
		if r.code != ExitUsage || r.stderr != tc.want {
			t.Errorf("%v: exit %d, stderr %q\nwant %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestPrepareBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name, content string
		args          []string
		want          string
	}{
		{"missing.csv", "doc,body\n1,x\n", []string{"--format", "csv"}, `FILE:1: header has columns "doc", "body"; want "id", "text" (missing "id", "text")`},
		{"quoting.csv", "id,text\n1,\"ok\"\n2,a \"b\" c\n", []string{"--format", "csv"}, `FILE:3: broken CSV quoting at column 5: bare " in non-quoted-field (a field with a quote must be quoted and its quotes doubled)`},
		{"latin1.txt", "fine\nna\xefve\n", []string{"--format", "lines"}, `FILE:2: invalid UTF-8 (byte 0xef); if the file is Latin-1, use the latin1 encoding`},
		{"stop.txt", "the and of\n", []string{"--format", "lines"}, `FILE: no term is left in the vocabulary (0 distinct terms in 1 training documents; min-df 1, max-df 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeFile(t, filepath.Join(dir, tc.name), tc.content)
			r := run(t, append([]string{"prepare", "--input", in, "--out", out}, tc.args...)...)
			want := "maslda prepare: " + strings.ReplaceAll(tc.want, "FILE", in)
			if tc.name == "stop.txt" {
				want = "maslda prepare: bad input: " + strings.ReplaceAll(tc.want, "FILE", in)
			}
			if r.code != ExitError || r.stderr != want+"\n" {
				t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want+"\n")
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output written despite the error")
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".out") {
					t.Errorf("temporary %s left behind", e.Name())
				}
			}
		})
	}
	// latin1 reads the same file.
	in := writeFile(t, filepath.Join(dir, "l1.txt"), "fine\nna\xefve\n")
	mustRun(t, "prepare", "--input", in, "--format", "lines", "--encoding", "latin1", "--no-stem", "--out", out)
	if v, _ := os.ReadFile(filepath.Join(out, "vocab.txt")); string(v) != "fine\nnaïve\n" {
		t.Errorf("vocab %q", v)
	}
}

func TestPrepareInterrupted(t *testing.T) {
	dir := t.TempDir()
	in := plantedCSV(t, dir, 200, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(dir, "out")
	r := runCtx(t, ctx, nil, "prepare", "--input", in, "--format", "csv", "--out", out)
	if r.code != ExitInterrupted {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output written despite the interruption")
	}
}
