// Package median is the median answer as one perfect annotator of a
// numeric target, registered as "median": each task's value is the median
// of its answers, as the truth-inference suites' numeric "median" method
// (Zheng et al. 2017). It is the `annotators "perfect" { aggregate =
// "mean" }` of the median: the message onto q(y_d) is that of one
// annotator answering the median ỹ_d with precision P,
//
//	Prec += P,  PrecMean += P·ỹ_d                       Model.Evidence
//	½log P − ½log 2π − (P/2)((ỹ_d − m_d)² + v_d)        Model.DocELBO (its part of the bound)
//
// with P = RelPrecision / s², s² the variance of the training tasks'
// medians (1 when not positive), or the configured precision: so large
// that m_d is the median up to a relative 1e-8 whatever the response's
// prior message. The median of an even number of answers is the mean of
// the middle two. It needs numeric answers and a Gaussian target
// (framework.ErrIncompatible otherwise); with the "value-prior" response
// it runs on answers alone (`maslda aggregate --method median`).
//
//	annotators "median" {
//	  precision = 0   # P > 0, or 0: RelPrecision / (variance of the medians)
//	}
package median
