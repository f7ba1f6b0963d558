package perfect

import (
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit, on both kinds of target. The perfect annotator has
// no global parameters.
func TestKit(t *testing.T) {
	hard := "hard evidence: log-potentials −Inf outside the majority, so the bound is −Inf at the kit's random targets (TestEvidenceCategorical and TestStatsAndELBO check the clamp)"
	for _, kind := range []string{frameworktest.KindCategorical, frameworktest.KindGaussian} {
		skip := map[string]string{
			"Recovery": "the perfect annotator is majority vote (mean answer) by construction (TestMajorityWeights, TestAutomaticPrecision)",
		}
		if kind == frameworktest.KindCategorical {
			skip["EvidenceGradient"], skip["DocELBOSum"], skip["Merge"], skip["ExactSums"] = hard, hard, hard, hard
		}
		t.Run(kind, func(t *testing.T) {
			frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
				New:       func() (framework.NoiseModel, error) { return New(Defaults()) },
				Kind:      kind,
				Stateless: true,
				Checks:    frameworktest.Checks{Skip: skip},
			})
		})
	}
	// "wawa": the same hard evidence, with the weights of the kit's
	// fixture answers.
	t.Run("wawa", func(t *testing.T) {
		frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
			New:       func() (framework.NoiseModel, error) { return New(Params{Aggregate: Wawa}) },
			Kind:      frameworktest.KindCategorical,
			Stateless: true,
			Checks: frameworktest.Checks{Skip: map[string]string{
				"Recovery":         "a fixed vote (TestWawaByHand)",
				"EvidenceGradient": hard, "DocELBOSum": hard, "Merge": hard, "ExactSums": hard,
			}},
		})
	})
}
