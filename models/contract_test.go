package models_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/topics"
)

// Wrappers that hide capabilities of the kit's fakes: embedding only the
// interface leaves out every other method.
type (
	respNoScore struct{ framework.Likelihood }
	respNoSave  struct {
		framework.Likelihood
		framework.DocScorer
	}
	noiseNoScore struct{ framework.NoiseModel }
	noiseNoSave  struct {
		framework.NoiseModel
		framework.DocScorer
	}
)

// TestRequiredCapabilities: models.NewModel refuses a response or an
// annotator model without a document score (framework.DocScorer) or
// without save/load (framework.Persister) or the Parameterless marker,
// naming what is missing, and accepts the kit's fakes, which have both.
func TestRequiredCapabilities(t *testing.T) {
	t.Parallel()
	flat := &frameworktest.FlatResponse{Kind: frameworktest.KindCategorical, C: 2}
	clamped := &frameworktest.Clamped{}
	cases := []struct {
		name  string
		resp  framework.Likelihood
		noise framework.NoiseModel
		want  string // "" accepted; else a substring of the error
	}{
		{"fakes", flat, clamped, ""},
		{"response without a score", respNoScore{flat}, clamped, "response models_test.respNoScore does not implement framework.DocScorer"},
		{"response without save/load", respNoSave{flat, flat}, clamped, "response models_test.respNoSave implements neither framework.Persister"},
		{"annotators without a score", flat, noiseNoScore{clamped}, "annotator model models_test.noiseNoScore does not implement framework.DocScorer"},
		{"annotators without save/load", flat, noiseNoSave{clamped, clamped}, "annotator model models_test.noiseNoSave implements neither framework.Persister"},
		{"no annotators", flat, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := topics.New(topics.Defaults(), 10)
			if err != nil {
				t.Fatal(err)
			}
			_, err = models.NewModel(l, c.resp, c.noise, nil, 1)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want ErrIncompatible containing %q", err, c.want)
			}
		})
	}
}
