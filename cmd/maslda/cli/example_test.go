package cli_test

import (
	"context"
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"

	_ "github.com/maslda/maslda/optim" // schedules: batch, svi
)

// MainContext runs one command line and returns its exit status. This
// binary links only the inference schedules, so no response or annotator
// plug-in is listed.
func ExampleMainContext() {
	status := cli.MainContext(context.Background(), []string{"components"}, os.Stdout, os.Stderr)
	if status != cli.ExitOK {
		os.Exit(status)
	}
	// Output:
	// response    (none)
	// annotators  (none)
	// inference   batch, svi
}
