# 20 Newsgroups in the paper's four super-classes (comp, rec, sci, politics)
# with five simulated annotators of the paper's accuracies, one answer per
# training document (MODEL.md §7), as in docs/results-classification.md.
#
#   maslda experiment --spec experiments/20ng.hcl [--out DIR] [--cores N]
#
# Data: ../shared/data/20newsgroups_bydate (data_root below is relative to
# this file; --data overrides it). The prepare and simulate steps run once;
# their output is cached in OUT/data. Cost (docs/experiments.md): about
# 35 minutes on 2 cores for one seed (4,159 s of runs, measured 2026-11-26);
# each further seed adds as much.
name      = "20ng"
data_root = "../../shared/data"
metric    = "classification"
workers   = 1 # E-step goroutines per run; runs in parallel: --cores / workers

k     = [10, 20, 30, 40, 50]
alpha = [0.1] # the paper's grid: [0.01, 0.1, 1, 10] (multiplies the runs by 4)
tau   = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
omega = [1]   # the paper's grid: [0.01, 0.1, 1, 10]
seeds = [1]

data {
  prepare "20ng" {
    args = [
      "--input", "${data}/20newsgroups_bydate/20news-bydate.tar.gz",
      "--format", "dir",
      "--encoding", "latin1",
      "--label-dir",
      "--label-map", "${spec_dir}/20ng.map",
      "--strip-headers",
      "--strip-footers",
      "--strip-quotes",
      "--min-df", "5",
      "--max-df", "0.5",
      "--split", "0.75",
      "--seed", "1",
      "--progress", "never",
      "--out", "${work}/20ng",
    ]
  }
  simulate "answers" {
    args = [
      "--truth", "${work}/20ng/train/labels.csv",
      "--accuracies", "0.737,0.468,0.284,0.278,0.260",
      "--per-doc", "1",
      "--seed", "1",
      "--out", "${work}/answers.csv",
    ]
  }

  train_docs  = "${work}/20ng/train/docs.ldac"
  train_ids   = "${work}/20ng/train/ids.txt"
  train_vocab = "${work}/20ng/train/vocab.txt"
  answers     = "${work}/answers.csv"
  train_truth = "${work}/20ng/train/labels.csv"
  test_docs   = "${work}/20ng/test/docs.ldac"
  test_ids    = "${work}/20ng/test/ids.txt"
  test_truth  = "${work}/20ng/test/labels.csv"
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
  seeds  = [1] # deterministic: one run
}
model "dawid-skene(bayes)" {
  config = "models/dawid-skene-bayes.hcl"
  seeds  = [1]
}
