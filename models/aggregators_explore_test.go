package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestExploreAggregators compares the label aggregators (the presets
// that ignore the documents) and MA-sLDAc with the documents on the
// simulated crowds of synth.AggregatorAnswers (issue 16, item 4): the
// truth and documents of synth.CrowdBase (1,500 tasks, 4 classes, K 8),
// 5 answers a task. It prints one markdown row per crowd, seed and
// method: truth accuracy and wall seconds of the fit. Gated (minutes):
//
//	MASLDA_AGG=1 MASLDA_SEEDS=1,2,3 go test ./models -run ExploreAggregators -v -timeout 0
//
// MASLDA_AGG_ANN replaces MA-sLDAc's annotators block (default
// `annotators "confusion" {}`). MASLDA_AGG_METHODS overrides the comma-separated list of methods (preset
// names, or "ma-sldac"); a preset that is not registered is skipped
// with a message.
func TestExploreAggregators(t *testing.T) {
	if os.Getenv("MASLDA_AGG") == "" {
		t.Skip("set MASLDA_AGG=1 to run the aggregator comparison (minutes)")
	}
	methods := []string{"majority-vote", "wawa", "dawid-skene", "dawid-skene(bayes)", "one-coin", "mace", "glad", "ma-sldac"}
	if s := os.Getenv("MASLDA_AGG_METHODS"); s != "" {
		methods = strings.Split(s, ",")
	}
	seeds := []uint64{1}
	if s := os.Getenv("MASLDA_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, n)
		}
	}
	t.Logf("| crowd | seed | majority (expected) | %s |", strings.Join(methods, " | "))
	for _, kind := range synth.AggregatorKinds {
		for _, seed := range seeds {
			spec := synth.CrowdBase()
			cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(seed, 16)))
			if err != nil {
				t.Fatal(err)
			}
			a, _, err := synth.AggregatorAnswers(kind, cr.Truth, cr.Train.Answers.Classes, 5, rand.New(rand.NewPCG(seed, 17)))
			if err != nil {
				t.Fatal(err)
			}
			empty := &framework.Corpus{V: 1, Docs: make([]framework.Doc, len(a.ByDoc)), Answers: a}
			for d := range empty.Docs {
				empty.Docs[d].ID = strconv.Itoa(d)
			}
			withDocs := &framework.Corpus{V: cr.Train.V, Docs: cr.Train.Docs, Answers: a}
			cells := []string{kind, strconv.FormatUint(seed, 10), fmt.Sprintf("%.3f", majorityExpected(a, cr.Truth))}
			for _, m := range methods {
				src, c := "seed = "+strconv.FormatUint(seed, 10)+"\nmodel = \""+m+"\"\n", empty
				if m == "ma-sldac" {
					ann := "annotators \"confusion\" {}\n"
					if s := os.Getenv("MASLDA_AGG_ANN"); s != "" {
						ann = s + "\n"
					}
					src = "seed = " + strconv.FormatUint(seed, 10) + "\ntopics {\n  k = 8\n}\nresponse \"softmax\" {}\n" + ann + "inference \"batch\" {\n  max_iters = 40\n}\n"
					c = withDocs
				} else if !slices.Contains(models.PresetNames(), m) {
					t.Logf("%s: not a registered preset, skipped", m)
					cells = append(cells, "–")
					continue
				}
				cfg, err := models.ParseConfig([]byte(src), m+".hcl")
				if err != nil {
					t.Fatal(err)
				}
				run, err := models.Build(cfg, nil, c)
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				start := time.Now()
				res, err := run.Fit(context.Background(), nil)
				if err != nil {
					t.Fatalf("%s: %v", m, err)
				}
				if m == "ma-sldac" {
					t.Logf("%s %s seed %d: final bound %.1f after %d iterations", kind, m, seed, res.ELBO, res.Iters)
				}
				secs := time.Since(start).Seconds()
				cells = append(cells, fmt.Sprintf("%.3f (%.2f s)", runAccuracy(run, cr.Truth), secs))
			}
			t.Logf("| %s |", strings.Join(cells, " | "))
		}
	}
}

// majorityExpected is majority vote's expected accuracy, ties split.
func majorityExpected(a *framework.Answers, truth []int) float64 {
	acc := 0.0
	counts := make([]int, len(a.Classes))
	for d, as := range a.ByDoc {
		clear(counts)
		for _, x := range as {
			counts[x.Class]++
		}
		best := slices.Max(counts)
		ties := 0
		for _, n := range counts {
			if n == best {
				ties++
			}
		}
		if counts[truth[d]] == best {
			acc += 1 / float64(ties)
		}
	}
	return acc / float64(len(truth))
}
