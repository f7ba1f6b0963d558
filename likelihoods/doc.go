// Package likelihoods holds the response likelihoods p(target | z̄, η): each
// implements framework.Likelihood and framework.LikelihoodLocal and
// registers itself by name from init (framework.RegisterLikelihood), so a
// configuration selects it with one word (`response "name" { ... }`).
//
// Registered responses: `softmax` (package likelihoods/softmax), the
// classification response of MA-sLDAc (MODEL.md §2), and `gaussian`
// (package likelihoods/gaussian), the regression response of MA-sLDAr
// (MODEL.md §3); for the baselines of MODEL.md §6, `class-prior` (package
// likelihoods/classprior: a class prior only, Dawid–Skene), `logreg`
// (package likelihoods/logreg: logistic regression on the fixed topic
// features φ̄ of the `two-stage` schedule) and `linreg` (registered by
// likelihoods/gaussian: the gaussian response on the same fixed features,
// a ridge regression). docs/design.md describes the contract a response
// fulfils.
package likelihoods
