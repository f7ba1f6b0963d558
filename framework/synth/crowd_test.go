package synth

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

func TestCrowdSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *CrowdSpec)
	}{
		{"one class", func(s *CrowdSpec) { s.C = 1 }},
		{"labels", func(s *CrowdSpec) { s.Labels = "mode" }},
		{"wrong", func(s *CrowdSpec) { s.Wrong = "x" }},
		{"too many answers", func(s *CrowdSpec) { s.PerDoc = 6 }},
		{"accuracy", func(s *CrowdSpec) { s.Accuracies[0] = 1.5 }},
		{"difficulty", func(s *CrowdSpec) { s.Difficulty = 2 }},
		{"skew", func(s *CrowdSpec) { s.Skew = -1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := CrowdBase()
			tc.edit(&s)
			if _, err := NewCrowd(s, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("error %v, want ErrBadInput", err)
			}
		})
	}
	for _, s := range CrowdFamily() {
		if err := s.Validate(); err != nil {
			t.Errorf("family member %q: %v", s.Name, err)
		}
	}
}

// TestCrowdFamily: every generator is deterministic for a seed, realises
// its annotators' accuracies, and the oracles are ordered: the crowd
// oracle (planted matrices) beats majority vote, the full oracle (planted
// softmax too) beats the crowd oracle; argmax labels make the full oracle
// exact. Small sizes keep it fast.
func TestCrowdFamily(t *testing.T) {
	for _, spec := range CrowdFamily() {
		t.Run(spec.Name, func(t *testing.T) {
			spec.D, spec.Test = 2000, 10
			spec.DocLen = min(spec.DocLen, 10)
			a, err := NewCrowd(spec, rand.New(rand.NewPCG(3, 12)))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewCrowd(spec, rand.New(rand.NewPCG(3, 12)))
			if diff := cmp.Diff(a.Train.Answers.ByDoc, b.Train.Answers.ByDoc); diff != "" {
				t.Fatalf("answers differ for the same seed:\n%s", diff)
			}
			right, n := make([]float64, len(spec.Accuracies)), make([]float64, len(spec.Accuracies))
			mv := 0.0
			for d, as := range a.Train.Answers.ByDoc {
				if len(as) != spec.PerDoc {
					t.Fatalf("document %d: %d answers, want %d", d, len(as), spec.PerDoc)
				}
				votes := make([]float64, spec.C)
				for i, x := range as {
					if i > 0 && as[i-1].Annotator >= x.Annotator {
						t.Fatalf("document %d: answers not by distinct annotators in order: %v", d, as)
					}
					n[x.Annotator]++
					votes[x.Class]++
					if int(x.Class) == a.Truth[d] {
						right[x.Annotator]++
					}
				}
				top, ties := 0.0, 0.0
				for _, v := range votes {
					top = max(top, v)
				}
				for _, v := range votes {
					if v == top {
						ties++
					}
				}
				if votes[a.Truth[d]] == top {
					mv += 1 / ties
				}
			}
			mv /= float64(spec.D)
			for r, acc := range spec.Accuracies {
				if n[r] < 300 {
					continue
				}
				// Difficulty mixes in uniform answers: E[δ] = Difficulty/2.
				want := acc*(1-spec.Difficulty/2) + spec.Difficulty/2/float64(spec.C)
				if got := right[r] / n[r]; math.Abs(got-want) > 4*math.Sqrt(want*(1-want)/n[r])+0.01 {
					t.Errorf("annotator %d: realised accuracy %.3f over %v answers, want %.3f", r, got, n[r], want)
				}
			}
			crowd, full := a.OracleAccuracy(OracleCrowd), a.OracleAccuracy(OracleFull)
			t.Logf("majority vote %.3f, crowd oracle %.3f, full oracle %.3f", mv, crowd, full)
			if crowd < mv-0.01 || full < crowd {
				t.Errorf("oracles out of order: majority vote %.3f, crowd %.3f, full %.3f", mv, crowd, full)
			}
			if spec.Labels == LabelsArgmax && full != 1 {
				t.Errorf("argmax labels: full oracle %.3f, want 1", full)
			}
		})
	}
}
