# MA-sLDAr (MODEL.md §3) with stochastic variational inference (§5).
# Template of `maslda experiment` (docs/experiments.md).
seed = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
  local_init = "best" # as the recorded tables ran (the default was "best" until 2026-11-27; now "auto", "fresh" under SVI)
}

response "gaussian" {}

annotators "bias-precision" {}

inference "svi" {
  batch_size = 500
  kappa      = 0.6
  delay      = 1
  epochs     = 30
}
