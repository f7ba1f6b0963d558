package cli

import (
	"math"
	"slices"
	"testing"
)

// TestBuildExplorer: the candidates of each topic hold its top terms by
// probability (λ = 1) and by lift (λ = 0), with p(w|k) and the marginal
// p(w) = Σ_k share_k p(w|k).
func TestBuildExplorer(t *testing.T) {
	beta := [][]float64{
		{0.5, 0.3, 0.1, 0.05, 0.05, 0},
		{0.05, 0.05, 0.1, 0.3, 0.2, 0.3},
	}
	vocab := []string{"a", "b", "c", "d", "e", "f"}
	ex := buildExplorer(beta, []float64{3, 1}, vocab, []string{"t0", "t1"}, 2)
	if len(ex.Topics) != 2 || ex.Shown != 2 {
		t.Fatalf("%+v", ex)
	}
	terms := func(k int) []string {
		var out []string
		for _, i := range ex.Topics[k].Terms {
			out = append(out, ex.Terms[i])
		}
		return out
	}
	// Topic 0: by probability a, b; by lift a and b too (0.5/0.3875,
	// 0.3/0.2375 beat c's 0.1/0.1); f has p = 0 and is never a candidate.
	if got := terms(0); !slices.Contains(got, "a") || !slices.Contains(got, "b") || slices.Contains(got, "f") {
		t.Errorf("topic 0 candidates %v", got)
	}
	// Topic 1: by probability d and f (0.3 each); by lift f (only topic 1
	// has it: lift 4) and d (0.3/0.1125, above e's 0.2/0.0875); a never.
	if got := terms(1); !slices.Equal(got, []string{"d", "f"}) {
		t.Errorf("topic 1 candidates %v", got)
	}
	for i, term := range ex.Terms {
		v := slices.Index(vocab, term)
		want := 0.75*beta[0][v] + 0.25*beta[1][v]
		if math.Abs(ex.PW[i]-want) > 1e-12 {
			t.Errorf("p(%s) = %v, want %v", term, ex.PW[i], want)
		}
	}
	if ex.Topics[0].Share != 0.75 {
		t.Errorf("share %v", ex.Topics[0].Share)
	}
}
