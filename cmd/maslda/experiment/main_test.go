package experiment_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/cmd/maslda/cli"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"

	_ "github.com/maslda/maslda/plugins/std" // the standard plug-ins, as cmd/maslda links them
)

// asMain makes the test binary act as maslda: the runner's children are
// this binary with asMain=1 in their environment.
const asMain = "MASLDA_EXPERIMENT_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(asParent) == "1" {
		parentMain()
	}
	os.Exit(m.Run())
}

// childEnv is the environment that turns a child into maslda. A child
// built with -race would sleep a second at exit (the race runtime's
// default atexit_sleep_ms = 1000).
var childEnv = []string{asMain + "=1", "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeCorpus writes a tiny planted classification corpus into dir:
// train.ldac, train.ids, train-truth.csv (60 documents) and test.ldac,
// test.ids, test-truth.csv (30), 3 classes from a planted softmax.
func writeCorpus(t *testing.T, dir string) {
	t.Helper()
	rng := models.NewRand(11)
	c, pl, err := synth.LDA(synth.LDASpec{D: 90, V: 40, K: 3, DocLen: 30, Alpha: 0.2, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(3, 3, 4, rng), rng)
	for _, part := range []struct {
		name     string
		from, to int
	}{{"train", 0, 60}, {"test", 60, 90}} {
		var docs, ids, truth bytes.Buffer
		if err := corpus.WriteLDAC(&docs, c.Docs[part.from:part.to]); err != nil {
			t.Fatal(err)
		}
		truth.WriteString("task,label\n")
		for d := part.from; d < part.to; d++ {
			id := part.name + strconv.Itoa(d)
			ids.WriteString(id + "\n")
			truth.WriteString(id + ",c" + strconv.Itoa(classes[d]) + "\n")
		}
		writeFile(t, filepath.Join(dir, part.name+".ldac"), docs.String())
		writeFile(t, filepath.Join(dir, part.name+".ids"), ids.String())
		writeFile(t, filepath.Join(dir, part.name+"-truth.csv"), truth.String())
	}
}

// tinySpec is a spec over writeCorpus's files with a simulate step.
const tinySpec = `name    = "tiny"
metric  = "classification"
workers = 1
k       = [2, 3]
omega   = [1]
seeds   = [1]

data {
  simulate "answers" {
    args = ["--truth", "${spec_dir}/train-truth.csv", "--accuracies", "0.9,0.7,0.5", "--per-doc", "2",
            "--seed", "1", "--out", "${work}/answers.csv", "--log-level", "warn"]
  }
  train_docs  = "train.ldac"
  train_ids   = "train.ids"
  vocab_size  = 40
  answers     = "${work}/answers.csv"
  train_truth = "train-truth.csv"
  test_docs   = "test.ldac"
  test_ids    = "test.ids"
  test_truth  = "test-truth.csv"
}

model "ma-sldac" {
  config = "c.hcl"
}
`

// cTemplate is a fast MA-sLDAc configuration template.
const cTemplate = `seed = ${seed}
topics {
  k = ${k}
}
response "softmax" {}
annotators "confusion" {
  omega = ${omega}
}
inference "batch" {
  max_iters = 3
}
`

// newTiny writes the corpus, the template and spec (tinySpec plus extra)
// into a temporary directory and returns the spec's path.
func newTiny(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	writeCorpus(t, dir)
	writeFile(t, filepath.Join(dir, "c.hcl"), cTemplate)
	return writeFile(t, filepath.Join(dir, "spec.hcl"), tinySpec+extra)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
