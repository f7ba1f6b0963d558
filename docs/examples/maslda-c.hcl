# MA-sLDAc (classification from crowds, MODEL.md §2): softmax response,
# confusion-matrix annotators, batch variational EM. α = 0.1, τ = 0.1 as in
# experiments/r8.hcl and 20ng.hcl; the softmax's and the confusion matrices'
# defaults are the shipped ones (docs/config.md).
#
#   maslda prepare --input raw.csv --format csv --label-column label --split 0.8 --out corpus
#   maslda train --corpus corpus --answers answers.csv --config docs/examples/maslda-c.hcl --out model
#   maslda predict --model model --corpus corpus --out predictions.csv
seed = 1

topics {
  k     = 20
  alpha = 0.1
  tau   = 0.1
}

response "softmax" {}

annotators "confusion" {
  prior      = "auto" # communities when 8 or more annotators give fewer than 16 answers per confusion entry
  prior_rate = 0.1
}

inference "batch" {
  max_iters = 50
}
