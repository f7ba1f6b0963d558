package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestTrainWritesModel: `maslda-beam train` on LDA-C documents and an
// answers CSV (MA-sLDAr) writes a model directory that models.Load (so
// `maslda predict`, `eval`, `report`) reads, whose topics and bound are
// those of maslda train's Run.Fit (the gaussian's pilot; with restarts
// = 2 too), bit for bit; a missing flag is a usage error.
func TestTrainWritesModel(t *testing.T) {
	dir := t.TempDir()
	c := valueCorpus(t, 9, synth.LDASpec{D: 120, V: 50, K: 3, DocLen: 30, Alpha: 0.2, TopicConc: 0.1})
	src := "seed = 4\ntopics {\n  k = 3\n}\nresponse \"gaussian\" {}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n  max_iters = 3\n  tol = 0\n}\n"
	writeRun(t, dir, c, src)
	out := filepath.Join(dir, "model")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "--config", filepath.Join(dir, "config.hcl"), "--docs", filepath.Join(dir, "docs.ldac"),
		"--answers", filepath.Join(dir, "answers.csv"), "--out", out, "--work", filepath.Join(dir, "work"), "--shard-size", "16"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	t.Logf("%s", stdout.String())
	saved, err := models.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}

	// The same in process (maslda train's Run.Fit: the gaussian's exact
	// pilot, then the schedule), from the files as the command read them.
	sameAsFit(t, dir, saved)

	// The same documents as a directory of pre-sharded LDA-C files (of
	// 50, 1 and 69 documents, named in order): the same model, file for
	// file.
	shardDir := filepath.Join(dir, "shards")
	if err := os.Mkdir(shardDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, cut := range [][2]int{{0, 50}, {50, 51}, {51, len(c.Docs)}} {
		var b bytes.Buffer
		if err := corpus.WriteLDAC(&b, c.Docs[cut[0]:cut[1]]); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shardDir, fmt.Sprintf("part-%d.ldac", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out2 := filepath.Join(dir, "model2")
	args2 := append([]string(nil), args...)
	args2[4], args2[8], args2[10] = shardDir, out2, filepath.Join(dir, "work2")
	if code := run(context.Background(), args2, &stdout, &stderr); code != 0 {
		t.Fatalf("--docs DIR: exit %d: %s", code, stderr.String())
	}
	for _, name := range []string{"model.json", "topics.bin", "config.hcl"} {
		a, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out2, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between --docs FILE and --docs DIR", name)
		}
	}
	// An ids file of another length is an error naming it.
	if err := os.WriteFile(filepath.Join(dir, "ids.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run(context.Background(), append(args2, "--ids", filepath.Join(dir, "ids.txt")), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "ids.txt") || !strings.Contains(stderr.String(), "2 ids but there are 120 documents") {
		t.Errorf("an ids file of 2 ids: exit %d, %q", code, stderr.String())
	}

	stderr.Reset()
	if code := run(context.Background(), []string{"train", "--docs", "x"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "is required") {
		t.Errorf("without --config: exit %d, %q", code, stderr.String())
	}
	// Restarts written in the file run as in maslda train (two
	// candidates, then the pilot).
	if err := os.WriteFile(filepath.Join(dir, "config.hcl"), []byte("restarts = 2\nrestart_iters = 2\n"+src), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	args3 := append([]string(nil), args...)
	args3[8], args3[10] = filepath.Join(dir, "model3"), filepath.Join(dir, "work3")
	if code := run(context.Background(), args3, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "restart 2, iteration 2:") || !strings.Contains(stdout.String(), "pilot iteration 1:") {
		t.Fatalf("with restarts = 2: exit %d, %q, %q", code, stdout.String(), stderr.String())
	}
	saved3, err := models.Load(filepath.Join(dir, "model3"), nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsFit(t, dir, saved3)
}

// sameAsFit checks that saved (maslda-beam's model) has the topics and
// bound of maslda train's Run.Fit on dir's config.hcl, docs.ldac and
// answers.csv, bit for bit.
// It returns the in-process run and how many of its iterations had
// each Progress.Stage.
func sameAsFit(t *testing.T, dir string, saved *models.Saved) (*models.Run, map[int]int) {
	t.Helper()
	cfg, err := models.LoadConfig(filepath.Join(dir, "config.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := corpus.ReadFiles(filepath.Join(dir, "docs.ldac"), "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(rc.Docs))
	for i := range rc.Docs {
		ids[i] = rc.Docs[i].ID
	}
	if rc.Answers, err = readAnswers(cfg, ids, filepath.Join(dir, "answers.csv")); err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, rc)
	if err != nil {
		t.Fatal(err)
	}
	stages := map[int]int{}
	res, err := r.Fit(context.Background(), func(p framework.Progress) error {
		stages[p.Stage]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if math.Float64bits(res.ELBO) != math.Float64bits(saved.Manifest.ELBO) {
		t.Errorf("bound %v in the saved model, %v in process", saved.Manifest.ELBO, res.ELBO)
	}
	for i, z := range r.Model.Topics.Zeta {
		if math.Float64bits(z) != math.Float64bits(saved.Model.Topics.Zeta[i]) {
			t.Fatalf("ζ[%d] = %v in the saved model, %v in process", i, saved.Model.Topics.Zeta[i], z)
		}
	}
	return r, stages
}

// TestTrainClassesAsFit: `maslda-beam train` on class answers (a CSV of
// labels) with MA-sLDAc's MM step and otherwise the defaults (4 restarts
// of 20 iterations, the confusion annotators' classifier start after 8)
// writes the topics, bound and annotator parameters of maslda train's
// Run.Fit, bit for bit.
func TestTrainClassesAsFit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 80 restart iterations")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(26, 10))
	c, pl, err := synth.LDA(synth.LDASpec{D: 120, V: 50, K: 3, DocLen: 30, Alpha: 0.2, TopicConc: 0.1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(3, 3, 6, rng), rng)
	pis, err := confusion.FromAccuracies([]float64{0.8, 0.6, 0.45}, 3)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(classes, pis, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	c.Answers = &framework.Answers{Annotators: []string{"a0", "a1", "a2"}, Classes: []string{"c0", "c1", "c2"}, ByDoc: byDoc}
	writeRun(t, dir, c, "seed = 3\nconsensus = 1\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {}\ninference \"batch\" {\n  max_iters = 10\n  tol = 0\n}\n")
	out := filepath.Join(dir, "model")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "--config", filepath.Join(dir, "config.hcl"), "--docs", filepath.Join(dir, "docs.ldac"),
		"--answers", filepath.Join(dir, "answers.csv"), "--out", out, "--work", filepath.Join(dir, "work"), "--shard-size", "16"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "restart 4, iteration 20:") {
		t.Errorf("no 4 restarts of 20 iterations in %q", stdout.String())
	}
	saved, err := models.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, stages := sameAsFit(t, dir, saved)
	if stages[2] != 2 {
		t.Errorf("in process: iterations by stage %v, want 2 after the classifier start", stages)
	}
	sameAnnotators(t, want, out)
	t.Logf("in process: iterations by stage %v", stages)
}

// sameAnnotators fails t unless the model directory out holds want's
// annotator parameters, byte for byte.
func sameAnnotators(t *testing.T, want *models.Run, out string) {
	t.Helper()
	var buf bytes.Buffer
	if err := want.Model.Noise.(framework.Persister).SaveParams(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "annotators.params"))
	if err != nil || !bytes.Equal(b, buf.Bytes()) {
		t.Errorf("annotators.params differs from the in-process annotators' parameters (%v)", err)
	}
}

// writeRun writes c's documents (docs.ldac), its answers (answers.csv,
// tasks by document id) and the configuration src (config.hcl) into dir.
func writeRun(t *testing.T, dir string, c *framework.Corpus, src string) {
	t.Helper()
	var docs, ans bytes.Buffer
	if err := corpus.WriteLDAC(&docs, c.Docs); err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(c.Docs))
	for i := range ids {
		ids[i] = c.Docs[i].ID
	}
	if err := corpus.WriteAnswers(&ans, c.Answers, ids); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"docs.ldac": docs.Bytes(), "answers.csv": ans.Bytes(), "config.hcl": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// valueCorpus draws a planted corpus (rand.NewPCG(26, stream)) whose
// targets are 1·z̄_0 + 3·z̄_1 + 5·z̄_2, each answered by 3 of the paper's
// five bias–precision annotators.
func valueCorpus(t *testing.T, stream uint64, spec synth.LDASpec) *framework.Corpus {
	t.Helper()
	rng := rand.New(rand.NewPCG(26, stream))
	c, pl, err := synth.LDA(spec, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(c.Docs))
	for d := range x {
		x[d] = pl.ZBar[d][0] + 3*pl.ZBar[d][1] + 5*pl.ZBar[d][2]
	}
	c.Answers = &framework.Answers{Annotators: []string{"a", "b", "c", "d", "e"}, ByDoc: biasprecision.Sample(x, biasprecision.PaperBias, biasprecision.PaperPrec, 3, rng)}
	return c
}

// TestTrainSecondWarmUp: `maslda-beam train` with constant = "almost" on
// a crowd with one near-constant answerer (a2: class 1 nine times in ten,
// whatever the class) says that the start marked it, trains again from
// the beginning, and writes maslda train's model (Run.Fit's two passes):
// the bound, the topics and the annotators' parameters, bit for bit.
func TestTrainSecondWarmUp(t *testing.T) {
	dir := t.TempDir()
	c, err := synth.NearConstantCrowd(120, true)
	if err != nil {
		t.Fatal(err)
	}
	writeRun(t, dir, c, "seed = 3\nconsensus = 1\nrestarts = 2\nrestart_iters = 2\ntopics {\n  k = 3\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\n"+
		"annotators \"confusion\" {\n  start_iters = 2\n  constant = \"almost\"\n}\ninference \"batch\" {\n  max_iters = 6\n  tol = 0\n}\n")
	out := filepath.Join(dir, "model")
	var stdout, stderr bytes.Buffer
	args := []string{"train", "--config", filepath.Join(dir, "config.hcl"), "--docs", filepath.Join(dir, "docs.ldac"),
		"--answers", filepath.Join(dir, "answers.csv"), "--out", out, "--work", filepath.Join(dir, "work"), "--shard-size", "16"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, s := range []string{"marked 1 near-constant annotators", "iteration 8:", "trained: 8 iterations"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("no %q in %q", s, stdout.String())
		}
	}
	saved, err := models.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sameAsFit(t, dir, saved)
	if m := want.Marks(); len(m) != 4 || m[2] != 1 {
		t.Fatalf("in process: marks %v, want a2's class 1", m)
	}
	sameAnnotators(t, want, out)
}
