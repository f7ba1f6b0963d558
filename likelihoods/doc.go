// Package likelihoods holds the response likelihoods p(target | z̄, η): each
// implements framework.Likelihood and framework.LikelihoodLocal and
// registers itself by name from init (framework.RegisterLikelihood), so a
// configuration selects it with one word (`response "name" { ... }`).
//
// The softmax response of MA-sLDAc (MODEL.md §2) and the Gaussian response
// of MA-sLDAr (MODEL.md §3) belong here; none is registered yet, so today
// `maslda` trains plain LDA only (`maslda components` lists what is
// registered). docs/design.md describes the contract a response fulfils.
package likelihoods
