# The paper's hyper-parameter grid on we8there (regression): the Dirichlet
# parameters α (topic proportions) and τ (topics) over {0.01, 0.1, 1, 10},
# at K = 20, for MA-sLDAr (batch) and the two single-annotator baselines
# on the mean answer. Same data and templates as we8there.hcl; what the
# figures of docs/results.md ("Hyper-parameters") are drawn from.
#
#   maslda experiment --spec experiments/we8there-hyper.hcl [--out DIR] [--cores N]
#
# Cost: 48 runs of 5–40 s each; about 20 minutes on one core.
name      = "we8there-hyper"
data_root = "../../shared/data"
metric    = "regression"
workers   = 1

k     = [20]
alpha = [0.01, 0.1, 1, 10]
tau   = [0.01, 0.1, 1, 10]
seeds = [1]

data {
  train_docs         = "${data}/rodrigues_we8there_sim/data_train.txt"
  answers_wide       = "${data}/rodrigues_we8there_sim/answers.txt"
  train_truth_column = "${data}/rodrigues_we8there_sim/labels_train.txt"
  test_docs          = "${data}/rodrigues_we8there_sim/data_test.txt"
  test_truth_column  = "${data}/rodrigues_we8there_sim/labels_test.txt"
}

model "ma-sldar-batch" {
  config = "models/ma-sldar-batch.hcl"
}
model "lda+linreg(mean)" {
  config = "models/lda-linreg-mean.hcl"
}
model "slda(mean)" {
  config = "models/slda-mean.hcl"
}
