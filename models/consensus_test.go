package models_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// consensusSrc is a small MA-sLDAc configuration with seed and consensus
// filled in.
const consensusSrc = `model = "ma-sldac"
seed = %d
workers = 1
consensus = %d
restarts = 2
restart_iters = 3
topics { k = 4 }
inference "batch" { max_iters = 12 }
`

// TestConsensusFit: a run with consensus = 3 from seed s is, bit for bit,
// the medoid of the runs from seeds s, s+1, s+2 fitted one by one: the
// same choice and distances (recomputed here from their posteriors), and
// the chosen run's topics, bound and posterior. The other seeds' progress
// comes first, marked Progress.Fit = 2 and 3; the configured seed's has
// Fit 0. model.json keeps the choice.
func TestConsensusFit(t *testing.T) {
	t.Parallel()
	cd := plantedCrowd(t, 5, 150, 80, 4, 3, 1, []float64{0.737, 0.468, 0.284, 0.278, 0.260})
	ctx := context.Background()
	fitSeed := func(seed uint64, n int, obs framework.Observer) *models.Run {
		t.Helper()
		cfg, err := models.ParseConfig([]byte(fmt.Sprintf(consensusSrc, seed, n)), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		r, err := models.Build(cfg, nil, cd.train)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Fit(ctx, obs); err != nil {
			t.Fatal(err)
		}
		return r
	}
	labels := func(r *models.Run) []int {
		post, err := r.Model.Posterior(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int, len(post))
		for d, p := range post {
			out[d] = p.Target.(*framework.Categorical).Argmax()
		}
		return out
	}
	single := map[uint64]*models.Run{}
	for _, s := range []uint64{1, 2, 3, 4, 5, 6} {
		single[s] = fitSeed(s, 1, nil)
	}
	adopted := false
	for _, base := range []uint64{1, 4} { // seed 1 keeps its own fit, seed 4 seed 6's
		var fits []int
		r := fitSeed(base, 3, func(p framework.Progress) error {
			if len(fits) == 0 || fits[len(fits)-1] != p.Fit {
				fits = append(fits, p.Fit)
			}
			return nil
		})
		if want := []int{2, 3, 0}; !slices.Equal(fits, want) {
			t.Errorf("seed %d: progress of fits %v, want %v", base, fits, want)
		}
		// The medoid by hand.
		var ls [][]int
		for i := range 3 {
			ls = append(ls, labels(single[base+uint64(i)]))
		}
		dist := make([][]float64, 3)
		best, bestSum := 0, 10.0
		for i := range 3 {
			dist[i] = make([]float64, 3)
			sum := 0.0
			for j := range 3 {
				n := 0
				for d := range ls[i] {
					if ls[i][d] != ls[j][d] {
						n++
					}
				}
				dist[i][j] = float64(n) / float64(len(ls[i]))
				sum += dist[i][j]
			}
			if sum < bestSum {
				best, bestSum = i, sum
			}
		}
		cs := r.Consensus
		if cs == nil {
			t.Fatalf("seed %d: no Consensus", base)
		}
		if cs.Chosen != best || !cmp.Equal(cs.Distance, dist) {
			t.Errorf("seed %d: chosen %d, distances %v; want %d, %v", base, cs.Chosen, cs.Distance, best, dist)
		}
		if want := []uint64{base, base + 1, base + 2}; !slices.Equal(cs.Seeds, want) {
			t.Errorf("seed %d: seeds %v, want %v", base, cs.Seeds, want)
		}
		want := single[base+uint64(best)]
		if !slices.Equal(r.Model.Topics.Zeta, want.Model.Topics.Zeta) || r.Result.ELBO != want.Result.ELBO || r.Result.Iters != want.Result.Iters {
			t.Errorf("seed %d: the kept fit is not seed %d's (ELBO %v, want %v)", base, base+uint64(best), r.Result.ELBO, want.Result.ELBO)
		}
		if !slices.Equal(labels(r), ls[best]) {
			t.Errorf("seed %d: posterior is not the chosen fit's", base)
		}
		for i := range 3 {
			if s := single[base+uint64(i)]; cs.ELBO[i] != s.Result.ELBO || cs.Iters[i] != s.Result.Iters {
				t.Errorf("seed %d: fit %d's bound %v and iterations %d, want %v and %d", base, i+1, cs.ELBO[i], cs.Iters[i], s.Result.ELBO, s.Result.Iters)
			}
		}
		adopted = adopted || best != 0
		dir := filepath.Join(t.TempDir(), "m")
		if err := r.SaveAtomic(dir, nil); err != nil {
			t.Fatal(err)
		}
		saved, err := models.Load(dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(cs, saved.Manifest.Consensus); diff != "" {
			t.Errorf("seed %d: model.json's consensus (-fit +saved):\n%s", base, diff)
		}
	}
	if !adopted {
		t.Error("the fixture never chose another seed's fit: it no longer tests that the run takes that fit (change the seeds)")
	}
}

// TestConsensusConfig: consensus below 1, or above 1 without a response,
// is ErrBadInput naming the key; an engine's driver (BuildGlobals) refuses
// consensus > 1; a warm start runs one fit.
func TestConsensusConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"model = \"ma-sldac\"\nconsensus = 0\n", "c.hcl:2: consensus = 0, want ≥ 1"},
		{"consensus = 3\ntopics { k = 3 }\n", "c.hcl:1: consensus = 3 compares the fits' truths and needs a response block"},
		{"model = \"ma-sldac\"\n\nrestarts = 0\n", "c.hcl:3: restarts = 0, want ≥ 1"},
		{"workers = -1\n", "c.hcl:1: workers = -1"},
		{"restart_iters = 0\n", "c.hcl:1: restart_iters = 0"},
	} {
		_, err := models.ParseConfig([]byte(tc.src), "c.hcl")
		if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want ErrBadInput with %q", tc.src, err, tc.want)
		}
	}
	cd := plantedCrowd(t, 5, 60, 40, 3, 3, 1, []float64{0.8, 0.6})
	cfg, err := models.ParseConfig([]byte(fmt.Sprintf(consensusSrc, 1, 3)), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = models.BuildGlobals(cfg, nil, models.CorpusInfo{Docs: len(cd.train.Docs), V: cd.train.V, Answers: cd.train.Answers})
	if !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "consensus = 3") {
		t.Errorf("BuildGlobals: error %v, want ErrIncompatible about consensus", err)
	}
	// A warm start from a saved fit runs one fit.
	one, err := models.ParseConfig([]byte(fmt.Sprintf(consensusSrc, 1, 1)), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	src, err := models.Build(one, nil, cd.train)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := src.SaveAtomic(dir, nil); err != nil {
		t.Fatal(err)
	}
	warm, err := models.ParseConfig([]byte("model = \"ma-sldac\"\nworkers = 1\nconsensus = 3\ntopics { k = 4 }\ninference \"batch\" { max_iters = 5 }\n"), "c.hcl")
	if err != nil {
		t.Fatal(err)
	}
	r, err := models.Build(warm, nil, cd.train)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WarmStart(dir); err != nil {
		t.Fatal(err)
	}
	fits := map[int]bool{}
	if _, err := r.Fit(context.Background(), func(p framework.Progress) error { fits[p.Fit] = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if r.Consensus != nil || len(fits) != 1 || !fits[0] {
		t.Errorf("warm start: consensus %+v, progress of fits %v; want one fit", r.Consensus, fits)
	}
}

// TestConsensusDefault: a crowd model with a class truth under batch EM
// with k > 1 fits DefaultConsensus seeds unless the file says otherwise;
// a numeric truth, SVI, two-stage, k = 1, a response without annotators
// and an engine's driver (BuildGlobals) run one fit; a written value is
// kept.
func TestConsensusDefault(t *testing.T) {
	t.Parallel()
	cd := plantedCrowd(t, 5, 60, 40, 3, 3, 1, []float64{0.8, 0.6})
	reg := smallRegression(t)
	for _, tc := range []struct {
		name, src string
		values    bool
		want      int
	}{
		{"ma-sldac", `model = "ma-sldac"`, false, models.DefaultConsensus},
		{"blocks", "topics { k = 3 }\nresponse \"softmax\" {}\nannotators \"confusion\" {}\n", false, models.DefaultConsensus},
		{"written", "model = \"ma-sldac\"\nconsensus = 5\n", false, 5},
		{"written 1", "model = \"ma-sldac\"\nconsensus = 1\n", false, 1},
		{"ma-sldar", `model = "ma-sldar"`, true, 1},
		{"svi", "model = \"ma-sldac\"\ninference \"svi\" {}\n", false, 1},
		{"two-stage", `model = "lda+logreg(mv)"`, false, 1},
		{"k = 1", `model = "dawid-skene"`, false, 1},
		{"no annotators", `model = "slda(mv)"`, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := models.ParseConfig([]byte(tc.src), "c.hcl")
			if err != nil {
				t.Fatal(err)
			}
			c := cd.train
			if tc.values {
				c = reg
			}
			r, err := models.Build(cfg, nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if r.Config.Consensus != tc.want {
				t.Errorf("consensus %d, want %d", r.Config.Consensus, tc.want)
			}
			fetch := func(idx []int) ([]framework.Doc, error) {
				out := make([]framework.Doc, len(idx))
				for i, d := range idx {
					out[i] = c.Docs[d]
				}
				return out, nil
			}
			g, err := models.BuildGlobals(cfg, nil, models.CorpusInfo{Docs: len(c.Docs), V: c.V, Answers: c.Answers, Fetch: fetch})
			if tc.want > 1 && !cfg.ConsensusDefault {
				if !errors.Is(err, framework.ErrIncompatible) {
					t.Errorf("BuildGlobals with a written consensus: error %v, want ErrIncompatible", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Config.Consensus != 1 {
				t.Errorf("BuildGlobals: consensus %d, want 1", g.Config.Consensus)
			}
		})
	}
}
