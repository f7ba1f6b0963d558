# MA-sLDAr (regression from crowds): Gaussian response, bias/precision annotators.
# α = 1, τ = 0.1 as in the authors' README example; the gaussian's defaults
# (σ² fixed at the variance of the mean answers, supervision weight 100)
# are what makes the topics predict (docs/results-regression.md).
seed = 1

topics {
  k     = 20
  alpha = 1
  tau   = 0.1
}

response "gaussian" {}

annotators "bias-precision" {}

inference "batch" {
  max_iters = 50
}
