# ma-sldac-batch.hcl with restarts = 3 (docs/results.md, 20 Newsgroups "Seeds 1–3").
# MA-sLDAc (MODEL.md §2): softmax response, confusion-matrix annotators,
# batch EM. A template of `maslda experiment` (docs/experiments.md): each
# dollar-brace variable below is replaced by a value of the spec's grid.
# 30 iterations: no 20 Newsgroups run converged within them
# (docs/results-classification.md), but they fit a day's grid.
seed     = ${seed}
restarts = 3 # the best of 3 initialisations by the bound after restart_iters (5) batch iterations
consensus = 1 # one fit, as the recorded tables

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "softmax" {}

annotators "confusion" {
  omega = ${omega}
}

inference "batch" {
  max_iters = 30
}
