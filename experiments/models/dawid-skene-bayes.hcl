# Baseline Bayesian Dawid–Skene, MODEL.md §6: the preset
# "dawid-skene(bayes)" (Dirichlet posteriors of the class prior and the
# confusion matrices, prior ω; the documents are ignored, k = 1).
# Template of `maslda experiment` (docs/experiments.md).
model = "dawid-skene(bayes)"

# This block replaces the preset's whole annotators block, so it repeats
# the preset's init: the default classifier start needs a response that
# reads the documents, and the class prior does not.
annotators "confusion" {
  omega = ${omega}
  init  = "majority"
}
