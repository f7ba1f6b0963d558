// Package std links maslda's standard plug-ins: importing it for its side
// effects registers every built-in response, annotator model, inference
// schedule and kind of target on framework.Default, so that a command
// line with the standard plug-ins and one's own is
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/maslda/maslda/cmd/maslda/cli"
//		_ "github.com/maslda/maslda/plugins/std"
//		_ "example.org/mine/onecoin" // one's own plug-in, registered in its init
//	)
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
//
// It is the one way into the plug-ins for cmd/: no package there imports
// a plug-in package itself (cmd/maslda/rules_test.go).
package std

import (
	_ "github.com/maslda/maslda/annotators/biasprecision" // annotators: bias-precision
	_ "github.com/maslda/maslda/annotators/confusion"     // annotators: confusion
	_ "github.com/maslda/maslda/annotators/glad"          // annotators: glad
	_ "github.com/maslda/maslda/annotators/mace"          // annotators: mace
	_ "github.com/maslda/maslda/annotators/median"        // annotators: median
	_ "github.com/maslda/maslda/annotators/onecoin"       // annotators: one-coin
	_ "github.com/maslda/maslda/annotators/ordinalshift"  // annotators: ordinal-shift
	_ "github.com/maslda/maslda/annotators/perfect"       // annotators: perfect
	_ "github.com/maslda/maslda/framework/targets"        // kinds of target: categorical, gaussian, ordinal
	_ "github.com/maslda/maslda/likelihoods/classprior"   // response: class-prior
	_ "github.com/maslda/maslda/likelihoods/gaussian"     // responses: gaussian, linreg
	_ "github.com/maslda/maslda/likelihoods/logreg"       // response: logreg
	_ "github.com/maslda/maslda/likelihoods/ordinal"      // response: ordinal
	_ "github.com/maslda/maslda/likelihoods/softmax"      // response: softmax
	_ "github.com/maslda/maslda/likelihoods/valueprior"   // response: value-prior
	_ "github.com/maslda/maslda/optim"                    // schedules: batch, svi, two-stage
)
