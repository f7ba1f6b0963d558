# Baseline sLDA (majority vote), MODEL.md §6: the preset "slda(mv)"
# (softmax response fitted jointly with the topics to the majority vote),
# batch EM with MA-sLDAc's budget. Template of `maslda experiment`
# (docs/experiments.md).
model = "slda(mv)"
seed  = ${seed}
restarts = 1 # the recorded tables (docs/results.md) ran one start; the default is 4 plain-LDA restarts since issue 25

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

inference "batch" {
  max_iters = 30
}
