# experiments/20ng.hcl at seeds 1-3 (without sLDA), plus two variants:
# "ma-sldac-svi(before)", the SVI template with the settings of before
# 2026-11-26 (they reproduce the recorded SVI row bit for bit at seed 1;
# docs/performance.md "The SVI cells over three seeds"), and
# "ma-sldac-batch(restarts 3)" at K 10 and 20 (docs/results.md, 20
# Newsgroups "Seeds 1-3").
#
#   maslda experiment --spec experiments/20ng-seeds.hcl [--data DIR] [--out DIR] [--cores N]
#
# Data: as experiments/20ng.hcl (the same prepared files: an --out that
# already holds 20ng.hcl's runs reuses its seed-1 cells). Cost: about
# 15,500 s of runs, 2 h 10 min on 2 cores (measured 2026-11-26 over the
# runs of docs/results.md, some of them beside other runs).
name      = "20ng-seeds"
data_root = "../../shared/data"
metric    = "classification"
workers   = 1 # E-step goroutines per run; runs in parallel: --cores / workers

k     = [10, 20, 30, 40, 50]
alpha = [0.1] # the paper's grid: [0.01, 0.1, 1, 10] (multiplies the runs by 4)
tau   = [0.1] # the paper's grid: [0.01, 0.1, 1, 10]
omega = [1]   # the paper's grid: [0.01, 0.1, 1, 10]
seeds = [1, 2, 3]

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
model "ma-sldac-svi(before)" {
  config = "models/ma-sldac-svi-before.hcl"
}
model "lda+logreg(mv)" {
  config = "models/lda-logreg-mv.hcl"
}
model "lda+raykar" {
  config = "models/lda-raykar.hcl"
}
model "ma-sldac-batch(restarts 3)" {
  config = "models/ma-sldac-batch-restarts.hcl"
  k      = [10, 20]
}
