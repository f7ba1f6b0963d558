# Baseline LDA + Raykar et al. 2010, MODEL.md §6: the preset "lda+raykar"
# (two-stage: plain LDA, then logistic regression with point-estimated
# confusion matrices). The point estimate needs ω ≥ 1, so the ω axis
# (which reaches 0.01) is not used: the preset's default applies.
# Template of `maslda experiment` (docs/experiments.md).
model = "lda+raykar"
seed  = ${seed}

topics {
  k     = ${k}
  alpha = ${alpha}
  tau   = ${tau}
}
