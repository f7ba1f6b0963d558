package models

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestPrepareWithResumes: Prepare stopped after a restart candidate (its
// Candidate hook failing) and resumed in a run built anew from the
// candidates done (PrepareWith's Done, Restore loading the best one's
// snapshot) ends with the uninterrupted Prepare's candidates' bounds and
// model, bit for bit: the candidates left are drawn from the random
// source as they were; with a response (the restart phase; and the
// first iteration after it) and without (plain LDA).
func TestPrepareWithResumes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	train, _, _ := smallCrowd(t)
	for name, src := range map[string]string{
		"ma-sldac-mm": "seed = 6\nrestarts = 4\nrestart_iters = 2\ntopics {\n  k = 4\n}\nresponse \"softmax\" {\n  bound = \"quadratic\"\n  mstep = \"mm\"\n}\nannotators \"confusion\" {\n  init = \"majority\"\n}\n",
		"lda":         "seed = 2\nrestarts = 4\nrestart_iters = 2\ntopics {\n  k = 4\n}\n",
	} {
		build := func() *Run {
			c := *train
			if !strings.Contains(src, "response") {
				c.Answers = nil
			}
			r, err := Build(mustConfig(t, src), nil, &c)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		whole := build()
		snaps := map[int]*Snapshot{}
		if _, err := whole.PrepareWith(ctx, nil, nil, &PrepareHooks{Candidate: func(i int, cand *Run, _ []float64) error {
			s, err := cand.Snapshot()
			snaps[i] = s
			return err
		}}); err != nil {
			t.Fatal(err)
		}
		want, err := whole.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		for stop := 1; stop < 4; stop++ {
			halt := errors.New("stopped")
			var done []float64
			first := build()
			if _, err := first.PrepareWith(ctx, nil, nil, &PrepareHooks{Candidate: func(i int, _ *Run, elbos []float64) error {
				done = slices.Clone(elbos)
				if i == stop {
					return halt
				}
				return nil
			}}); !errors.Is(err, halt) {
				t.Fatalf("stopped after candidate %d: %v", stop, err)
			}
			restored := 0
			r := build()
			if _, err := r.PrepareWith(ctx, nil, nil, &PrepareHooks{Done: done, Restore: func(i int, cand *Run) error {
				restored = i
				return cand.LoadSnapshot(snaps[i].Data, snaps[i].Sum)
			}}); err != nil {
				t.Fatal(err)
			}
			if len(r.RestartELBOs) != len(whole.RestartELBOs) {
				t.Fatalf("%d candidates, %d uninterrupted", len(r.RestartELBOs), len(whole.RestartELBOs))
			}
			for i, e := range whole.RestartELBOs {
				if math.Float64bits(e) != math.Float64bits(r.RestartELBOs[i]) {
					t.Errorf("stopped after %d: candidate %d: bound %v resumed, %v uninterrupted", stop, i+1, r.RestartELBOs[i], e)
				}
			}
			got, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if got.Sum != want.Sum {
				t.Errorf("stopped after %d (candidate %d restored): the model after Prepare differs from the uninterrupted one", stop, restored)
			}
			// The first iteration after Prepare too, with a response (every
			// document then starts afresh; without one Fit goes on from
			// the best candidate's γ, which an engine keeps itself).
			if r.Model.Response != nil {
				all := make([]int, r.Model.NumDocs())
				for d := range all {
					all[d] = d
				}
				for _, x := range []*Run{whole, r} {
					s, err := x.Model.EStep(ctx, all)
					if err != nil {
						t.Fatal(err)
					}
					if err := x.Model.Update(ctx, s, framework.BatchStep(1)); err != nil {
						t.Fatal(err)
					}
				}
				a, err := whole.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				b, err := r.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				if a.Sum != b.Sum {
					t.Errorf("stopped after %d: the first iteration after Prepare differs", stop)
				}
			}
			t.Logf("%s, stopped after candidate %d: candidate %d restored; bounds %v", name, stop, restored, r.RestartELBOs)
			// whole moved on: rebuild it for the next stop.
			whole = build()
			if _, err := whole.Prepare(ctx, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
}
