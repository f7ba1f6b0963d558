# Baseline sLDA (mean answer), MODEL.md §6: the preset "slda(mean)"
# (Gaussian response fitted jointly with the topics to the mean answer),
# with MA-sLDAr's response settings (the gaussian's defaults) and budget.
# Template of `maslda experiment` (docs/experiments.md).
model = "slda(mean)"
seed  = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "gaussian" {}

inference "batch" {
  max_iters = 100
}
