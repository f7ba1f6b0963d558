package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/stat/distuv"
)

// Kinds of annotator community in the randomised family (Community.Kind).
const (
	CommunityGood        = "good"        // accuracy 0.5–0.95
	CommunityNoisy       = "noisy"       // accuracy from chance to 0.6
	CommunityBelowChance = "below"       // accuracy below chance, wrong answers uneven
	CommunityAdversarial = "adversarial" // a derangement σ of the classes: c answered σ(c) with probability 0.5–0.9
	CommunityUniform     = "uniform"     // answers uniformly at random
	CommunityConstant    = "constant"    // answers (almost) always one class
)

// CommunityKinds lists the kinds of community, the good one first.
var CommunityKinds = []string{CommunityGood, CommunityNoisy, CommunityBelowChance, CommunityAdversarial, CommunityUniform, CommunityConstant}

// Community is a group of annotators sharing a confusion matrix: each
// member's row c is drawn from Dirichlet(Spread·Pi[c] + 0.01) around the
// community's row (Spread large: members alike).
type Community struct {
	Kind   string
	Share  float64     // share of the annotators
	Spread float64     // concentration of members around Pi
	Pi     [][]float64 // the community's C×C confusion matrix
}

// FamilySpec is one draw of the randomised planted family of issue 25
// (RandomFamily): every dimension of a planted MA-sLDAc problem drawn over
// a wide range instead of one factor varied around one base.
type FamilySpec struct {
	Name       string
	Seed       uint64  // the draw's own seed (the crowd is drawn from it)
	D, Test    int     // training and held-out documents
	V, K, C    int     // vocabulary, planted topics, classes
	ModelK     int     // the K a model of this draw is fitted with (≠ K in general)
	DocLen     float64 // mean tokens per document
	Alpha      float64 // Dirichlet concentration of θ_d
	TopicConc  float64 // Dirichlet concentration of β_k (small: separated topics)
	EtaScale   float64 // η_lk ~ N(0, EtaScale²)
	ClassConc  float64 // class balance: intercepts log p, p ~ Dirichlet(ClassConc) (small: very unequal)
	Labels     string  // LabelsSampled or LabelsArgmax
	WrongConc  float64 // Dirichlet concentration of a good or noisy row's wrong answers (0: symmetric)
	R          int     // annotators
	Zipf       float64 // participation: annotator r answers with weight (rank+1)^(−Zipf)
	PerDoc     float64 // mean answers per item (each item 1 to R answers from distinct annotators)
	Difficulty float64 // item difficulty δ_d ~ U(0, Difficulty): an answer is uniform with probability δ_d
	// Decoy makes an item's hard answers (probability δ_d each) its decoy
	// class instead of a uniformly random one: a class other than its
	// truth, drawn once per item from its class's confusable classes
	// (Dirichlet(0.5) over the others, drawn once per draw), so that the
	// errors on a hard item agree across annotators, as on the ambiguous
	// items of real crowds, and no per-annotator matrix explains them.
	Decoy bool
	// Communities of annotators; the first is good.
	Communities []Community
}

// String is a one-line summary of the draw's settings.
func (s FamilySpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: D %d, V %d, K %d (model %d), C %d, %.0f words, α %.2g, topic conc %.2g, η %.1f, class conc %.2g, %s labels, wrong conc %.2g, R %d, Zipf %.2f, %.1f answers/item, difficulty %.2f;",
		s.Name, s.D, s.V, s.K, s.ModelK, s.C, s.DocLen, s.Alpha, s.TopicConc, s.EtaScale, s.ClassConc, s.Labels, s.WrongConc, s.R, s.Zipf, s.PerDoc, s.Difficulty)
	if s.Decoy {
		b.WriteString(" (decoys)")
	}
	for _, c := range s.Communities {
		fmt.Fprintf(&b, " %s %.2f (diag %.2f, spread %.0f)", c.Kind, c.Share, meanDiag(c.Pi), c.Spread)
	}
	return b.String()
}

func meanDiag(pi [][]float64) float64 {
	s := 0.0
	for c := range pi {
		s += pi[c][c]
	}
	return s / float64(len(pi))
}

// logUniform draws from [lo, hi] uniformly in log scale.
func logUniform(lo, hi float64, rng *rand.Rand) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// RandomFamily returns n draws of the randomised planted family, draw i
// from seed base+i (the same n and base give the same draws). The ranges:
// D 200–1,000 documents (fewer when documents are long: about 150,000
// tokens at most), 5–500 words each (log-uniform), V 200–5,000, planted K
// 3–20 and a model K from K/2 to 2K, C 2–8, θ's α 0.05–1, topic
// concentration 0.01–1 (separated to overlapping), η scale 1–10, class
// balance Dirichlet 0.3–50 (very unequal to even), labels sampled or
// argmax, wrong answers Dirichlet 0.3–10 or symmetric, 3–500 annotators
// with Zipf participation 0–1.5, 1–20 answers per item, item difficulty
// up to 0.6 on half the draws, and one to four communities: always good
// ones (35–100% of the annotators), then noisy, below-chance,
// adversarial, uniform spammers or constant spammers.
func RandomFamily(n int, base uint64) []FamilySpec {
	out := make([]FamilySpec, n)
	for i := range out {
		out[i] = RandomFamilySpec(base+uint64(i), "draw"+strconv.Itoa(i))
	}
	return out
}

// RandomCrowdedFamily returns n draws of the crowded family, draw i from
// seed base+i: the shapes of crowds with many answers per item and little
// text per document (short texts rated by many workers, e.g. tweets or
// sentences with 5–20 answers each), where majority vote is hard to beat.
// Each draw is RandomFamilySpec(base+i) with these dimensions drawn again
// (from a stream of their own): 500–1,000 documents of 5–30 words
// (log-uniform), 30–300 annotators (log-uniform), 5–20 answers per item,
// item difficulty up to 0.6 on every draw, and on half the draws decoys
// (FamilySpec.Decoy: the errors on a hard item agree across annotators).
// Every other dimension (topics, classes, balance, communities) keeps the
// family's ranges.
func RandomCrowdedFamily(n int, base uint64) []FamilySpec {
	out := make([]FamilySpec, n)
	for i := range out {
		seed := base + uint64(i)
		s := RandomFamilySpec(seed, "crowded"+strconv.Itoa(i))
		rng := rand.New(rand.NewPCG(seed, 28))
		s.DocLen = math.Round(logUniform(5, 30, rng))
		s.D = 500 + rng.IntN(501)
		s.R = int(math.Round(logUniform(30, 300, rng)))
		s.PerDoc = min(float64(s.R), 5+15*rng.Float64())
		s.Difficulty = 0.6 * rng.Float64()
		s.Decoy = rng.IntN(2) == 1
		out[i] = s
	}
	return out
}

// RandomFamilySpec draws one member of the family from seed.
func RandomFamilySpec(seed uint64, name string) FamilySpec {
	rng := rand.New(rand.NewPCG(seed, 25))
	s := FamilySpec{Name: name, Seed: seed}
	s.DocLen = math.Round(logUniform(5, 500, rng))
	s.D = min(200+rng.IntN(801), max(200, int(150000/s.DocLen)))
	s.Test = 300
	s.V = int(logUniform(200, 5000, rng))
	s.K = 3 + rng.IntN(18)
	s.ModelK = max(2, int(math.Round(logUniform(float64(s.K)/2, 2*float64(s.K), rng))))
	s.C = 2 + rng.IntN(7)
	s.Alpha = logUniform(0.05, 1, rng)
	s.TopicConc = logUniform(0.01, 1, rng)
	s.EtaScale = 1 + 9*rng.Float64()
	s.ClassConc = logUniform(0.3, 50, rng)
	s.Labels = LabelsSampled
	if rng.IntN(2) == 1 {
		s.Labels = LabelsArgmax
	}
	if rng.IntN(3) > 0 {
		s.WrongConc = logUniform(0.3, 10, rng)
	}
	s.R = int(math.Round(logUniform(3, 500, rng)))
	s.Zipf = 1.5 * rng.Float64()
	s.PerDoc = math.Min(float64(s.R), logUniform(1, 20, rng))
	if rng.IntN(2) == 1 {
		s.Difficulty = 0.6 * rng.Float64()
	}
	// Communities: good first, then up to three other kinds.
	kinds := []string{CommunityGood}
	others := slices.Clone(CommunityKinds[1:])
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
		share := good
		if i > 0 {
			share = (1 - good) * rest[i-1]
		}
		s.Communities = append(s.Communities, Community{Kind: kind, Share: share, Spread: logUniform(5, 200, rng), Pi: communityMatrix(kind, s.C, s.WrongConc, rng)})
	}
	return s
}

// communityMatrix draws a community's confusion matrix of the given kind.
func communityMatrix(kind string, C int, wrongConc float64, rng *rand.Rand) [][]float64 {
	pi := make([][]float64, C)
	chance := 1 / float64(C)
	wrong := func(row []float64, c int, mass float64) {
		w := make([]float64, C-1)
		if wrongConc > 0 {
			Dirichlet(w, wrongConc, rng)
		} else {
			for i := range w {
				w[i] = 1 / float64(C-1)
			}
		}
		j := 0
		for l := range row {
			if l != c {
				row[l] += mass * w[j]
				j++
			}
		}
	}
	var perm []int
	if kind == CommunityAdversarial { // a derangement: a cyclic shift of a random order
		order := rng.Perm(C)
		perm = make([]int, C)
		for i, c := range order {
			perm[c] = order[(i+1)%C]
		}
	}
	constant := rng.IntN(C)
	for c := range pi {
		row := make([]float64, C)
		switch kind {
		case CommunityGood:
			a := 0.5 + 0.45*rng.Float64()
			row[c] = a
			wrong(row, c, 1-a)
		case CommunityNoisy:
			a := chance + (0.6-chance)*rng.Float64()
			a = max(a, chance)
			row[c] = a
			wrong(row, c, 1-a)
		case CommunityBelowChance:
			a := chance * rng.Float64()
			row[c] = a
			w := make([]float64, C-1)
			Dirichlet(w, 0.5, rng) // uneven, so that the wrong answers are informative
			j := 0
			for l := range row {
				if l != c {
					row[l] += (1 - a) * w[j]
					j++
				}
			}
		case CommunityAdversarial:
			a := 0.5 + 0.4*rng.Float64()
			row[perm[c]] = a
			rest := (1 - a) / float64(C-1)
			for l := range row {
				if l != perm[c] {
					row[l] += rest
				}
			}
		case CommunityUniform:
			for l := range row {
				row[l] = chance
			}
		case CommunityConstant:
			for l := range row {
				row[l] = 0.05 / float64(C)
			}
			row[constant] += 0.95
		}
		pi[c] = row
	}
	return pi
}

// FamilyCrowd is a drawn member of the randomised family: the problem,
// each annotator's community and planted matrix. Its Crowd's Pis are the
// matrices an oracle should know: each annotator's planted matrix mixed
// with the uniform answers of item difficulty, (1 − Difficulty/2)·π_r +
// Difficulty/(2C), the marginal p(answer | class, annotator).
type FamilyCrowd struct {
	*Crowd
	Family    FamilySpec
	Community []int         // each annotator's community
	Planted   [][][]float64 // each annotator's planted matrix before difficulty
}

// NewFamilyCrowd draws the problem of spec from its seed.
func NewFamilyCrowd(spec FamilySpec) (*FamilyCrowd, error) {
	if spec.D < 1 || spec.Test < 0 || spec.V < 1 || spec.K < 1 || spec.C < 2 || spec.R < 1 || !(spec.PerDoc >= 1) || len(spec.Communities) == 0 {
		return nil, fmt.Errorf("%w: synth.FamilySpec %q: D %d, test %d, V %d, K %d, C %d, R %d, %v answers per item, %d communities",
			framework.ErrBadInput, spec.Name, spec.D, spec.Test, spec.V, spec.K, spec.C, spec.R, spec.PerDoc, len(spec.Communities))
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 26))
	all, pl, err := LDA(LDASpec{D: spec.D + spec.Test, V: spec.V, K: spec.K, DocLen: spec.DocLen, Alpha: spec.Alpha, TopicConc: spec.TopicConc}, rng)
	if err != nil {
		return nil, err
	}
	eta := PlantedEta(spec.C, spec.K, spec.EtaScale, rng)
	prior := make([]float64, spec.C)
	Dirichlet(prior, spec.ClassConc, rng)
	for l := range eta { // z̄ sums to 1, so adding log p_l to every η_lk is an intercept
		b := math.Log(max(prior[l], 1e-6))
		for k := range eta[l] {
			eta[l][k] += b
		}
	}
	var classes []int
	if spec.Labels == LabelsArgmax {
		classes = make([]int, len(pl.ZBar))
		for d, z := range pl.ZBar {
			classes[d] = argmaxScore(eta, z)
		}
	} else {
		classes = Classes(pl.ZBar, eta, rng)
	}
	// Annotators: communities by share, members drawn around them.
	shares := make([]float64, len(spec.Communities))
	for i, c := range spec.Communities {
		shares[i] = c.Share
	}
	// Decoys come from a stream of their own, so that a draw without them
	// is the same draw as before they existed.
	var confusable [][]float64 // confusable[c][l]: the share of class c's items whose decoy is l
	var decoy []int
	if spec.Decoy {
		drng := rand.New(rand.NewPCG(spec.Seed, 27))
		confusable = make([][]float64, spec.C)
		w := make([]float64, spec.C-1)
		for c := range confusable {
			Dirichlet(w, 0.5, drng)
			confusable[c] = make([]float64, spec.C)
			j := 0
			for l := range spec.C {
				if l != c {
					confusable[c][l] = w[j]
					j++
				}
			}
		}
		decoy = make([]int, spec.D)
		for d := range decoy {
			decoy[d] = Categorical(confusable[classes[d]], drng)
		}
	}
	fc := &FamilyCrowd{Family: spec, Community: make([]int, spec.R), Planted: make([][][]float64, spec.R)}
	eff := make([][][]float64, spec.R)
	mix := spec.Difficulty / 2
	for r := range spec.R {
		m := Categorical(shares, rng)
		if r == 0 {
			m = 0 // at least one good annotator
		}
		fc.Community[r] = m
		com := spec.Communities[m]
		fc.Planted[r] = make([][]float64, spec.C)
		eff[r] = make([][]float64, spec.C)
		for c := range spec.C {
			a := make([]float64, spec.C)
			for l := range a {
				a[l] = com.Spread*com.Pi[c][l] + 0.01
			}
			row := make([]float64, spec.C)
			dirichletVec(row, a, rng)
			fc.Planted[r][c] = row
			e := make([]float64, spec.C)
			for l := range e {
				if spec.Decoy {
					e[l] = (1-mix)*row[l] + mix*confusable[c][l]
				} else {
					e[l] = (1-mix)*row[l] + mix/float64(spec.C)
				}
			}
			eff[r][c] = e
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
		delta := spec.Difficulty * rng.Float64()
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
			y := Categorical(fc.Planted[r][classes[d]], rng)
			if delta > 0 && rng.Float64() < delta {
				if spec.Decoy {
					y = decoy[d]
				} else {
					y = rng.IntN(spec.C)
				}
			}
			as[i] = framework.Answer{Annotator: int32(r), Class: int32(y), Value: float64(y)}
		}
		byDoc[d] = as
	}
	names := make([]string, spec.C)
	for i := range names {
		names[i] = "c" + strconv.Itoa(i)
	}
	workers := make([]string, spec.R)
	for i := range workers {
		workers[i] = "a" + strconv.Itoa(i)
	}
	fc.Crowd = &Crowd{
		Spec:  CrowdSpec{Name: spec.Name, D: spec.D, Test: spec.Test, V: spec.V, K: spec.K, C: spec.C, DocLen: spec.DocLen, Alpha: spec.Alpha, TopicConc: spec.TopicConc, EtaScale: spec.EtaScale, Labels: spec.Labels, Difficulty: spec.Difficulty},
		Train: &framework.Corpus{V: spec.V, Docs: all.Docs[:spec.D], Answers: &framework.Answers{Annotators: workers, Classes: names, ByDoc: byDoc}},
		Test:  &framework.Corpus{V: spec.V, Docs: all.Docs[spec.D:]},
		Truth: classes[:spec.D], TestTruth: classes[spec.D:],
		Pis: eff, Eta: eta, ZBar: pl.ZBar[:spec.D], TestZBar: pl.ZBar[spec.D:], Beta: pl.Beta,
	}
	return fc, nil
}

// weightedPick draws an index with probability proportional to w (some
// weight positive).
func weightedPick(w []float64, rng *rand.Rand) int {
	s := 0.0
	for _, x := range w {
		s += x
	}
	u, acc, pick := rng.Float64()*s, 0.0, -1
	for r, x := range w {
		if x == 0 {
			continue
		}
		acc += x
		pick = r
		if u < acc {
			break
		}
	}
	return pick
}

// dirichletVec fills dst with a draw from Dirichlet(a).
func dirichletVec(dst, a []float64, rng *rand.Rand) {
	s := 0.0
	for i := range dst {
		dst[i] = distuv.Gamma{Alpha: a[i], Beta: 1, Src: rng}.Rand()
		s += dst[i]
	}
	if !(s > 0) {
		clear(dst)
		dst[Categorical(normalised(a), rng)] = 1
		return
	}
	for i := range dst {
		dst[i] /= s
	}
}

func normalised(a []float64) []float64 {
	out := slices.Clone(a)
	s := 0.0
	for _, x := range a {
		s += x
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// MajorityVote is the expected accuracy of majority vote on the training
// documents, ties split uniformly.
func (cr *Crowd) MajorityVote() float64 {
	votes := make([]float64, cr.Spec.C)
	s := 0.0
	for d, as := range cr.Train.Answers.ByDoc {
		clear(votes)
		for _, a := range as {
			votes[a.Class]++
		}
		top := slices.Max(votes)
		ties := 0.0
		for _, v := range votes {
			if v == top {
				ties++
			}
		}
		if votes[cr.Truth[d]] == top {
			s += 1 / ties
		}
	}
	return s / float64(len(cr.Truth))
}

// Agreement is the share of the training answers equal to the planted
// class, and the largest share over every relabelling σ of the classes
// (answers equal to σ(planted class)), with that σ. The likelihood of a
// crowd model (Dawid–Skene's, MA-sLDAc's) is the same under any
// relabelling of the true classes (permute the class prior, the confusion
// rows and the response's classes together); only a prior that annotators
// are better than chance breaks the tie, and it favours the labelling the
// answers agree with most. When best > planted (best[σ] with σ ≠ the
// identity), no method that assumes annotators better than chance on
// average should be expected to find the planted labelling, and one that
// does owes it to an asymmetry it was not built on (its start, or a
// constant spammer). C ≤ 9 (every permutation is tried); larger C
// returns NaN for best.
func (cr *Crowd) Agreement() (planted, best float64, sigma []int) {
	C := cr.Spec.C
	n := make([][]float64, C) // n[c][y]: answers y on documents of class c
	for c := range n {
		n[c] = make([]float64, C)
	}
	tot := 0.0
	for d, as := range cr.Train.Answers.ByDoc {
		for _, a := range as {
			n[cr.Truth[d]][a.Class]++
			tot++
		}
	}
	if tot == 0 {
		return math.NaN(), math.NaN(), nil
	}
	for c := range C {
		planted += n[c][c]
	}
	planted /= tot
	if C > 9 {
		return planted, math.NaN(), nil
	}
	perm := make([]int, C)
	for i := range perm {
		perm[i] = i
	}
	best = -1
	var rec func(k int, s float64)
	rec = func(k int, s float64) {
		if k == C {
			if s > best {
				best, sigma = s, slices.Clone(perm)
			}
			return
		}
		for i := k; i < C; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k+1, s+n[k][perm[k]])
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0, 0)
	return planted, best / tot, sigma
}
