package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// TestExploreWarmStart compares the confusion starts on planted
// one-answer data (docs/design.md, "The classifier start"):
//
//	MASLDA_EXPLORE=1 go test ./models -run ExploreWarmStart -v
func TestExploreWarmStart(t *testing.T) {
	if os.Getenv("MASLDA_EXPLORE") == "" {
		t.Skip("exploration only: set MASLDA_EXPLORE=1 to run")
	}
	acc := []float64{0.737, 0.468, 0.284, 0.278, 0.260}
	for _, seed := range []uint64{1, 2, 3} {
		cd := plantedCrowd(t, seed, 1000, 400, 8, 4, 1, acc)
		mv := majorityAccuracy(cd, rand.New(rand.NewPCG(1, 1)))
		for _, inf := range []string{"inference \"batch\" {\n max_iters = 40\n}\n", "inference \"svi\" {\n batch_size = 200\n epochs = 20\n}\n"} {
			for _, init := range []string{"uniform", "classifier"} {
				ann := fmt.Sprintf("annotators \"confusion\" {\n init = %q\n}\n", init)
				if init == "oracle" {
					ann = "annotators \"confusion\" {}\n"
				}
				cfg, err := models.ParseConfig([]byte(fmt.Sprintf("seed = %d\ntopics {\n k = 8\n}\nresponse \"softmax\" {}\n", seed)+ann+inf), "c.hcl")
				if err != nil {
					t.Fatal(err)
				}
				r, err := models.Build(cfg, nil, cd.train)
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				cm := r.Model.Noise.(*confusion.Model)
				var obs framework.Observer
				if init == "oracle" { // the planted matrices, held fixed
					oracle := func() {
						xi := make([][][]float64, len(cd.pis))
						for q, pi := range cd.pis {
							xi[q] = make([][]float64, len(pi))
							for c := range pi {
								xi[q][c] = make([]float64, len(pi[c]))
								for l := range pi[c] {
									xi[q][c][l] = 1e6 * pi[c][l]
								}
							}
						}
						if err := cm.SetXi(xi); err != nil {
							t.Fatal(err)
						}
					}
					oracle()
					obs = func(framework.Progress) error { oracle(); return nil }
				}
				res, err := r.Fit(ctx, obs)
				if err != nil {
					t.Fatal(err)
				}
				post, _ := r.Model.Posterior(ctx)
				pred, _ := r.Model.Predict(ctx, cd.test)
				fmt.Printf("seed %d %-5s MV %.3f %-10s truth %.3f test %.3f dist %.3f ELBO %.7g iters %d\n", seed, inf[11:16], mv, init, accuracyOf(post, cd.truth), accuracyOf(pred, cd.testTruth), confusionDistance(cm, cd.pis), res.ELBO, res.Iters)
			}
		}
	}
}
