// Package onecoin is the one-coin annotator model, registered as
// "one-coin": every annotator r has a single accuracy a_r, answers the
// true class with probability a_r and each of the C − 1 other classes with
// probability (1 − a_r)/(C − 1) (the "one-coin" simplification of
// Dawid & Skene 1979, as in Karger, Oh & Shah 2011 and the one-coin
// Dawid–Skene of Zhang, Chen, Zhou & Jordan, "Spectral methods meet EM",
// NIPS 2014 / JMLR 2016; crowd-kit's OneCoinDawidSkene).
//
// In MODEL.md's notation (§2, with the confusion matrices π^r replaced by
// one number per annotator), a_r ~ Beta(α, β) and
//
//	p(y_dr = l | c_d = c) = a_r if l = c, (1 − a_r)/(C − 1) otherwise.
//
// With λ_d = q(c_d), the statistics are c_r = Σ_d Σ_{answers of r on d}
// λ_{d,y_dr} (expected correct answers) and n_r (answers). Two estimates
// (`estimate`):
//
//   - "bayes" (default): a variational posterior q(a_r) = Beta(A_r, B_r),
//     the coordinate update A_r = α + c_r, B_r = β + n_r − c_r (under SVI
//     blended as natural parameters, MODEL.md §5: A ← (1−ρ)A + ρ(α + S·c_r)).
//     The evidence added to log λ_dl (the annotators' message of MODEL.md
//     §2 "Update of λ") is E[log a_r] = ψ(A_r) − ψ(A_r + B_r) for the
//     answered class and E[log(1 − a_r)] − log(C − 1) = ψ(B_r) − ψ(A_r +
//     B_r) − log(C − 1) for the others; the bound's annotator part is
//     Σ_r [c_r E log a_r + (n_r − c_r)(E log(1 − a_r) − log(C − 1))] −
//     Σ_r KL(Beta(A_r, B_r) ‖ Beta(α, β)).
//   - "point": the MAP estimate a_r = (c_r + α − 1)/(n_r + α + β − 2)
//     from running statistics (c_r, n_r) that SVI blends, the evidence
//     log a_r and log((1 − a_r)/(C − 1)), and the bound's part the
//     expected log-likelihood plus log Beta(a_r; α, β).
//
// With one topic and the class-prior response it is the one-coin
// aggregator on answers alone (the `one-coin` preset); with documents it
// replaces the confusion matrices of MA-sLDAc.
package onecoin
