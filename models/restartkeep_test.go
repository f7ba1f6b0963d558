package models

import (
	"math"
	"slices"
	"testing"
)

// TestRestartsKeepTheBest: the restart phase keeps the candidate with the
// highest bound, so the first update after it (batch EM from that
// candidate, plain LDA: nothing restarts or pilots in between) is not below
// the best candidate's bound, and the candidates differ (or the check could
// not tell the best from the worst).
func TestRestartsKeepTheBest(t *testing.T) {
	t.Parallel()
	train, _, _ := smallCrowd(t)
	r, tr := fitTrace(t, twoStageTopics+"restarts = 4\nrestart_iters = 2\n"+`inference "batch" {
  max_iters = 3
  tol = 0
}`, train, 1, false)
	if len(r.RestartELBOs) != 4 {
		t.Fatalf("%d candidates, want 4", len(r.RestartELBOs))
	}
	best, worst := slices.Max(r.RestartELBOs), slices.Min(r.RestartELBOs)
	if !(best-worst > 1e-6*math.Abs(best)) {
		t.Fatalf("candidates' bounds %v: all alike, the check cannot fail", r.RestartELBOs)
	}
	first := tr.elbo[0][0]
	if first < best-1e-9*math.Abs(best) {
		t.Errorf("the first bound after the restarts is %.12g, below the best candidate's %.12g (candidates %v): the run did not continue from the best", first, best, r.RestartELBOs)
	}
}
