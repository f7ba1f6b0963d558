package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputRefusals: outputs never destroy what they did not make, and
// never overwrite an input; refused before any work starts.
func TestOutputRefusals(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "model")
	d := f.dir
	w := func(name, content string) string {
		os.MkdirAll(filepath.Dir(filepath.Join(d, name)), 0o755)
		return writeFile(t, filepath.Join(d, name), content)
	}
	notes := filepath.Dir(w("notes/todo.txt", "my notes\n"))
	docsDir := filepath.Join(d, "data")
	docsInDir := w("data/train.ldac", string(readFile(t, f.docs)))
	truth := w("truth.csv", "task,label\n0,a\n1,b\n")
	wide := w("wide.txt", "0 1\n1 0\n")
	withNotes := filepath.Join(d, "model-notes")
	mustRun(t, "train", "--docs", f.docs, "--vocab", f.vocab, "--config", f.config(t, "batch.hcl", batchHCL), "--out", withNotes, "--log-level", "off")
	w("model-notes/notes.txt", "mine\n")
	train := func(out string, extra ...string) []string {
		return append([]string{"train", "--docs", f.docs, "--config", f.config(t, "batch.hcl", batchHCL), "--out", out}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // regexp of stderr's last line
	}{
		{"train over a folder of notes", train(notes), ExitError,
			`--out .*notes exists and was not written by this command \(no model\.json: not a maslda model\); refusing to replace it: choose a new or empty directory$`},
		{"train over the folder holding --docs", []string{"train", "--docs", docsInDir, "--out", docsDir}, ExitUsage,
			`--out .*data contains --docs .*train\.ldac: the output would replace the input$`},
		{"train over a model with a user's file", train(withNotes), ExitError,
			`a maslda model, but it also holds notes\.txt, which the model does not list`},
		{"train --out the config", train(filepath.Join(d, "batch.hcl")), ExitUsage, `--out .*batch\.hcl is --config`},
		{"train --out /", train("/"), ExitError, `--out / is the file-system root, which cannot be replaced`},
		{"train --out .", train("."), ExitError, `--out \. is the working directory, which would be replaced as a whole; name a new directory`},
		{"train --workers -7", train(filepath.Join(d, "w7"), "--workers", "-7"), ExitUsage, `--workers -7, want ≥ 0`},
		{"prepare over a folder of notes", []string{"prepare", "--input", truth, "--format", "csv", "--text-column", "label", "--out", notes}, ExitError,
			`no .*manifest\.json: not the output of maslda prepare\); refusing to replace it`},
		{"predict --out its --docs", []string{"predict", "--model", model, "--docs", f.test, "--out", f.test}, ExitUsage,
			`--out .*test\.ldac is --docs: the output would overwrite the input$`},
		{"predict --out MODEL/model.json", []string{"predict", "--model", model, "--docs", f.test, "--out", filepath.Join(model, "model.json")}, ExitUsage,
			`--out .*model\.json is inside --model .*model: write the output elsewhere$`},
		{"predict --out a directory", []string{"predict", "--model", model, "--docs", f.test, "--out", notes}, ExitError, `--out .*notes is a directory; name a file`},
		{"predict --workers -7", []string{"predict", "--model", model, "--docs", f.test, "--out", filepath.Join(d, "p.csv"), "--workers", "-7"}, ExitUsage, `--workers -7, want ≥ 0`},
		{"demo over a folder of notes", []string{"demo", "--case", "lda", "--out", notes}, ExitError,
			`--out .*notes exists and was not written by this command \(it holds todo\.txt, which demo does not write \(corpus/ and model/\)\); refusing to replace it`},
		{"demo over a model", []string{"demo", "--case", "lda", "--out", model}, ExitError,
			`--out .*model exists and was not written by this command \(it holds [a-z.]+, which demo does not write`},
		{"import --out its --wide", []string{"import", "--wide", wide, "--out", wide}, ExitUsage, `--out .*wide\.txt is --wide`},
		{"simulate --out its --truth", []string{"simulate", "--truth", truth, "--accuracies", "0.9", "--out", truth}, ExitUsage, `--out .*truth\.csv is --truth`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := treeFiles(t, d)
			r := run(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != tc.code || !regexp.MustCompile(tc.want).MatchString(lines[len(lines)-1]) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d and a last line matching %q", r.code, r.stderr, tc.code, tc.want)
			}
			if strings.Contains(r.stderr, "corpus:") {
				t.Errorf("refused after reading the corpus:\n%s", r.stderr)
			}
			if diff := cmp.Diff(before, treeFiles(t, d)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}
	// What may be replaced: an empty directory, a model, a prepare output.
	empty := filepath.Join(d, "empty")
	os.Mkdir(empty, 0o755)
	mustRun(t, train(empty, "--log-level", "off")...)
	mustRun(t, train(empty, "--log-level", "off")...)
	prep := filepath.Join(d, "prep")
	csvIn := w("in.csv", "id,text\n1,hello world\n2,another text here\n")
	mustRun(t, "prepare", "--input", csvIn, "--format", "csv", "--out", prep, "--log-level", "off")
	mustRun(t, "prepare", "--input", csvIn, "--format", "csv", "--out", prep, "--log-level", "off")
	if r := run(t, "prepare", "--input", csvIn, "--format", "csv", "--out", model, "--log-level", "off"); r.code != ExitError {
		t.Errorf("prepare over a model: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestTrainUnwritableOut: an output that cannot be written is found before
// training.
func TestTrainUnwritableOut(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere")
	}
	f := newFixture(t)
	ro := filepath.Join(f.dir, "ro")
	os.Mkdir(ro, 0o555)
	defer os.Chmod(ro, 0o755)
	r := run(t, "train", "--docs", f.docs, "--out", filepath.Join(ro, "model"), "--progress", "never")
	if r.code != ExitError || !strings.Contains(r.stderr, "not writable") || strings.Contains(r.stderr, "update:") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// historyWatch reads the streamed history.csv each time an update is
// logged, recording its number of lines.
type historyWatch struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	path  string
	lines []int
}

var historyFile = regexp.MustCompile(`history: file=(\S+)`)

func (h *historyWatch) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.Write(p)
	if m := historyFile.FindSubmatch(p); m != nil {
		h.path = string(m[1])
	}
	if bytes.Contains(p, []byte("maslda: update:")) && h.path != "" {
		b, _ := os.ReadFile(h.path)
		h.lines = append(h.lines, bytes.Count(b, []byte("\n")))
	}
	return len(p), nil
}

func (h *historyWatch) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// TestHistoryGrows: history.csv is written update by update during the
// run (in the staging directory, whose path is logged), not at the end.
func TestHistoryGrows(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "model")
	cfg := f.config(t, "five.hcl", "topics {\n  k = 3\n}\ninference \"batch\" {\n  max_iters = 5\n  tol = 0\n}\n")
	h := &historyWatch{}
	r := runCtx(t, t.Context(), h, "train", "--docs", f.docs, "--config", cfg, "--out", out, "--progress", "never", "--log-level", "debug")
	if r.code != ExitOK {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if diff := cmp.Diff([]int{2, 3, 4, 5, 6}, h.lines); diff != "" {
		t.Errorf("history.csv lines at each update (-want +got):\n%s", diff)
	}
	if got := len(readCSV(t, filepath.Join(out, "history.csv"))); got != 6 {
		t.Errorf("final history.csv: %d lines, want 6", got)
	}
}

// TestPredictVocabByTerm: predict --vocab compares the documents'
// vocabulary with the model's terms and maps words by term (the same
// documents written with a permuted vocabulary predict the same), counts
// unknown words, and refuses a model without a vocabulary.
func TestPredictVocabByTerm(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "model")
	vocab := strings.Fields(string(readFile(t, f.vocab)))
	n := len(vocab)
	// Reverse the vocabulary and add an unknown term at id n.
	perm := make([]string, n+1)
	for i, term := range vocab {
		perm[n-1-i] = term
	}
	perm[n] = "zzz-unknown"
	permVocab := writeFile(t, filepath.Join(f.dir, "perm.txt"), strings.Join(perm, "\n")+"\n")
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, f.test))), "\n") {
		fields := strings.Fields(line)
		b.WriteString(strconv.Itoa(len(fields)))
		for _, p := range fields[1:] {
			id, count, _ := strings.Cut(p, ":")
			v, _ := strconv.Atoi(id)
			fmt.Fprintf(&b, " %d:%s", n-1-v, count)
		}
		fmt.Fprintf(&b, " %d:2\n", n) // two unknown tokens per document
	}
	permDocs := writeFile(t, filepath.Join(f.dir, "perm.ldac"), b.String())
	want := filepath.Join(f.dir, "want.csv")
	got := filepath.Join(f.dir, "got.csv")
	mustRun(t, "predict", "--model", model, "--docs", f.test, "--vocab", f.vocab, "--out", want, "--log-level", "warn")
	r := mustRun(t, "predict", "--model", model, "--docs", permDocs, "--vocab", permVocab, "--out", got, "--log-level", "warn")
	docs := strings.Count(string(readFile(t, f.test)), "\n")
	if !strings.Contains(r.stderr, fmt.Sprintf("words mapped to the model's ids by term: vocab=%s unknown_terms=1 unknown_tokens=%d", permVocab, 2*docs)) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if diff := cmp.Diff(readCSV(t, want), readCSV(t, got)); diff != "" {
		t.Errorf("predictions with the permuted vocabulary (-same vocabulary +permuted):\n%s", diff)
	}
	noVocab := filepath.Join(f.dir, "novocab")
	mustRun(t, "train", "--docs", f.docs, "--config", f.config(t, "batch.hcl", batchHCL), "--out", noVocab, "--log-level", "off")
	r = run(t, "predict", "--model", noVocab, "--docs", f.test, "--vocab", f.vocab, "--out", got)
	if r.code != ExitError || !strings.Contains(r.stderr, "was trained without a vocabulary") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestModelIntegrity: a model file changed after the save is an error
// naming the file.
func TestModelIntegrity(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		file  string
		alter func(b []byte) []byte
		want  string
	}{
		{"topics.bin", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, `topics\.bin: SHA-256 [0-9a-f]{64} but model\.json records [0-9a-f]{64}: the file was changed or replaced after the model was saved`},
		{"vocab.txt", func(b []byte) []byte { return append(b, "extra\n"...) }, `vocab\.txt: SHA-256`},
		{"history.csv", func([]byte) []byte { return nil }, `history\.csv: SHA-256`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			model := f.train(t, "model-"+tc.file)
			path := filepath.Join(model, tc.file)
			os.WriteFile(path, tc.alter(readFile(t, path)), 0o644)
			r := run(t, "predict", "--model", model, "--docs", f.test, "--out", filepath.Join(f.dir, "p.csv"))
			if r.code != ExitError || !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant a match for %s", r.code, r.stderr, tc.want)
			}
		})
	}
	model := f.train(t, "model-missing")
	os.Remove(filepath.Join(model, "vocab.txt"))
	if r := run(t, "topics", "--model", model); r.code != ExitError || !strings.Contains(r.stderr, "vocab.txt: missing: model.json lists it") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestHugeVocabularyRefused: a vocabulary size that cannot fit is refused
// with the estimate, not a fatal out-of-memory crash.
func TestHugeVocabularyRefused(t *testing.T) {
	f := newFixture(t)
	huge := writeFile(t, filepath.Join(f.dir, "huge.ldac"), "2 0:1 2147483646:1\n1 3:2\n")
	for _, args := range [][]string{
		{"train", "--docs", f.docs, "--vocab-size", "2000000000", "--out", filepath.Join(f.dir, "m1")},
		{"train", "--docs", huge, "--out", filepath.Join(f.dir, "m2")},
	} {
		r := run(t, args...)
		if r.code != ExitError || !regexp.MustCompile(`the run needs about [0-9.]+ GiB \(topics K·V .*\) but [0-9.]+ [GMK]iB is available`).MatchString(r.stderr) {
			t.Errorf("%v: exit %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
}
