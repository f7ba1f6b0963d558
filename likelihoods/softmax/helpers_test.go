package softmax

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/topics"
)

// perfect is a test-only noise model: one "perfect annotator" whose answer
// is the true class: p(y | c) = exp(pot·[y = c]) / (e^pot + C − 1), which
// for pot = 50 puts 1 − 2e−50 on y = c. Evidence adds the log-potential pot
// to Log[y_d]; its part of the ELBO is E_q[log p(y_d | c_d)] =
// Σ_a (pot·λ_{d,y_a} − log(e^pot + C − 1)), so the target update λ ∝
// exp(η·φ̄ + pot·[l = y]) is the exact maximiser of the reported bound. It
// has no global parameters. With it, the model is plain supervised LDA
// (sLDA) with observed labels.
type perfect struct{ pot float64 }

type perfectStats struct{ sum float64 }

func (s *perfectStats) Merge(o framework.Stats) { s.sum += o.(*perfectStats).sum }
func (s *perfectStats) Reset()                  { s.sum = 0 }

func (p *perfect) Init(*framework.Setup) error { return nil }
func (p *perfect) Accepts(t framework.Target) error {
	if _, ok := t.(*framework.Categorical); !ok {
		return fmt.Errorf("%w: perfect annotator needs a categorical target", framework.ErrIncompatible)
	}
	return nil
}
func (p *perfect) Evidence(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	for _, a := range d.Answers {
		t.Log[a.Class] += p.pot
	}
}
func (p *perfect) Parameterless() {}

func (p *perfect) DocELBO(d *framework.DocState) float64 {
	t := d.Target.(*framework.Categorical)
	logZ := math.Log(math.Exp(p.pot) + float64(len(t.P)-1))
	e := 0.0
	for _, a := range d.Answers {
		e += p.pot*t.P[a.Class] - logZ
	}
	return e
}
func (p *perfect) NewStats() framework.Stats { return &perfectStats{} }
func (p *perfect) Accumulate(s framework.Stats, d *framework.DocState) {
	s.(*perfectStats).sum += p.DocELBO(d)
}
func (p *perfect) Update(context.Context, framework.Stats, framework.Step) error { return nil }
func (p *perfect) ELBO(s framework.Stats, st framework.Step) float64 {
	return st.Scale * s.(*perfectStats).sum
}

func newPerfect(framework.Params) (framework.NoiseModel, error) { return &perfect{pot: 50}, nil }

// sLDAData is a planted sLDA problem: an LDA corpus (synth.LDA) whose
// labels are drawn from c_d ~ softmax(η* z̄_d), split into training and
// held-out documents.
type sLDAData struct {
	train, test *framework.Corpus
	testLabels  []int
	trainLabels []int
	classes     []string
	bayes       float64 // held-out accuracy of argmax_l η*_l·z̄_d (the planted classifier on the true z̄)
	majority    float64 // held-out frequency of the most frequent training class
}

// plantedEta is η*_lk = scale when k mod C = l, else 0: each class owns
// the topics k ≡ l (mod C).
func plantedEta(C, K int, scale float64) []float64 {
	eta := make([]float64, C*K)
	for k := 0; k < K; k++ {
		eta[(k%C)*K+k] = scale
	}
	return eta
}

// newSLDAData draws nTrain+nTest documents (V words, K topics, docLen
// tokens on average, α = 0.2) and their labels. relabel (may be nil) maps each
// drawn class to the one recorded (to leave a class without documents).
func newSLDAData(t testing.TB, seed uint64, nTrain, nTest, V, K, C int, docLen, scale float64, relabel func(int) int) *sLDAData {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	c, pl, err := synth.LDA(synth.LDASpec{D: nTrain + nTest, V: V, K: K, DocLen: docLen, Alpha: 0.2, TopicConc: 0.05}, rng)
	if err != nil {
		t.Fatal(err)
	}
	eta := plantedEta(C, K, scale)
	labels := make([]int, len(c.Docs))
	p := make([]float64, C)
	bayesHits := 0
	for d := range c.Docs {
		for l := 0; l < C; l++ {
			p[l] = dot(eta[l*K:(l+1)*K], pl.ZBar[d])
		}
		best := argmax(p)
		z := special.LogSumExp(p)
		for l := range p {
			p[l] = math.Exp(p[l] - z)
		}
		labels[d] = synth.Categorical(p, rng)
		if relabel != nil {
			labels[d] = relabel(labels[d])
			best = relabel(best)
		}
		if d >= nTrain && best == labels[d] {
			bayesHits++
		}
	}
	out := &sLDAData{classes: make([]string, C)}
	for l := range out.classes {
		out.classes[l] = "c" + strconv.Itoa(l)
	}
	out.train = &framework.Corpus{V: V, Docs: c.Docs[:nTrain]}
	out.test = &framework.Corpus{V: V, Docs: c.Docs[nTrain:]}
	out.trainLabels = labels[:nTrain]
	out.testLabels = labels[nTrain:]
	byDoc := make([][]framework.Answer, nTrain)
	counts := make([]int, C)
	for d := range byDoc {
		byDoc[d] = []framework.Answer{{Annotator: 0, Class: int32(labels[d]), Value: float64(labels[d])}}
		counts[labels[d]]++
	}
	out.train.Answers = &framework.Answers{Annotators: []string{"truth"}, Classes: out.classes, ByDoc: byDoc}
	maj := argmaxInt(counts)
	hits := 0
	for _, y := range out.testLabels {
		if y == maj {
			hits++
		}
	}
	out.majority = float64(hits) / float64(nTest)
	out.bayes = float64(bayesHits) / float64(nTest)
	return out
}

func argmax(x []float64) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}

func argmaxInt(x []int) int {
	b := 0
	for i, v := range x {
		if v > x[b] {
			b = i
		}
	}
	return b
}

// newSLDA assembles topics (K, α 0.2, τ 0.05, seeded from seed) + softmax
// (params) + the perfect annotator over data.train; tweak (may be nil)
// adjusts the topic layer's settings.
func newSLDA(t testing.TB, data *sLDAData, K int, seed uint64, params Params, workers int, tweak func(*topics.Config)) (*models.Model, *Softmax) {
	t.Helper()
	cfg := topics.Defaults()
	cfg.K, cfg.Alpha, cfg.Tau = K, 0.2, 0.05
	if tweak != nil {
		tweak(&cfg)
	}
	l, err := topics.New(cfg, data.train.V)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	l.Init(data.train, rng)
	resp, err := New(framework.ParamsFunc(func(into any) error { *into.(*Params) = params; return nil }))
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Init(&framework.Setup{K: K, V: data.train.V, Classes: data.classes, Corpus: data.train, Rand: rng}); err != nil {
		t.Fatal(err)
	}
	m, err := models.NewModel(l, resp, &perfect{pot: 50}, data.train, workers)
	if err != nil {
		t.Fatal(err)
	}
	return m, resp.(*Softmax)
}

// accuracy is the held-out accuracy of m.Predict's argmax, and the mean
// predicted probability of each class.
func accuracy(t testing.TB, m *models.Model, c *framework.Corpus, labels []int) (float64, []float64) {
	t.Helper()
	preds, err := m.Predict(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	var meanP []float64
	for d, p := range preds {
		tg := p.Target.(*framework.Categorical)
		if meanP == nil {
			meanP = make([]float64, len(tg.P))
		}
		for l, x := range tg.P {
			if math.IsNaN(x) {
				t.Fatalf("document %d: NaN class probability", d)
			}
			meanP[l] += x / float64(len(preds))
		}
		if tg.Argmax() == labels[d] {
			hits++
		}
	}
	return float64(hits) / float64(len(preds)), meanP
}

// centralDiff is (f(x + h·e_i) − f(x − h·e_i))/(2h) and the two values
// (x is not changed).
func centralDiff(f func([]float64) float64, x []float64, i int, h float64) (fd, fp, fm float64) {
	xp := append([]float64(nil), x...)
	xm := append([]float64(nil), x...)
	xp[i] += h
	xm[i] -= h
	fp, fm = f(xp), f(xm)
	return (fp - fm) / (2 * h), fp, fm
}
