package synth

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRandomValueFamily: the draws are deterministic, cover the ranges the
// family promises, every item is answered by distinct annotators, and
// every draw's crowd oracle (the planted biases and precisions, outliers
// and spammers moment-matched) is at least the mean answer: a draw whose
// oracle could not beat the mean answer would make the gap share
// meaningless. Sizes are cut to keep it fast.
func TestRandomValueFamily(t *testing.T) {
	fam := RandomValueFamily(50, 1)
	if diff := cmp.Diff(fam, RandomValueFamily(50, 1)); diff != "" {
		t.Fatalf("the same seeds gave other draws:\n%s", diff)
	}
	if cmp.Equal(fam[0], RandomValueFamilySpec(fam[0].Seed+1000, fam[0].Name)) {
		t.Fatal("another seed gave the same draw")
	}
	seen := map[string]bool{}
	minLen, maxLen, minR, maxR, maxPer := math.Inf(1), 0.0, 1<<30, 0, 0.0
	minShare, maxShare, minScale, maxScale := 1.0, 0.0, math.Inf(1), 0.0
	minD, maxD, offsets := 1<<30, 0, 0
	for _, s := range fam {
		for _, c := range s.Communities {
			seen[c.Kind] = true
		}
		minLen, maxLen = min(minLen, s.DocLen), max(maxLen, s.DocLen)
		minR, maxR = min(minR, s.R), max(maxR, s.R)
		minD, maxD = min(minD, s.D), max(maxD, s.D)
		maxPer = max(maxPer, s.PerDoc)
		minShare, maxShare = min(minShare, s.TextShare), max(maxShare, s.TextShare)
		minScale, maxScale = min(minScale, s.Scale), max(maxScale, s.Scale)
		if s.BiasOffset != 0 {
			offsets++
		}
		if s.Communities[0].Kind != CommunityGood || s.Communities[0].Share < 0.35 {
			t.Errorf("%s: first community %q share %.2f, want good, ≥ 0.35", s.Name, s.Communities[0].Kind, s.Communities[0].Share)
		}
		if s.ModelK < max(2, s.K/2) || s.ModelK > 2*s.K || s.D < 100 || s.D > 1000 || s.TextShare < 0.1 || s.TextShare > 0.9 {
			t.Errorf("%s: out of range: %v", s.Name, s)
		}
	}
	for _, k := range ValueKinds {
		if !seen[k] {
			t.Errorf("no draw has a %q community", k)
		}
	}
	if minLen > 10 || maxLen < 200 || minR > 5 || maxR < 200 || maxPer < 10 || minD > 200 || maxD < 800 ||
		minShare > 0.2 || maxShare < 0.8 || minScale > 0.5 || maxScale < 20 || offsets < 20 || offsets > 45 {
		t.Errorf("ranges not covered: words %v–%v, annotators %d–%d, D %d–%d, answers per item up to %.1f, text share %.2f–%.2f, scale %.2f–%.1f, %d offsets",
			minLen, maxLen, minR, maxR, minD, maxD, maxPer, minShare, maxShare, minScale, maxScale, offsets)
	}
	for _, s := range fam {
		s.D, s.Test = min(s.D, 400), 20
		s.DocLen = min(s.DocLen, 10)
		a, err := NewValueFamilyCrowd(s)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewValueFamilyCrowd(s)
		if diff := cmp.Diff(a.Train.Answers.ByDoc, b.Train.Answers.ByDoc); diff != "" {
			t.Fatalf("%s: answers differ for the same seed:\n%s", s.Name, diff)
		}
		if a.Community[0] != 0 {
			t.Errorf("%s: annotator 0 not good", s.Name)
		}
		for d, as := range a.Train.Answers.ByDoc {
			if len(as) < 1 || len(as) > s.R {
				t.Fatalf("%s: document %d has %d answers of %d annotators", s.Name, d, len(as), s.R)
			}
			for i, x := range as {
				if x.Class != -1 || math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
					t.Fatalf("%s: document %d: answer %+v, want numeric", s.Name, d, x)
				}
				if i > 0 && as[i-1].Annotator >= x.Annotator {
					t.Fatalf("%s: document %d: answers not by distinct annotators in order", s.Name, d)
				}
			}
		}
		for r := range s.R {
			if !(a.OraclePrec[r] > 0) || !(a.Prec[r] > 0) || math.IsInf(a.OraclePrec[r], 0) {
				t.Fatalf("%s: annotator %d: precisions %v, oracle %v", s.Name, r, a.Prec[r], a.OraclePrec[r])
			}
		}
		mean, oracle, text := a.MeanAnswer(), a.OracleR2(), a.OracleTextR2()
		t.Logf("%s: mean answer %.3f, oracle %.3f, text oracle %.3f, offset %+.2f sd; %v", s.Name, mean, oracle, text, a.AnswerOffset()/math.Sqrt(valueVar(a.Truth)), s)
		if oracle < mean-0.02 {
			t.Errorf("%s: crowd oracle R² %.3f below the mean answer's %.3f\n%v", s.Name, oracle, mean, s)
		}
		if text < oracle-0.02 {
			t.Errorf("%s: text oracle R² %.3f below the crowd oracle's %.3f\n%v", s.Name, text, oracle, s)
		}
	}
}

// TestValueFamilyScale: the scale multiplies the truth and the answers and
// leaves every R² unchanged.
func TestValueFamilyScale(t *testing.T) {
	s := RandomValueFamilySpec(7, "x")
	s.D, s.Test, s.DocLen = 200, 10, 10
	s.Scale = 1
	a, err := NewValueFamilyCrowd(s)
	if err != nil {
		t.Fatal(err)
	}
	s.Scale = 40
	b, err := NewValueFamilyCrowd(s)
	if err != nil {
		t.Fatal(err)
	}
	near := func(x, y, tol float64) bool { return math.Abs(x-y) <= tol*max(1, math.Abs(x)) }
	for d := range a.Truth {
		if !near(40*a.Truth[d], b.Truth[d], 1e-12) {
			t.Fatalf("truth %d: %v ×40 ≠ %v", d, a.Truth[d], b.Truth[d])
		}
		for i, x := range a.Train.Answers.ByDoc[d] {
			if !near(40*x.Value, b.Train.Answers.ByDoc[d][i].Value, 1e-12) {
				t.Fatalf("answer %d/%d: %v ×40 ≠ %v", d, i, x.Value, b.Train.Answers.ByDoc[d][i].Value)
			}
		}
	}
	for _, p := range [][2]float64{{a.MeanAnswer(), b.MeanAnswer()}, {a.OracleR2(), b.OracleR2()}, {a.OracleTextR2(), b.OracleTextR2()}} {
		if !near(p[0], p[1], 1e-9) {
			t.Errorf("R² %v at scale 1, %v at scale 40", p[0], p[1])
		}
	}
}

func valueVar(x []float64) float64 {
	_, v := valueMeanVar(x)
	return v
}
