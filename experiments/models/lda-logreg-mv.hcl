# Baseline LDA + LogReg (majority vote), MODEL.md §6: the preset
# "lda+logreg(mv)" (two-stage: plain LDA, then logistic regression on the
# frozen topic features of the majority vote). Only the topics block is
# written here; the preset supplies the rest. Template of `maslda
# experiment` (docs/experiments.md).
model = "lda+logreg(mv)"
seed  = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}
