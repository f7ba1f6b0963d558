# we8there restaurant reviews (regression, 1–5 stars) with the paper's five
# simulated annotators, every annotator answering every review (MODEL.md
# §7), as in docs/results-regression.md: 4,624 training / 1,542 test
# reviews over 2,641 bigrams.
#
#   maslda experiment --spec experiments/we8there.hcl [--out DIR] [--cores N]
#
# Data: ../shared/data/rodrigues_we8there_sim, used as it is (the answer
# matrix is complete: no missing-value sentinel). The tasks are the line
# numbers from 0. Cost (docs/experiments.md): about 15 minutes on 2 cores
# for three seeds.
name      = "we8there"
data_root = "../../shared/data"
metric    = "regression"
workers   = 1

k     = [10, 20, 30, 40, 50]
alpha = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
tau   = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
seeds = [1, 2, 3]

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
model "ma-sldar-svi" {
  config = "models/ma-sldar-svi.hcl"
}
model "lda+linreg(mean)" {
  config = "models/lda-linreg-mean.hcl"
}
model "slda(mean)" {
  config = "models/slda-mean.hcl"
}
