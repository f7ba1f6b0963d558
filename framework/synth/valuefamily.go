package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
)

// ValueOutlier is the kind of a community of the value family whose
// members answer like good annotators but replace each answer, with the
// community's probability, by a uniform draw over the answers' range. The
// other kinds of ValueCommunity are CommunityGood (noise s.d. 0.1–0.5 of
// the target's s.d.), CommunityNoisy (0.5–2), CommunityUniform (answers
// uniform over the range) and CommunityConstant (each member always gives
// one value, drawn uniformly over the range).
const ValueOutlier = "outlier"

// ValueKinds lists the kinds of community of the value family, the good
// one first.
var ValueKinds = []string{CommunityGood, CommunityNoisy, ValueOutlier, CommunityUniform, CommunityConstant}

// ValueCommunity is a group of annotators of the value family. Each member
// answers y = x + b_r + ε, ε ~ N(0, s_r²), with s_r uniform in [NoiseLo,
// NoiseHi] (in units of the target's s.d.) and, for ValueOutlier, each
// answer replaced with probability Outlier by a uniform draw over the
// answers' range; uniform and constant spammers ignore the truth.
type ValueCommunity struct {
	Kind             string
	Share            float64 // share of the annotators
	NoiseLo, NoiseHi float64 // members' noise s.d., relative to the target's s.d. (good, noisy, outlier)
	Outlier          float64 // probability that an answer is an outlier (outlier)
}

// ValueFamilySpec is one draw of the randomised planted family of issue 25
// for regression (RandomValueFamily): a planted MA-sLDAr problem, every
// dimension drawn over a wide range.
type ValueFamilySpec struct {
	Name      string
	Seed      uint64  // the draw's own seed (the corpus and the crowd are drawn from it)
	D, Test   int     // training and held-out documents
	V, K      int     // vocabulary, planted topics
	ModelK    int     // the K a model of this draw is fitted with (≠ K in general)
	DocLen    float64 // mean tokens per document
	Alpha     float64 // Dirichlet concentration of θ_d
	TopicConc float64 // Dirichlet concentration of β_k (small: separated topics)
	EtaScale  float64 // η_k ~ N(0, EtaScale²) (before Scale)
	TextShare float64 // share of the target's variance η·z̄ explains: σ² = Var(η·z̄)(1 − TextShare)/TextShare
	Scale     float64 // every number (truth, η, σ, biases, noise, answers) multiplied by Scale
	R         int     // annotators
	Zipf      float64 // participation: annotator r answers with weight (rank+1)^(−Zipf)
	PerDoc    float64 // mean answers per item (each item 1 to R answers from distinct annotators)
	// BiasOffset and BiasSpread: b_r ~ N(BiasOffset, BiasSpread²), in units
	// of the target's s.d. (BiasOffset ≠ 0: the crowd is biased on average).
	BiasOffset, BiasSpread float64
	// Communities of annotators; the first is good.
	Communities []ValueCommunity
}

// String is a one-line summary of the draw's settings.
func (s ValueFamilySpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: D %d, V %d, K %d (model %d), %.0f words, α %.2g, topic conc %.2g, η %.2g, text share %.2f, scale %.3g, R %d, Zipf %.2f, %.1f answers/item, bias N(%+.2f, %.2f²) sd;",
		s.Name, s.D, s.V, s.K, s.ModelK, s.DocLen, s.Alpha, s.TopicConc, s.EtaScale, s.TextShare, s.Scale, s.R, s.Zipf, s.PerDoc, s.BiasOffset, s.BiasSpread)
	for _, c := range s.Communities {
		fmt.Fprintf(&b, " %s %.2f", c.Kind, c.Share)
		switch c.Kind {
		case CommunityGood, CommunityNoisy:
			fmt.Fprintf(&b, " (noise %.2f–%.2f)", c.NoiseLo, c.NoiseHi)
		case ValueOutlier:
			fmt.Fprintf(&b, " (noise %.2f–%.2f, outliers %.2f)", c.NoiseLo, c.NoiseHi, c.Outlier)
		}
	}
	return b.String()
}

// RandomValueFamily returns n draws of the randomised planted value
// family, draw i from seed base+i (the same n and base give the same
// draws). The ranges: D 100–1,000 documents (fewer when documents are
// long: about 150,000 tokens at most) plus 300 held out, 5–500 words each
// (log-uniform), V 200–5,000, planted K 3–20 and a model K from K/2 to 2K,
// θ's α 0.05–1, topic concentration 0.01–1, η_k ~ N(0, s²) with s
// 0.5–5, σ² such that the text explains 10–90% of the target's variance,
// a scale 0.1–100 on every number (real ratings come on 0–100 scales),
// 3–500 annotators with Zipf participation 0–1.5 over a random ranking,
// 1–20 answers per item on average, biases b_r ~ N(offset, spread²) with
// the offset 0 on a third of the draws and otherwise uniform in ±0.5 and
// the spread 0–1 (target s.d.s), and one to four communities: always a
// good one (35–100% of the annotators), then noisy, outlier-prone,
// uniform spammers or constant spammers.
func RandomValueFamily(n int, base uint64) []ValueFamilySpec {
	out := make([]ValueFamilySpec, n)
	for i := range out {
		out[i] = RandomValueFamilySpec(base+uint64(i), "draw"+strconv.Itoa(i))
	}
	return out
}

// RandomValueFamilySpec draws one member of the value family from seed.
func RandomValueFamilySpec(seed uint64, name string) ValueFamilySpec {
	rng := rand.New(rand.NewPCG(seed, 27))
	s := ValueFamilySpec{Name: name, Seed: seed}
	s.DocLen = math.Round(logUniform(5, 500, rng))
	s.D = min(100+rng.IntN(901), max(100, int(150000/s.DocLen)))
	s.Test = 300
	s.V = int(logUniform(200, 5000, rng))
	s.K = 3 + rng.IntN(18)
	s.ModelK = max(2, int(math.Round(logUniform(float64(s.K)/2, 2*float64(s.K), rng))))
	s.Alpha = logUniform(0.05, 1, rng)
	s.TopicConc = logUniform(0.01, 1, rng)
	s.EtaScale = logUniform(0.5, 5, rng)
	s.TextShare = 0.1 + 0.8*rng.Float64()
	s.Scale = logUniform(0.1, 100, rng)
	s.R = int(math.Round(logUniform(3, 500, rng)))
	s.Zipf = 1.5 * rng.Float64()
	s.PerDoc = math.Min(float64(s.R), logUniform(1, 20, rng))
	if rng.IntN(3) > 0 {
		s.BiasOffset = rng.Float64() - 0.5
	}
	s.BiasSpread = rng.Float64()
	kinds := []string{CommunityGood}
	others := slices.Clone(ValueKinds[1:])
	rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	kinds = append(kinds, others[:rng.IntN(4)]...)
	good := 0.35 + 0.65*rng.Float64()
	rest := make([]float64, len(kinds)-1)
	if len(rest) > 0 {
		Dirichlet(rest, 1, rng)
	}
	if len(kinds) == 1 {
		good = 1
	}
	for i, kind := range kinds {
		c := ValueCommunity{Kind: kind, Share: good}
		if i > 0 {
			c.Share = (1 - good) * rest[i-1]
		}
		lo, hi := 0.0, 0.0
		switch kind {
		case CommunityGood:
			lo, hi = 0.1, 0.5
		case CommunityNoisy:
			lo, hi = 0.5, 2
		case ValueOutlier:
			lo, hi = 0.1, 1
			c.Outlier = 0.05 + 0.25*rng.Float64()
		}
		if hi > 0 { // the members' range: a sub-interval of the kind's
			a, b := lo+(hi-lo)*rng.Float64(), lo+(hi-lo)*rng.Float64()
			c.NoiseLo, c.NoiseHi = min(a, b), max(a, b)
		}
		s.Communities = append(s.Communities, c)
	}
	return s
}

// ValueFamilyCrowd is a drawn member of the value family: the corpus, the
// planted truth, each annotator's community and planted parameters, and
// the answers (numeric: Answer.Class = −1, Answer.Value = y_dr).
type ValueFamilyCrowd struct {
	Family           ValueFamilySpec
	Train, Test      *framework.Corpus // Train has the answers; Test has none
	Truth, TestTruth []float64         // planted x_d
	Eta              []float64         // planted η (K numbers, scaled)
	Sigma2           float64           // planted σ² of x_d around η·z̄_d (scaled)
	ZBar, TestZBar   [][]float64       // planted empirical topic frequencies
	Beta             [][]float64       // planted topics (K×V)
	Community        []int             // each annotator's community
	// Bias and Prec are the planted b_r and p_r of each annotator's clean
	// answers (y = x + b_r + N(0, 1/p_r)); for spammers, who have none,
	// the moment-matched values of OracleBias and OraclePrec.
	Bias, Prec []float64
	// OutlierProb is each annotator's probability of an outlier (0 but
	// for ValueOutlier).
	OutlierProb []float64
	// OracleBias and OraclePrec are the Gaussian that matches the mean and
	// variance of y − x over all of r's answers, outliers or spam included,
	// with x drawn from N(mean, variance of the training truth): the
	// parameters OracleR2 uses. Equal to Bias and Prec for good and noisy
	// annotators.
	OracleBias, OraclePrec []float64
	// Lo and Hi are the answers' range: the training truth's range shifted
	// by the crowd's common offset; outliers and uniform spammers are
	// uniform over it, constant spammers pick their value in it.
	Lo, Hi float64
}

// NewValueFamilyCrowd draws the problem of spec from its seed.
func NewValueFamilyCrowd(spec ValueFamilySpec) (*ValueFamilyCrowd, error) {
	if spec.D < 1 || spec.Test < 0 || spec.V < 1 || spec.K < 1 || spec.R < 1 || !(spec.PerDoc >= 1) || len(spec.Communities) == 0 ||
		!(spec.TextShare > 0 && spec.TextShare <= 1) || !(spec.Scale > 0) || math.IsInf(spec.Scale, 0) || !(spec.EtaScale > 0) || !(spec.BiasSpread >= 0) {
		return nil, fmt.Errorf("%w: synth.ValueFamilySpec %q: D %d, test %d, V %d, K %d, R %d, %v answers per item, %d communities, text share %v, scale %v, η scale %v, bias spread %v",
			framework.ErrBadInput, spec.Name, spec.D, spec.Test, spec.V, spec.K, spec.R, spec.PerDoc, len(spec.Communities), spec.TextShare, spec.Scale, spec.EtaScale, spec.BiasSpread)
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 28))
	all, pl, err := LDA(LDASpec{D: spec.D + spec.Test, V: spec.V, K: spec.K, DocLen: spec.DocLen, Alpha: spec.Alpha, TopicConc: spec.TopicConc}, rng)
	if err != nil {
		return nil, err
	}
	// The truth, in raw units: η·z̄_d plus noise sized by the text share.
	eta := make([]float64, spec.K)
	for k := range eta {
		eta[k] = spec.EtaScale * rng.NormFloat64()
	}
	lin := make([]float64, len(pl.ZBar))
	for d, z := range pl.ZBar {
		for k, x := range z {
			lin[d] += eta[k] * x
		}
	}
	_, v := valueMeanVar(lin)
	v = max(v, 1e-12)
	sigma2 := v * (1 - spec.TextShare) / spec.TextShare
	sd := math.Sqrt(v + sigma2) // the target's s.d., the unit of biases and noise
	x := make([]float64, len(lin))
	for d := range x {
		x[d] = lin[d] + math.Sqrt(sigma2)*rng.NormFloat64()
	}
	train := x[:spec.D]
	mu, vx := valueMeanVar(train)
	lo, hi := slices.Min(train)+spec.BiasOffset*sd, slices.Max(train)+spec.BiasOffset*sd
	mU, vU := (lo+hi)/2, (hi-lo)*(hi-lo)/12
	// Annotators: communities by share, members drawn from them.
	shares := make([]float64, len(spec.Communities))
	for i, c := range spec.Communities {
		shares[i] = c.Share
	}
	fc := &ValueFamilyCrowd{Family: spec, Community: make([]int, spec.R), Bias: make([]float64, spec.R), Prec: make([]float64, spec.R),
		OutlierProb: make([]float64, spec.R), OracleBias: make([]float64, spec.R), OraclePrec: make([]float64, spec.R)}
	noise := make([]float64, spec.R)
	constant := make([]float64, spec.R)
	for r := range spec.R {
		m := Categorical(shares, rng)
		if r == 0 {
			m = 0 // at least one good annotator
		}
		fc.Community[r] = m
		com := spec.Communities[m]
		b := (spec.BiasOffset + spec.BiasSpread*rng.NormFloat64()) * sd
		s := (com.NoiseLo + (com.NoiseHi-com.NoiseLo)*rng.Float64()) * sd
		noise[r] = s
		switch com.Kind {
		case CommunityUniform:
			fc.OracleBias[r] = mU - mu
			fc.OraclePrec[r] = 1 / (vU + vx)
		case CommunityConstant:
			constant[r] = lo + (hi-lo)*rng.Float64()
			fc.OracleBias[r] = constant[r] - mu
			fc.OraclePrec[r] = 1 / vx
		case ValueOutlier:
			q := com.Outlier
			fc.OutlierProb[r] = q
			fc.Bias[r], fc.Prec[r] = b, 1/(s*s)
			mean := (1-q)*b + q*(mU-mu)
			second := (1-q)*(s*s+b*b) + q*(vU+vx+(mU-mu)*(mU-mu))
			fc.OracleBias[r] = mean
			fc.OraclePrec[r] = 1 / (second - mean*mean)
		default:
			fc.Bias[r], fc.Prec[r] = b, 1/(s*s)
			fc.OracleBias[r], fc.OraclePrec[r] = b, 1/(s*s)
		}
		if com.Kind == CommunityUniform || com.Kind == CommunityConstant {
			fc.Bias[r], fc.Prec[r] = fc.OracleBias[r], fc.OraclePrec[r]
		}
	}
	// Participation: Zipf weights over a random ranking of the annotators.
	rank := rng.Perm(spec.R)
	weight := make([]float64, spec.R)
	for r := range weight {
		weight[r] = math.Pow(float64(rank[r]+1), -spec.Zipf)
	}
	byDoc := make([][]framework.Answer, spec.D)
	w := make([]float64, spec.R)
	for d := range spec.D {
		n := int(math.Round(spec.PerDoc * (0.5 + rng.Float64())))
		n = min(max(n, 1), spec.R)
		copy(w, weight)
		chosen := make([]int, 0, n)
		for range n {
			r := weightedPick(w, rng)
			chosen = append(chosen, r)
			w[r] = 0
		}
		slices.Sort(chosen)
		as := make([]framework.Answer, n)
		for i, r := range chosen {
			var y float64
			switch spec.Communities[fc.Community[r]].Kind {
			case CommunityUniform:
				y = lo + (hi-lo)*rng.Float64()
			case CommunityConstant:
				y = constant[r]
			default:
				y = x[d] + fc.Bias[r] + noise[r]*rng.NormFloat64()
				if q := fc.OutlierProb[r]; q > 0 && rng.Float64() < q {
					y = lo + (hi-lo)*rng.Float64()
				}
			}
			as[i] = framework.Answer{Annotator: int32(r), Class: -1, Value: y * spec.Scale}
		}
		byDoc[d] = as
	}
	// Everything to the drawn scale.
	c, c2 := spec.Scale, spec.Scale*spec.Scale
	for i := range x {
		x[i] *= c
	}
	for k := range eta {
		eta[k] *= c
	}
	for r := range spec.R {
		fc.Bias[r] *= c
		fc.OracleBias[r] *= c
		fc.Prec[r] /= c2
		fc.OraclePrec[r] /= c2
	}
	workers := make([]string, spec.R)
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	fc.Train = &framework.Corpus{V: spec.V, Docs: all.Docs[:spec.D], Answers: &framework.Answers{Annotators: workers, ByDoc: byDoc}}
	fc.Test = &framework.Corpus{V: spec.V, Docs: all.Docs[spec.D:]}
	fc.Truth, fc.TestTruth = x[:spec.D], x[spec.D:]
	fc.Eta, fc.Sigma2 = eta, sigma2*c2
	fc.ZBar, fc.TestZBar, fc.Beta = pl.ZBar[:spec.D], pl.ZBar[spec.D:], pl.Beta
	fc.Lo, fc.Hi = lo*c, hi*c
	return fc, nil
}

// valueMeanVar is the mean and the (population) variance of x.
func valueMeanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x))
}

// ValueR2 is 1 − Σ(pred − truth)²/Σ(truth − mean truth)² (NaN without
// two distinct truths).
func ValueR2(pred, truth []float64) float64 {
	_, v := valueMeanVar(truth)
	if !(v > 0) {
		return math.NaN()
	}
	ss := 0.0
	for i, x := range truth {
		ss += (pred[i] - x) * (pred[i] - x)
	}
	return 1 - ss/(v*float64(len(truth)))
}

// MeanAnswers is each training item's mean answer (NaN without answers).
func (fc *ValueFamilyCrowd) MeanAnswers() []float64 {
	out := make([]float64, len(fc.Truth))
	for d, as := range fc.Train.Answers.ByDoc {
		out[d] = math.NaN()
		if len(as) == 0 {
			continue
		}
		s := 0.0
		for _, a := range as {
			s += a.Value
		}
		out[d] = s / float64(len(as))
	}
	return out
}

// MeanAnswer is the R² of the per-item mean answer against the planted
// truth, over the training items with answers.
func (fc *ValueFamilyCrowd) MeanAnswer() float64 {
	var pred, truth []float64
	for d, m := range fc.MeanAnswers() {
		if !math.IsNaN(m) {
			pred, truth = append(pred, m), append(truth, fc.Truth[d])
		}
	}
	return ValueR2(pred, truth)
}

// OracleMeans is each training item's oracle estimate of x_d: the
// posterior mean under the prior N(mean, variance of the training truth)
// and answers y ~ N(x + OracleBias_r, 1/OraclePrec_r), i.e. the
// precision-weighted mean of the prior mean and the y − b_r. With text,
// the prior is the planted response on the planted z̄_d, N(η·z̄_d, σ²),
// instead.
//
// The oracle is exact for good and noisy annotators only. Outliers and
// spammers are summarised by a Gaussian matched to the mean and variance of
// their y − x (OracleBias, OraclePrec); their errors are neither Gaussian
// nor independent of x, so the oracle is then approximate: a robust
// estimator that recognises outliers, or one that knows a spammer's answer
// says nothing about x, can beat it (a constant spammer counts as one more
// copy of the prior, which is harmless; a uniform spammer as a weak
// noisy annotator).
func (fc *ValueFamilyCrowd) OracleMeans(text bool) []float64 {
	mu, vx := valueMeanVar(fc.Truth)
	out := make([]float64, len(fc.Truth))
	for d, as := range fc.Train.Answers.ByDoc {
		m, p := mu, 1/vx
		if text {
			m, p = 0, 1/fc.Sigma2
			for k, z := range fc.ZBar[d] {
				m += fc.Eta[k] * z
			}
		}
		pm := p * m
		for _, a := range as {
			pm += fc.OraclePrec[a.Annotator] * (a.Value - fc.OracleBias[a.Annotator])
			p += fc.OraclePrec[a.Annotator]
		}
		out[d] = pm / p
	}
	return out
}

// OracleR2 is the R² of the crowd oracle (OracleMeans without text: the
// planted biases and precisions and the truth's mean and variance, the
// best a method that ignores the documents can do, up to the outliers and
// spammers its doc comment describes) against the planted truth.
func (fc *ValueFamilyCrowd) OracleR2() float64 { return ValueR2(fc.OracleMeans(false), fc.Truth) }

// OracleTextR2 is the R² of the oracle that also knows the planted
// response and z̄_d (OracleMeans with text): roughly what a model of the
// words and the answers could reach.
func (fc *ValueFamilyCrowd) OracleTextR2() float64 { return ValueR2(fc.OracleMeans(true), fc.Truth) }

// AnswerOffset is the answer-weighted mean of the annotators' OracleBias:
// the offset of the mean answer from the truth, which neither the mean
// answer nor MA-sLDAr (bias_anchor = "mean") can remove.
func (fc *ValueFamilyCrowd) AnswerOffset() float64 {
	s, n := 0.0, 0
	for _, as := range fc.Train.Answers.ByDoc {
		for _, a := range as {
			s += fc.OracleBias[a.Annotator]
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}
