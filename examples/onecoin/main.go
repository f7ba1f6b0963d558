// Command onecoin is the whole maslda command line plus the one-coin
// annotator model: the built-in plug-ins are linked by blank imports, as
// in cmd/maslda/main.go, and this module's own by one more.
package main

import (
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"

	_ "github.com/maslda/maslda/annotators/biasprecision"
	_ "github.com/maslda/maslda/annotators/confusion"
	_ "github.com/maslda/maslda/annotators/perfect"
	_ "github.com/maslda/maslda/likelihoods/classprior"
	_ "github.com/maslda/maslda/likelihoods/gaussian"
	_ "github.com/maslda/maslda/likelihoods/logreg"
	_ "github.com/maslda/maslda/likelihoods/softmax"
	_ "github.com/maslda/maslda/optim"

	_ "github.com/maslda/maslda/examples/onecoin/onecoin" // annotators: one-coin
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
