# MA-sLDAr (MODEL.md §3) with stochastic variational inference (§5).
# Template of `maslda experiment` (docs/experiments.md).
seed = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "gaussian" {}

annotators "bias-precision" {}

inference "svi" {
  batch_size = 500
  kappa      = 0.6
  delay      = 1
  epochs     = 30
}
