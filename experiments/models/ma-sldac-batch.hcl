# MA-sLDAc (MODEL.md §2): softmax response, confusion-matrix annotators,
# batch EM. A template of `maslda experiment` (docs/experiments.md): each
# dollar-brace variable below is replaced by a value of the spec's grid.
# 30 iterations: no 20 Newsgroups run converged within them
# (docs/results-classification.md), but they fit a day's grid.
seed = ${seed}
restarts = 1 # the recorded tables (docs/results.md) ran one start; the default is 4 plain-LDA restarts since issue 25
consensus = 1 # and one fit; the default fits three seeds and keeps their medoid since issue 25's fifteenth session

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
