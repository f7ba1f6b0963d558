package frameworktest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/special"
	"github.com/maslda/maslda/framework/synth"
	"gonum.org/v1/gonum/floats"
)

// Planted is a planted problem with its truth: training documents with
// answers, held-out documents without, and the true target of each.
type Planted struct {
	Kind        string            // KindCategorical, KindGaussian or KindCustom (informative only)
	Train, Test *framework.Corpus // Train has the answers
	Truth       []float64         // the true class (as a number) or value of every training document
	TestTruth   []float64         // of every held-out document
	Classes     []string          // class names (categorical)
	// TestBayes is the expected held-out accuracy of the Bayes classifier
	// that knows the planted η and every held-out document's planted z̄:
	// the mean over held-out documents of max_c Softmax(η z̄_d)_c
	// (NewSupervised, categorical; 0 when unknown).
	TestBayes float64
}

// Supervised describes a planted supervised topic model with one exact
// answer per training document (MODEL.md §2 and §3): an LDA corpus
// (synth.LDA: V words, K topics, α 0.2, separated topics), a planted η
// with entries N(0, EtaScale²) and true targets c_d ~ Softmax(η z̄_d)
// (Classes ≥ 2) or x_d ~ N(η·z̄_d, Sigma2) (Classes 0).
type Supervised struct {
	D, Test, V, K, Classes int
	DocLen                 float64
	EtaScale, Sigma2       float64
}

// NewSupervised draws a planted supervised problem; the one annotator,
// "truth", answers every training document with its true target.
func NewSupervised(s Supervised, seed uint64) (*Planted, error) {
	rng := rand.New(rand.NewPCG(seed, 0x737570))
	all, pl, err := synth.LDA(synth.LDASpec{D: s.D + s.Test, V: s.V, K: s.K, DocLen: s.DocLen, Alpha: 0.2, TopicConc: 0.05}, rng)
	if err != nil {
		return nil, fmt.Errorf("frameworktest: %w", err)
	}
	p := &Planted{Kind: KindGaussian}
	truth := make([]float64, len(all.Docs))
	if s.Classes > 0 {
		p.Kind = KindCategorical
		for l := 0; l < s.Classes; l++ {
			p.Classes = append(p.Classes, "c"+strconv.Itoa(l))
		}
		eta := synth.PlantedEta(s.Classes, s.K, s.EtaScale, rng)
		for d, c := range synth.Classes(pl.ZBar, eta, rng) {
			truth[d] = float64(c)
		}
		p.TestBayes = bayesAccuracy(pl.ZBar[s.D:], eta)
	} else {
		eta := synth.PlantedEta(1, s.K, s.EtaScale, rng)[0]
		truth = synth.Targets(pl.ZBar, eta, s.Sigma2, rng)
	}
	byDoc := make([][]framework.Answer, s.D)
	for d := range byDoc {
		byDoc[d] = []framework.Answer{{Annotator: 0, Class: int32(truth[d]), Value: truth[d]}}
		if p.Kind == KindGaussian {
			byDoc[d][0].Class = 0
		}
	}
	p.Train = &framework.Corpus{V: s.V, Docs: all.Docs[:s.D], Answers: &framework.Answers{Annotators: []string{"truth"}, Classes: p.Classes, ByDoc: byDoc}}
	p.Test = &framework.Corpus{V: s.V, Docs: all.Docs[s.D:]}
	p.Truth, p.TestTruth = truth[:s.D], truth[s.D:]
	return p, nil
}

// NewClassCrowd draws a planted crowd of classifications (synth.NewCrowd:
// confusion-matrix annotators).
func NewClassCrowd(spec synth.CrowdSpec, seed uint64) (*Planted, error) {
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(seed, 0x636377)))
	if err != nil {
		return nil, fmt.Errorf("frameworktest: %w", err)
	}
	p := &Planted{Kind: KindCategorical, Train: cr.Train, Test: cr.Test, Classes: cr.Train.Answers.Classes}
	for _, c := range cr.Truth {
		p.Truth = append(p.Truth, float64(c))
	}
	for _, c := range cr.TestTruth {
		p.TestTruth = append(p.TestTruth, float64(c))
	}
	return p, nil
}

// ValueCrowd describes a planted crowd of numeric answers (MODEL.md §3's
// annotators): true values x_d ~ N(0, 1); annotator r answers
// x_d + b_r + N(0, 1/p_r), b_r ~ N(0, BiasSD²), p_r = Precisions[r];
// PerDoc distinct annotators per document, chosen uniformly.
type ValueCrowd struct {
	D, V       int
	DocLen     float64
	PerDoc     int
	Precisions []float64
	BiasSD     float64
}

// NewValueCrowd draws a planted crowd of numeric answers over a small LDA
// corpus (the documents carry no information about the truth).
func NewValueCrowd(s ValueCrowd, seed uint64) (*Planted, error) {
	if s.PerDoc < 1 || s.PerDoc > len(s.Precisions) {
		return nil, fmt.Errorf("%w: frameworktest: %d answers per document from %d annotators", framework.ErrBadInput, s.PerDoc, len(s.Precisions))
	}
	rng := rand.New(rand.NewPCG(seed, 0x766377))
	c, _, err := synth.LDA(synth.LDASpec{D: s.D, V: s.V, K: 2, DocLen: s.DocLen, Alpha: 0.2, TopicConc: 0.1}, rng)
	if err != nil {
		return nil, fmt.Errorf("frameworktest: %w", err)
	}
	R := len(s.Precisions)
	bias := make([]float64, R)
	workers := make([]string, R)
	for r := range bias {
		bias[r] = s.BiasSD * rng.NormFloat64()
		workers[r] = "a" + strconv.Itoa(r)
	}
	p := &Planted{Kind: KindGaussian, Test: &framework.Corpus{V: s.V}}
	byDoc := make([][]framework.Answer, s.D)
	for d := range byDoc {
		x := rng.NormFloat64()
		p.Truth = append(p.Truth, x)
		for _, r := range rng.Perm(R)[:s.PerDoc] {
			y := x + bias[r] + rng.NormFloat64()/math.Sqrt(s.Precisions[r])
			byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Value: y})
		}
	}
	c.Answers = &framework.Answers{Annotators: workers, ByDoc: byDoc}
	p.Train = c
	return p, nil
}

// LargestShare is the accuracy of always answering the class most frequent
// in train, on truth: the trivial baseline of a classifier.
func LargestShare(train, truth []float64) float64 {
	count := map[float64]int{}
	best := math.NaN()
	for _, c := range train {
		count[c]++
		if math.IsNaN(best) || count[c] > count[best] || (count[c] == count[best] && c < best) {
			best = c
		}
	}
	hits := 0
	for _, c := range truth {
		if c == best {
			hits++
		}
	}
	return float64(hits) / float64(max(len(truth), 1))
}

// MajorityVote is the accuracy on the training truth of the most frequent
// answer of each document (ties to the lowest class; no answer counts as
// wrong): the trivial baseline of truth inference.
func (p *Planted) MajorityVote() float64 {
	C := len(p.Classes)
	hits := 0
	votes := make([]int, C)
	for d, as := range p.Train.Answers.ByDoc {
		if len(as) == 0 {
			continue
		}
		clear(votes)
		for _, a := range as {
			votes[a.Class]++
		}
		best := 0
		for l, v := range votes {
			if v > votes[best] {
				best = l
			}
		}
		if float64(best) == p.Truth[d] {
			hits++
		}
	}
	return float64(hits) / float64(len(p.Truth))
}

// MeanAnswerRMSE is the root mean squared error of every training
// document's mean answer against its truth: the trivial baseline of truth
// inference for numeric answers.
func (p *Planted) MeanAnswerRMSE() float64 {
	est := make([]float64, len(p.Truth))
	for d, as := range p.Train.Answers.ByDoc {
		for _, a := range as {
			est[d] += a.Value / float64(len(as))
		}
	}
	return RMSE(est, p.Truth)
}

// RMSE is the root mean squared difference of a and b.
func RMSE(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}

// bayesAccuracy is the mean over documents of max_c Softmax(η z̄_d)_c: the
// expected accuracy of the classifier that knows η and each z̄_d, on
// classes drawn as synth.Classes draws them.
func bayesAccuracy(zbar, eta [][]float64) float64 {
	if len(zbar) == 0 {
		return 0
	}
	score := make([]float64, len(eta))
	acc := 0.0
	for _, z := range zbar {
		for l, row := range eta {
			score[l] = floats.Dot(row, z)
		}
		acc += math.Exp(floats.Max(score) - special.LogSumExp(score))
	}
	return acc / float64(len(zbar))
}
