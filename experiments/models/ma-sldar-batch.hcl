# MA-sLDAr (MODEL.md §3): Gaussian response at its defaults (σ² fixed at the
# variance of the mean answers, supervision weight 100), bias/precision
# annotators, batch EM; the configuration of docs/results-regression.md.
# Template of `maslda experiment` (docs/experiments.md).
seed = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "gaussian" {}

annotators "bias-precision" {}

inference "batch" {
  max_iters = 100
}
