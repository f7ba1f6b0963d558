package softmax

import (
	"context"
	"errors"
	"fmt"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// The planted sLDA problem of tests 2–4: 300 training and 300 held-out
// documents (V 200, K 5, 80 tokens on average), C = 3 classes drawn from
// softmax(η* z̄_d) with η*_lk = 10 when k mod 3 = l.
func mainData(t testing.TB) *sLDAData {
	return newSLDAData(t, 1, 300, 300, 200, 5, 3, 80, 10, nil)
}

// fitBatch runs batch EM (tol 0: exactly iters iterations) and returns the
// ELBO trace.
func fitBatch(t testing.TB, m framework.Model, iters int) []float64 {
	t.Helper()
	var elbos []float64
	b := optim.Batch{MaxIters: iters, MinIters: 2, Tol: 0}
	if _, err := b.Fit(context.Background(), m, nil, func(p framework.Progress) error {
		elbos = append(elbos, p.ELBO)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return elbos
}

// decreases counts the iterations whose ELBO fell by more than rel
// (relative) and returns the worst relative change.
func decreases(elbos []float64, rel float64) (int, float64) {
	n, worst := 0, 0.0
	for i := 1; i < len(elbos); i++ {
		r := (elbos[i] - elbos[i-1]) / math.Abs(elbos[i-1])
		if r < -rel {
			n++
		}
		worst = math.Min(worst, r)
	}
	return n, worst
}

func probeSummary(p *probe) (words, fell, backtracked, reverted int64, worst float64) {
	return p.words.Load(), p.decreases.Load(), p.backtracked.Load(), p.reverted.Load(), math.Float64frombits(p.worst.Load())
}

// mainBatch is batch EM (25 iterations) on mainData, fitted once and shared
// by the tests that need it.
var mainBatch = sync.OnceValues(func() (*batchFit, error) {
	f := &batchFit{}
	tb := &onceTB{}
	f.data = mainData(tb)
	f.m, f.s = newSLDA(tb, f.data, 5, 3, Params{}, 2, nil)
	f.s.probe = &probe{}
	f.elbos = fitBatch(tb, f.m, 25)
	f.acc, f.meanP = accuracy(tb, f.m, f.data.test, f.data.testLabels)
	return f, tb.err
})

type batchFit struct {
	data  *sLDAData
	m     *models.Model
	s     *Softmax
	elbos []float64
	acc   float64
	meanP []float64
}

// onceTB lets the shared fit use the helpers outside a test's goroutine:
// Fatal records the first error and stops the fit.
type onceTB struct {
	testing.TB
	err error
}

func (o *onceTB) Helper() {}
func (o *onceTB) Fatal(args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%s", fmt.Sprint(args...))
	}
	runtime.Goexit()
}

func getMainBatch(t *testing.T) *batchFit {
	t.Helper()
	var (
		f   *batchFit
		err error
	)
	done := make(chan struct{})
	go func() { // the fit's Fatal ends this goroutine, not the test's
		defer close(done)
		f, err = mainBatch()
	}()
	<-done
	if f == nil && err == nil {
		err = errors.New("shared batch fit stopped")
	}
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// Tests 2 and 3: batch EM of sLDA (softmax + a perfect annotator) never
// lowers the ELBO (checked at every iteration, 1e-8 relative), and the
// held-out accuracy of Predict is far above the majority class.
func TestSLDABatchMonotoneAndRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("a long recovery test (minutes under -race): run without -short; CI runs it in its non-race pass")
	}
	f := getMainBatch(t)
	n, worst := decreases(f.elbos, 1e-8)
	if n > 0 {
		t.Errorf("ELBO decreased (beyond 1e-8 relative) in %d of %d iterations; worst relative change %.3g", n, len(f.elbos)-1, worst)
	}
	w, fell, bt, rv, wf := probeSummary(f.s.probe)
	t.Logf("ELBO %.10g after %d iterations (worst relative change %.3g); φ steps %d, raw steps that would lower the ELBO %d (worst %.3g), backtracked %d, reverted %d; last M-step %+v",
		f.elbos[len(f.elbos)-1], len(f.elbos), worst, w, fell, wf, bt, rv, f.s.LastSolve())
	t.Logf("held-out accuracy %.3f (planted classifier on the true z̄ %.3f, majority class %.3f); mean predicted probabilities %.3f",
		f.acc, f.data.bayes, f.data.majority, f.meanP)
	if f.acc < 0.85 || f.acc < f.data.majority+0.3 {
		t.Errorf("held-out accuracy %.3f, want ≥ 0.85 and ≥ majority %.3f + 0.3", f.acc, f.data.majority)
	}
}

// harshData has 5-token documents and no L2 penalty: |η_lk|/N_d is large,
// the regime where the linearised φ step and the unsupervised first sweep
// of a warm start can lower the ELBO.
func harshData(t testing.TB) *sLDAData {
	return newSLDAData(t, 1, 300, 300, 200, 5, 3, 5, 20, nil)
}

var harshTopics = func(c *topics.Config) { c.LocalIters = 3 }

// Test 2, the hard case: with short documents, no L2 penalty and
// unconverged local steps, the trace is still monotone. The same run with
// warm starts from an unsupervised sweep instead of the stored φ
// (RestorePhi refused) lowers the ELBO (by 8e-6 relative at one iteration
// with Go 1.26 on amd64); that ablation is logged, not asserted.
func TestSLDABatchMonotoneShortDocs(t *testing.T) {
	race.SkipLong(t)
	zero := 0.0
	data := harshData(t)
	m, s := newSLDA(t, data, 5, 3, Params{L2: &zero}, 2, harshTopics)
	s.probe = &probe{}
	elbos := fitBatch(t, m, 40)
	n, worst := decreases(elbos, 1e-8)
	if n > 0 {
		t.Errorf("ELBO decreased (beyond 1e-8 relative) in %d of %d iterations; worst relative change %.3g", n, len(elbos)-1, worst)
	}
	w, fell, bt, rv, wf := probeSummary(s.probe)
	t.Logf("ELBO %.10g, worst relative change %.3g; φ steps %d, raw steps that would lower the ELBO %d (worst %.3g), backtracked %d, reverted %d",
		elbos[len(elbos)-1], worst, w, fell, wf, bt, rv)

	m, s = newSLDA(t, data, 5, 3, Params{L2: &zero}, 2, harshTopics)
	s.noRestore, s.probe = true, &probe{}
	elbos = fitBatch(t, m, 40)
	n, worst = decreases(elbos, 1e-8)
	w, fell, bt, rv, wf = probeSummary(s.probe)
	t.Logf("ablation without RestorePhi: %d decreases (worst relative change %.3g); φ steps %d, raw steps that would lower the ELBO %d (worst %.3g), backtracked %d, reverted %d",
		n, worst, w, fell, wf, bt, rv)
}

// TestExploreMonotonicity (MASLDA_EXPLORE=1) reports, for the short-document
// problem, the ELBO decreases with and without the φ safeguard and with and
// without resuming warm starts from the stored φ (RestorePhi).
func TestExploreMonotonicity(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("set MASLDA_EXPLORE=1 to run")
	}
	zero := 0.0
	for _, c := range []struct {
		name string
		data *sLDAData
		l2   *float64
		tw   func(*topics.Config)
	}{
		{"80 tokens, default l2, local_init best", mainData(t), nil, nil},
		{"5 tokens, l2 0, local_iters 3, best", harshData(t), &zero, harshTopics},
		{"3 tokens, l2 0, local_iters 2, warm", newSLDAData(t, 1, 300, 1, 200, 5, 3, 3, 40, nil), &zero, func(c *topics.Config) { c.LocalIters, c.LocalInit = 2, "warm" }},
	} {
		for _, mode := range []struct{ guard, restore bool }{{true, true}, {false, true}, {true, false}, {false, false}} {
			m, s := newSLDA(t, c.data, 5, 3, Params{L2: c.l2}, 2, c.tw)
			s.guard, s.noRestore, s.probe = mode.guard, !mode.restore, &probe{}
			elbos := fitBatch(t, m, 40)
			n, worst := decreases(elbos, 1e-8)
			w, fell, bt, _, wf := probeSummary(s.probe)
			t.Logf("%s: safeguard %-5v restore %-5v: ELBO %.8g, %d decreases (worst %.3g); φ steps %d, lowering raw steps %d (worst %.3g), backtracked %d",
				c.name, mode.guard, mode.restore, elbos[len(elbos)-1], n, worst, w, fell, wf, bt)
		}
	}
}

// Test 4: SVI (mini-batches of 50, κ 0.6, delay 1, 15 epochs, svi_iters
// L-BFGS iterations per mini-batch blended with ρ_t) reaches a held-out
// accuracy within 5 points of batch EM's on the same data.
func TestSLDASVI(t *testing.T) {
	race.SkipLong(t)
	f := getMainBatch(t)
	data, accB := f.data, f.acc
	m, s := newSLDA(t, data, 5, 3, Params{}, 2, nil)
	svi := optim.SVI{BatchSize: 50, Kappa: 0.6, Delay: 1, Epochs: 15, MinEpochs: 2, Tol: 0}
	var est []float64
	res, err := svi.Fit(context.Background(), m, rand.New(rand.NewPCG(5, 5)), func(p framework.Progress) error {
		est = append(est, p.ELBO)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := accuracy(t, m, data.test, data.testLabels)
	t.Logf("SVI: %d updates, last ELBO estimate %.6g, held-out accuracy %.3f; batch %.3f; majority %.3f; |η|max %.2f",
		res.Iters, res.ELBO, acc, accB, data.majority, maxAbs(s.Eta))
	if acc < accB-0.05 || acc < 0.8 {
		t.Errorf("SVI held-out accuracy %.3f, batch %.3f: want within 0.05 of batch and ≥ 0.8", acc, accB)
	}
	for _, e := range est {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			t.Fatalf("SVI ELBO estimate %v", e)
		}
	}
}

// Test 6: two classes.
func TestTwoClasses(t *testing.T) {
	data := newSLDAData(t, 4, 200, 200, 150, 4, 2, 60, 8, nil)
	m, _ := newSLDA(t, data, 4, 2, Params{}, 2, nil)
	elbos := fitBatch(t, m, 15)
	if n, worst := decreases(elbos, 1e-8); n > 0 {
		t.Errorf("ELBO decreased %d times (worst %.3g)", n, worst)
	}
	acc, _ := accuracy(t, m, data.test, data.testLabels)
	t.Logf("two classes: held-out accuracy %.3f (planted %.3f, majority %.3f)", acc, data.bayes, data.majority)
	if acc < data.majority+0.2 {
		t.Errorf("held-out accuracy %.3f, majority %.3f", acc, data.majority)
	}
}

// Test 6: a class that no training document has. Its row of η is pushed
// down (the L2 penalty keeps it finite) and it is (almost) never predicted.
func TestClassWithoutDocuments(t *testing.T) {
	data := newSLDAData(t, 5, 200, 200, 150, 4, 3, 60, 8, func(l int) int { return l % 2 })
	m, s := newSLDA(t, data, 4, 2, Params{}, 2, nil)
	elbos := fitBatch(t, m, 15)
	if n, worst := decreases(elbos, 1e-8); n > 0 {
		t.Errorf("ELBO decreased %d times (worst %.3g)", n, worst)
	}
	acc, meanP := accuracy(t, m, data.test, data.testLabels)
	t.Logf("class 2 has no documents: held-out accuracy %.3f (majority %.3f), mean predicted probabilities %.4f, η %.2f", acc, data.majority, meanP, s.Eta)
	for _, e := range s.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			t.Fatalf("η = %v", s.Eta)
		}
	}
	if meanP[2] > 0.02 {
		t.Errorf("mean predicted probability of the empty class %.4f, want < 0.02", meanP[2])
	}
	if acc < data.majority+0.2 {
		t.Errorf("held-out accuracy %.3f, majority %.3f", acc, data.majority)
	}
}

// Test 6: empty documents, in training (with a label) and at prediction.
func TestEmptyDocuments(t *testing.T) {
	data := newSLDAData(t, 6, 100, 20, 100, 4, 3, 40, 10, nil)
	data.train.Docs[7] = framework.Doc{ID: "empty"}
	data.train.Docs[50] = framework.Doc{ID: "empty2"}
	data.test.Docs[3] = framework.Doc{ID: "empty"}
	m, s := newSLDA(t, data, 4, 1, Params{}, 2, nil)
	elbos := fitBatch(t, m, 6)
	for _, e := range elbos {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			t.Fatalf("ELBO trace %v", elbos)
		}
	}
	if n, worst := decreases(elbos, 1e-8); n > 0 {
		t.Errorf("ELBO decreased %d times (worst %.3g)", n, worst)
	}
	for _, e := range s.Eta {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			t.Fatalf("η = %v", s.Eta)
		}
	}
	// The empty training document's q(c) follows its label (evidence only).
	tg := m.Target(7).(*framework.Categorical)
	if y := data.trainLabels[7]; tg.P[y] < 0.999 {
		t.Errorf("empty training document: λ = %v, label %d", tg.P, y)
	}
	preds, err := m.Predict(context.Background(), data.test)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range preds[3].Target.(*framework.Categorical).P {
		if math.Abs(p-1.0/3) > 1e-12 {
			t.Errorf("empty held-out document: predicted %v, want uniform", preds[3].Target.(*framework.Categorical).P)
			break
		}
	}
	// Its DocELBO is −log C + H(λ), finite.
	ds := framework.NewDocState(4, 0)
	ds.Bind(0, &framework.Doc{}, nil)
	ds.Target = s.NewTarget()
	s.Predict(ds)
	if got, want := s.DocELBO(ds), -math.Log(3)+math.Log(3); math.Abs(got-want) > 1e-12 {
		t.Errorf("DocELBO of an empty document with uniform λ = %v, want %v", got, want)
	}
}

// models.Model keeps its own import of the framework; keep the compiler
// honest about the types the helpers return.
var _ framework.Model = (*models.Model)(nil)

func maxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}
