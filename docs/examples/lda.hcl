# Plain LDA with 20 topics, batch variational EM, 4 restarts.
seed     = 1
restarts = 4

topics {
  k     = 20
  alpha = 0.1
  tau   = 0.1
}

inference "batch" {
  max_iters = 50
  tol       = 1e-5
}
