package models

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	_ "github.com/maslda/maslda/annotators/biasprecision" // annotators: bias-precision
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	_ "github.com/maslda/maslda/likelihoods/gaussian" // response: gaussian
	_ "github.com/maslda/maslda/optim"                // schedules: batch, svi
)

// The real-data MA-sLDAr comparison of docs/results-regression.md: the
// movie reviews with real AMT workers and we8there with five simulated
// annotators (Rodrigues et al.'s MA-sLDAr release, MODEL.md §8). For each
// data set and K it reports
//
//   - the mean answer's truth-inference R² on the training documents,
//   - LDA + LinReg (mean answer): plain LDA with the same K, E[θ] of the
//     training and test documents, least squares of the mean answer on θ
//     (θ sums to 1, so the fit has an implicit intercept), test R²/MAE/RMSE,
//   - MA-sLDAr: truth-inference R² of the posterior means on the training
//     documents and test R²/MAE/RMSE of η·φ̄.
//
// It only reports (no thresholds). Run it with
//
//	MASLDA_REALDATA=1 go test ./models -run RealDataRegression -v -timeout 60m
//
// Optional: MASLDA_REALDATA_K (default "20,60"), MASLDA_REALDATA_SETS
// (default "movies,we8there"), MASLDA_REALDATA_ITERS (batch EM iterations,
// default 100; the CLI commands of the doc use the same), MASLDA_REALDATA_SIGMA
// ("estimate", the default, or "fixed": σ² = 1 fixed), MASLDA_REALDATA_MASLDAR=0
// to compute only the baselines, MASLDA_REALDATA_ROOT (default
// ../../shared/data) to read the same file names from another directory.

// realRegSet is one data set of the MA-sLDAr release.
type realRegSet struct {
	name                  string
	dir                   string // under the shared data directory
	train, test           string
	answers, truth, label string // answers (wide), training truth, test truth
}

var realRegSets = []realRegSet{
	{"movies", "rodrigues_moviereviews_amt", "data_train_amt.txt", "data_test.txt", "answers.txt", "labels_train_amt.txt", "labels_test.txt"},
	{"we8there", "rodrigues_we8there_sim", "data_train.txt", "data_test.txt", "answers.txt", "labels_train.txt", "labels_test.txt"},
}

func realRegOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func realRegFloats(t *testing.T, path string) []float64 {
	t.Helper()
	var out []float64
	sc := bufio.NewScanner(realRegOpen(t, path))
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// realRegLoad reads a data set; both corpora get V = 1 + the largest word id
// over training and test documents (the CLI's --vocab-size).
func realRegLoad(t *testing.T, root string, s realRegSet) (train, test *framework.Corpus, truth, label []float64) {
	t.Helper()
	dir := filepath.Join(root, s.dir)
	p := func(f string) string { return filepath.Join(dir, f) }
	dtr, vtr, err := corpus.ReadLDAC(realRegOpen(t, p(s.train)), s.train)
	if err != nil {
		t.Fatal(err)
	}
	dte, vte, err := corpus.ReadLDAC(realRegOpen(t, p(s.test)), s.test)
	if err != nil {
		t.Fatal(err)
	}
	V := max(vtr, vte)
	tab, err := corpus.ReadWideAnswers(realRegOpen(t, p(s.answers)), s.answers, "999999999")
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(dtr))
	for i := range dtr {
		ids[i] = dtr[i].ID
	}
	ans, err := tab.Numeric(ids)
	if err != nil {
		t.Fatal(err)
	}
	train = &framework.Corpus{V: V, Docs: dtr, Answers: ans}
	test = &framework.Corpus{V: V, Docs: dte}
	truth, label = realRegFloats(t, p(s.truth)), realRegFloats(t, p(s.label))
	if len(truth) != len(dtr) || len(label) != len(dte) {
		t.Fatalf("%s: %d training docs, %d truths; %d test docs, %d labels", s.name, len(dtr), len(truth), len(dte), len(label))
	}
	return train, test, truth, label
}

// realRegScores are n, R², MAE and RMSE as `maslda eval` computes them.
// Diagnostics: offset = mean(pred − truth), corr2 = squared Pearson
// correlation (the R² the predictions would reach after the best affine
// recalibration; not something a user could do without the truth).
type realRegScores struct{ r2, mae, rmse, offset, corr2 float64 }

func realRegScore(pred, truth []float64) realRegScores {
	var s realRegScores
	for i := range truth {
		e := pred[i] - truth[i]
		s.mae += math.Abs(e)
		s.rmse += e * e
	}
	n := float64(len(truth))
	var mp, mt, cpp, ctt, cpt float64
	for i := range truth {
		mp += pred[i] / n
		mt += truth[i] / n
	}
	for i := range truth {
		cpp += (pred[i] - mp) * (pred[i] - mp)
		ctt += (truth[i] - mt) * (truth[i] - mt)
		cpt += (pred[i] - mp) * (truth[i] - mt)
	}
	s.offset, s.corr2 = mp-mt, cpt*cpt/(cpp*ctt)
	s.mae /= n
	s.rmse = math.Sqrt(s.rmse / n)
	s.r2 = regR2(pred, truth)
	return s
}

func (s realRegScores) String() string {
	return fmt.Sprintf("R² %.4f  MAE %.4f  RMSE %.4f  (offset %+.4f, corr² %.4f)", s.r2, s.mae, s.rmse, s.offset, s.corr2)
}

func realRegFit(t *testing.T, src string, c *framework.Corpus) (*Run, *framework.Result) {
	t.Helper()
	cfg, err := ParseConfig([]byte(src), "realdata.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg, framework.Default, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Fit(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

func realRegTargets(t *testing.T, ps []Prediction) []float64 {
	t.Helper()
	out := make([]float64, len(ps))
	for d, p := range ps {
		out[d] = p.Target.(*framework.Gaussian).Mean
	}
	return out
}

// realRegLinReg: plain LDA with the configuration's topics block, then
// least squares of y on the training documents' E[θ]; it returns the test
// predictions.
func realRegLinReg(t *testing.T, src string, train, test *framework.Corpus, y []float64) ([]float64, *framework.Result) {
	t.Helper()
	r, res := realRegFit(t, src, &framework.Corpus{V: train.V, Docs: train.Docs})
	ctx := context.Background()
	tr, err := r.Model.Predict(ctx, train)
	if err != nil {
		t.Fatal(err)
	}
	K := len(tr[0].Theta)
	X := mat.NewDense(len(tr), K, nil)
	for d, p := range tr {
		X.SetRow(d, p.Theta)
	}
	var w mat.VecDense
	if err := w.SolveVec(X, mat.NewVecDense(len(y), y)); err != nil {
		t.Fatal(err)
	}
	fit := make([]float64, len(tr))
	for d, p := range tr {
		fit[d] = mat.Dot(&w, mat.NewVecDense(K, p.Theta))
	}
	t.Logf("LDA K=%d + LinReg: in-sample R² of the mean answer %.4f", K, regR2(fit, y))
	te, err := r.Model.Predict(ctx, test)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(te))
	for d, p := range te {
		out[d] = mat.Dot(&w, mat.NewVecDense(K, p.Theta))
	}
	return out, res
}

func realRegEnv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func TestRealDataRegression(t *testing.T) {
	if os.Getenv("MASLDA_REALDATA") == "" {
		t.Skip("real-data report only: set MASLDA_REALDATA=1 to run (see docs/results-regression.md)")
	}
	root := realRegEnv("MASLDA_REALDATA_ROOT", filepath.Join("..", "..", "shared", "data"))
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real data absent: %s not found (%v); it is the shared data directory next to the repository", root, err)
	}
	iters := realRegEnv("MASLDA_REALDATA_ITERS", "100")
	sigma := "estimate_sigma2 = true"
	if realRegEnv("MASLDA_REALDATA_SIGMA", "estimate") == "fixed" {
		sigma = "estimate_sigma2 = false"
	}
	sets := realRegEnv("MASLDA_REALDATA_SETS", "movies,we8there")
	var table []string
	for _, s := range realRegSets {
		if !strings.Contains(sets, s.name) {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, s.dir)); err != nil {
			t.Logf("%s: %v; skipped", s.name, err)
			continue
		}
		train, test, truth, label := realRegLoad(t, root, s)
		mean := regMeanAnswers(train.Answers)
		ms := realRegScore(mean, truth)
		t.Logf("%s: %d training docs (%d answers), %d test docs, V = %d; mean answer (truth inference): %v", s.name, len(train.Docs), realRegCount(train.Answers), len(test.Docs), train.V, ms)
		for _, ks := range strings.Split(realRegEnv("MASLDA_REALDATA_K", "20,60"), ",") {
			K, err := strconv.Atoi(strings.TrimSpace(ks))
			if err != nil {
				t.Fatal(err)
			}
			head := fmt.Sprintf("seed = 1\ntopics {\n  k = %d\n}\n", K)
			inf := fmt.Sprintf("inference \"batch\" {\n  max_iters = %s\n}\n", iters)
			start := time.Now()
			lr, lres := realRegLinReg(t, head+inf, train, test, mean)
			ls := realRegScore(lr, label)
			t.Logf("%s K=%d: LDA + LinReg (mean answer): test %v (LDA %d iterations, %.1fs)", s.name, K, ls, lres.Iters, time.Since(start).Seconds())
			row := fmt.Sprintf("| %s | %d | mean answer (train truth) | %.4f | %.4f | %.4f |\n| %s | %d | LDA + LinReg (mean answer), test | %.4f | %.4f | %.4f |",
				s.name, K, ms.r2, ms.mae, ms.rmse, s.name, K, ls.r2, ls.mae, ls.rmse)
			if os.Getenv("MASLDA_REALDATA_MASLDAR") != "0" {
				src := head + "response \"gaussian\" {\n  sigma2 = 1\n  " + sigma + "\n}\nannotators \"bias-precision\" {}\n" + inf
				start = time.Now()
				r, res := realRegFit(t, src, train)
				el := time.Since(start)
				ctx := context.Background()
				post, err := r.Model.Posterior(ctx)
				if err != nil {
					t.Fatal(err)
				}
				pred, err := r.Model.Predict(ctx, test)
				if err != nil {
					t.Fatal(err)
				}
				ts, ps := realRegScore(realRegTargets(t, post), truth), realRegScore(realRegTargets(t, pred), label)
				t.Logf("%s K=%d: MA-sLDAr (%s): truth %v; test %v (%d iterations, converged %v, %.2fs/iteration)", s.name, K, sigma, ts, ps, res.Iters, res.Converged, el.Seconds()/float64(res.Iters))
				row += fmt.Sprintf("\n| %s | %d | MA-sLDAr posterior (train truth) | %.4f | %.4f | %.4f |\n| %s | %d | MA-sLDAr, test | %.4f | %.4f | %.4f |",
					s.name, K, ts.r2, ts.mae, ts.rmse, s.name, K, ps.r2, ps.mae, ps.rmse)
			}
			table = append(table, row)
		}
	}
	t.Logf("\n| data | K | method | R² | MAE | RMSE |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

func realRegCount(a *framework.Answers) int {
	n := 0
	for _, as := range a.ByDoc {
		n += len(as)
	}
	return n
}
