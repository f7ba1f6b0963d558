# MA-sLDAc with SVI as experiments/models/ma-sldac-svi.hcl, with the two
# settings of before 2026-11-26 that changed its results: the supervised
# fresh start and the softmax M-step's tolerance 1e-6. It reproduces the
# recorded SVI row of docs/results.md bit for bit (experiments/20ng-seeds.hcl,
# docs/performance.md "The SVI cells over three seeds").
seed = ${seed}

topics {
  k           = ${k}
  alpha       = ${alpha}
  tau         = ${tau}
  local_init  = "best" # as the recorded tables ran (the default was "best" until 2026-11-27; now "auto", "fresh" under SVI)
  fresh_start = "supervised"
}

response "softmax" {
  grad_tol = 1e-6
}

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
