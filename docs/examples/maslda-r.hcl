# MA-sLDAr (regression from crowds): Gaussian response, bias/precision annotators.
seed = 1

topics {
  k = 20
}

response "gaussian" {
  sigma2          = 1
  estimate_sigma2 = true
}

annotators "bias-precision" {}

inference "batch" {
  max_iters = 50
}
