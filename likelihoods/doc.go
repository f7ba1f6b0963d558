// Package likelihoods holds the response likelihoods p(target | z̄, η): each
// implements framework.Likelihood and framework.LikelihoodLocal and
// registers itself by name from init (framework.RegisterLikelihood), so a
// configuration selects it with one word (`response "name" { ... }`).
//
// Registered responses: `softmax` (package likelihoods/softmax), the
// classification response of MA-sLDAc (MODEL.md §2), and `gaussian`
// (package likelihoods/gaussian), the regression response of MA-sLDAr
// (MODEL.md §3). docs/design.md describes the contract a response fulfils.
package likelihoods
