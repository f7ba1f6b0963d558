# Plain LDA with 20 topics, stochastic variational inference (MODEL.md §5).
seed = 1

topics {
  k     = 20
  alpha = 0.1
  tau   = 0.1
}

inference "svi" {
  batch_size = 250
  kappa      = 0.6
  delay      = 1
  epochs     = 20
}
