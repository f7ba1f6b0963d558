package models

import (
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
)

// TestQuickQuality is an end-to-end quality check small enough for every
// pass, -short and -race included (the kit's recovery checks skip under
// -short): MA-sLDAc, batch, on a planted crowd of 240 documents with two
// answers each from annotators of accuracy 0.8, 0.6 and 0.45, must infer
// the training documents' classes better than majority vote (ties split) by
// 0.1. Measured: majority vote 0.615, MA-sLDAc 0.912 (seed 3).
func TestQuickQuality(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	train, _, truth := smallCrowd(t)
	cfg := mustConfig(t, twoStageTopics+"response \"softmax\" {}\nannotators \"confusion\" {}\ninference \"batch\" {\n max_iters = 30\n}\n")
	r, err := Build(cfg, nil, train)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fit(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	post, err := r.Model.Posterior(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	mv, acc := 0.0, 0.0
	dst := make([]float64, 3)
	for d, p := range post {
		if p.Target.(*framework.Categorical).Argmax() == truth[d] {
			acc++
		}
		if confusion.MajorityVote(dst, train.Answers.ByDoc[d]) {
			mv += dst[truth[d]]
		}
	}
	acc /= float64(len(post))
	mv /= float64(len(post))
	t.Logf("majority vote %.3f, MA-sLDAc %.3f", mv, acc)
	if acc < mv+0.1 {
		t.Errorf("MA-sLDAc infers %.3f of the classes, want ≥ majority vote's %.3f + 0.1", acc, mv)
	}
}
