package textprep

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework/corpus"
)

// sharedData returns the folder of the shared data sets (beside the
// repository) joined with sub, or skips the test when it is not there.
func sharedData(t *testing.T, sub string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "..", "shared", "data", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared data not found at %s: skipping", dir)
	}
	return dir
}

// Test20Newsgroups prepares 20 Newsgroups into the four super-classes as
// docs/prepare.md does and checks its numbers.
func Test20Newsgroups(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: 18,846 documents take too long")
	}
	archive := filepath.Join(sharedData(t, "20newsgroups_bydate"), "20news-bydate.tar.gz")
	cfg := DefaultConfig()
	cfg.Tokens.StripHeaders, cfg.Tokens.StripFooters, cfg.Tokens.StripQuotes = true, true, true
	cfg.LabelMap = []LabelRule{{"comp.*", "comp"}, {"sci.*", "sci"}, {"talk.politics.*", "politics"}, {"rec.*", "rec"}}
	cfg.MinDF, cfg.MaxDF, cfg.Split, cfg.Seed = 5, 0.5, 0.75, 1
	m, _, err := prepareInput(t, InputOptions{Path: archive, Format: Dir, Encoding: Latin1, LabelDir: true}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantRead := ReadCounts{DocumentsRead: 18846, DroppedByLabelMap: 3399, Documents: 15447, Tokens: 1602309, DistinctTerms: 106762,
		DroppedLabels: map[string]int{"alt.atheism": 799, "misc.forsale": 975, "soc.religion.christian": 997, "talk.religion.misc": 628}}
	if diff := cmp.Diff(wantRead, m.Read); diff != "" {
		t.Errorf("read (-want +got):\n%s", diff)
	}
	want := map[string]*Counts{
		"train": {Documents: 11585, Labels: map[string]int{"comp": 3668, "politics": 1969, "rec": 2984, "sci": 2964}, TokenizerTokens: 1185874, Tokens: 1067853,
			Vocabulary: 11829, DroppedTokens: 118021, DroppedTerms: 65020, EmptyDocuments: 368, EmptiedDocuments: 8},
		"test": {Documents: 3862, Labels: map[string]int{"comp": 1223, "politics": 656, "rec": 995, "sci": 988}, TokenizerTokens: 416435, Tokens: 353386,
			Vocabulary: 11829, DroppedTokens: 63049, DroppedTerms: 43384, EmptyDocuments: 108, EmptiedDocuments: 4},
	}
	if diff := cmp.Diff(want, m.Parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if m.Inputs[0].SHA256 != "579639787cb15fefa90b1491d4a8640ca72d7973b446943b2e2973c244b11f56" {
		t.Errorf("archive checksum %s", m.Inputs[0].SHA256)
	}
}

// TestReutersR8 prepares R8's training file ("label<TAB>text" lines) and
// applies its vocabulary to the test file.
func TestReutersR8(t *testing.T) {
	dir := sharedData(t, "reuters_r8_cachopo")
	cfg := DefaultConfig()
	cfg.MinDF, cfg.MaxDF = 5, 0.5
	m, out, err := prepareInput(t, InputOptions{Path: filepath.Join(dir, "r8-train-all-terms.txt"), Format: Lines, LineFields: []string{"label", "text"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := m.Counts
	if c.Documents != 5485 || c.Vocabulary != 3709 || c.Tokens != 340233 || c.Labels["earn"] != 2840 || c.Labels["grain"] != 41 {
		t.Errorf("train counts %+v", *c)
	}
	vocab, _, err := ReadFile(filepath.Join(out, VocabFile), "vocab", corpus.ReadVocab)
	if err != nil {
		t.Fatal(err)
	}
	cfg = DefaultConfig()
	cfg.Vocab = vocab
	m, _, err = prepareInput(t, InputOptions{Path: filepath.Join(dir, "r8-test-all-terms.txt"), Format: Lines, LineFields: []string{"label", "text"}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Counts; c.Documents != 2189 || c.Tokens != 122739 || c.DroppedTokens != 17537 || c.DroppedTerms != 5458 {
		t.Errorf("test counts %+v", *c)
	}
}
