package models_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/models"
)

// TestBuildRefusesClassifierStartWithoutDocuments: annotators that start
// from the model's own classifier (confusion's default init) need a
// response that reads the documents; with one that ignores them (the
// class prior) Build refuses before training, naming the annotators'
// block and the starts that work, instead of failing mid-run.
func TestBuildRefusesClassifierStartWithoutDocuments(t *testing.T) {
	t.Parallel()
	spec := synth.CrowdBase()
	spec.D, spec.Test, spec.DocLen, spec.PerDoc = 30, 0, 5, 2
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	src := "topics { k = 1 }\nresponse \"class-prior\" {}\nannotators \"confusion\" {}\n"
	cfg, err := models.ParseConfig([]byte(src), "ds.hcl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = models.Build(cfg, nil, cr.Train)
	if !errors.Is(err, framework.ErrIncompatible) || !strings.Contains(err.Error(), "ds.hcl:3") || !strings.Contains(err.Error(), "init = \"majority\"") {
		t.Fatalf("Build: %v, want ErrIncompatible at ds.hcl:3 naming init = \"majority\"", err)
	}
	cfg, err = models.ParseConfig([]byte(strings.Replace(src, "confusion\" {}", "confusion\" { init = \"majority\" }", 1)), "ds.hcl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Build(cfg, nil, cr.Train); err != nil {
		t.Fatalf("with init = \"majority\": %v", err)
	}
}
