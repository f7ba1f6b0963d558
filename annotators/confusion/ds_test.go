package confusion_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	"github.com/maslda/maslda/topics"
)

// flat is a test-only response with a flat class prior p(c_d) = 1/C: no
// prior message, no supervision term, no global parameters. With it the
// model is Dawid–Skene with a uniform class prior, next to an unsupervised
// topic layer. Its ELBO part is Σ_d (H(λ_d) − log C), so that the bound is
// complete and batch EM's trace must be monotone.
type flat struct{ c int }

type flatStats struct{ e float64 }

func (s *flatStats) Merge(o framework.Stats) { s.e += o.(*flatStats).e }
func (s *flatStats) Reset()                  { s.e = 0 }

func (f *flat) NewStats() framework.Stats { return &flatStats{} }
func (f *flat) Accumulate(s framework.Stats, d *framework.DocState) {
	s.(*flatStats).e += d.Target.(*framework.Categorical).Entropy() - math.Log(float64(f.c))
}
func (f *flat) Update(ctx context.Context, _ framework.Stats, _ framework.Step) error {
	return ctx.Err()
}
func (f *flat) ELBO(s framework.Stats, st framework.Step) float64 { return st.Scale * s.(*flatStats).e }
func (f *flat) Init(s *framework.Setup) error {
	f.c = len(s.Classes)
	return nil
}
func (f *flat) NewTarget() framework.Target { return framework.NewCategorical(f.c) }
func (f *flat) DocELBO(d *framework.DocState) float64 {
	return d.Target.(*framework.Categorical).Entropy() - math.Log(float64(f.c))
}
func (f *flat) Parameterless()                      {}
func (f *flat) NewLocal() framework.LikelihoodLocal { return flatLocal{} }
func (f *flat) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	t.Reset()
	t.Finalize()
}
func (flatLocal) Begin(*framework.DocState)                       {}
func (flatLocal) TargetTerm(*framework.DocState)                  {}
func (flatLocal) PhiTerm([]float64, *framework.DocState, int)     {}
func (flatLocal) WordChanged(*framework.DocState, int, []float64) {}

type flatLocal struct{}

// paperAccuracies are MODEL.md §7's 20 Newsgroups annotators.
var paperAccuracies = []float64{0.737, 0.468, 0.284, 0.278, 0.260}

// crowdCorpus draws a planted LDA corpus, uniform true classes and perDoc
// answers per document from annotators with the given accuracies.
func crowdCorpus(t testing.TB, seed uint64, D, C, perDoc int, acc []float64) (*framework.Corpus, []int, [][][]float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	c, _, err := synth.LDA(synth.LDASpec{D: D, V: 60, K: 3, DocLen: 10, Alpha: 0.2, TopicConc: 0.1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
	}
	pis, err := confusion.FromAccuracies(acc, C)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := confusion.Sample(truth, pis, perDoc, rng)
	if err != nil {
		t.Fatal(err)
	}
	a := &framework.Answers{ByDoc: byDoc}
	for r := range acc {
		a.Annotators = append(a.Annotators, "w"+strconv.Itoa(r))
	}
	for k := 0; k < C; k++ {
		a.Classes = append(a.Classes, "class"+strconv.Itoa(k))
	}
	c.Answers = a
	return c, truth, pis
}

// build assembles topics + flat + confusion over c, as models.Build would.
func build(t testing.TB, c *framework.Corpus, cfg confusion.Config, seed uint64) (*models.Model, *confusion.Model) {
	t.Helper()
	// The topics play no part in the truth inference (the flat response
	// ignores them); a small layer with warm starts keeps the test fast.
	tc := topics.Defaults()
	tc.K = 3
	tc.Alpha = 0.2
	tc.LocalInit = "warm"
	layer, err := topics.New(tc, c.V)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	layer.Init(c, rng)
	setup := &framework.Setup{K: tc.K, V: c.V, Classes: c.Answers.Classes, Annotators: c.Answers.Annotators, Corpus: c, Rand: rng}
	lik := &flat{}
	if err := lik.Init(setup); err != nil {
		t.Fatal(err)
	}
	noise, err := confusion.NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := noise.Init(setup); err != nil {
		t.Fatal(err)
	}
	m, err := models.NewModel(layer, lik, noise, c, 2)
	if err != nil {
		t.Fatal(err)
	}
	return m, noise
}

func mvAccuracy(c *framework.Corpus, truth []int) float64 {
	C := len(c.Answers.Classes)
	mv := make([]float64, C)
	acc := 0.0
	for d, as := range c.Answers.ByDoc {
		if confusion.MajorityVote(mv, as) {
			acc += mv[truth[d]]
		} else {
			acc += 1 / float64(C)
		}
	}
	return acc / float64(len(truth))
}

// meanAbsDiff is the mean absolute difference per entry of two sets of
// confusion matrices.
func meanAbsDiff(a, b [][][]float64) float64 {
	s, n := 0.0, 0
	for r := range a {
		for c := range a[r] {
			for l := range a[r][c] {
				s += math.Abs(a[r][c][l] - b[r][c][l])
				n++
			}
		}
	}
	return s / float64(n)
}

// crowdAccuracies are annotators shaped like MODEL.md §7's (one good, one
// fair, three poor) but further from chance: with §7's own accuracies
// (three annotators within 0.035 of chance) and 3 answers per document,
// Dawid–Skene needs several thousand documents and hundreds of iterations
// to separate the two informative annotators (TestDawidSkenePaperAnnotators
// runs that case without topics).
var crowdAccuracies = []float64{0.8, 0.6, 0.45, 0.4, 0.35}

// TestDawidSkeneRecovery: with no prior message (a flat class prior) the
// model is Dawid–Skene; on 3000 documents with 3 answers each from five
// annotators it must beat majority vote by 0.05, come within 0.03 of the
// oracle (the posterior under the planted matrices), and recover the
// planted confusion matrices to 0.04 mean absolute difference per entry;
// batch EM's ELBO must never decrease. Over seeds 1–10 of the same
// simulation without topics the worst cases were a margin of 0.062, an
// oracle gap of 0.023 and a distance of 0.034.
func TestDawidSkeneRecovery(t *testing.T) {
	const D, C = 3000, 4
	c, truth, planted := crowdCorpus(t, 21, D, C, 3, crowdAccuracies)
	m, noise := build(t, c, confusion.Defaults(), 22)
	var trace []float64
	b := optim.Batch{MaxIters: 400, MinIters: 2, Tol: 1e-9}
	res, err := b.Fit(context.Background(), m, nil, func(p framework.Progress) error {
		trace = append(trace, p.ELBO)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(trace); i++ {
		if trace[i] < trace[i-1]-1e-9*math.Abs(trace[i-1]) {
			t.Errorf("batch ELBO decreased at iteration %d: %v → %v", i+1, trace[i-1], trace[i])
		}
	}
	post, err := m.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inferred, oracle := 0.0, 0.0
	for d, p := range post {
		if p.Target.(*framework.Categorical).Argmax() == truth[d] {
			inferred++
		}
		if oracleClass(c.Answers.ByDoc[d], planted) == truth[d] {
			oracle++
		}
	}
	inferred /= D
	oracle /= D
	mv := mvAccuracy(c, truth)
	est := make([][][]float64, len(planted))
	for r := range est {
		est[r] = noise.Mean(r)
	}
	dist := meanAbsDiff(est, planted)
	t.Logf("%d iterations (converged %v): majority vote %.4f, inferred %.4f, oracle %.4f; mean |E[π] − π| per entry %.4f (empirical matrices given the truth: %.4f)",
		res.Iters, res.Converged, mv, inferred, oracle, dist, meanAbsDiff(empirical(c, truth, len(planted)), planted))
	for r := range est {
		t.Logf("annotator %d: planted accuracy %.3f, estimated %.3f", r, crowdAccuracies[r], noise.Accuracy(r))
	}
	if !res.Converged {
		t.Errorf("batch EM did not converge in %d iterations", res.Iters)
	}
	if inferred < mv+0.05 {
		t.Errorf("inferred accuracy %.4f does not beat majority vote %.4f by 0.05", inferred, mv)
	}
	if inferred < oracle-0.03 {
		t.Errorf("inferred accuracy %.4f is more than 0.03 below the oracle's %.4f", inferred, oracle)
	}
	if dist > 0.04 {
		t.Errorf("mean |E[π] − π| per entry %.4f, want ≤ 0.04", dist)
	}
}

// oracleClass is the most probable class under the planted matrices and a
// uniform class prior.
func oracleClass(as []framework.Answer, pis [][][]float64) int {
	best, bp := 0, -1.0
	for c := range pis[0] {
		p := 1.0
		for _, a := range as {
			p *= pis[a.Annotator][c][a.Class]
		}
		if p > bp {
			best, bp = c, p
		}
	}
	return best
}

// empirical is the confusion matrices of the answers given the true
// classes: the best any estimator could do from these answers.
func empirical(c *framework.Corpus, truth []int, R int) [][][]float64 {
	C := len(c.Answers.Classes)
	emp := make([][][]float64, R)
	for r := range emp {
		emp[r] = make([][]float64, C)
		for k := range emp[r] {
			emp[r][k] = make([]float64, C)
		}
	}
	for d, as := range c.Answers.ByDoc {
		for _, a := range as {
			emp[a.Annotator][truth[d]][a.Class]++
		}
	}
	for r := range emp {
		for k := range emp[r] {
			n := 0.0
			for _, x := range emp[r][k] {
				n += x
			}
			for l := range emp[r][k] {
				emp[r][k][l] /= n
			}
		}
	}
	return emp
}

// TestSVIRecovery: SVI with mini-batches (MODEL.md §5: ρ_t = (t + 1)^−0.6,
// S = D/|B|) on the corpus of TestDawidSkeneRecovery reaches the truth
// inference and the matrices batch EM reaches, within stated margins.
func TestSVIRecovery(t *testing.T) {
	const D, C = 3000, 4
	c, truth, planted := crowdCorpus(t, 21, D, C, 3, crowdAccuracies)
	m, noise := build(t, c, confusion.Defaults(), 22)
	s := &optim.SVI{BatchSize: 300, Kappa: 0.6, Delay: 1, Epochs: 30, Tol: 0}
	if _, err := s.Fit(context.Background(), m, rand.New(rand.NewPCG(5, 5)), nil); err != nil {
		t.Fatal(err)
	}
	post, err := m.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inferred := 0.0
	for d, p := range post {
		if p.Target.(*framework.Categorical).Argmax() == truth[d] {
			inferred++
		}
	}
	inferred /= D
	est := make([][][]float64, len(planted))
	for r := range est {
		est[r] = noise.Mean(r)
	}
	mv, dist := mvAccuracy(c, truth), meanAbsDiff(est, planted)
	t.Logf("SVI: majority vote %.4f, inferred %.4f; mean |E[π] − π| per entry %.4f", mv, inferred, dist)
	if inferred < mv+0.05 || dist > 0.045 {
		t.Errorf("SVI: inferred %.4f (majority vote %.4f, want + 0.05), distance %.4f (want ≤ 0.045)", inferred, mv, dist)
	}
}
