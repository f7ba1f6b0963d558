package confusion

import (
	"slices"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
)

// The conformance kit, for the variational and the point estimate (ξ is
// what Update blends), with the kit's flat response (Dawid–Skene).
func TestKit(t *testing.T) {
	for _, est := range []string{EstimateVariational, EstimatePoint, PriorLearned, PriorCommunities, "communities with a rate", "communities with a diagonal", "structured communities", "mean-field communities", "dominant communities", PriorAuto, "lapse", "lapse with point estimates", "lapse with structured communities"} {
		t.Run(est, func(t *testing.T) {
			frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
				New: func() (framework.NoiseModel, error) {
					cfg := Defaults()
					cfg.Estimate, cfg.Init = est, InitMajority
					if est == PriorLearned || est == PriorCommunities { // the variational estimate with a learned prior
						cfg.Estimate, cfg.Prior = EstimateVariational, est
					}
					if est == "communities with a rate" {
						cfg.Estimate, cfg.Prior, cfg.PriorRate = EstimateVariational, PriorCommunities, 0.1
					}
					if est == "communities with a diagonal" {
						cfg.Estimate, cfg.Prior, cfg.PriorRate, cfg.PriorDiagonal = EstimateVariational, PriorCommunities, 0.1, 2
					}
					if est == "structured communities" {
						cfg.Estimate, cfg.Prior, cfg.PriorRate, cfg.PriorDiagonal, cfg.Membership = EstimateVariational, PriorCommunities, 0.1, 2, MembershipStructured
					}
					if est == "dominant communities" {
						cfg.Estimate, cfg.Prior, cfg.PriorRate, cfg.PriorDominant, cfg.Membership = EstimateVariational, PriorCommunities, 0.1, true, MembershipStructured
					}
					if est == "mean-field communities" {
						cfg.Estimate, cfg.Prior, cfg.PriorRate, cfg.PriorDiagonal, cfg.Membership = EstimateVariational, PriorCommunities, 0.1, 2, MembershipMeanField
					}
					if est == PriorAuto { // the kit's 4 annotators are below AutoMinAnnotators: the fixed prior, through auto
						cfg.Estimate, cfg.Prior, cfg.PriorRate = EstimateVariational, PriorAuto, 0.1
					}
					switch est {
					case "lapse":
						cfg.Estimate, cfg.Lapse = EstimateVariational, 0.1
					case "lapse with point estimates":
						cfg.Estimate, cfg.Lapse = EstimatePoint, 0.3
					case "lapse with structured communities":
						cfg.Estimate, cfg.Prior, cfg.PriorRate, cfg.Membership, cfg.Lapse = EstimateVariational, PriorCommunities, 0.1, MembershipStructured, 0.05
					}
					return NewModel(cfg)
				},
				Kind: frameworktest.KindCategorical,
				// ξ, and a learned prior's α (the communities' α, w and
				// memberships), which Update blends like ξ.
				Natural: func(n framework.NoiseModel) []float64 {
					m := n.(*Model)
					if cm := m.comm; cm != nil {
						return slices.Concat(m.xi, cm.alpha, cm.w, cm.q)
					}
					if m.cfg.Prior == PriorLearned {
						return slices.Concat(m.xi, m.alpha)
					}
					return slices.Clone(m.xi)
				},
			})
		})
	}
}
