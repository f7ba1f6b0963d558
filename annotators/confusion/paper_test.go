package confusion

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/maslda/maslda/framework"
)

// simulate draws D uniform true classes and perDoc answers per document
// from annotators with the given accuracies (FromAccuracies, C classes).
func simulate(t testing.TB, seed uint64, D, C, perDoc int, acc []float64) ([]int, [][][]float64, [][]framework.Answer) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
	}
	pis, err := FromAccuracies(acc, C)
	if err != nil {
		t.Fatal(err)
	}
	byDoc, err := Sample(truth, pis, perDoc, rng)
	if err != nil {
		t.Fatal(err)
	}
	return truth, pis, byDoc
}

func argmaxAccuracy(lams [][]float64, truth []int) float64 {
	ok := 0.0
	for d, l := range lams {
		best := 0
		for c := range l {
			if l[c] > l[best] {
				best = c
			}
		}
		if best == truth[d] {
			ok++
		}
	}
	return ok / float64(len(truth))
}

func dist(m *Model, pis [][][]float64) float64 {
	s, n := 0.0, 0
	for r := range pis {
		e := m.Mean(r)
		for c := range e {
			for l := range e[c] {
				s += math.Abs(e[c][l] - pis[r][c][l])
				n++
			}
		}
	}
	return s / float64(n)
}

// TestDawidSkenePaperAnnotators: MODEL.md §7's five 20 Newsgroups
// annotators (accuracies 0.737, 0.468, 0.284, 0.278, 0.260; C = 4) with 3
// answers per document, truth inference alone (a flat class prior). Three
// annotators are within 0.035 of chance, so the full confusion matrices
// are weakly identified: at D = 2000 the maximum-likelihood matrices
// (checked with an independent point-estimate EM) have a higher likelihood
// than the planted ones and merge the two informative annotators. At D =
// 4000, over seeds 1–10, Dawid–Skene beat majority vote by 0.091 to 0.135
// and recovered the matrices to 0.043–0.061 mean absolute difference per
// entry, 300–800 iterations. The bounds below leave room for that spread.
func TestDawidSkenePaperAnnotators(t *testing.T) {
	const D, C = 4000, 4
	truth, pis, byDoc := simulate(t, 1, D, C, 3, []float64{0.737, 0.468, 0.284, 0.278, 0.260})
	m := newModel(t, Defaults(), 5, C, byDoc)
	var (
		trace []float64
		lams  [][]float64
	)
	for len(trace) < 2000 {
		tr, l := ds(t, m, byDoc, 10)
		trace, lams = append(trace, tr...), l
		if n := len(trace); n > 10 && math.Abs(trace[n-1]-trace[n-11]) < 1e-8*math.Abs(trace[n-1]) {
			break
		}
	}
	checkMonotone(t, trace)
	mv := make([]float64, C)
	mvAcc := 0.0
	for d, as := range byDoc {
		MajorityVote(mv, as)
		mvAcc += mv[truth[d]] / D
	}
	acc, dd := argmaxAccuracy(lams, truth), dist(m, pis)
	t.Logf("%d iterations: majority vote %.4f, inferred %.4f, mean |E[π] − π| %.4f", len(trace), mvAcc, acc, dd)
	if acc < mvAcc+0.07 {
		t.Errorf("inferred %.4f does not beat majority vote %.4f by 0.07", acc, mvAcc)
	}
	if dd > 0.07 {
		t.Errorf("mean |E[π] − π| per entry %.4f, want ≤ 0.07", dd)
	}
}

// TestExploreHardCaseInit (MASLDA_EXPLORE=1) measures what the initial ξ
// does in the hard case of one answer per document (MODEL.md §7, §9) when
// the class prior is a fixed, informative message (a stand-in for a trained
// response: log-potentials κ·e_truth + N(0, 1) noise per class): batch EM
// from every initialisation below ends at the same ξ and λ.
func TestExploreHardCaseInit(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("set MASLDA_EXPLORE=1")
	}
	const C, D = 4, 4000
	for _, kappa := range []float64{1, 2} {
		for seed := uint64(1); seed <= 3; seed++ {
			truth, pis, byDoc := simulate(t, seed, D, C, 1, []float64{0.737, 0.468, 0.284, 0.278, 0.260})
			rng := rand.New(rand.NewPCG(seed, 99))
			prior := make([][]float64, D)
			for d := range prior {
				prior[d] = make([]float64, C)
				for c := range prior[d] {
					prior[d][c] = rng.NormFloat64()
				}
				prior[d][truth[d]] += kappa
			}
			priorAcc := argmaxAccuracy(prior, truth)
			for _, v := range []struct {
				init    string
				s, diag float64
			}{{InitMajority, 1, 0}, {InitMajority, 0.1, 0}, {InitMajority, 0.01, 0}, {InitUniform, 1, 0}, {InitUniform, 1, 1}} {
				cfg := Defaults()
				cfg.Init, cfg.InitStrength, cfg.Diagonal = v.init, v.s, v.diag
				m := newModel(t, cfg, 5, C, byDoc)
				lams := make([][]float64, D)
				var first float64
				for it := 1; it <= 300; it++ {
					s := m.NewStats()
					for d, as := range byDoc {
						st := docState(as, make([]float64, C))
						tg := st.Target.(*framework.Categorical)
						tg.Reset()
						copy(tg.Log, prior[d])
						m.Evidence(st)
						tg.Finalize()
						m.Accumulate(s, st)
						lams[d] = tg.P
					}
					if it == 1 {
						first = argmaxAccuracy(lams, truth)
					}
					if err := m.Update(context.Background(), s, framework.BatchStep(it)); err != nil {
						t.Fatal(err)
					}
				}
				t.Logf("κ %.0f seed %d (prior alone %.4f) init %-8s s %.2f diagonal %.0f: first E-step %.4f, after 300 iterations %.4f, mean |E[π] − π| %.4f",
					kappa, seed, priorAcc, v.init, v.s, v.diag, first, argmaxAccuracy(lams, truth), dist(m, pis))
			}
		}
	}
}
