# Baseline sLDA (mean answer), MODEL.md §6: the preset "slda(mean)"
# (Gaussian response fitted jointly with the topics to the mean answer),
# with MA-sLDAr's σ² and budget. Template of `maslda experiment`
# (docs/experiments.md).
model = "slda(mean)"
seed  = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}

response "gaussian" {
  sigma2          = 1
  estimate_sigma2 = true
}

inference "batch" {
  max_iters = 100
}
