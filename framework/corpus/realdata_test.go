package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/maslda/maslda/framework"
)

// sharedData returns the folder of the shared data sets (../../../shared/data
// from this package, i.e. beside the repository) joined with sub, or skips
// the test when it is not there. The files are only read.
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

func openFile(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func loadLDAC(t *testing.T, path string) ([]framework.Doc, int) {
	t.Helper()
	docs, v, err := ReadLDAC(openFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&framework.Corpus{Docs: docs, V: v}).Validate(); err != nil {
		t.Fatal(err)
	}
	return docs, v
}

func docIDsOf(docs []framework.Doc) []string {
	ids := make([]string, len(docs))
	for i := range docs {
		ids[i] = docs[i].ID
	}
	return ids
}

// checkRealAnswers resolves a wide answer table numerically against docs
// and checks its counts.
func checkRealAnswers(t *testing.T, tab *AnswerTable, docs []framework.Doc, wantAnswers, maxWorkers int) *framework.Answers {
	t.Helper()
	a, err := tab.Numeric(docIDsOf(docs))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Count(); got != wantAnswers {
		t.Errorf("%d answers, want %d", got, wantAnswers)
	}
	if len(a.Annotators) > maxWorkers {
		t.Errorf("%d workers, want at most %d", len(a.Annotators), maxWorkers)
	}
	if len(a.ByDoc) != len(docs) {
		t.Errorf("answers for %d documents, want %d", len(a.ByDoc), len(docs))
	}
	// Every answer's task is a document: the table's tasks are exactly the
	// row indices of the documents.
	for _, r := range tab.Rows {
		if _, err := (&docIndex{n: len(docs)}).find(r.Task, r.Line); err != nil {
			t.Fatalf("line %d: task %q: %v", r.Line, r.Task, err)
		}
	}
	if err := (&framework.Corpus{Docs: docs, V: 1 << 30, Answers: a}).Validate(); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestRealMovieReviews(t *testing.T) {
	dir := sharedData(t, "rodrigues_moviereviews_amt")
	docs, v := loadLDAC(t, filepath.Join(dir, "data_train_amt.txt"))
	if len(docs) != 1500 {
		t.Errorf("%d documents, want 1500", len(docs))
	}
	if v != 26730 {
		t.Errorf("V = %d, want 26730 (max id 26729)", v)
	}
	if test, _ := loadLDAC(t, filepath.Join(dir, "data_test.txt")); len(test) != 3506 {
		t.Errorf("%d test documents, want 3506", len(test))
	}
	path := filepath.Join(dir, "answers.txt")
	tab, err := ReadWideAnswers(openFile(t, path), path, "999999999")
	if err != nil {
		t.Fatal(err)
	}
	if *tab.Wide != (WideShape{Rows: 1500, Cols: 135}) {
		t.Errorf("shape %+v, want 1500 x 135", *tab.Wide)
	}
	a := checkRealAnswers(t, tab, docs, 7440, 135)
	minPer, maxPer := len(a.ByDoc[0]), 0
	for _, as := range a.ByDoc {
		minPer, maxPer = min(minPer, len(as)), max(maxPer, len(as))
		for _, x := range as {
			if x.Value < -0.1-1e-9 || x.Value > 1.1+1e-9 {
				t.Fatalf("answer %v outside [-0.1, 1.1]", x.Value)
			}
		}
	}
	if minPer != 4 || maxPer != 5 {
		t.Errorf("answers per document in [%d, %d], want [4, 5]", minPer, maxPer)
	}
	t.Logf("moviereviews: %d docs, V %d, %d answers by %d workers", len(docs), v, a.Count(), len(a.Annotators))

	path = filepath.Join(dir, "labels_train_amt.txt")
	vals, err := ReadColumn(openFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	truth := TruthFromColumn(vals)
	truth.Name = path
	y, has, err := truth.Numeric(docIDsOf(docs))
	if err != nil {
		t.Fatal(err)
	}
	for d := range y {
		if !has[d] {
			t.Fatalf("document %d has no truth", d)
		}
	}
}

func TestRealWe8thereSim(t *testing.T) {
	dir := sharedData(t, "rodrigues_we8there_sim")
	docs, v := loadLDAC(t, filepath.Join(dir, "data_train.txt"))
	if len(docs) != 4624 {
		t.Errorf("%d documents, want 4624", len(docs))
	}
	if v > 2641 {
		t.Errorf("V = %d, want at most 2641 (ids 0..2640)", v)
	}
	tokens := 0.0
	for i := range docs {
		tokens += docs[i].N
	}
	test, _ := loadLDAC(t, filepath.Join(dir, "data_test.txt"))
	if len(test) != 1542 {
		t.Errorf("%d test documents, want 1542", len(test))
	}
	all := tokens
	for i := range test {
		all += test[i].N
	}
	if all != 69592 { // SOURCE.md: the sum of textir's we8thereCounts
		t.Errorf("%v tokens in train and test, want 69592", all)
	}
	path := filepath.Join(dir, "answers.txt")
	// SOURCE.md: 4624 x 5 real-valued answers, none missing.
	tab, err := ReadWideAnswers(openFile(t, path), path, "999999999")
	if err != nil {
		t.Fatal(err)
	}
	if *tab.Wide != (WideShape{Rows: 4624, Cols: 5}) {
		t.Errorf("shape %+v, want 4624 x 5", *tab.Wide)
	}
	a := checkRealAnswers(t, tab, docs, 4624*5, 5)
	t.Logf("we8there: %d docs, V %d, %v tokens, %d answers by %d workers", len(docs), v, tokens, a.Count(), len(a.Annotators))

	path = filepath.Join(dir, "labels_train.txt")
	vals, err := ReadColumn(openFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	truth := TruthFromColumn(vals)
	truth.Name = path
	cls, err := truth.Categorical(docIDsOf(docs), []string{"1", "2", "3", "4", "5"})
	if err != nil {
		t.Fatal(err)
	}
	for d, c := range cls {
		if c < 0 {
			t.Fatalf("document %d has no truth", d)
		}
	}
}

// TestRealReutersAnswers: the Reuters crowd answers use the header
// question,worker,answer (aliases of task,worker,label) for 1,786 documents,
// 38 workers and 8 classes (SOURCE.md).
func TestRealReutersAnswers(t *testing.T) {
	dir := sharedData(t, "evgeneus_reuters_mturk_labels_only")
	path := filepath.Join(dir, "crowd_answers.csv")
	tab, err := ReadAnswers(openFile(t, path), path)
	if err != nil {
		t.Fatal(err)
	}
	tasks, workers, labels := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range tab.Rows {
		tasks[r.Task], workers[r.Worker], labels[r.Label] = true, true, true
	}
	if len(tasks) != 1786 || len(workers) != 38 || len(labels) != 8 {
		t.Errorf("Reuters AMT: %d tasks, %d workers, %d labels; want 1786, 38, 8", len(tasks), len(workers), len(labels))
	}
}
