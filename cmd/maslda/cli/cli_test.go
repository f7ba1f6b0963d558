package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/topics"

	_ "github.com/maslda/maslda/optim" // schedules: batch, svi
)

// The test corpus: small enough that a training run takes a fraction of a
// second, even under the race detector.
var testSpec = synth.LDASpec{D: 150, V: 60, K: 3, DocLen: 40, Alpha: 0.1, TopicConc: 0.05, NamedVocab: true}

// batchHCL is a plain-LDA configuration in HCL with multi-line blocks.
const batchHCL = `seed = 3
topics {
  k = 3
  alpha = 0.1
}
inference "batch" {
  max_iters = 30
}
`

// result is what a MainContext call gave.
type result struct {
	code           int
	stdout, stderr string
}

// run calls MainContext with a background context.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runCtx(t, context.Background(), nil, args...)
}

// runCtx calls MainContext; stderr may be nil (a fresh buffer).
func runCtx(t *testing.T, ctx context.Context, stderr interface {
	Write([]byte) (int, error)
	String() string
}, args ...string) result {
	t.Helper()
	var stdout bytes.Buffer
	if stderr == nil {
		stderr = &bytes.Buffer{}
	}
	code := MainContext(ctx, args, &stdout, stderr)
	return result{code, stdout.String(), stderr.String()}
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := run(t, args...)
	if r.code != ExitOK {
		t.Fatalf("maslda %s: exit %d, stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixture is a generated corpus on disk.
type fixture struct {
	dir                  string
	docs, vocab, ids     string // training documents, vocabulary, ids
	test, testIDs        string // held-out documents and their ids
	trainIDs, heldOutIDs []string
}

// newFixture writes testSpec's corpus (seed 7) into a temporary directory:
// the first 130 documents for training, the last 20 held out.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	c, _, err := synth.LDA(testSpec, models.NewRand(7))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := &fixture{dir: dir, docs: filepath.Join(dir, "train.ldac"), vocab: filepath.Join(dir, "vocab.txt"),
		ids: filepath.Join(dir, "train.ids"), test: filepath.Join(dir, "test.ldac"), testIDs: filepath.Join(dir, "test.ids")}
	train, test := c.Docs[:130], c.Docs[130:]
	for i := range train {
		f.trainIDs = append(f.trainIDs, "doc-"+strconv.Itoa(i))
	}
	for i := range test {
		f.heldOutIDs = append(f.heldOutIDs, "new-"+strconv.Itoa(i))
	}
	var b bytes.Buffer
	for _, w := range []struct {
		path  string
		write func() error
	}{
		{f.docs, func() error { return corpus.WriteLDAC(&b, train) }},
		{f.test, func() error { return corpus.WriteLDAC(&b, test) }},
		{f.vocab, func() error { return corpus.WriteVocab(&b, c.Vocab) }},
		{f.ids, func() error { _, err := b.WriteString(strings.Join(f.trainIDs, "\n") + "\n"); return err }},
		{f.testIDs, func() error { _, err := b.WriteString(strings.Join(f.heldOutIDs, "\n") + "\n"); return err }},
	} {
		b.Reset()
		if err := w.write(); err != nil {
			t.Fatal(err)
		}
		writeFile(t, w.path, b.String())
	}
	return f
}

// config writes a configuration file into the fixture's directory.
func (f *fixture) config(t *testing.T, name, src string) string {
	t.Helper()
	return writeFile(t, filepath.Join(f.dir, name), src)
}

// train trains with batchHCL into dir/name and returns the model directory.
func (f *fixture) train(t *testing.T, name string, extra ...string) string {
	t.Helper()
	out := filepath.Join(f.dir, name)
	args := append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--config", f.config(t, "batch.hcl", batchHCL),
		"--out", out, "--log-level", "warn", "--progress", "never"}, extra...)
	mustRun(t, args...)
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, path))).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// dirFiles maps each file name of dir to its content.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, n := range dirNames(t, dir) {
		m[n] = string(readFile(t, filepath.Join(dir, n)))
	}
	return m
}

func readManifest(t *testing.T, dir string) models.Manifest {
	t.Helper()
	var m models.Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "model.json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkHistory checks history.csv: its header, one row per update numbered
// from 1, and (for batch EM) a non-decreasing ELBO. It returns the rows.
func checkHistory(t *testing.T, dir string, updates int, batch bool) [][]string {
	t.Helper()
	recs := readCSV(t, filepath.Join(dir, "history.csv"))
	header := []string{"iteration", "epoch", "rho", "elbo", "seconds"}
	if batch {
		header = append(header, "elbo_full") // batch EM: = elbo on every row
	}
	if diff := cmp.Diff(header, recs[0]); diff != "" {
		t.Fatalf("history.csv header (-want +got):\n%s", diff)
	}
	rows := recs[1:]
	if len(rows) != updates {
		t.Fatalf("history.csv has %d rows, model.json says %d updates", len(rows), updates)
	}
	prev := math.Inf(-1)
	for i, r := range rows {
		if r[0] != strconv.Itoa(i+1) {
			t.Errorf("history.csv row %d: iteration %s, want %d", i+1, r[0], i+1)
		}
		elbo, err := strconv.ParseFloat(r[3], 64)
		if err != nil || math.IsNaN(elbo) || math.IsInf(elbo, 0) {
			t.Fatalf("history.csv row %d: elbo %q", i+1, r[3])
		}
		if batch {
			if r[5] != r[3] {
				t.Errorf("history.csv row %d: elbo_full %s, want elbo %s for batch EM", i+1, r[5], r[3])
			}
			if r[1] != r[0] || r[2] != "1" {
				t.Errorf("history.csv row %d: epoch %s rho %s, want epoch = iteration and rho 1 for batch EM", i+1, r[1], r[2])
			}
			if elbo < prev-1e-9*math.Abs(prev) {
				t.Errorf("history.csv row %d: ELBO decreased from %v to %v", i+1, prev, elbo)
			}
		}
		prev = elbo
	}
	return rows
}

var topicLine = regexp.MustCompile(`^topic (\d+):((?: w\d+ \(\d\.\d{3}\))+)$`)

// checkTopics runs `topics --top n` and checks its K lines.
func checkTopics(t *testing.T, model string, k, n int) string {
	t.Helper()
	r := mustRun(t, "topics", "--model", model, "--top", strconv.Itoa(n))
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != k {
		t.Fatalf("topics printed %d lines, want %d:\n%s", len(lines), k, r.stdout)
	}
	for i, l := range lines {
		m := topicLine.FindStringSubmatch(l)
		if m == nil || m[1] != strconv.Itoa(i) || strings.Count(m[2], "(") != n {
			t.Errorf("topics line %d = %q, want \"topic %d:\" and %d terms w<id> (p)", i+1, l, i, n)
		}
	}
	return r.stdout
}

func TestTrainTopicsPredict(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "model")
	r := mustRun(t, "train", "--docs", f.docs, "--ids", f.ids, "--vocab", f.vocab, "--config", f.config(t, "batch.hcl", batchHCL),
		"--out", out, "--progress", "never")
	if r.stdout != "" {
		t.Errorf("train wrote to stdout: %q", r.stdout)
	}
	for _, want := range []string{"[INFO]  maslda: corpus: docs=130 vocabulary=60", "[INFO]  maslda: trained:", "[INFO]  maslda: saved:"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("train's log lacks %q:\n%s", want, r.stderr)
		}
	}
	if diff := cmp.Diff([]string{"config.hcl", "history.csv", "model.json", "topics.bin", "vocab.txt"}, dirNames(t, out)); diff != "" {
		t.Errorf("model directory (-want +got):\n%s", diff)
	}
	if got := string(readFile(t, filepath.Join(out, "config.hcl"))); got != batchHCL {
		t.Errorf("config.hcl = %q, want the configuration file as given", got)
	}
	if got, want := string(readFile(t, filepath.Join(out, "vocab.txt"))), string(readFile(t, f.vocab)); got != want {
		t.Errorf("vocab.txt differs from --vocab")
	}
	man := readManifest(t, out)
	alpha := topics.Defaults().Alpha // θ's prior as trained (batchHCL leaves it at the default)
	wantMan := models.Manifest{Format: models.Format, Version: models.FormatVersion, K: 3, V: 60, TrainDocs: 130,
		Config: "config.hcl", Inference: "batch", Vocab: true, Alpha: &alpha}
	if diff := cmp.Diff(wantMan, man, cmp.FilterPath(func(p cmp.Path) bool {
		n := p.Last().String()
		return n == ".Iters" || n == ".ELBO" || n == ".Files"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("model.json (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"config.hcl", "history.csv", "topics.bin", "vocab.txt"}, slices.Sorted(maps.Keys(man.Files))); diff != "" {
		t.Errorf("model.json's files (-want +got):\n%s", diff)
	}
	if man.Iters < 2 || man.Iters > 30 {
		t.Errorf("model.json: %d iterations, want 2..30", man.Iters)
	}
	rows := checkHistory(t, out, man.Iters, true)
	if last, _ := strconv.ParseFloat(rows[len(rows)-1][3], 64); math.Abs(last-man.ELBO) > 1e-9*math.Abs(last) {
		t.Errorf("model.json ELBO %v, history's last %v", man.ELBO, last)
	}

	checkTopics(t, out, 3, 3)

	for _, tc := range []struct {
		name     string
		docs     string
		extra    []string
		wantTask []string
	}{
		{"held out with ids", f.test, []string{"--ids", f.testIDs}, f.heldOutIDs},
		{"held out without ids", f.test, nil, []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19"}},
		{"training docs, vocab, 1 worker", f.docs, []string{"--ids", f.ids, "--vocab", f.vocab, "--workers", "1"}, f.trainIDs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pred := filepath.Join(t.TempDir(), "sub", "pred.csv")
			r := mustRun(t, append([]string{"predict", "--model", out, "--docs", tc.docs, "--out", pred}, tc.extra...)...)
			if r.stdout != "" {
				t.Errorf("predict wrote to stdout: %q", r.stdout)
			}
			recs := readCSV(t, pred)
			if diff := cmp.Diff([]string{"task", "theta:0", "theta:1", "theta:2"}, recs[0]); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			var tasks []string
			for _, rec := range recs[1:] {
				tasks = append(tasks, rec[0])
				sum := 0.0
				for _, s := range rec[1:] {
					x, err := strconv.ParseFloat(s, 64)
					if err != nil || !(x >= 0 && x <= 1) {
						t.Fatalf("row %v: theta %q is not a probability", rec, s)
					}
					sum += x
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Errorf("row %v: theta sums to %v", rec, sum)
				}
			}
			if diff := cmp.Diff(tc.wantTask, tasks); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
		})
	}
}

// Without --strict, predict drops word ids the model never saw (with a
// warning); --vocab-size at training time makes room for them.
func TestPredictUnknownWords(t *testing.T) {
	f := newFixture(t)
	docs := writeFile(t, filepath.Join(f.dir, "big.ldac"), "2 0:1 5:2\n3 0:1 5:2 99:4\n1 99:3\n")
	for _, tc := range []struct {
		name      string
		trainArgs []string
		wantWarn  string
		wantV     int
	}{
		{"dropped", []string{"--vocab", f.vocab}, "[WARN]  maslda: dropped words outside the model's vocabulary: ids_from=60 distinct_ids=1 tokens=7", 60},
		{"--vocab-size covers them", []string{"--vocab-size", "100"}, "", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(t.TempDir(), "model")
			mustRun(t, append([]string{"train", "--docs", f.docs, "--config", f.config(t, "batch.hcl", batchHCL), "--out", model, "--log-level", "off"}, tc.trainArgs...)...)
			if v := readManifest(t, model).V; v != tc.wantV {
				t.Errorf("model.json: v = %d, want %d", v, tc.wantV)
			}
			pred := filepath.Join(t.TempDir(), "pred.csv")
			r := mustRun(t, "predict", "--model", model, "--docs", docs, "--out", pred, "--log-level", "warn")
			if got := strings.TrimSuffix(r.stderr, "\n"); !strings.HasSuffix(got, tc.wantWarn) || (tc.wantWarn == "") != (got == "") {
				t.Errorf("stderr = %q, want %q", got, tc.wantWarn)
			}
			recs := readCSV(t, pred)
			if len(recs) != 4 {
				t.Fatalf("%d records, want a header and 3 rows", len(recs))
			}
			for _, rec := range recs[1:] {
				sum := 0.0
				for _, s := range rec[1:] {
					x, _ := strconv.ParseFloat(s, 64)
					sum += x
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Errorf("row %v: theta sums to %v", rec, sum)
				}
			}
		})
	}
}

func TestTrainJSONConfigRestarts(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, "lda.json", `{
  "seed": 4,
  "restarts": 2,
  "restart_iters": 2,
  "topics": {"k": 3, "alpha": 0.1},
  "inference": {"batch": {"max_iters": 20}}
}
`)
	out := filepath.Join(f.dir, "model")
	r := mustRun(t, "train", "--docs", f.docs, "--config", cfg, "--out", out, "--progress", "never")
	if !strings.Contains(r.stderr, "restart candidate") {
		t.Errorf("no restart candidates logged:\n%s", r.stderr)
	}
	if diff := cmp.Diff([]string{"config.json", "history.csv", "model.json", "topics.bin"}, dirNames(t, out)); diff != "" {
		t.Errorf("model directory (-want +got):\n%s", diff)
	}
	man := readManifest(t, out)
	if man.Config != "config.json" || man.K != 3 || man.Vocab {
		t.Errorf("model.json: config %q k %d vocab %v, want config.json, 3, false", man.Config, man.K, man.Vocab)
	}
	// The restart phase is not in the history: it starts at iteration 1.
	checkHistory(t, out, man.Iters, true)
	// Without a vocabulary the topics show word ids.
	r = mustRun(t, "topics", "--model", out, "--top", "2")
	if ok, _ := regexp.MatchString(`^(topic \d: \d+ \(\d\.\d{3}\) \d+ \(\d\.\d{3}\)\n){3}$`, r.stdout); !ok {
		t.Errorf("topics without a vocabulary:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "the model has no vocabulary: words are shown by id; train with --vocab FILE") {
		t.Errorf("topics without a vocabulary gives no hint:\n%s", r.stderr)
	}
}

func TestTrainSVI(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, "svi.hcl", `topics {
  k = 3
}
inference "svi" {
  batch_size = 50
  epochs = 3
  tol = 0
}
`)
	out := filepath.Join(f.dir, "model")
	mustRun(t, "train", "--docs", f.docs, "--config", cfg, "--out", out, "--log-level", "warn")
	man := readManifest(t, out)
	if man.Inference != "svi" || man.Iters != 9 { // 3 epochs of ⌈130/50⌉ = 3 updates
		t.Fatalf("model.json: inference %q, %d updates; want svi, 9", man.Inference, man.Iters)
	}
	rows := checkHistory(t, out, man.Iters, false)
	prevRho := 2.0
	for i, r := range rows {
		if want := strconv.Itoa(i/3 + 1); r[1] != want {
			t.Errorf("row %d: epoch %s, want %s", i+1, r[1], want)
		}
		rho, _ := strconv.ParseFloat(r[2], 64)
		if !(rho > 0 && rho < prevRho) {
			t.Errorf("row %d: rho %v, want decreasing in (0, 1)", i+1, rho)
		}
		prevRho = rho
	}
}

func TestTrainDeterministic(t *testing.T) {
	f := newFixture(t)
	topicsBin := func(name string, extra ...string) []byte {
		return readFile(t, filepath.Join(f.train(t, name, extra...), "topics.bin"))
	}
	for _, tc := range []struct {
		name       string
		a, b       []string
		wantSameAs bool
	}{
		{"same seed twice", []string{"--seed", "5"}, []string{"--seed", "5"}, true},
		{"workers 1 vs 2", []string{"--workers", "1"}, []string{"--workers", "2"}, true},
		{"workers 1 vs all cores", []string{"--workers", "1", "--seed", "6"}, []string{"--workers", "0", "--seed", "6"}, true},
		{"different seeds", []string{"--seed", "5"}, []string{"--seed", "6"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := topicsBin("a", tc.a...), topicsBin("b", tc.b...)
			if same := bytes.Equal(a, b); same != tc.wantSameAs {
				t.Errorf("topics.bin identical = %v, want %v", same, tc.wantSameAs)
			}
		})
	}
}

// TestErrors checks the exit status and message of bad command lines and
// bad inputs. A bad input (exit 1) gives exactly one line on stderr, which
// names the file and line when the problem has one.
func TestErrors(t *testing.T) {
	f := newFixture(t)
	model := f.train(t, "model")
	d := f.dir
	w := func(name, content string) string { return writeFile(t, filepath.Join(d, name), content) }
	out := filepath.Join(d, "out")
	pred := filepath.Join(d, "pred.csv")
	notModel := filepath.Join(d, "notmodel")
	if err := os.Mkdir(notModel, 0o755); err != nil {
		t.Fatal(err)
	}
	quiet := []string{"--log-level", "warn"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // regexp that stderr's last line must match
	}{
		{"malformed LDA-C line", []string{"train", "--docs", w("bad.ldac", "1 0:1\n1 2:1\n2 1:1\n"), "--out", out},
			ExitError, `^maslda train: .*bad\.ldac:3: M = 2 but the line has 1 id:count pairs`},
		{"malformed pair", []string{"train", "--docs", w("pair.ldac", "1 0:1\n1 3:\n"), "--out", out},
			ExitError, `pair\.ldac:2: malformed pair "3:"`},
		{"word id beyond --vocab", []string{"train", "--docs", w("oov.ldac", "1 0:1\n1 60:1\n"), "--vocab", f.vocab, "--out", out},
			ExitError, `oov\.ldac:2: word id 60 is out of vocabulary`},
		{"ids count", []string{"train", "--docs", f.docs, "--ids", f.testIDs, "--out", out},
			ExitError, `test\.ids`},
		{"missing docs file", []string{"train", "--docs", filepath.Join(d, "nope.ldac"), "--out", out},
			ExitError, `nope\.ldac: no such file or directory`},
		{"unknown config key", []string{"train", "--docs", f.docs, "--out", out, "--config", w("key.hcl", "seed = 1\nbogus = 2\n")},
			ExitError, `key\.hcl:2,.*"bogus".*Valid: annotators \{\}, consensus, inference \{\}, model, response \{\}, restart_iters, restarts, seed, select \{\}, selected, topics \{\}, workers\.$`},
		// The command line builds the response itself (answers alone, the
		// kind of answers) before Build: its errors too name the block.
		{"out-of-range response parameter", []string{"train", "--answers", w("few.csv", "task,worker,label\nt1,a,x\nt2,a,y\n"), "--out", out, "--config", w("weight.hcl", "seed = 1\nresponse \"softmax\" {\n  l2 = -1\n}\n")},
			ExitError, `^maslda train: .*weight\.hcl:2: .*l2 = -1`},
		{"unknown key in topics block", []string{"train", "--docs", f.docs, "--out", out, "--config", w("tkey.hcl", "topics {\n  k = 3\n  beta = 1\n}\n")},
			ExitError, `tkey\.hcl:3,.*"beta".*Valid: .*alpha, .*k, .*tau`},
		{"unknown key in inference block", []string{"train", "--docs", f.docs, "--out", out, "--config", w("ikey.hcl", "inference \"batch\" {\n  epochs = 3\n}\n")},
			ExitError, `ikey\.hcl:2,.*"epochs".*Valid: max_iters, min_iters, tol`},
		{"unknown JSON config key", []string{"train", "--docs", f.docs, "--out", out, "--config", w("key.json", "{\n  \"sead\": 1\n}\n")},
			ExitError, `key\.json:2,.*"sead".*Valid: .*seed`},
		{"two arguments in a one-line block", []string{"train", "--docs", f.docs, "--out", out, "--config", w("one.hcl", "seed = 1\ntopics { k = 3  alpha = 0.1 }\n")},
			ExitError, `one\.hcl:2,`},
		{"bad setting", []string{"train", "--docs", f.docs, "--out", out, "--config", w("iters.hcl", "inference \"batch\" {\n  max_iters = 0\n}\n")},
			ExitError, `max_iters = 0, want ≥ 1`},
		{"unknown inference", []string{"train", "--docs", f.docs, "--out", out, "--config", w("inf.hcl", "seed = 1\n\ninference \"gibbs\" {\n}\n")},
			ExitError, `^maslda train: .*inf\.hcl:3: unknown component: inference "gibbs"; registered: batch, svi, two-stage$`},
		{"unknown inference (JSON)", []string{"train", "--docs", f.docs, "--out", out, "--config", w("inf.json", "{\n  \"inference\": {\n    \"gibbs\": {}\n  }\n}\n")},
			ExitError, `inf\.json:3: unknown component: inference "gibbs"; registered: batch, svi, two-stage$`},
		{"unknown response", []string{"train", "--docs", f.docs, "--out", out, "--config", w("resp.hcl", "response \"nonesuch\" {\n}\n")},
			ExitError, `resp\.hcl:1: unknown component: response "nonesuch"; registered: `},
		{"malformed answers CSV", []string{"train", "--docs", f.docs, "--out", out, "--answers", w("ans.csv", "task,worker\n0,a\n")},
			ExitError, `ans\.csv:1: .*missing label`},
		{"duplicate answer", []string{"train", "--docs", f.docs, "--out", out, "--duplicates", "error", "--answers", w("dup.csv", "task,worker,label\n0,a,1\n0,a,2\n")},
			ExitError, `dup\.csv:3: duplicate answer`},
		{"bad --duplicates", []string{"train", "--docs", f.docs, "--out", out, "--duplicates", "all", "--answers", w("dup.csv", "task,worker,label\n0,a,1\n0,a,2\n")},
			ExitUsage, `--duplicates "all"; valid: keep, first, last, error`},
		{"--out is a file", []string{"train", "--docs", f.docs, "--out", f.vocab},
			ExitError, `vocab\.txt exists and is not a directory`},

		{"predict --strict, word id beyond the model's vocabulary", []string{"predict", "--strict", "--model", model, "--docs", w("big.ldac", "2 0:1 5:2\n3 0:1 5:2 99:1\n"), "--out", pred},
			ExitError, `big\.ldac uses word id 99 but the model's vocabulary has 60 words`},
		{"predict word id beyond --vocab", []string{"predict", "--model", model, "--vocab", f.vocab, "--docs", filepath.Join(d, "big.ldac"), "--out", pred},
			ExitError, `big\.ldac:2: word id 99 is out of vocabulary`},
		{"predict with another vocabulary, strict", []string{"predict", "--strict", "--model", model, "--vocab", w("v3.txt", "a\nb\nc\n"), "--docs", w("small.ldac", "1 0:1\n"), "--out", pred},
			ExitError, `small\.ldac: 1 terms \(1 tokens\) of --vocab .*v3\.txt are not in the model's vocabulary`},
		{"predict on a directory that is not a model", []string{"predict", "--model", notModel, "--docs", f.test, "--out", pred},
			ExitError, `is not a trained model \(no model\.json\)`},
		{"topics on a directory that is not a model", []string{"topics", "--model", d},
			ExitError, `is not a trained model \(no model\.json\)`},

		{"--vocab-size below the largest id", []string{"train", "--docs", f.docs, "--vocab-size", "40", "--out", out},
			ExitError, `--vocab-size 40 but .*train\.ldac uses word id 5\d$`},

		{"--vocab-size with --vocab", []string{"train", "--docs", f.docs, "--vocab", f.vocab, "--vocab-size", "70", "--out", out}, ExitUsage, `cannot be combined with --vocab`},
		{"missing --docs", []string{"train", "--out", out}, ExitUsage, `^maslda train: missing --docs$`},
		{"missing --docs and --out", []string{"train"}, ExitUsage, `^maslda train: missing --docs, --out$`},
		{"predict missing flags", []string{"predict"}, ExitUsage, `missing --docs, --model, --out$`},
		{"unknown flag", []string{"train", "--docs", f.docs, "--out", out, "--frobnicate"}, ExitUsage, `^maslda train: unknown flag --frobnicate; 'maslda train --help' lists the flags$`},
		{"mistyped flag", []string{"train", "--docs", f.docs, "--out", out, "--anwsers", "a.csv"}, ExitUsage, `^maslda train: unknown flag --anwsers \(did you mean --answers\?\); 'maslda train --help' lists the flags$`},
		{"extra argument", []string{"topics", "--model", model, "extra"}, ExitUsage, `unexpected argument "extra"`},
		{"unknown command", []string{"trian"}, ExitUsage, `^maslda: unknown command "trian" \(did you mean train\?\); 'maslda help' lists the commands$`},
		{"--log-level nonsense", []string{"train", "--docs", f.docs, "--out", out, "--log-level", "nonsense"}, ExitUsage, `--log-level "nonsense"; valid: trace, debug, info, warn, error, off$`},
		{"--progress nonsense", []string{"train", "--docs", f.docs, "--out", out, "--progress", "sometimes"}, ExitUsage, `--progress "sometimes"; valid: auto, always, never$`},
		{"both answer flags", []string{"train", "--docs", f.docs, "--out", out, "--answers", "a.csv", "--answers-wide", "a.txt"}, ExitUsage, `--answers or --answers-wide, not both`},
		{"--top 0", []string{"topics", "--model", model, "--top", "0"}, ExitUsage, `--top 0`},
		{"demo --inference", []string{"demo", "--inference", "gibbs"}, ExitUsage, `--inference "gibbs"; valid: batch, svi$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.code == ExitError {
				args = append(slices.Clone(args), quiet...)
			}
			r := run(t, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tc.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			stderr := strings.TrimSuffix(r.stderr, "\n")
			lines := strings.Split(stderr, "\n")
			if tc.code == ExitError && len(lines) != 1 {
				t.Errorf("stderr has %d lines, want one:\n%s", len(lines), r.stderr)
			}
			if last := lines[len(lines)-1]; !regexp.MustCompile(tc.want).MatchString(last) {
				t.Errorf("stderr's last line:\n  %s\nwant a match for\n  %s", last, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed run created %s", out)
			}
			if _, err := os.Stat(pred); err == nil {
				t.Errorf("a failed run created %s", pred)
			}
		})
	}
	// The model used by the cases is unharmed.
	checkTopics(t, model, 3, 3)
}

func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{{nil, ExitUsage}, {[]string{"help"}, ExitOK}, {[]string{"--help"}, ExitOK}, {[]string{"-h"}, ExitOK}} {
		r := run(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout, "Crowd and topic models:") || !strings.Contains(r.stdout, "  components  list the registered plug-ins") {
			t.Errorf("maslda %v: exit %d (want %d), stdout:\n%s", tc.args, r.code, tc.code, r.stdout)
		}
	}
	// A command's -h, --help and `maslda help CMD` print its flags to
	// stdout and exit 0.
	for _, args := range [][]string{{"train", "-h"}, {"train", "--help"}, {"help", "train"}, {"train", "-help"}} {
		r := run(t, args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "maslda train (--docs FILE | --corpus DIR) --out DIR") || !strings.Contains(r.stdout, "--vocab string") || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestAnswersWithoutResponse(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		// Tasks that are not documents would be an error with a response
		// block; without one the answers are not even resolved.
		{"CSV for unknown documents", []string{"--answers", writeFile(t, filepath.Join(f.dir, "ans.csv"), "task,worker,label\nnope,w1,1\nnada,w2,0\n")}},
		{"wide matrix", []string{"--answers-wide", writeFile(t, filepath.Join(f.dir, "wide.txt"), "1 0\n0 999999999\n")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "model")
			r := mustRun(t, append([]string{"train", "--docs", f.docs, "--out", out, "--config", f.config(t, "batch.hcl", batchHCL),
				"--log-level", "warn"}, tc.args...)...)
			want := "[WARN]  maslda: answers given but the configuration has no response block: training plain LDA and ignoring them"
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks the warning:\n%s", r.stderr)
			}
			if man := readManifest(t, out); man.Response != "" || man.AnnotatorNames != nil || man.Classes != nil {
				t.Errorf("model.json: %+v, want plain LDA", man)
			}
		})
	}
}

// cancelOn is a stderr that cancels a context when a line containing match
// is written to it.
type cancelOn struct {
	mu     sync.Mutex
	b      bytes.Buffer
	match  string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte(c.match)) {
		c.cancel()
	}
	return c.b.Write(p)
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

func TestInterrupt(t *testing.T) {
	f := newFixture(t)
	// Without an interruption this would run for minutes.
	endless := f.config(t, "endless.hcl", "topics {\n  k = 3\n}\ninference \"batch\" {\n  max_iters = 1000000\n  tol = 0\n}\n")
	for _, tc := range []struct {
		name  string
		start func(ctx context.Context, cancel context.CancelFunc, args []string) result
	}{
		{"already cancelled", func(ctx context.Context, cancel context.CancelFunc, args []string) result {
			cancel()
			return runCtx(t, ctx, nil, args...)
		}},
		{"cancelled after the first update", func(ctx context.Context, cancel context.CancelFunc, args []string) result {
			return runCtx(t, ctx, &cancelOn{match: "maslda: update:", cancel: cancel}, append(args, "--log-level", "debug")...)
		}},
		{"cancelled during a restart", func(ctx context.Context, cancel context.CancelFunc, args []string) result {
			cfg := f.config(t, "restarts.hcl", "restarts = 3\ntopics {\n  k = 3\n}\n")
			args = append(args, "--config", cfg, "--log-level", "debug")
			return runCtx(t, ctx, &cancelOn{match: "maslda: restart:", cancel: cancel}, args...)
		}},
		{"cancelled with a progress bar", func(ctx context.Context, cancel context.CancelFunc, args []string) result {
			return runCtx(t, ctx, &cancelOn{match: "maslda: update:", cancel: cancel}, append(args, "--log-level", "debug", "--progress", "always")...)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "model")
			mustRun(t, "train", "--docs", f.docs, "--vocab", f.vocab, "--config", f.config(t, "batch.hcl", batchHCL), "--out", out, "--log-level", "off")
			before := dirFiles(t, out)
			topicsBefore := checkTopics(t, out, 3, 4)

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// The last --config wins: the restart case overrides endless.
			r := tc.start(ctx, cancel, []string{"train", "--docs", f.docs, "--config", endless, "--out", out, "--seed", "99", "--progress", "never"})
			if r.code != ExitInterrupted {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitInterrupted, r.stderr)
			}
			want := "maslda train: interrupted; no output was written (any previous output is intact)\n"
			if !strings.HasSuffix(r.stderr, want) {
				t.Errorf("stderr does not end with %q:\n%s", want, r.stderr)
			}
			if diff := cmp.Diff(before, dirFiles(t, out)); diff != "" {
				t.Errorf("the previous model changed (-before +after):\n%s", diff)
			}
			if got := checkTopics(t, out, 3, 4); got != topicsBefore {
				t.Errorf("topics changed:\n%s\nwant\n%s", got, topicsBefore)
			}
			if diff := cmp.Diff([]string{"model"}, dirNames(t, parent)); diff != "" {
				t.Errorf("left in the parent directory (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("predict", func(t *testing.T) {
		model := f.train(t, "model")
		pred := filepath.Join(t.TempDir(), "pred.csv")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := runCtx(t, ctx, nil, "predict", "--model", model, "--docs", f.test, "--out", pred)
		if r.code != ExitInterrupted || !strings.Contains(r.stderr, "maslda predict: interrupted") {
			t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if names := dirNames(t, filepath.Dir(pred)); len(names) != 0 {
			t.Errorf("an interrupted predict left %v", names)
		}
	})
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	header := []string{"task", "worker", "label"}
	for _, tc := range []struct {
		name    string
		wide    string
		missing []string // --missing flag, if any
		want    [][]string
	}{
		{"default sentinel", "0 1 999999999\n2 999999999 1\n999999999 999999999 3\n", nil,
			[][]string{header, {"0", "a0", "0"}, {"0", "a1", "1"}, {"1", "a0", "2"}, {"1", "a2", "1"}, {"2", "a2", "3"}}},
		{"sentinel as a float", "0\t999999999.0\n1.5\t2\n", nil,
			[][]string{header, {"0", "a0", "0"}, {"1", "a0", "1.5"}, {"1", "a1", "2"}}},
		{"sentinel -1, CRLF", "-1 4\r\n3 -1\r\n", []string{"--missing", "-1"},
			[][]string{header, {"0", "a1", "4"}, {"1", "a0", "3"}}},
		{"no answers at all", "-1 -1\n", []string{"--missing", "-1"}, [][]string{header}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeFile(t, filepath.Join(dir, "wide.txt"), tc.wide)
			out := filepath.Join(dir, "answers.csv")
			r := mustRun(t, append([]string{"import", "--wide", in, "--out", out}, tc.missing...)...)
			if r.stdout != "" {
				t.Errorf("import wrote to stdout: %q", r.stdout)
			}
			if diff := cmp.Diff(tc.want, readCSV(t, out)); diff != "" {
				t.Errorf("answers CSV (-want +got):\n%s", diff)
			}
		})
	}
	for _, tc := range []struct {
		name, wide, want string
	}{
		{"ragged", "0 1 2\n1 2 3\n1 2\n", `wide.txt:3: row has 2 columns but line 1 has 3`},
		{"blank line", "0 1\n\n1 2\n", `wide.txt:2: `},
		{"NaN label", "0 NaN\n", `wide.txt:1: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := writeFile(t, filepath.Join(dir, "wide.txt"), tc.wide)
			out := filepath.Join(dir, "bad.csv")
			r := run(t, "import", "--wide", in, "--out", out)
			if r.code != ExitError || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line with %q", r.code, r.stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a failed import wrote %s", out)
			}
		})
	}
}

// The imported answers are read back by train.
func TestImportThenTrain(t *testing.T) {
	f := newFixture(t)
	rows := make([]string, 130)
	for i := range rows {
		rows[i] = strconv.Itoa(i%2) + " 999999999 " + strconv.Itoa((i+1)%2)
	}
	wide := writeFile(t, filepath.Join(f.dir, "wide.txt"), strings.Join(rows, "\n")+"\n")
	ans := filepath.Join(f.dir, "answers.csv")
	mustRun(t, "import", "--wide", wide, "--out", ans, "--log-level", "off")
	r := mustRun(t, "train", "--docs", f.docs, "--answers", ans, "--config", f.config(t, "batch.hcl", batchHCL),
		"--out", filepath.Join(f.dir, "model"), "--log-level", "warn")
	if !strings.Contains(r.stderr, "no response block") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
}

func TestProgressAlways(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"batch", []string{"--config", f.config(t, "batch.hcl", batchHCL)}},
		{"svi", []string{"--config", f.config(t, "svi.hcl", "topics {\n  k = 3\n}\ninference \"svi\" {\n  batch_size = 40\n  epochs = 2\n}\n")}},
		{"debug log", []string{"--config", f.config(t, "batch.hcl", batchHCL), "--log-level", "debug"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "model")
			r := mustRun(t, append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--out", out, "--progress", "always"}, tc.args...)...)
			if r.stdout != "" {
				t.Errorf("train --progress always wrote to stdout: %q", r.stdout)
			}
			if !strings.Contains(r.stderr, "ELBO") {
				t.Errorf("no progress bar on stderr:\n%q", r.stderr)
			}
			checkTopics(t, out, 3, 1)
		})
	}
}

// Without a bar (stderr is not a terminal) updates are logged at most once
// a second at info (the first always), and every one at debug.
func TestProgressLogging(t *testing.T) {
	f := newFixture(t)
	cfg := f.config(t, "fixed.hcl", "topics {\n  k = 3\n}\ninference \"batch\" {\n  max_iters = 6\n  tol = 0\n}\n")
	for _, tc := range []struct {
		level    string
		min, max int
		gap      time.Duration // least time between two logged updates
	}{{"info", 1, 6, time.Second - time.Millisecond}, {"debug", 6, 6, 0}, {"warn", 0, 0, 0}} {
		t.Run(tc.level, func(t *testing.T) {
			r := mustRun(t, "train", "--docs", f.docs, "--config", cfg, "--out", filepath.Join(t.TempDir(), "m"), "--log-level", tc.level)
			var stamps []time.Time
			for _, l := range strings.Split(r.stderr, "\n") {
				if !strings.Contains(l, "maslda: update:") {
					continue
				}
				ts, err := time.Parse("2006-01-02T15:04:05.000Z0700", strings.Fields(l)[0])
				if err != nil {
					t.Fatalf("update line %q: %v", l, err)
				}
				stamps = append(stamps, ts)
			}
			if n := len(stamps); n < tc.min || n > tc.max {
				t.Errorf("%d update lines at %s, want %d..%d:\n%s", n, tc.level, tc.min, tc.max, r.stderr)
			}
			for i := 1; i < len(stamps); i++ {
				if gap := stamps[i].Sub(stamps[i-1]); gap < tc.gap {
					t.Errorf("updates logged %v apart at %s, want ≥ %v:\n%s", gap, tc.level, tc.gap, r.stderr)
				}
			}
		})
	}
}

var demoTV = regexp.MustCompile(`(?m)^Mean TV (\d\.\d{3}), worst (\d\.\d{3})\. A random pair of planted topics is at TV (\d\.\d{3})\.$`)

// TestDemo runs the demo (a few seconds; minutes under the race detector,
// hence skipped with -short and under -race; CI runs it without either).
func TestDemo(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	if testing.Short() {
		t.Skip("the demo takes seconds; run without -short")
	}
	if raceEnabled {
		t.Skip("the demo takes minutes under the race detector; run without -race")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	r := mustRun(t, "demo", "--case", "lda", "--log-level", "warn", "--progress", "never", "--out", dir)
	m := demoTV.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no Mean TV line in:\n%s", r.stdout)
	}
	mean, _ := strconv.ParseFloat(m[1], 64)
	worst, _ := strconv.ParseFloat(m[2], 64)
	random, _ := strconv.ParseFloat(m[3], 64)
	if !(worst < 0.15) || mean > worst || !(random > 0.5) {
		t.Errorf("mean TV %v, worst %v (want < 0.15), random pair %v:\n%s", mean, worst, random, r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("stderr at warn: %q", r.stderr)
	}
	checkTopics(t, filepath.Join(dir, "model"), 10, 5)
	if diff := cmp.Diff([]string{"train.ldac", "vocab.txt"}, dirNames(t, filepath.Join(dir, "corpus"))); diff != "" {
		t.Errorf("demo corpus (-want +got):\n%s", diff)
	}
	if err := models.CheckOutDir(dir, isDemoDir); err != nil {
		t.Errorf("a second demo --out %s would be refused: %v", dir, err)
	}
}

var demoCrowdLine = regexp.MustCompile(`majority vote ([0-9.]+)\s+MA-sLDAc ([0-9.]+)`)

// TestDemoCrowd: the default demo (MA-sLDAc, one answer per document) must
// show the inferred truth well above majority vote.
func TestDemoCrowd(t *testing.T) {
	t.Parallel() // long: overlaps the other long tests (the README's go test ./... under 2 minutes)
	if testing.Short() || raceEnabled {
		t.Skip("the crowd demo takes tens of seconds (minutes under -race)")
	}
	dir := filepath.Join(t.TempDir(), "demo")
	r := mustRun(t, "demo", "--log-level", "warn", "--progress", "never", "--out", dir)
	m := demoCrowdLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no majority-vote line in:\n%s", r.stdout)
	}
	mv, _ := strconv.ParseFloat(m[1], 64)
	ma, _ := strconv.ParseFloat(m[2], 64)
	if !(ma > mv+0.2) {
		t.Errorf("MA-sLDAc truth %.3f does not beat majority vote %.3f by 0.2:\n%s", ma, mv, r.stdout)
	}
	if diff := cmp.Diff([]string{"answers.csv", "train.ldac", "truth.csv", "vocab.txt"}, dirNames(t, filepath.Join(dir, "corpus"))); diff != "" {
		t.Errorf("demo corpus (-want +got):\n%s", diff)
	}
	// The planted classes of the answered documents, keyed as the answers.
	truth := readCSV(t, filepath.Join(dir, "corpus", "truth.csv"))
	if len(truth) != 1001 || truth[1][0] != "0" || !regexp.MustCompile(`^c[0-3]$`).MatchString(truth[1][1]) {
		t.Errorf("truth.csv: %d rows, first %v", len(truth), truth[1])
	}
}
