package models

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
)

// TestDefaultRestarts: a model with a response under batch EM with k > 1
// gets DefaultRestarts starts of DefaultRestartIters iterations unless the
// file says otherwise; plain LDA, SVI, two-stage and k = 1 keep one start.
func TestDefaultRestarts(t *testing.T) {
	t.Parallel()
	type got struct {
		Restarts, Iters int
		Default         bool
	}
	crowd := "response \"softmax\" {}\nannotators \"confusion\" {}\n"
	for _, tc := range []struct {
		name, src string
		want      got
	}{
		{"ma-sldac", `model = "ma-sldac"`, got{DefaultRestarts, DefaultRestartIters, true}},
		{"ma-sldar (one start at Build)", `model = "ma-sldar"`, got{DefaultRestarts, DefaultRestartIters, true}},
		{"blocks", crowd, got{DefaultRestarts, DefaultRestartIters, true}},
		{"written", crowd + "restarts = 1\n", got{1, DefaultRestartIters, false}},
		{"written iters", crowd + "restarts = 2\nrestart_iters = 3\n", got{2, 3, false}},
		{"plain LDA", "", got{1, 5, false}},
		{"plain LDA restarts", "restarts = 3\n", got{3, 5, false}},
		{"svi", crowd + "inference \"svi\" {}\n", got{1, DefaultRestartIters, false}},
		{"two-stage", `model = "lda+logreg(mv)"`, got{1, DefaultRestartIters, false}},
		{"k = 1", `model = "dawid-skene"`, got{1, DefaultRestartIters, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, tc.src)
			if diff := cmp.Diff(tc.want, got{cfg.Restarts, cfg.RestartIts, cfg.RestartsDefault}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultRestartsWeighted: a response with a supervision weight
// (MA-sLDAr's gaussian, its pilot) keeps one start unless the file asks for
// restarts; Build leaves the caller's configuration alone.
func TestDefaultRestartsWeighted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"default", `model = "ma-sldar"`, 1},
		{"written", "model = \"ma-sldar\"\nrestarts = 3\n", 3},
		{"unweighted", "model = \"ma-sldar\"\nresponse \"gaussian\" {\n  weight = 1\n}\n", DefaultRestarts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, tc.src)
			before := cfg.Restarts
			r, err := Build(cfg, nil, smallRegCorpus(t))
			if err != nil {
				t.Fatal(err)
			}
			if r.Config.Restarts != tc.want || cfg.Restarts != before {
				t.Errorf("restarts %d after Build (want %d); the caller's configuration %d → %d", r.Config.Restarts, tc.want, before, cfg.Restarts)
			}
		})
	}
}

// TestRestartsRunAsLDA: with a response, the restarts' candidates are plain
// LDA (PhaseTopics: their bounds are the topic layer's, no response or
// annotator term), the run goes on from the best of them in PhaseJoint,
// and the response and annotators start the joint phase from their
// initialisation (the candidates never update them).
func TestRestartsRunAsLDA(t *testing.T) {
	t.Parallel()
	c := crowdTrain(t)
	src := "restarts = 3\nrestart_iters = 4\n" + warmCrowd
	r, err := Build(mustConfig(t, src), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	var phases []framework.Phase
	var first []float64 // the first candidate's bounds
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error {
		if p.Restart == 1 {
			first = append(first, p.ELBO)
		}
		if p.Restart > 0 {
			phases = append(phases, r.Model.Phase())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(r.RestartELBOs) != 3 || len(first) != 4 {
		t.Fatalf("%d candidates (want 3), the first with %d bounds (want 4)", len(r.RestartELBOs), len(first))
	}
	if got := r.Model.Phase(); got != framework.PhaseJoint {
		t.Errorf("after Fit the model is in phase %v, want %v", got, framework.PhaseJoint)
	}
	// The first candidate is Build's model: the same start trained as plain
	// LDA (no response block) gives the same bounds, bit for bit.
	lda, err := Build(mustConfig(t, twoStageTopics+"restarts = 1\ninference \"batch\" {\n  max_iters = 4\n  tol = 0\n}\n"), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	var plain []float64
	if _, err := lda.Fit(context.Background(), func(p framework.Progress) error {
		plain = append(plain, p.ELBO)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, first); diff != "" {
		t.Errorf("the first candidate's bounds differ from plain LDA's from the same start (-lda +candidate):\n%s", diff)
	}
}

// TestWarmStartDefaultRestarts: a warm start runs one start when restarts
// are the default (they would discard it), and refuses them when written
// (TestWarmStartRejects).
func TestWarmStartDefaultRestarts(t *testing.T) {
	t.Parallel()
	c := crowdTrain(t)
	src := twoStageTopics + "response \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n  max_iters = 3\n  tol = 0\n}\n"
	_, dir := trainSaved(t, src, c)
	r, err := Build(mustConfig(t, src), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if r.Config.Restarts != DefaultRestarts {
		t.Fatalf("restarts %d before the warm start, want the default %d", r.Config.Restarts, DefaultRestarts)
	}
	if err := r.WarmStart(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if r.Config.Restarts != 1 || len(r.RestartELBOs) != 0 {
		t.Errorf("warm start: restarts %d, %d candidates run; want 1 and none", r.Config.Restarts, len(r.RestartELBOs))
	}
}
