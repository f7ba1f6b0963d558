# MA-sLDAc (MODEL.md §2) with stochastic variational inference (§5), the
# paper's schedule. Template of `maslda experiment` (docs/experiments.md).
seed = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
  local_init = "best" # as the recorded tables ran (the default was "best" until 2026-11-27; now "auto", "fresh" under SVI)
}

response "softmax" {}

annotators "confusion" {
  omega         = ${omega}
  start_updates = 0 # the start after start_iters (8) epochs, as the recorded tables ran it (the default until 2026-11-27)
}

inference "svi" {
  batch_size = 500
  kappa      = 0.6
  delay      = 1
  epochs     = 20
}
