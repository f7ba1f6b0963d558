package cli_test

// The test binary links every plug-in cmd/maslda links, so that what the
// tests see (components, presets, error lists) is what the command shows.
import (
	_ "github.com/maslda/maslda/annotators/biasprecision" // annotators: bias-precision
	_ "github.com/maslda/maslda/annotators/confusion"     // annotators: confusion
	_ "github.com/maslda/maslda/annotators/perfect"       // annotators: perfect
	_ "github.com/maslda/maslda/likelihoods/classprior"   // response: class-prior
	_ "github.com/maslda/maslda/likelihoods/gaussian"     // responses: gaussian, linreg
	_ "github.com/maslda/maslda/likelihoods/logreg"       // response: logreg
	_ "github.com/maslda/maslda/likelihoods/softmax"      // response: softmax
	_ "github.com/maslda/maslda/optim"                    // schedules: batch, svi, two-stage
)
