# Baseline LDA + LinReg (mean answer), MODEL.md §6: the preset
# "lda+linreg(mean)" (two-stage: plain LDA, then ridge regression on the
# frozen topic features of the mean answer). Template of `maslda
# experiment` (docs/experiments.md).
model = "lda+linreg(mean)"
seed  = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}
