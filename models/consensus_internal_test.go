package models

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

func cats(labels ...int) []framework.Target {
	out := make([]framework.Target, len(labels))
	for d, l := range labels {
		p := make([]float64, 3)
		p[l] = 1
		out[d] = &framework.Categorical{P: p}
	}
	return out
}

func gauss(means ...float64) []framework.Target {
	out := make([]framework.Target, len(means))
	for d, m := range means {
		out[d] = &framework.Gaussian{Mean: m, Var: 1}
	}
	return out
}

// TestConsensusChoice: the medoid of hand-checkable truths (the least
// sum of distances, the first on a tie) and the distances themselves.
func TestConsensusChoice(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		truths [][]framework.Target
		chosen int
		dist   [][]float64
	}{
		{
			// Fits 1 and 3 differ on one document of 4, fits 2 and 3 on
			// three, fits 1 and 2 on all four: sums 1.25, 1.75, 1.
			name:   "categorical",
			truths: [][]framework.Target{cats(0, 1, 2, 0), cats(1, 2, 0, 2), cats(0, 1, 2, 2)},
			chosen: 2,
			dist:   [][]float64{{0, 1, 0.25}, {1, 0, 0.75}, {0.25, 0.75, 0}},
		},
		{
			// The outlier first: the medoid is the second fit.
			name:   "categorical, outlier first",
			truths: [][]framework.Target{cats(1, 2, 0, 2), cats(0, 1, 2, 0), cats(0, 1, 2, 0)},
			chosen: 1,
			dist:   [][]float64{{0, 1, 1}, {1, 0, 0}, {1, 0, 0}},
		},
		{
			// Means 0, 1, 3 on one document, 0, 0, 0 on the other:
			// squared differences 1, 9, 4 over 2 documents.
			name:   "gaussian",
			truths: [][]framework.Target{gauss(0, 0), gauss(1, 0), gauss(3, 0)},
			chosen: 1,
			dist:   [][]float64{{0, 0.5, 4.5}, {0.5, 0, 2}, {4.5, 2, 0}},
		},
		{
			// Two fits are always a tie: the first.
			name:   "tie",
			truths: [][]framework.Target{cats(0, 1), cats(1, 1)},
			chosen: 0,
			dist:   [][]float64{{0, 0.5}, {0.5, 0}},
		},
		{
			name:   "one fit",
			truths: [][]framework.Target{cats(0, 1)},
			chosen: 0,
			dist:   [][]float64{{0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chosen, dist, err := consensusChoice(tc.truths)
			if err != nil {
				t.Fatal(err)
			}
			if chosen != tc.chosen {
				t.Errorf("chosen %d, want %d", chosen, tc.chosen)
			}
			if diff := cmp.Diff(tc.dist, dist); diff != "" {
				t.Errorf("distances (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConsensusChoiceBadTruths: truths of different kinds or lengths, or
// of a kind with no distance, are errors, not panics.
func TestConsensusChoiceBadTruths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		truths [][]framework.Target
		want   error
	}{
		{"mixed", [][]framework.Target{cats(0), gauss(1)}, framework.ErrIncompatible},
		{"mixed the other way", [][]framework.Target{gauss(1), cats(0)}, framework.ErrIncompatible},
		{"lengths", [][]framework.Target{cats(0, 1), cats(0)}, framework.ErrIncompatible},
		{"no distance", [][]framework.Target{{nil}, {nil}}, framework.ErrIncompatible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := consensusChoice(tc.truths)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
}
