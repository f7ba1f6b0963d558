package cli_test

import (
	"context"
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"

	_ "github.com/maslda/maslda/optim" // schedules: batch, svi
)

// MainContext runs one command line and returns its exit status. The cli
// package links the plug-ins its demo and simulate commands use.
func ExampleMainContext() {
	status := cli.MainContext(context.Background(), []string{"components"}, os.Stdout, os.Stderr)
	if status != cli.ExitOK {
		os.Exit(status)
	}
	// Output:
	// response    class-prior, gaussian, linreg, logreg, ordinal, softmax, value-prior
	// annotators  bias-precision, confusion, glad, mace, median, one-coin, ordinal-shift, perfect
	// inference   batch, svi, two-stage
	// model       bias-precision, communities, dawid-skene, dawid-skene(bayes), glad, lda+linreg(mean), lda+logreg(mv), lda+raykar, ma-sldac, ma-sldar, mace, majority-vote, mean, median, one-coin, slda(mean), slda(mv), wawa
	// aggregate   bias-precision, communities, dawid-skene, dawid-skene(bayes), glad, mace, majority-vote, mean, median, one-coin, wawa
	// target      categorical, gaussian, ordinal
	// simulate    bias-precision, confusion, glad, ordinal-shift
}
