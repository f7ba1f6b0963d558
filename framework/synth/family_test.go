package synth

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// TestRandomFamily: the draws are deterministic, cover the ranges the
// family promises, and every draw's crowd oracle (the planted matrices,
// mixed with the items' difficulty, and the class prior) is at least
// majority vote: a draw whose oracle could not beat majority vote would
// make the gap share meaningless. Sizes are cut to keep it fast.
func TestRandomFamily(t *testing.T) {
	fam := RandomFamily(50, 1)
	if diff := cmp.Diff(fam, RandomFamily(50, 1)); diff != "" {
		t.Fatalf("the same seeds gave other draws:\n%s", diff)
	}
	seen := map[string]bool{}
	var minLen, maxLen, minR, maxR, maxPer = math.Inf(1), 0.0, 1 << 30, 0, 0.0
	labels := map[string]int{}
	for _, s := range fam {
		for _, c := range s.Communities {
			seen[c.Kind] = true
		}
		minLen, maxLen = min(minLen, s.DocLen), max(maxLen, s.DocLen)
		minR, maxR = min(minR, s.R), max(maxR, s.R)
		maxPer = max(maxPer, s.PerDoc)
		labels[s.Labels]++
		if s.Communities[0].Kind != CommunityGood {
			t.Errorf("%s: first community %q, want good", s.Name, s.Communities[0].Kind)
		}
	}
	for _, k := range CommunityKinds {
		if !seen[k] {
			t.Errorf("no draw has a %q community", k)
		}
	}
	if minLen > 10 || maxLen < 200 || minR > 5 || maxR < 200 || maxPer < 10 || labels[LabelsArgmax] < 10 || labels[LabelsSampled] < 10 {
		t.Errorf("ranges not covered: words %v–%v, annotators %d–%d, answers per item up to %.1f, labels %v", minLen, maxLen, minR, maxR, maxPer, labels)
	}
	for _, s := range fam {
		s.D, s.Test = min(s.D, 600), 20
		s.DocLen = min(s.DocLen, 10)
		a, err := NewFamilyCrowd(s)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewFamilyCrowd(s)
		if diff := cmp.Diff(a.Train.Answers.ByDoc, b.Train.Answers.ByDoc); diff != "" {
			t.Fatalf("%s: answers differ for the same seed:\n%s", s.Name, diff)
		}
		for d, as := range a.Train.Answers.ByDoc {
			if len(as) < 1 || len(as) > s.R {
				t.Fatalf("%s: document %d has %d answers of %d annotators", s.Name, d, len(as), s.R)
			}
			for i := 1; i < len(as); i++ {
				if as[i-1].Annotator >= as[i].Annotator {
					t.Fatalf("%s: document %d: answers not by distinct annotators in order", s.Name, d)
				}
			}
		}
		mv, oracle := a.MajorityVote(), a.OracleAccuracy(OracleCrowd)
		if oracle < mv-0.02 {
			t.Errorf("%s: crowd oracle %.3f below majority vote %.3f\n%v", s.Name, oracle, mv, s)
		}
	}
}

// TestFamilyOracleMatrices: the matrices the oracle knows (Crowd.Pis) are
// the sampler's marginal p(answer | class, annotator): over every answer
// of a draw with item difficulty, the count of (true class c, answer l)
// matches Σ_answers Pis[r][c][l] within sampling error, and the planted
// matrices without the difficulty's mixing do not; the same with decoys
// (FamilySpec.Decoy), whose hard answers go to each item's decoy class.
func TestFamilyOracleMatrices(t *testing.T) {
	for _, decoy := range []bool{false, true} {
		t.Run(fmt.Sprintf("decoy=%v", decoy), func(t *testing.T) { testFamilyOracleMatrices(t, decoy) })
	}
}

func testFamilyOracleMatrices(t *testing.T, decoy bool) {
	var spec FamilySpec
	for _, s := range RandomFamily(50, 1) {
		if s.Difficulty > 0.3 && s.C <= 4 && (!decoy || s.C > 2) { // with C 2 a decoy is the only wrong class
			spec = s
			break
		}
	}
	if spec.Name == "" {
		t.Fatal("no draw with difficulty > 0.3 and C ≤ 4")
	}
	spec.D, spec.Test, spec.DocLen, spec.Decoy = 4000, 1, 5, decoy
	fc, err := NewFamilyCrowd(spec)
	if err != nil {
		t.Fatal(err)
	}
	C := spec.C
	got, want, planted := make([]float64, C*C), make([]float64, C*C), make([]float64, C*C)
	for d, as := range fc.Train.Answers.ByDoc {
		c := fc.Truth[d]
		for _, a := range as {
			got[c*C+int(a.Class)]++
			for l := range C {
				want[c*C+l] += fc.Pis[a.Annotator][c][l]
				planted[c*C+l] += fc.Planted[a.Annotator][c][l]
			}
		}
	}
	worstWant, worstPlanted := 0.0, 0.0
	for i := range got {
		sd := math.Sqrt(want[i] + 1)
		worstWant = max(worstWant, math.Abs(got[i]-want[i])/sd)
		worstPlanted = max(worstPlanted, math.Abs(got[i]-planted[i])/sd)
	}
	t.Logf("%s (difficulty %.2f, C %d): worst deviation %.1f s.d. from the oracle's matrices, %.1f from the planted ones", spec.Name, spec.Difficulty, C, worstWant, worstPlanted)
	if worstWant > 5 {
		t.Errorf("answers deviate from the oracle's matrices by %.1f s.d.", worstWant)
	}
	if worstPlanted < 5 {
		t.Errorf("the planted matrices (without difficulty) fit as well (%.1f s.d.): the check cannot tell them apart", worstPlanted)
	}
}

// Agreement by hand: three documents of class 0 and one of class 1; the
// annotators answer 1 on the class-0 documents and 0 on the other, so the
// swap agrees with every answer and the planted labelling with none.
func TestAgreementByHand(t *testing.T) {
	ans := [][]framework.Answer{{{Class: 1}}, {{Class: 1}, {Annotator: 1, Class: 1}}, {{Class: 1}}, {{Class: 0}}}
	cr := &Crowd{Spec: CrowdSpec{C: 2}, Truth: []int{0, 0, 0, 1}, Train: &framework.Corpus{Answers: &framework.Answers{ByDoc: ans}}}
	planted, best, sigma := cr.Agreement()
	if planted != 0 || best != 1 || !slices.Equal(sigma, []int{1, 0}) {
		t.Errorf("Agreement = %v, %v, %v; want 0, 1, [1 0]", planted, best, sigma)
	}
	cr.Truth = []int{1, 1, 1, 0}
	if planted, best, sigma := cr.Agreement(); planted != 1 || best != 1 || !slices.Equal(sigma, []int{0, 1}) {
		t.Errorf("relabelled: Agreement = %v, %v, %v; want 1, 1, [0 1]", planted, best, sigma)
	}
}

// TestCrowdedFamily: the crowded family's drawn dimensions stay in their
// ranges, the rest is the family's own draw, both kinds of difficulty
// occur, and on a draw with decoys two wrong answers to the same item
// agree far more often than on the same draw without them.
func TestCrowdedFamily(t *testing.T) {
	fam := RandomCrowdedFamily(20, 1)
	decoys := 0
	for i, s := range fam {
		if s.D < 500 || s.D > 1000 || s.DocLen < 5 || s.DocLen > 30 || s.R < 30 || s.R > 300 ||
			s.PerDoc < 5 || s.PerDoc > 20 || s.Difficulty < 0 || s.Difficulty > 0.6 {
			t.Errorf("%s out of range: %v", s.Name, s)
		}
		base := RandomFamilySpec(1+uint64(i), s.Name)
		if s.C != base.C || s.K != base.K || s.ModelK != base.ModelK || s.Zipf != base.Zipf || len(s.Communities) != len(base.Communities) {
			t.Errorf("%s: dimensions the crowded family keeps differ from RandomFamilySpec's: %v against %v", s.Name, s, base)
		}
		if s.Decoy {
			decoys++
		}
	}
	if decoys == 0 || decoys == len(fam) {
		t.Errorf("%d of %d draws with decoys, want both kinds", decoys, len(fam))
	}
	if !slices.EqualFunc(fam, RandomCrowdedFamily(20, 1), func(a, b FamilySpec) bool { return a.String() == b.String() }) {
		t.Error("the same seeds gave other draws")
	}
	var spec FamilySpec
	for _, s := range fam {
		if s.C >= 4 { // with C 2 every wrong answer agrees
			spec = s
			break
		}
	}
	spec.Difficulty, spec.D = 0.6, 500
	agree := func(decoy bool) float64 {
		s := spec
		s.Decoy = decoy
		fc, err := NewFamilyCrowd(s)
		if err != nil {
			t.Fatal(err)
		}
		same, pairs := 0, 0
		for d, as := range fc.Train.Answers.ByDoc {
			var wrong []int32
			for _, a := range as {
				if int(a.Class) != fc.Truth[d] {
					wrong = append(wrong, a.Class)
				}
			}
			for i := range wrong {
				for j := i + 1; j < len(wrong); j++ {
					pairs++
					if wrong[i] == wrong[j] {
						same++
					}
				}
			}
		}
		return float64(same) / float64(max(pairs, 1))
	}
	without, with := agree(false), agree(true)
	t.Logf("%s: two wrong answers to an item agree %.2f without decoys, %.2f with", spec.Name, without, with)
	if with < without+0.15 {
		t.Errorf("decoys: wrong answers agree %.2f, without them %.2f: not correlated", with, without)
	}
}
