package cli

import "github.com/maslda/maslda/models"

// The presets of the numeric truth-inference methods on answers alone
// (Zheng et al. 2017's numeric sets): the value prior (a numeric response
// that ignores the documents, likelihoods/valueprior) with the mean, the
// median or the bias-precision annotators, all linked by plugins/std.
// They are registered by the command line (plug-in packages may not
// import models: framework/imports_test.go), listed by `maslda
// components` and run by `maslda aggregate --method NAME` and `maslda
// train --model NAME`.
func init() {
	for _, p := range []models.Preset{
		{Name: "mean", Description: "the mean answer of each task (numeric answers), documents ignored (k = 1)", Source: `
topics {
  k = 1
}
response "value-prior" {
  prior = "flat"
}
annotators "perfect" {
  aggregate = "mean"
}
inference "batch" {}
`},
		{Name: "median", Description: "the median answer of each task (numeric answers), documents ignored (k = 1)", Source: `
topics {
  k = 1
}
response "value-prior" {
  prior = "flat"
}
annotators "median" {}
inference "batch" {}
`},
		{Name: "bias-precision", Description: "each annotator's bias and precision (MA-sLDAr's annotators) with a Gaussian prior on the values, documents ignored (k = 1)", Source: `
topics {
  k = 1
}
response "value-prior" {}
annotators "bias-precision" {}
inference "batch" {}
`},
	} {
		if _, ok := models.LookupPreset(p.Name); ok {
			continue // models' own table has it (RegisterPreset would panic)
		}
		models.RegisterPreset(p)
	}
}
