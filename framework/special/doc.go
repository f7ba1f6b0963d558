// Package special holds the special functions and small numerical steps
// that annotator and response plug-ins need beyond gonum's mathext (which
// has Digamma but no trigamma or inverse), tested against known values, so
// that plug-in authors do not write them again (issue 29, item 4):
//
//	Digamma(x)         ψ(x) to 1e-15 (gonum's mathext.Digamma: about 5e-11)
//	Trigamma(x)        ψ'(x), the recurrence to x ≥ 10 then the asymptotic series
//	InvDigamma(y)      ψ⁻¹(y): Minka's (2000) start and Newton steps
//	LgammaDiff(a, x)   lnΓ(a + x) − lnΓ(a) without the cancellation at large a
//	LogBeta(a)         ln B(a) = Σ_i lnΓ(a_i) − lnΓ(Σ_i a_i), the Dirichlet normaliser
//	LogSumExp(x)       ln Σ_i exp(x_i), shifted by the maximum
//	Softmax(dst, x)    exp(x_i − LogSumExp(x)), the gradient of LogSumExp
//	Newton1D(f, lo, hi, x0, tol)  a root of a decreasing function (for
//	                   example a concave objective's derivative) by Newton
//	                   steps safeguarded by bisection inside a bracket
//
// Used by annotators/confusion (communities), annotators/biasprecision (the
// learned prior).
package special
