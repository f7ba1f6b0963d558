package perfect_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/maslda/maslda/annotators/perfect" // registers "perfect" on framework.Default
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// A configuration selects the perfect annotator by name. On a categorical
// target its evidence clamps the true class to the majority vote, whatever
// the response's prior message says; a tie leaves the choice among the
// tied classes to the response.
func Example() {
	cfg, err := models.ParseConfig([]byte(`
topics {
  k = 2
}
response "softmax" {}
annotators "perfect" {
  aggregate = "majority"
}
`), "example.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	noise, err := framework.Default.Noise(cfg.Annotators.Name, cfg.Annotators.Params)
	if err != nil {
		fmt.Println(err)
		return
	}
	classes := []string{"sport", "politics", "science"}
	if err := noise.Init(&framework.Setup{K: 2, Classes: classes}); err != nil {
		fmt.Println(err)
		return
	}
	if err := noise.Accepts(framework.NewCategorical(3)); err != nil {
		fmt.Println(err)
		return
	}
	show := func(what string, answers ...int32) {
		d := &framework.DocState{Target: framework.NewCategorical(3)}
		for r, c := range answers {
			d.Answers = append(d.Answers, framework.Answer{Annotator: int32(r), Class: c})
		}
		t := d.Target.(*framework.Categorical)
		copy(t.Log, []float64{2, 0, 1}) // the response's prior message η_l·φ̄_d
		noise.Evidence(d)
		t.Finalize()
		fmt.Printf("%-26s λ = [%.3f %.3f %.3f]\n", what, t.P[0], t.P[1], t.P[2])
	}
	show("answers politics ×2, sport", 1, 1, 0)
	show("tie politics / science", 1, 2)
	show("no answers")

	// A Gaussian target needs aggregate = "mean".
	err = noise.Accepts(&framework.Gaussian{})
	fmt.Println(errors.Is(err, framework.ErrIncompatible))
	// Output:
	// answers politics ×2, sport λ = [0.000 1.000 0.000]
	// tie politics / science     λ = [0.000 0.269 0.731]
	// no answers                 λ = [0.665 0.090 0.245]
	// true
}

// TestHCLBlock: the block is decoded strictly, and a misspelt key is an
// error listing the valid ones.
func TestHCLBlock(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  perfect.Params
		err   string
	}{
		{`annotators "perfect" {}`, perfect.Defaults(), ""},
		{"annotators \"perfect\" {\n aggregate = \"mean\"\n precision = 1e6\n}", perfect.Params{Aggregate: perfect.Mean, Precision: 1e6}, ""},
		{"annotators \"perfect\" {\n aggregat = \"mean\"\n}", perfect.Params{}, "aggregate, precision"},
		{"annotators \"perfect\" {\n aggregate = \"median\"\n}", perfect.Params{}, `valid: "majority"`},
	} {
		cfg, err := models.ParseConfig([]byte("response \"x\" {}\n"+tc.block), "c.hcl")
		if err != nil {
			t.Fatal(err)
		}
		n, err := framework.Default.Noise(cfg.Annotators.Name, cfg.Annotators.Params)
		if tc.err != "" {
			if !errors.Is(err, framework.ErrBadInput) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want ErrBadInput mentioning %q", tc.block, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := n.(*perfect.Model).Config; got != tc.want {
			t.Errorf("%s: decoded %+v, want %+v", tc.block, got, tc.want)
		}
	}
}
