package synth_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework/synth"
)

// TestAggregatorAnswers: deterministic for a seed, and each kind has the
// planted properties (within sampling noise on 4,000 tasks).
func TestAggregatorAnswers(t *testing.T) {
	const D, C = 4000, 4
	classes := []string{"a", "b", "c", "d"}
	rng := rand.New(rand.NewPCG(1, 2))
	truth := make([]int, D)
	for d := range truth {
		truth[d] = rng.IntN(C)
	}
	for _, kind := range synth.AggregatorKinds {
		a1, h1, err := synth.AggregatorAnswers(kind, truth, classes, 5, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		a2, h2, _ := synth.AggregatorAnswers(kind, truth, classes, 5, rand.New(rand.NewPCG(7, 8)))
		if !cmp.Equal(a1, a2) || !cmp.Equal(h1, h2) {
			t.Errorf("%s: not deterministic for a seed", kind)
		}
		right, n := make([]float64, len(a1.Annotators)), make([]float64, len(a1.Annotators))
		next := make([]float64, len(a1.Annotators))
		hardRight, hardN := 0.0, 0.0
		for d, as := range a1.ByDoc {
			if len(as) != 5 {
				t.Fatalf("%s: task %d has %d answers", kind, d, len(as))
			}
			for _, x := range as {
				if h1 != nil && h1[d] {
					hardN++
					if int(x.Class) == truth[d] {
						hardRight++
					}
					continue
				}
				n[x.Annotator]++
				if int(x.Class) == truth[d] {
					right[x.Annotator]++
				}
				if int(x.Class) == (truth[d]+1)%C {
					next[x.Annotator]++
				}
			}
		}
		acc := func(r int) float64 { return right[r] / n[r] }
		near := func(got, want float64) bool { return math.Abs(got-want) < 0.05 }
		switch kind {
		case "mixed":
			if !near(acc(0), 0.9) || !near(acc(7), 0.4) {
				t.Errorf("mixed: accuracies %.3f, %.3f", acc(0), acc(7))
			}
		case "spammers":
			if !near(acc(0), 0.8) || !near(acc(3), 0.25) || !near(acc(9), 0.25) {
				t.Errorf("spammers: accuracies %.3f, %.3f, %.3f", acc(0), acc(3), acc(9))
			}
		case "adversaries":
			if !near(acc(0), 0.75) || !near(next[6]/n[6], 0.85) {
				t.Errorf("adversaries: good %.3f, adversary's next class %.3f", acc(0), next[6]/n[6])
			}
		case "hard-tasks":
			if !near(acc(0), 0.9) || !near(hardRight/hardN, 0.25) || !near(hardN/(5*D), 0.35) {
				t.Errorf("hard tasks: easy accuracy %.3f, hard %.3f, share %.3f", acc(0), hardRight/hardN, hardN/(5*D))
			}
		}
	}
	if _, _, err := synth.AggregatorAnswers("nope", truth, classes, 5, rng); err == nil {
		t.Errorf("an unknown kind is accepted")
	}
}
