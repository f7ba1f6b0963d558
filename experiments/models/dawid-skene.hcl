# Baseline Dawid–Skene, MODEL.md §6: the preset "dawid-skene" (class prior
# and point-estimated confusion matrices; the documents are ignored, k = 1).
# No grid variable: one cell per seed. Its held-out "prediction" is the
# class prior's most probable class. Template of `maslda experiment`
# (docs/experiments.md).
model = "dawid-skene"
