package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// How wrong answers are spread over the other classes (CrowdSpec.Wrong).
const (
	WrongSymmetric  = "symmetric"  // 1 − accuracy spread evenly over the C − 1 wrong classes
	WrongAsymmetric = "asymmetric" // 1 − accuracy spread by a Dirichlet draw per row (uneven)
)

// How true labels follow from the topics (CrowdSpec.Labels).
const (
	LabelsSampled = "sampled" // c_d ~ Softmax(η z̄_d) (MODEL.md §2)
	LabelsArgmax  = "argmax"  // c_d = argmax_l η_l·z̄_d (a noiseless classifier)
)

// CrowdSpec describes a planted multi-annotator classification problem:
// an LDA corpus (MODEL.md §1), true classes from a planted C×K η on the
// documents' empirical topic frequencies z̄_d, and answers from simulated
// annotators with planted confusion matrices (MODEL.md §7).
type CrowdSpec struct {
	Name       string
	D, Test    int     // training and held-out documents
	V, K, C    int     // vocabulary, topics, classes
	DocLen     float64 // mean tokens per document (Poisson; at least 1)
	Alpha      float64 // Dirichlet concentration of θ_d
	TopicConc  float64 // Dirichlet concentration of β_k (0.05: separated topics; larger: overlapping)
	EtaScale   float64 // η_lk ~ N(0, EtaScale²)
	Labels     string  // LabelsSampled or LabelsArgmax
	Wrong      string  // WrongSymmetric or WrongAsymmetric
	WrongConc  float64 // Dirichlet concentration of the wrong answers of a row (asymmetric; 1 if 0)
	Accuracies []float64
	PerDoc     int // answers per document, from distinct annotators (≤ len(Accuracies))
	// Skew makes some annotators answer far more than others: annotator r
	// is chosen with weight (r+1)^(−Skew) (0: uniformly), as in real crowds.
	Skew float64
	// Difficulty ∈ [0, 1] gives each training item a difficulty δ_d ~
	// U(0, Difficulty): each of its answers is, with probability δ_d, a
	// uniformly random class instead of a draw from the annotator's
	// confusion row. It breaks the conditional independence the confusion
	// model assumes (answers to a hard item agree less), as real items do.
	Difficulty float64
}

// Crowd is a generated problem with the truth behind it.
type Crowd struct {
	Spec             CrowdSpec
	Train, Test      *framework.Corpus // Train has the answers; Test has none
	Truth, TestTruth []int
	Pis              [][][]float64 // planted confusion matrices: Pis[r][c][l] = p(answer l | true class c)
	Eta              [][]float64   // planted C×K response
	ZBar, TestZBar   [][]float64   // planted empirical topic frequencies
	Beta             [][]float64   // planted topics (K×V)
}

// Validate checks the spec; errors wrap framework.ErrBadInput.
func (s CrowdSpec) Validate() error {
	switch {
	case s.D < 1 || s.Test < 0 || s.V < 1 || s.K < 1 || s.C < 2:
		return fmt.Errorf("%w: synth.CrowdSpec %q: sizes D %d, test %d, V %d, K %d, C %d", framework.ErrBadInput, s.Name, s.D, s.Test, s.V, s.K, s.C)
	case !(s.DocLen >= 1) || !(s.Alpha > 0) || !(s.TopicConc > 0) || !(s.EtaScale >= 0) || s.WrongConc < 0:
		return fmt.Errorf("%w: synth.CrowdSpec %q: doc length %v, α %v, topic concentration %v, η scale %v, wrong concentration %v", framework.ErrBadInput, s.Name, s.DocLen, s.Alpha, s.TopicConc, s.EtaScale, s.WrongConc)
	case s.Labels != LabelsSampled && s.Labels != LabelsArgmax:
		return fmt.Errorf("%w: synth.CrowdSpec %q: labels %q, want %q or %q", framework.ErrBadInput, s.Name, s.Labels, LabelsSampled, LabelsArgmax)
	case s.Wrong != WrongSymmetric && s.Wrong != WrongAsymmetric:
		return fmt.Errorf("%w: synth.CrowdSpec %q: wrong %q, want %q or %q", framework.ErrBadInput, s.Name, s.Wrong, WrongSymmetric, WrongAsymmetric)
	case !(s.Skew >= 0) || !(s.Difficulty >= 0 && s.Difficulty <= 1):
		return fmt.Errorf("%w: synth.CrowdSpec %q: skew %v, difficulty %v", framework.ErrBadInput, s.Name, s.Skew, s.Difficulty)
	case len(s.Accuracies) == 0 || s.PerDoc < 1 || s.PerDoc > len(s.Accuracies):
		return fmt.Errorf("%w: synth.CrowdSpec %q: %d answers per document from %d annotators", framework.ErrBadInput, s.Name, s.PerDoc, len(s.Accuracies))
	}
	for r, a := range s.Accuracies {
		if !(a >= 0 && a <= 1) {
			return fmt.Errorf("%w: synth.CrowdSpec %q: annotator %d accuracy %v outside [0, 1]", framework.ErrBadInput, s.Name, r, a)
		}
	}
	return nil
}

// PaperAccuracies are the five simulated annotators of the paper's 20
// Newsgroups run (MODEL.md §7).
var PaperAccuracies = []float64{0.737, 0.468, 0.284, 0.278, 0.260}

// SpreadAccuracies returns n accuracies evenly spaced on [lo, hi].
func SpreadAccuracies(n int, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = (lo + hi) / 2
			continue
		}
		out[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return out
}

// CrowdBase is the one-answer regime of issue 12: 1,500 training documents
// of about 80 words, K 8, C 4, true labels sampled from the softmax, wrong
// answers spread unevenly, the paper's five annotators, one answer each.
func CrowdBase() CrowdSpec {
	return CrowdSpec{Name: "base", D: 1500, Test: 1500, V: 500, K: 8, C: 4, DocLen: 80, Alpha: 0.1, TopicConc: 0.05,
		EtaScale: 6, Labels: LabelsSampled, Wrong: WrongAsymmetric, WrongConc: 1,
		Accuracies: slices.Clone(PaperAccuracies), PerDoc: 1}
}

// CrowdFamily is the family of planted generators of issue 12, each a
// variation of CrowdBase in one respect (the last in two): symmetric wrong
// answers, argmax labels, short documents, overlapping topics, 2, 3 and 5
// answers per document, and short documents with many answers ("many":
// about 7 words, C 5, 20 answers per item from 100 annotators of
// accuracies 0.5–0.8 chosen with Zipf weights, mildly uneven wrong answers,
// item difficulties up to 0.4; majority vote about 0.96 as on a real crowd
// set of short texts).
func CrowdFamily() []CrowdSpec {
	base := CrowdBase()
	v := func(name string, f func(s *CrowdSpec)) CrowdSpec {
		s := base
		s.Accuracies = slices.Clone(base.Accuracies)
		s.Name = name
		f(&s)
		return s
	}
	return []CrowdSpec{
		base,
		v("symmetric", func(s *CrowdSpec) { s.Wrong = WrongSymmetric }),
		v("argmax", func(s *CrowdSpec) { s.Labels = LabelsArgmax }),
		v("short", func(s *CrowdSpec) { s.DocLen = 20 }),
		v("overlap", func(s *CrowdSpec) { s.TopicConc = 0.5 }),
		v("answers2", func(s *CrowdSpec) { s.PerDoc = 2 }),
		v("answers3", func(s *CrowdSpec) { s.PerDoc = 3 }),
		v("answers5", func(s *CrowdSpec) { s.PerDoc = 5 }),
		v("many", func(s *CrowdSpec) {
			s.D, s.Test, s.C, s.DocLen, s.PerDoc = 1000, 1000, 5, 7, 20
			s.Accuracies = SpreadAccuracies(100, 0.5, 0.8)
			s.WrongConc, s.Skew, s.Difficulty = 5, 1, 0.4
		}),
	}
}

// NewCrowd draws a problem from spec.
func NewCrowd(spec CrowdSpec, rng *rand.Rand) (*Crowd, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	all, pl, err := LDA(LDASpec{D: spec.D + spec.Test, V: spec.V, K: spec.K, DocLen: spec.DocLen, Alpha: spec.Alpha, TopicConc: spec.TopicConc}, rng)
	if err != nil {
		return nil, err
	}
	eta := PlantedEta(spec.C, spec.K, spec.EtaScale, rng)
	var classes []int
	if spec.Labels == LabelsSampled {
		classes = Classes(pl.ZBar, eta, rng)
	} else {
		classes = make([]int, len(pl.ZBar))
		for d, z := range pl.ZBar {
			classes[d] = argmaxScore(eta, z)
		}
	}
	pis := ConfusionMatrices(spec, rng)
	byDoc := SampleAnswers(classes[:spec.D], pis, spec, rng)
	names := make([]string, spec.C)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	workers := make([]string, len(pis))
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	cr := &Crowd{
		Spec:  spec,
		Train: &framework.Corpus{V: spec.V, Docs: all.Docs[:spec.D], Answers: &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}},
		Test:  &framework.Corpus{V: spec.V, Docs: all.Docs[spec.D:]},
		Truth: classes[:spec.D], TestTruth: classes[spec.D:],
		Pis: pis, Eta: eta, ZBar: pl.ZBar[:spec.D], TestZBar: pl.ZBar[spec.D:], Beta: pl.Beta,
	}
	return cr, nil
}

func argmaxScore(eta [][]float64, z []float64) int {
	best, bi := math.Inf(-1), 0
	for l, row := range eta {
		s := 0.0
		for k, x := range row {
			s += x * z[k]
		}
		if s > best {
			best, bi = s, l
		}
	}
	return bi
}

// ConfusionMatrices draws one C×C confusion matrix per accuracy of spec:
// the accuracy on the diagonal; the rest of each row spread evenly over
// the wrong classes (WrongSymmetric) or by a Dirichlet(WrongConc) draw
// over them (WrongAsymmetric).
func ConfusionMatrices(spec CrowdSpec, rng *rand.Rand) [][][]float64 {
	C := spec.C
	conc := spec.WrongConc
	if conc == 0 {
		conc = 1
	}
	w := make([]float64, C-1)
	pis := make([][][]float64, len(spec.Accuracies))
	for r, a := range spec.Accuracies {
		pis[r] = make([][]float64, C)
		for c := range pis[r] {
			row := make([]float64, C)
			if spec.Wrong == WrongAsymmetric {
				Dirichlet(w, conc, rng)
			} else {
				for i := range w {
					w[i] = 1 / float64(C-1)
				}
			}
			j := 0
			for l := range row {
				if l == c {
					row[l] = a
					continue
				}
				row[l] = (1 - a) * w[j]
				j++
			}
			pis[r][c] = row
		}
	}
	return pis
}

// SampleAnswers draws spec.PerDoc answers per document from distinct
// annotators, chosen with weights (r+1)^(−spec.Skew) without replacement;
// annotator r answers y ~ Cat(pis[r][truth_d]), or, with probability δ_d ~
// U(0, spec.Difficulty), a uniformly random class. A document's answers are
// ordered by annotator.
func SampleAnswers(truth []int, pis [][][]float64, spec CrowdSpec, rng *rand.Rand) [][]framework.Answer {
	R, C, perDoc := len(pis), len(pis[0]), spec.PerDoc
	weight := make([]float64, R)
	for r := range weight {
		weight[r] = math.Pow(float64(r+1), -spec.Skew)
	}
	w, perm := make([]float64, R), make([]int, R)
	for i := range perm {
		perm[i] = i
	}
	out := make([][]framework.Answer, len(truth))
	for d, c := range truth {
		delta := 0.0
		if spec.Difficulty > 0 {
			delta = spec.Difficulty * rng.Float64()
		}
		chosen := make([]int, 0, perDoc)
		if spec.Skew == 0 {
			// A partial Fisher–Yates shuffle: a uniform random subset.
			for i := 0; i < perDoc; i++ {
				j := i + rng.IntN(R-i)
				perm[i], perm[j] = perm[j], perm[i]
			}
			chosen = append(chosen, perm[:perDoc]...)
		} else {
			copy(w, weight)
			for range perDoc {
				pick := weightedPick(w, rng)
				chosen = append(chosen, pick)
				w[pick] = 0
			}
		}
		slices.Sort(chosen)
		as := make([]framework.Answer, perDoc)
		for i, r := range chosen {
			var y int
			if delta > 0 && rng.Float64() < delta {
				y = rng.IntN(C)
			} else {
				y = Categorical(pis[r][c], rng)
			}
			as[i] = framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)}
		}
		out[d] = as
	}
	return out
}

// Oracles of a planted problem: the class posterior of each training
// document with the planted confusion matrices, times a class prior.
//
//   - OracleCrowd: the prior is the training truth's class frequencies (the
//     best any method that ignores the documents can do: Dawid–Skene with
//     the true parameters).
//   - OracleFull: the prior is the planted response on the planted z̄_d,
//     Softmax(η z̄_d) (with LabelsArgmax a point mass on argmax η z̄_d, so
//     this oracle is then exact). It bounds what any model of words and
//     answers can infer.
const (
	OracleCrowd = "crowd"
	OracleFull  = "full"
)

// Posterior returns training document d's class posterior under the oracle
// kind (OracleCrowd or OracleFull).
func (cr *Crowd) Posterior(kind string, d int) []float64 {
	C := cr.Spec.C
	lp := make([]float64, C)
	switch kind {
	case OracleFull:
		if cr.Spec.Labels == LabelsArgmax {
			for l := range lp {
				lp[l] = math.Inf(-1)
			}
			lp[argmaxScore(cr.Eta, cr.ZBar[d])] = 0
			break
		}
		for l, row := range cr.Eta {
			for k, x := range row {
				lp[l] += x * cr.ZBar[d][k]
			}
		}
	default:
		n := make([]float64, C)
		for _, c := range cr.Truth {
			n[c]++
		}
		for l := range lp {
			lp[l] = math.Log((n[l] + 1) / (float64(len(cr.Truth)) + float64(C)))
		}
	}
	for _, a := range cr.Train.Answers.ByDoc[d] {
		for l := range lp {
			lp[l] += math.Log(cr.Pis[a.Annotator][l][a.Class])
		}
	}
	m := slices.Max(lp)
	s := 0.0
	for l := range lp {
		lp[l] = math.Exp(lp[l] - m)
		s += lp[l]
	}
	for l := range lp {
		lp[l] /= s
	}
	return lp
}

// OracleAccuracy is the share of training documents whose oracle posterior
// (kind OracleCrowd or OracleFull) has its maximum at the true class (ties:
// the first).
func (cr *Crowd) OracleAccuracy(kind string) float64 {
	right := 0
	for d := range cr.Truth {
		p := cr.Posterior(kind, d)
		if argmax(p) == cr.Truth[d] {
			right++
		}
	}
	return float64(right) / float64(len(cr.Truth))
}

// BayesHeldOut is the held-out accuracy of the planted response on the
// planted z̄ of the test documents, argmax_l η_l·z̄_d: the ceiling of any
// classifier of new documents that could see their topic frequencies.
func (cr *Crowd) BayesHeldOut() float64 {
	if len(cr.TestTruth) == 0 {
		return math.NaN()
	}
	right := 0
	for d, z := range cr.TestZBar {
		if argmaxScore(cr.Eta, z) == cr.TestTruth[d] {
			right++
		}
	}
	return float64(right) / float64(len(cr.TestTruth))
}

func argmax(p []float64) int {
	bi := 0
	for i, x := range p {
		if x > p[bi] {
			bi = i
		}
	}
	return bi
}
