package models_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework/synth"
)

// TestClassifierStartKeepsTheCrowd: with 20 answers per short document
// (synth's "many" regime, smaller), the classifier start judges each
// answer against the classifier and the other 19 answers, so the inferred
// truth does not fall at the start (with the classifier alone it fell from
// 0.972 to 0.844 on the full-size regime, docs/design.md "Never worse than
// the crowd") and ends at least at Dawid–Skene's.
func TestClassifierStartKeepsTheCrowd(t *testing.T) {
	t.Parallel()
	spec := synth.CrowdFamily()[8]
	if spec.Name != "many" {
		t.Fatalf("family member 8 is %q, want many", spec.Name)
	}
	spec.D, spec.Test = 300, 0
	cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(1, 12)))
	if err != nil {
		t.Fatal(err)
	}
	head := "seed = 1\nconsensus = 1\ntopics {\n k = 8\n}\nresponse \"softmax\" {}\n"
	ds := fitCrowd(t, cr, "seed = 1\nmodel = \"dawid-skene\"\n", false, false)
	for _, tc := range []struct {
		labels string
		drop   float64 // the most the truth may fall at the start
	}{
		{"others", 0.005},
		{"classifier", 1}, // for the record: the start used to fall here
	} {
		src := head + fmt.Sprintf("annotators \"confusion\" {\n start_labels = %q\n start_iters = 3\n}\ninference \"batch\" {\n max_iters = 8\n tol = 0\n}\n", tc.labels)
		run := fitCrowd(t, cr, src, false, false)
		t.Logf("start_labels %s: truth per iteration %.3f (stages %v); Dawid–Skene %.3f", tc.labels, run.trace, run.stages, ds.truth)
		if d := run.trace[2] - run.trace[3]; d > tc.drop {
			t.Errorf("start_labels %s: truth fell by %.3f at the start (%.3f → %.3f), want ≤ %.3f", tc.labels, d, run.trace[2], run.trace[3], tc.drop)
		}
		if tc.labels == "others" && run.truth < ds.truth {
			t.Errorf("start_labels %s: truth %.3f below Dawid–Skene's %.3f", tc.labels, run.truth, ds.truth)
		}
	}
}
