# Baseline Bayesian Dawid–Skene, MODEL.md §6: the preset
# "dawid-skene(bayes)" (Dirichlet posteriors of the class prior and the
# confusion matrices, prior ω; the documents are ignored, k = 1).
# Template of `maslda experiment` (docs/experiments.md).
model = "dawid-skene(bayes)"

annotators "confusion" {
  omega = ${omega}
}
