package models_test

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// TestClassifierStartStages: the classifier start happens after start_iters
// passes, inside the schedule (stage 1 before, 2 after), and also when the
// schedule converges first: then the schedule runs once more from the
// restarted annotators, numbered on. A schedule that runs out of
// iterations first ends without the start.
func TestClassifierStartStages(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	cd := plantedCrowd(t, 3, 150, 200, 4, 3, 1, []float64{0.8, 0.5, 0.3})
	for _, tc := range []struct {
		name, src   string
		iters       []int
		stages      []int
		resultIters int
	}{
		{"inside", "annotators \"confusion\" {\n start_iters = 2\n}\ninference \"batch\" {\n max_iters = 4\n tol = 0\n}\n",
			[]int{1, 2, 3, 4}, []int{1, 1, 2, 2}, 4},
		// Converged before the start: the start, a second run; converged
		// again: the softmax's choice of text_l2 (the default
		// text_l2_folds), which changes it here, and a third run.
		{"after convergence", "annotators \"confusion\" {\n start_iters = 8\n}\ninference \"batch\" {\n max_iters = 20\n min_iters = 2\n tol = 1\n}\n",
			[]int{1, 2, 3, 4, 5, 6}, []int{1, 1, 2, 2, 3, 3}, 6},
		{"out of iterations", "annotators \"confusion\" {\n start_iters = 8\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n",
			[]int{1, 2, 3}, []int{1, 1, 1}, 3},
		{"svi", "annotators \"confusion\" {\n start_iters = 1\n}\ninference \"svi\" {\n batch_size = 50\n epochs = 2\n tol = 0\n}\n",
			[]int{1, 2, 3, 4, 5, 6}, []int{1, 1, 1, 2, 2, 2}, 6},
		// 3 mini-batches an epoch: 4 updates are made by the end of the
		// second epoch, before start_iters (8) epochs.
		{"svi start_updates", "annotators \"confusion\" {\n start_updates = 4\n}\ninference \"svi\" {\n batch_size = 50\n epochs = 3\n tol = 0\n}\n",
			[]int{1, 2, 3, 4, 5, 6, 7, 8, 9}, []int{1, 1, 1, 1, 1, 1, 2, 2, 2}, 9},
		// The default 40 updates come after start_iters = 2 epochs.
		{"svi start_iters first", "annotators \"confusion\" {\n start_iters = 2\n}\ninference \"svi\" {\n batch_size = 50\n epochs = 3\n tol = 0\n}\n",
			[]int{1, 2, 3, 4, 5, 6, 7, 8, 9}, []int{1, 1, 1, 1, 1, 1, 2, 2, 2}, 9},
		// SVI whose mini-batch is the corpus performs the batch
		// iterations: a pass is one update, start_iters counts.
		{"svi full batch", "annotators \"confusion\" {\n start_iters = 2\n start_updates = 1\n}\ninference \"svi\" {\n batch_size = 1000\n epochs = 3\n tol = 0\n}\n",
			[]int{1, 2, 3}, []int{1, 1, 2}, 3},
		{"batch", "annotators \"confusion\" {\n start_iters = 2\n start_updates = 1\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n",
			[]int{1, 2, 3}, []int{1, 1, 2}, 3},
		{"no start", "annotators \"confusion\" {\n init = \"uniform\"\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n",
			[]int{1, 2, 3}, []int{0, 0, 0}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := models.ParseConfig([]byte("consensus = 1\ntopics {\n k = 4\n}\nresponse \"softmax\" {}\n"+tc.src), "c.hcl")
			if err != nil {
				t.Fatal(err)
			}
			r, err := models.Build(cfg, nil, cd.train)
			if err != nil {
				t.Fatal(err)
			}
			var iters, stages []int
			res, err := r.Fit(context.Background(), func(p framework.Progress) error {
				if p.Restart > 0 { // the restarts' candidates (plain LDA)
					return nil
				}
				iters, stages = append(iters, p.Iter), append(stages, p.Stage)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.iters, iters); diff != "" {
				t.Errorf("iterations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stages, stages); diff != "" {
				t.Errorf("stages (-want +got):\n%s", diff)
			}
			if res.Iters != tc.resultIters {
				t.Errorf("result: %d iterations, want %d", res.Iters, tc.resultIters)
			}
		})
	}
}
