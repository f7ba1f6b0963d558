# The paper's movie reviews (regression): 1,500 training reviews rated by
# 135 Amazon Mechanical Turk workers (7,440 answers), 3,506 test reviews,
# as in docs/results-regression.md. Ratings are rating/10.
#
#   maslda experiment --spec experiments/moviereviews.hcl [--out DIR] [--cores N]
#
# Data: ../shared/data/rodrigues_moviereviews_amt, used as it is (LDA-C,
# no vocabulary). vocab_size = 26735 = 1 + the largest word id of train and
# test, so that predict drops no test word. The tasks are the line numbers
# from 0 (no ids: the truth files are one label per line).
# Cost (docs/experiments.md): about 1.5 hours on 2 cores for three seeds.
name      = "moviereviews"
data_root = "../../shared/data"
metric    = "regression"
workers   = 1

k     = [10, 20, 30, 40, 50]
alpha = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
tau   = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
seeds = [1, 2, 3]

data {
  train_docs         = "${data}/rodrigues_moviereviews_amt/data_train_amt.txt"
  vocab_size         = 26735
  answers_wide       = "${data}/rodrigues_moviereviews_amt/answers.txt"
  missing            = "999999999"
  train_truth_column = "${data}/rodrigues_moviereviews_amt/labels_train_amt.txt"
  test_docs          = "${data}/rodrigues_moviereviews_amt/data_test.txt"
  test_truth_column  = "${data}/rodrigues_moviereviews_amt/labels_test.txt"
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
