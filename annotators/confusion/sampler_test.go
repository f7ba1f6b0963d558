package confusion

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// simulateWith runs Simulate with sp as the decoded block.
func simulateWith(sp SimulateParams, truth *framework.Truth) (framework.Simulation, error) {
	return (&Model{}).Simulate(framework.ParamsFunc(func(into any) error {
		*into.(*SimulateParams) = sp
		return nil
	}), truth)
}

// TestSimulateCommunities: count annotators split by largest remainder in
// block order; each member's rows are stochastic, keep the community's
// zeros and average near its matrix; the draw is the seed's; bad blocks are
// errors naming the community.
func TestSimulateCommunities(t *testing.T) {
	truth := &framework.Truth{Classes: []string{"a", "b", "c"}, Class: make([]int32, 600)}
	for d := range truth.Class {
		truth.Class[d] = int32(d % 3)
	}
	spam := [][]float64{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}}
	sp := SimulateParams{Count: 301, Communities: []SimCommunity{
		{Name: "good", Share: 2, Accuracy: acc(0.8), Concentration: 50},
		{Name: "spam", Share: 1, Confusion: spam},
	}}
	sim, err := simulateWith(sp, truth)
	if err != nil {
		t.Fatal(err)
	}
	s := sim.(*simulation)
	if got := sim.Annotators(); got != 301 {
		t.Fatalf("%d annotators, want 301", got)
	}
	n := map[int]int{}
	for _, k := range s.member {
		n[k]++
	}
	if diff := cmp.Diff(map[int]int{0: 201, 1: 100}, n); diff != "" {
		t.Errorf("community sizes (-want +got):\n%s", diff)
	}
	if _, err := sim.Sample(3, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	mean := make([]float64, 3)
	for r, pi := range s.pis {
		for c, row := range pi {
			if sum := row[0] + row[1] + row[2]; math.Abs(sum-1) > 1e-12 {
				t.Fatalf("annotator %d, row %d sums to %v", r, c, sum)
			}
			if s.member[r] == 1 && row[0] != 1 {
				t.Fatalf("spammer %d, row %d = %v, want the community's [1 0 0]", r, c, row)
			}
			if s.member[r] == 0 {
				mean[c] += row[c] / 201
			}
		}
	}
	for c, m := range mean {
		if math.Abs(m-0.8) > 0.02 {
			t.Errorf("the good members' mean accuracy on class %d is %v, want about 0.8", c, m)
		}
	}
	again, _ := simulateWith(sp, truth)
	if _, err := again.Sample(3, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(s.pis, again.(*simulation).pis) {
		t.Error("the same seed drew other matrices")
	}
	for _, c := range []struct {
		sp   SimulateParams
		want string
	}{
		{SimulateParams{Communities: sp.Communities}, "count"},
		{SimulateParams{Count: 3, Communities: []SimCommunity{{Name: "x", Share: 1}}}, `community "x": give its accuracy`},
		{SimulateParams{Count: 3, Communities: []SimCommunity{{Name: "x", Share: 0, Accuracy: acc(0.8)}}}, `community "x": share`},
		{SimulateParams{Count: 3, Communities: []SimCommunity{{Name: "x", Share: 1, Accuracy: acc(0.8), Confusion: spam}}}, "not both"},
		{SimulateParams{Count: 3, Communities: []SimCommunity{{Name: "x", Share: 1, Confusion: [][]float64{{1, 0}, {0, 1}}}}}, "2×2 confusion matrix for 3 classes"},
		{SimulateParams{Count: 3, Communities: []SimCommunity{{Name: "x", Share: 1, Accuracy: acc(0.8), Concentration: -1}}}, "concentration"},
		{SimulateParams{Count: 3, Accuracies: []float64{0.9}, Communities: sp.Communities}, "give one of"},
	} {
		if _, err := simulateWith(c.sp, truth); !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want ErrBadInput mentioning %q", c.sp, err, c.want)
		}
	}
}

func acc(x float64) *float64 { return &x }
