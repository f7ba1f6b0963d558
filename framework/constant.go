package framework

import "math"

// ConstantChance is the chance below which ConstantAnnotators calls an
// annotator's identical answers deliberate rather than a coincidence.
const ConstantChance = 0.01

// ConstantAnnotators reports, for each of R annotators, whether it gave one
// and the same answer to every document it answered (Answer.Value, which is
// the class index for categorical answers), at least twice, where the
// crowd's answers make such a run unlikely by chance:
//
//	Σ_v f_v^n < chance,   f_v = the share of all answers equal to v,
//
// n the annotator's number of answers (the chance that n answers drawn
// from the crowd's answers all agree). Such an annotator's answers do not
// depend on the document, so they cannot say which document has which
// target: a model that reads them as noisy measurements of the target
// (y = x + b + noise, or a confusion matrix with a diagonal prior) is
// pulled towards a flat target that it can then explain perfectly.
// Annotators with non-finite answers or indices outside [0, R) are never
// flagged (the models' own checks report them). The result has length R.
func (a *Answers) ConstantAnnotators(R int, chance float64) []bool {
	flag := make([]bool, R)
	if R <= 0 {
		return flag
	}
	first := make([]float64, R)
	n := make([]int, R)
	same := make([]bool, R)
	count := map[float64]int{}
	total := 0
	for _, as := range a.ByDoc {
		for _, x := range as {
			r := x.Annotator
			if r < 0 || int(r) >= R || math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
				continue
			}
			v := x.Value
			if v == 0 {
				v = 0 // −0 and +0 are one answer
			}
			count[v]++
			total++
			if n[r] == 0 {
				first[r], same[r] = v, true
			} else if v != first[r] {
				same[r] = false
			}
			n[r]++
		}
	}
	if total == 0 {
		return flag
	}
	for r := range flag {
		if n[r] < 2 || !same[r] {
			continue
		}
		p := 0.0
		for _, c := range count {
			p += math.Pow(float64(c)/float64(total), float64(n[r]))
		}
		flag[r] = p < chance
	}
	return flag
}
