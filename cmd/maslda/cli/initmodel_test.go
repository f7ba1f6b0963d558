package cli

import (
	"github.com/google/go-cmp/cmp"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTrainInitModel: `train --init-model DIR` continues from a trained
// model under another schedule (batch → SVI); its first bound is near the
// saved model's and far above a cold start's, and a model that does not
// fit the run is refused with what differs.
func TestTrainInitModel(t *testing.T) {
	f := newFixture(t)
	_, answers := f.crowd(t)
	const maslda = "topics {\n  k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n"
	batch := f.config(t, "batch.hcl", maslda+"inference \"batch\" {\n  max_iters = 15\n  tol = 0\n}\n")
	svi := f.config(t, "svi.hcl", maslda+"inference \"svi\" {\n  batch_size = 130\n  epochs = 2\n  kappa = 0\n  tol = 0\n}\n")
	train := func(cfg, out string, extra ...string) result {
		return run(t, append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--ids", f.ids, "--answers", answers,
			"--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)...)
	}
	firstELBO := func(out string) float64 {
		return parseF(t, readCSV(t, filepath.Join(f.dir, out, "history.csv"))[1][3])
	}
	if r := train(batch, "batch"); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	saved := readManifest(t, filepath.Join(f.dir, "batch")).ELBO
	if r := train(svi, "cold"); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	if r := train(svi, "warm", "--init-model", filepath.Join(f.dir, "batch")); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	cold, warm := firstELBO("cold"), firstELBO("warm")
	t.Logf("saved %.2f, first SVI update: warm %.2f, cold %.2f", saved, warm, cold)
	if warm < saved-0.01*-saved || warm <= cold {
		t.Errorf("first ELBO after the warm start %.2f: want within 1%% of the saved model's %.2f and above the cold start's %.2f", warm, saved, cold)
	}
	k4 := f.config(t, "k4.hcl", strings.Replace(maslda, "k = 3", "k = 4", 1))
	r := train(k4, "bad", "--init-model", filepath.Join(f.dir, "batch"))
	if r.code != ExitError || !strings.Contains(r.stderr, "the saved model has k = 3, this run 4") {
		t.Errorf("exit %d, stderr:\n%s\nwant an error naming k", r.code, r.stderr)
	}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// crowd writes a truth for the fixture's training documents (classes x, y,
// z in turn) and simulated answers of three annotators (accuracies 0.9,
// 0.6, 0.4; two answers per document); it returns both paths.
func (f *fixture) crowd(t *testing.T) (truthPath, answers string) {
	t.Helper()
	var truth strings.Builder
	truth.WriteString("task,label\n")
	for i, id := range f.trainIDs {
		truth.WriteString(id + "," + []string{"x", "y", "z"}[i%3] + "\n")
	}
	truthPath = writeFile(t, filepath.Join(f.dir, "truth.csv"), truth.String())
	answers = filepath.Join(f.dir, "answers.csv")
	mustRun(t, "simulate", "--truth", truthPath, "--accuracies", "0.9,0.6,0.4", "--per-doc", "2", "--out", answers, "--log-level", "warn")
	return truthPath, answers
}

// TestTrainInitModelDeclares: with --init-model the saved model's classes
// and annotators are the declared ones, in its order, whatever order the
// new answers list them in: a class nobody chose in the new answers is
// kept, an answer outside the classes is an error naming its line, and an
// annotator the model does not know is an error naming it.
func TestTrainInitModelDeclares(t *testing.T) {
	f := newFixture(t)
	_, answers := f.crowd(t)
	cfg := f.config(t, "b.hcl", "topics {\n  k = 3\n}\nresponse \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n  max_iters = 3\n}\n")
	train := func(ans, out string, extra ...string) result {
		return run(t, append([]string{"train", "--docs", f.docs, "--vocab", f.vocab, "--ids", f.ids, "--answers", ans,
			"--config", cfg, "--out", filepath.Join(f.dir, out), "--log-level", "warn", "--progress", "never"}, extra...)...)
	}
	if r := train(answers, "base"); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	base := filepath.Join(f.dir, "base")
	// The answers backwards (the annotators first appear in another
	// order), without any answer "z".
	rows := readCSV(t, answers)
	var b strings.Builder
	b.WriteString(strings.Join(rows[0], ",") + "\n")
	for i := len(rows) - 1; i >= 1; i-- {
		if rows[i][2] != "z" {
			b.WriteString(strings.Join(rows[i], ",") + "\n")
		}
	}
	noZ := writeFile(t, filepath.Join(f.dir, "noz.csv"), b.String())
	if r := train(noZ, "cold"); r.code != ExitOK {
		t.Fatal(r.stderr)
	}
	if r := train(noZ, "warm", "--init-model", base); r.code != ExitOK {
		t.Fatalf("warm start from the model: exit %d\n%s", r.code, r.stderr)
	}
	col := func(dir string) []string {
		var names []string
		for _, row := range readCSV(t, filepath.Join(f.dir, dir, "annotators.csv"))[1:] {
			names = append(names, row[0])
		}
		return names
	}
	// Without the model, these answers declare other classes and order:
	// the test would not see a warm start that took them as they come.
	if cmp.Equal(col("base"), col("cold")) || len(readManifest(t, filepath.Join(f.dir, "cold")).Classes) != 2 {
		t.Fatalf("fixture: the reversed answers without z give annotators %v and classes %v on their own, want another order than %v and 2 classes",
			col("cold"), readManifest(t, filepath.Join(f.dir, "cold")).Classes, col("base"))
	}
	if diff := cmp.Diff(col("base"), col("warm")); diff != "" {
		t.Errorf("annotators of the warm run, in order (-model +warm):\n%s", diff)
	}
	if got := readManifest(t, filepath.Join(f.dir, "warm")).Classes; !cmp.Equal(got, []string{"x", "y", "z"}) {
		t.Errorf("classes of the warm run %v, want the model's [x y z]", got)
	}
	typo := writeFile(t, filepath.Join(f.dir, "typo.csv"), b.String()+rows[1][0]+","+rows[1][1]+",zz\n")
	r := train(typo, "typo", "--init-model", base)
	wantLine := strings.Count(b.String(), "\n") + 1
	if r.code != ExitError || !strings.Contains(r.stderr, "typo.csv:"+strconv.Itoa(wantLine)+`: label "zz" is not a class`) {
		t.Errorf("an answer outside the model's classes: exit %d, stderr:\n%s\nwant typo.csv:%d named", r.code, r.stderr, wantLine)
	}
	stranger := writeFile(t, filepath.Join(f.dir, "stranger.csv"), b.String()+rows[1][0]+",nobody,x\n")
	r = train(stranger, "stranger", "--init-model", base)
	if r.code != ExitError || !strings.Contains(r.stderr, `annotator "nobody" is not one of`) {
		t.Errorf("an annotator the model does not know: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
