# MA-sLDAr (regression from crowds): Gaussian response, bias/precision annotators.
# α = 1, τ = 0.1 as in the authors' README example; the gaussian's defaults
# (an exact pilot that estimates σ², the truth and the annotators, then
# supervision weight 100 with those held) are what makes the topics predict
# and keeps the truth honest with one answer per document or few answers
# (docs/results-regression.md). max_iters counts
# the iterations after the pilot.
seed = 1

topics {
  k     = 20
  alpha = 1
  tau   = 0.1
}

response "gaussian" {}

annotators "bias-precision" {}

inference "batch" {
  max_iters = 50
}
