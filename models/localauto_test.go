package models_test

import (
	"math"
	"testing"
)

// TestLocalInitAuto: local_init "auto" (the default) is "best" in an E-step
// over every training document (batch EM, SVI whose mini-batch is the
// corpus) and "fresh" in a mini-batch's: the ELBO traces are those of the
// named policy, bit for bit, and differ from the other's.
func TestLocalInitAuto(t *testing.T) {
	t.Parallel()
	cd := plantedCrowd(t, 5, 120, 150, 3, 3, 1, []float64{0.8, 0.5, 0.3})
	const head = "seed = 2\nrestarts = 1\nresponse \"softmax\" {}\nannotators \"confusion\" {\n start_iters = 2\n}\n"
	topics := func(li string) string { return "topics {\n k = 3\n local_init = \"" + li + "\"\n}\n" }
	elbos := func(src string) []float64 {
		tr := fitTrace(t, head+src, cd.train, 0, "")
		var e []float64
		for _, p := range tr.progress {
			e = append(e, p.ELBO)
		}
		return e
	}
	same := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct{ name, inference, as, notAs string }{
		{"batch", "inference \"batch\" {\n max_iters = 4\n tol = 0\n}\n", "best", "fresh"},
		{"svi full batch", "inference \"svi\" {\n batch_size = 1000\n kappa = 0\n epochs = 4\n tol = 0\n}\n", "best", "fresh"},
		{"svi", "inference \"svi\" {\n batch_size = 40\n epochs = 3\n tol = 0\n}\n", "fresh", "best"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auto := elbos(topics("auto") + tc.inference)
			if !same(auto, elbos(topics(tc.as)+tc.inference)) {
				t.Errorf("auto's ELBO trace is not %s's", tc.as)
			}
			if same(auto, elbos(topics(tc.notAs)+tc.inference)) {
				t.Errorf("auto's ELBO trace is %s's too: the test cannot tell them apart", tc.notAs)
			}
		})
	}
}
