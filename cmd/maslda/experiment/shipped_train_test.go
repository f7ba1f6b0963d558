package experiment_test

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/maslda/maslda/cmd/maslda/experiment"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
	_ "github.com/maslda/maslda/plugins/std"
)

// tinyCrowd is a planted corpus of 60 documents with answers of the
// spec's kind from three annotators: classes with accuracies 0.8, 0.6,
// 0.45 (classification), or numbers with biases 0.1, −0.3, 1 and
// precisions 10, 3, 0.5 (regression).
func tinyCrowd(t *testing.T, regression bool) *framework.Corpus {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	c, pl, err := synth.LDA(synth.LDASpec{D: 60, V: 40, K: 3, DocLen: 25, Alpha: 0.3, TopicConc: 0.1}, rng)
	if err != nil {
		t.Fatal(err)
	}
	byDoc := make([][]framework.Answer, len(c.Docs))
	if regression {
		bias, prec := []float64{0.1, -0.3, 1}, []float64{10, 3, 0.5}
		for d := range byDoc {
			x := pl.ZBar[d][0] + 3*pl.ZBar[d][1] + 5*pl.ZBar[d][2]
			for r := range bias {
				byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Class: -1, Value: x + bias[r] + rng.NormFloat64()/math.Sqrt(prec[r])})
			}
		}
		c.Answers = &framework.Answers{Annotators: []string{"a", "b", "c"}, ByDoc: byDoc}
		return c
	}
	classes := synth.Classes(pl.ZBar, synth.PlantedEta(3, 3, 4, rng), rng)
	for d, y := range classes {
		for r, acc := range []float64{0.8, 0.6, 0.45} {
			a := y
			if rng.Float64() >= acc {
				a = (y + 1 + rng.IntN(2)) % 3
			}
			byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Class: int32(a)})
		}
	}
	c.Answers = &framework.Answers{Annotators: []string{"a", "b", "c"}, Classes: []string{"x", "y", "z"}, ByDoc: byDoc}
	return c
}

// TestShippedModelsTrain: every model of every shipped spec, at the grid's
// first point, builds with the standard plug-ins and trains on a tiny
// planted crowd of the spec's kind (a template that replaces a preset's
// block and loses a setting the preset needs fails here, not after hours
// of a grid).
func TestShippedModelsTrain(t *testing.T) {
	race.SkipLong(t)
	specs, err := filepath.Glob(filepath.Join("..", "..", "..", "experiments", "*.hcl"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("shipped specs: %v (%v)", specs, err)
	}
	corpora := map[bool]*framework.Corpus{false: tinyCrowd(t, false), true: tinyCrowd(t, true)}
	for _, path := range specs {
		s, err := experiment.LoadSpec(path, experiment.Options{Out: t.TempDir()})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		seen := map[string]bool{}
		for _, c := range s.Cells("") {
			if seen[c.Model] {
				continue
			}
			seen[c.Model] = true
			t.Run(filepath.Base(path)+"/"+c.Model, func(t *testing.T) {
				cfg, err := models.ParseConfig([]byte(c.Config), c.Model+".hcl")
				if err != nil {
					t.Fatal(err)
				}
				cfg.Workers = 1
				r, err := models.Build(cfg, nil, corpora[s.Metric == experiment.MetricRegression])
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				if _, err := r.Fit(context.Background(), nil); err != nil {
					t.Fatalf("Fit: %v", err)
				}
			})
		}
	}
}
