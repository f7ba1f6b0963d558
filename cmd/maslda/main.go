// Command maslda learns supervised topic models from crowds: topics, a
// classifier or regressor, and every annotator's reliability and bias.
// Run `maslda help` for the commands, `maslda demo` for a self-contained
// run on generated data.
//
// This file only links the plug-ins in (each registers itself by name) and
// hands over to cli.Main; a researcher's own build blank-imports their own
// plug-ins here.
package main

import (
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"

	_ "github.com/maslda/maslda/annotators/biasprecision" // annotators: bias-precision
	_ "github.com/maslda/maslda/annotators/confusion"     // annotators: confusion
	_ "github.com/maslda/maslda/annotators/ordinalshift"  // annotators: ordinal-shift
	_ "github.com/maslda/maslda/annotators/perfect"       // annotators: perfect
	_ "github.com/maslda/maslda/likelihoods/classprior"   // response: class-prior
	_ "github.com/maslda/maslda/likelihoods/gaussian"     // responses: gaussian, linreg
	_ "github.com/maslda/maslda/likelihoods/logreg"       // response: logreg
	_ "github.com/maslda/maslda/likelihoods/ordinal"      // response: ordinal
	_ "github.com/maslda/maslda/likelihoods/softmax"      // response: softmax
	_ "github.com/maslda/maslda/optim"                    // schedules: batch, svi, two-stage
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
