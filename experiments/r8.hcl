# Reuters-21578 R8 (Cachopo's single-label ModApte subset, 8 classes) with
# simulated annotators. The paper's Reuters answers came from real workers
# and have no text (../shared/data/evgeneus_reuters_mturk_labels_only), so
# here the annotators are simulated exactly as for 20 Newsgroups: five
# annotators with the paper's accuracies 0.737, 0.468, 0.284, 0.278, 0.260
# (the rest of each confusion row spread evenly over the other 7 classes),
# one answer per training document. Same models and budgets as 20ng.hcl.
#
#   maslda experiment --spec experiments/r8.hcl [--out DIR] [--cores N]
#
# Data: ../shared/data/reuters_r8_cachopo, prepared as in docs/prepare.md
# (the given train/test split; the test set uses the training vocabulary).
# Cost (docs/experiments.md): about 1.5 hours on 2 cores for one seed.
name      = "r8"
data_root = "../../shared/data"
metric    = "classification"
workers   = 1

k     = [10, 20, 30, 40, 50]
alpha = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
tau   = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
omega = [1]   # the paper's grid: [0.01, 0.1, 1, 10]
seeds = [1]

data {
  prepare "r8-train" {
    args = [
      "--input", "${data}/reuters_r8_cachopo/r8-train-all-terms.txt",
      "--format", "lines",
      "--line-fields", "label,text",
      "--min-df", "5",
      "--max-df", "0.5",
      "--progress", "never",
      "--out", "${work}/r8-train",
    ]
  }
  prepare "r8-test" {
    args = [
      "--input", "${data}/reuters_r8_cachopo/r8-test-all-terms.txt",
      "--format", "lines",
      "--line-fields", "label,text",
      "--vocab", "${work}/r8-train/vocab.txt",
      "--progress", "never",
      "--out", "${work}/r8-test",
    ]
  }
  simulate "answers" {
    args = [
      "--truth", "${work}/r8-train/labels.csv",
      "--accuracies", "0.737,0.468,0.284,0.278,0.260",
      "--per-doc", "1",
      "--seed", "1",
      "--out", "${work}/answers.csv",
    ]
  }

  train_docs  = "${work}/r8-train/docs.ldac"
  train_ids   = "${work}/r8-train/ids.txt"
  train_vocab = "${work}/r8-train/vocab.txt"
  answers     = "${work}/answers.csv"
  train_truth = "${work}/r8-train/labels.csv"
  test_docs   = "${work}/r8-test/docs.ldac"
  test_ids    = "${work}/r8-test/ids.txt"
  test_truth  = "${work}/r8-test/labels.csv"
}

model "ma-sldac-batch" {
  config = "models/ma-sldac-batch.hcl"
}
model "ma-sldac-svi" {
  config = "models/ma-sldac-svi.hcl"
}
model "lda+logreg(mv)" {
  config = "models/lda-logreg-mv.hcl"
}
model "slda(mv)" {
  config = "models/slda-mv.hcl"
}
model "lda+raykar" {
  config = "models/lda-raykar.hcl"
}
model "dawid-skene" {
  config = "models/dawid-skene.hcl"
  seeds  = [1]
}
model "dawid-skene(bayes)" {
  config = "models/dawid-skene-bayes.hcl"
  seeds  = [1]
}
