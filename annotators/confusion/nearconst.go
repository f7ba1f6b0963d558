package confusion

import (
	"math"
	"slices"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/gonum/mathext"
)

// logPolya is the log probability of a sequence of answers with (soft)
// counts n under a Dirichlet–multinomial with parameter a (the Pólya urn):
//
//	log p(n | a) = N(a) − N(a + n),   N(a) = lnΓ(Σ_l a_l) − Σ_l lnΓ(a_l),
//
// the probability of the answers in any one order (no multinomial
// coefficient: the same sequence is scored by both hypotheses of
// independenceLogBF, so it would cancel).
func logPolya(n, a []float64) float64 {
	an := make([]float64, len(a))
	for l := range a {
		an[l] = a[l] + n[l]
	}
	return dirNorm(a) - dirNorm(an)
}

// independenceLogBF is log p(answers | H0) − log p(answers | H1) for one
// annotator whose answers are tallied against labels independent of them,
// counts[c*C+l] = the (soft) number of its answers l on documents labelled c:
//
//	H0 "ignores the item": every answer ~ Cat(φ), φ ~ Dir(ω·1), whatever c;
//	   p = Polya(Σ_c n_c | ω·1)
//	H1 "reads the item": an answer on a document of class c ~ Cat(π_c),
//	   π_c ~ Dir(prior row c);  p = Π_c Polya(n_c | prior_c)
//
// Positive: the answers are better explained as drawn from one
// distribution whatever the class (a Bayes factor with equal prior odds
// prefers H0). prior(c, l) is H1's Dirichlet entry.
func independenceLogBF(counts []float64, C int, omega float64, prior func(c, l int) float64) float64 {
	col := make([]float64, C)
	a := make([]float64, C)
	h1 := 0.0
	for c := range C {
		row := counts[c*C:][:C]
		for l, x := range row {
			col[l] += x
			a[l] = prior(c, l)
		}
		h1 += logPolya(row, a)
	}
	for l := range a {
		a[l] = omega
	}
	return logPolya(col, a) - h1
}

// binomialTail is P(X ≥ k) for X ~ Bin(n, p): the regularised incomplete
// beta function I_p(k, n − k + 1). 1 for k ≤ 0, 0 for k > n.
func binomialTail(n, k int, p float64) float64 {
	switch {
	case k <= 0 || p >= 1:
		return 1
	case k > n || p <= 0:
		return 0
	}
	return mathext.RegIncBeta(float64(k), float64(n-k+1), p)
}

// markAlmostConstant is the start's test of constant = "almost": counts
// (laid out as ξ, R×C×C, row c the label the start judged each answer
// against, column l the answer) are the start's tallies of every answer
// against a label independent of it (the classifier and, with start_labels
// = "others", the document's other answers); cls (R×C; nil: none) the
// classifier's labels of the documents each annotator answered. An
// annotator not yet ignored, with n ≥ 2 tallied answers of which k are its
// most frequent class v, is marked (its class v, returned in marks; −1 for
// the others) when all three of
//
//	C·P(Bin(n, f_v) ≥ k) < framework.ConstantChance,
//	    f_v = (max(Σ_l n_vl, m_v) + 1) / (n + C)
//	    (f_v the share of the documents it answered labelled v by the
//	    start's labels n or by the classifier's m, whichever is larger;
//	    the posterior mean under a uniform Dirichlet, so that two answers
//	    of a class its documents never had are not proof; C for choosing v
//	    after seeing the answers: a Bonferroni bound), and
//	k/n > max_c f_c,  and
//	independenceLogBF(its counts, ω, the fixed prior ω + diagonal·e_c) > 0.
//
// The first says it gives v more often than n answers drawn with its
// documents' label shares would; the second that it gives v more often
// than an annotator who gave every document the labels' most frequent
// class would give that class (without it a near-chance annotator whose
// barely modal class is its documents' minority label passes the first:
// family draw0's a3, 232 of 462 answers class 0 on documents a third of
// class 0). An annotator who gives each class about as often as its
// documents have it (a good one, even on very unequal classes, or one
// judged against labels that are all one class) passes neither. The third
// says its answers are better explained as drawn from one distribution
// whatever the label than as depending on it. The tests of concentration
// alone are not enough, nor the Bayes factor alone: against labels near
// chance every annotator looks independent, and an annotator can be
// concentrated because it is right about a class that most of its
// documents have. H1's rows are the
// fixed prior's whatever prior the model learns: a community fitted in the
// warm-up to near-constant members has rows that already say "this class
// whatever the class", and H1 under it wins by that head start (on family
// draw35 a7, 181 of 219 answers class 2 on documents labelled 2 or 3, had
// log BF −21.9 under its community's prior).
//
// The classifier's shares guard against start labels that miss how
// unequal the classes are: with start_labels = "others" on a crowd of
// noisy annotators the labels follow the crowd, which gives the rare
// class far more often than the truth has it, and a good annotator of
// the frequent class then looks concentrated beyond its documents' labels
// (family control draw9: 627 of 633 documents class 0; the two best
// annotators, 76% and 83% of their answers class 0, were marked against
// labels 73% class 0, and truth fell 0.943 → 0.646). The classifier,
// judged on the text, labelled them as the truth does. Its labels are
// not used for the independence test: fitted in the warm-up to a crowd
// with many near-constant answerers, they follow those answerers' class.
func (m *Model) markAlmostConstant(counts, cls []float64) []int32 {
	R, C := m.nr, m.nc
	var marks []int32
	col, f := make([]float64, C), make([]float64, C)
	for r := range R {
		if m.ignores(int32(r)) {
			continue
		}
		cnt := counts[r*C*C:][:C*C]
		clear(col)
		clear(f)
		n := 0.0
		for i, x := range cnt {
			col[i%C] += x
			f[i/C] += x
			n += x
		}
		if cls != nil {
			for c, x := range cls[r*C:][:C] {
				f[c] = max(f[c], x)
			}
		}
		ni := int(math.Round(n))
		if ni < 2 {
			continue
		}
		for c := range f {
			f[c] = (f[c] + 1) / (n + float64(C))
		}
		v := 0
		for l, x := range col {
			if x > col[v] {
				v = l
			}
		}
		k := int(math.Round(col[v]))
		if !(float64(C)*binomialTail(ni, k, f[v]) < framework.ConstantChance) {
			continue
		}
		// Concentrated beyond any class of its documents' labels: an
		// annotator who gave every document the labels' most frequent
		// class would give it that share; one near chance whose barely
		// modal class is the labels' minority class does not reach it.
		if top := slices.Max(f); !(float64(k)/n > top) {
			continue
		}
		if !(independenceLogBF(cnt, C, m.cfg.Omega, m.startPrior) > 0) {
			continue
		}
		if marks == nil {
			marks = make([]int32, R)
			for i := range marks {
				marks[i] = -1
			}
		}
		marks[r] = int32(v)
	}
	return marks
}
