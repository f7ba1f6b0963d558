# MA-sLDAr (MODEL.md §3): Gaussian response (σ² estimated), bias/precision
# annotators, batch EM; the configuration of docs/results-regression.md.
# Template of `maslda experiment` (docs/experiments.md).
seed = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "gaussian" {
  sigma2          = 1
  estimate_sigma2 = true
}

annotators "bias-precision" {}

inference "batch" {
  max_iters = 100
}
