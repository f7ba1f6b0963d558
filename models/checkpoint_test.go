package models_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// trace is what a fit reports and leaves: every update's progress but its
// time, and the saved model's files with the posterior.
type trace struct {
	progress  []framework.Progress
	files     map[string][]byte
	post      []float64
	iters     int
	converged bool
}

var errStop = errors.New("stopped for the test")

// fitTrace builds cfg over c and fits it; with stopAt > 0 it checkpoints
// into cp after update stopAt and stops there, then resumes a fresh run
// from the checkpoint; the trace covers both parts.
func fitTrace(t *testing.T, src string, c *framework.Corpus, stopAt int, cp string) trace {
	t.Helper()
	cfg, err := models.ParseConfig([]byte(src), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	var tr trace
	obs := func(p framework.Progress) error {
		// The restart candidates, and the other seeds' fits of a
		// consensus (fitted again on resume), are not the run's trace.
		if p.Restart == 0 && p.Fit == 0 {
			p.Elapsed = 0
			tr.progress = append(tr.progress, p)
		}
		return nil
	}
	build := func() *models.Run {
		r, err := models.Build(cfg, nil, c)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := build()
	if stopAt > 0 {
		fp := r.Fingerprint()
		stopped := false
		r.AfterIter = func(p models.Position) error {
			if p.Iter != stopAt {
				return nil
			}
			stopped = true
			if err := r.SaveCheckpoint(cp, fp, p, nil); err != nil {
				return err
			}
			return errStop
		}
		if _, err := r.Fit(context.Background(), obs); !errors.Is(err, errStop) || !stopped {
			t.Fatalf("stop at %d: %v (stopped %v)", stopAt, err, stopped)
		}
		r = build()
		pos, err := r.LoadCheckpoint(cp, fp)
		if err != nil {
			t.Fatal(err)
		}
		if pos.Iter != stopAt {
			t.Fatalf("checkpoint at update %d, want %d", pos.Iter, stopAt)
		}
	}
	res, err := r.Fit(context.Background(), obs)
	if err != nil {
		t.Fatal(err)
	}
	tr.iters, tr.converged = res.Iters, res.Converged
	dir := t.TempDir()
	if err := r.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	tr.files = map[string][]byte{}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		tr.files[e.Name()] = b
	}
	post, err := r.Model.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range post {
		tr.post = append(tr.post, p.Theta...)
		switch q := p.Target.(type) {
		case *framework.Categorical:
			tr.post = append(tr.post, q.P...)
		case *framework.Gaussian:
			tr.post = append(tr.post, q.Mean, q.Var)
		}
	}
	return tr
}

func compareTraces(t *testing.T, want, got trace) {
	t.Helper()
	if want.iters != got.iters || want.converged != got.converged {
		t.Errorf("%d iterations, converged %v; want %d, %v", got.iters, got.converged, want.iters, want.converged)
	}
	if diff := cmp.Diff(want.progress, got.progress, cmp.Comparer(func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	})); diff != "" {
		t.Errorf("progress (-uninterrupted +resumed):\n%s", diff)
	}
	for name, b := range want.files {
		if !bytes.Equal(b, got.files[name]) {
			t.Errorf("%s differs", name)
		}
	}
	if len(want.files) != len(got.files) {
		t.Errorf("%d files, want %d", len(got.files), len(want.files))
	}
	if len(want.post) != len(got.post) {
		t.Fatalf("posterior of %d values, want %d", len(got.post), len(want.post))
	}
	for i := range want.post {
		if math.Float64bits(want.post[i]) != math.Float64bits(got.post[i]) {
			t.Fatalf("posterior value %d: %v, want %v", i, got.post[i], want.post[i])
		}
	}
}

func smallRegression(t *testing.T) *framework.Corpus {
	rng := rand.New(rand.NewPCG(31, 32))
	c, pl, err := synth.LDA(synth.LDASpec{D: 80, V: 50, K: 3, DocLen: 30, Alpha: 0.2, TopicConc: 0.1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(c.Docs))
	for d := range x {
		x[d] = pl.ZBar[d][0] + 3*pl.ZBar[d][1] + 5*pl.ZBar[d][2] + 0.3*rng.NormFloat64()
	}
	c.Answers = &framework.Answers{Annotators: []string{"a", "b", "c", "d", "e"}, ByDoc: biasprecision.Sample(x, biasprecision.PaperBias, biasprecision.PaperPrec, 2, rng)}
	return c
}

// TestCheckpointResumeBitIdentical: a batch fit stopped after update k,
// checkpointed and resumed in a new run ends exactly as the uninterrupted
// fit: the same progress (bounds, stages), the same saved files and the
// same posterior, for k before, at and after the classifier start (and in
// the second schedule run when the schedule converges before it), after
// restarts, with consensus = 3, with topics.fresh_every, and for MA-sLDAr (whose supervision weight keeps the φ store
// of warm starts; before, at and after the end of its exact stage) and
// plain LDA.
func TestCheckpointResumeBitIdentical(t *testing.T) {
	t.Parallel()
	crowd := plantedCrowd(t, 5, 80, 60, 3, 3, 1, []float64{0.8, 0.5, 0.3})
	reg := smallRegression(t)
	const maslc = "seed = 3\nconsensus = 1\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\n"
	for _, tc := range []struct {
		name, src string
		c         *framework.Corpus
		stops     []int
	}{
		{"MA-sLDAc", maslc + "annotators \"confusion\" {\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 6\n tol = 0\n}\n",
			crowd.train, []int{1, 2, 3, 4, 5}},
		{"MA-sLDAc quadratic bound", "seed = 3\nconsensus = 1\ntopics {\n k = 3\n}\nresponse \"softmax\" {\n bound = \"quadratic\"\n}\n" + "annotators \"confusion\" {\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 6\n tol = 0\n}\n",
			crowd.train, []int{2, 4}},
		{"MA-sLDAc converged before the start", maslc + "annotators \"confusion\" {\n start_iters = 8\n}\ninference \"batch\" {\n max_iters = 20\n tol = 1\n}\n",
			crowd.train, []int{1, 3}},
		// The response re-chooses text_l2 when the run has converged
		// (framework.Tuner) and the schedule runs once more (Stage 3).
		{"MA-sLDAc text_l2_folds", "seed = 3\nconsensus = 1\ntopics {\n k = 3\n}\nresponse \"softmax\" {\n text_l2_folds = 4\n}\nannotators \"confusion\" {\n start_iters = 2\n}\ninference \"batch\" {\n max_iters = 40\n tol = 1e-3\n}\n",
			crowd.train, []int{1, 3, 10, 12, 14}},
		{"MA-sLDAc restarts", "restarts = 2\nrestart_iters = 2\n" + maslc + "annotators \"confusion\" {\n start_iters = 2\n}\ninference \"batch\" {\n max_iters = 4\n tol = 0\n}\n",
			crowd.train, []int{1, 2}},
		// The other seeds' fits come first and are fitted again on
		// resume; the configured seed's fit resumes; the choice is the
		// same.
		{"MA-sLDAc consensus", "consensus = 3\nrestarts = 2\nrestart_iters = 2\nseed = 3\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\n" + "annotators \"confusion\" {\n start_iters = 2\n}\ninference \"batch\" {\n max_iters = 4\n tol = 0\n}\n",
			crowd.train, []int{1, 3}},
		{"MA-sLDAr", "seed = 4\ntopics {\n k = 3\n}\nresponse \"gaussian\" {\n estimate_sigma2 = true\n}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 5\n tol = 0\n}\n",
			reg, []int{1, 3, 4}},
		{"MA-sLDAr exact stage", "seed = 4\ntopics {\n k = 3\n}\nresponse \"gaussian\" {\n exact_iters = 2\n}\nannotators \"bias-precision\" {}\ninference \"batch\" {\n max_iters = 5\n tol = 0\n}\n",
			reg, []int{1, 2, 3}},
		{"LDA", "seed = 5\ntopics {\n k = 3\n}\ninference \"batch\" {\n max_iters = 4\n tol = 0\n}\n",
			&framework.Corpus{Docs: reg.Docs, V: reg.V}, []int{2}},
		// The settled marks and the E-step count of fresh_every are saved.
		{"MA-sLDAc fresh_every", "seed = 3\nconsensus = 1\ntopics {\n k = 3\n fresh_every = 3\n}\nresponse \"softmax\" {}\n" + "annotators \"confusion\" {\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 10\n tol = 0\n}\n",
			crowd.train, []int{2, 5, 7}},
		{"LDA fresh_every", "seed = 5\ntopics {\n k = 3\n fresh_every = 2\n}\ninference \"batch\" {\n max_iters = 8\n tol = 0\n}\n",
			&framework.Corpus{Docs: reg.Docs, V: reg.V}, []int{3, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := fitTrace(t, tc.src, tc.c, 0, "")
			if tc.name == "MA-sLDAc text_l2_folds" {
				var stages []int
				for _, p := range want.progress {
					stages = append(stages, p.Stage)
				}
				if stages[len(stages)-1] != 3 || stages[11] != 3 || stages[10] != 2 {
					t.Fatalf("stages %v: want the third run from update 12 (the stops are chosen for it)", stages)
				}
			}
			for _, k := range tc.stops {
				got := fitTrace(t, tc.src, tc.c, k, filepath.Join(t.TempDir(), "cp"))
				compareTraces(t, want, got)
				if t.Failed() {
					t.Fatalf("resumed after update %d", k)
				}
			}
		})
	}
}

// TestCheckpointResumeSVIBitIdentical: an SVI fit stopped after update k
// (mid-epoch and at an epoch's end), checkpointed and resumed in a new run
// ends exactly as the uninterrupted fit, as under batch EM: for MA-sLDAc
// with the classifier start inside the schedule (before, at and after it,
// and in the second schedule run when SVI converges before it), with the
// bound over the corpus every epoch (eval_every), for MA-sLDAr (the
// running statistics of the gaussian and bias-precision, after the exact
// pilot), Dawid–Skene with the class-prior's point estimate (its running
// statistics) and plain LDA.
func TestCheckpointResumeSVIBitIdentical(t *testing.T) {
	t.Parallel()
	crowd := plantedCrowd(t, 5, 80, 60, 3, 3, 1, []float64{0.8, 0.5, 0.3})
	reg := smallRegression(t)
	const maslc = "seed = 3\ntopics {\n k = 3\n}\nresponse \"softmax\" {}\n"
	// 80 documents in mini-batches of 30: updates 3, 6, 9, … end the epochs.
	const svi = "inference \"svi\" {\n batch_size = 30\n epochs = 4\n tol = 0\n}\n"
	for _, tc := range []struct {
		name, src string
		c         *framework.Corpus
		stops     []int
	}{
		{"MA-sLDAc", maslc + "annotators \"confusion\" {\n start_iters = 2\n}\n" + svi,
			crowd.train, []int{1, 2, 3, 5, 6, 7, 11}},
		{"MA-sLDAc converged before the start", maslc + "annotators \"confusion\" {\n start_iters = 8\n}\ninference \"svi\" {\n batch_size = 30\n epochs = 4\n tol = 1\n}\n",
			crowd.train, []int{2, 5, 7, 9, 10}},
		{"MA-sLDAc eval_every", maslc + "annotators \"confusion\" {\n start_iters = 1\n}\ninference \"svi\" {\n batch_size = 50\n epochs = 3\n tol = 0\n eval_every = 1\n}\n",
			crowd.train, []int{1, 2, 3}},
		{"MA-sLDAr", "seed = 4\ntopics {\n k = 3\n}\nresponse \"gaussian\" {\n exact_iters = 2\n}\nannotators \"bias-precision\" {}\n" + svi,
			reg, []int{1, 3, 4, 8}},
		{"Dawid-Skene point", "seed = 6\ntopics {\n k = 1\n}\nresponse \"class-prior\" {\n estimate = \"point\"\n}\nannotators \"confusion\" {\n init = \"majority\"\n}\n" + svi,
			crowd.train, []int{2, 4}},
		{"MACE", "seed = 7\ntopics {\n k = 1\n}\nresponse \"class-prior\" {}\nannotators \"mace\" {}\n" + svi,
			crowd.train, []int{2, 4}},
		{"LDA", "seed = 5\ntopics {\n k = 3\n}\n" + svi,
			&framework.Corpus{Docs: reg.Docs, V: reg.V}, []int{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := fitTrace(t, tc.src, tc.c, 0, "")
			if tc.name == "MA-sLDAc converged before the start" && want.iters <= 6 {
				t.Fatalf("%d updates: the schedule did not run twice", want.iters)
			}
			for _, k := range tc.stops {
				got := fitTrace(t, tc.src, tc.c, k, filepath.Join(t.TempDir(), "cp"))
				compareTraces(t, want, got)
				if t.Failed() {
					t.Fatalf("resumed after update %d", k)
				}
			}
		})
	}
}

// TestCheckpointResumeTwoStageBitIdentical: the two-stage schedule (the
// LDA-then-response baselines) stopped after update k — in the topics
// stage, and in the response stage on the frozen φ — checkpointed and
// resumed in a new run ends exactly as the uninterrupted fit, with
// restarts too (lda+raykar: logistic regression and point confusions;
// lda+linreg on the mean answer).
func TestCheckpointResumeTwoStageBitIdentical(t *testing.T) {
	t.Parallel()
	crowd := plantedCrowd(t, 5, 80, 60, 3, 3, 1, []float64{0.8, 0.5, 0.3})
	reg := smallRegression(t)
	const two = "inference \"two-stage\" {\n topics_iters = 4\n response_iters = 4\n topics_tol = 0\n response_tol = 0\n}\n"
	for _, tc := range []struct {
		name, src string
		c         *framework.Corpus
		stops     []int
	}{
		{"lda+raykar", "seed = 3\ntopics {\n k = 3\n}\nresponse \"logreg\" {}\nannotators \"confusion\" {\n estimate = \"point\"\n init = \"majority\"\n}\n" + two,
			crowd.train, []int{1, 3, 5, 7}},
		{"lda+raykar restarts", "seed = 3\nrestarts = 2\nrestart_iters = 2\ntopics {\n k = 3\n}\nresponse \"logreg\" {}\nannotators \"confusion\" {\n estimate = \"point\"\n init = \"majority\"\n}\n" + two,
			crowd.train, []int{2, 6}},
		{"lda+linreg", "seed = 4\ntopics {\n k = 3\n}\nresponse \"linreg\" {}\nannotators \"perfect\" {\n aggregate = \"mean\"\n}\n" + two,
			reg, []int{2, 5}},
		// Stage 1 converges after 2 iterations (tol 1), stage 2 not: the
		// result's convergence is both stages'.
		{"lda+linreg converged topics", "seed = 4\ntopics {\n k = 3\n}\nresponse \"linreg\" {}\nannotators \"perfect\" {\n aggregate = \"mean\"\n}\n" +
			"inference \"two-stage\" {\n topics_iters = 9\n topics_tol = 1\n response_iters = 4\n response_tol = 1\n}\n",
			reg, []int{3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := fitTrace(t, tc.src, tc.c, 0, "")
			if want.iters != 8 && !want.converged {
				t.Fatalf("%d updates, want 4 + 4", want.iters)
			}
			for _, k := range tc.stops {
				got := fitTrace(t, tc.src, tc.c, k, filepath.Join(t.TempDir(), "cp"))
				compareTraces(t, want, got)
				if t.Failed() {
					t.Fatalf("resumed after update %d", k)
				}
			}
		})
	}
}

// TestCheckpointRefusals: another configuration's checkpoint, and a
// checkpoint of another schedule.
func TestCheckpointRefusals(t *testing.T) {
	t.Parallel()
	reg := smallRegression(t)
	c := &framework.Corpus{Docs: reg.Docs, V: reg.V}
	cp := filepath.Join(t.TempDir(), "cp")
	fitTrace(t, "topics {\n k = 3\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n", c, 1, cp)
	cfg, err := models.ParseConfig([]byte("seed = 9\ntopics {\n k = 3\n}\ninference \"batch\" {\n max_iters = 3\n tol = 0\n}\n"), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(cfg, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.LoadCheckpoint(cp, r.Fingerprint()); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("another seed: %v, want ErrBadInput", err)
	}
	// The batch run's checkpoint under a two-stage configuration.
	cfg, err = models.ParseConfig([]byte("topics {\n k = 3\n}\ninference \"two-stage\" {}\n"), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = models.Build(cfg, nil, c); err != nil {
		t.Fatal(err)
	}
	if _, err := r.LoadCheckpoint(cp, r.Fingerprint()); !errors.Is(err, framework.ErrBadInput) {
		t.Errorf("a batch checkpoint under two-stage: %v, want ErrBadInput", err)
	}
}
