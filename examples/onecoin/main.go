// Command onecoin is the whole maslda command line plus the one-coin
// annotator model: the built-in plug-ins are linked by one blank import of
// plugins/std, as in cmd/maslda/main.go, and this module's own by one more.
package main

import (
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"

	_ "github.com/maslda/maslda/plugins/std" // every built-in plug-in

	_ "github.com/maslda/maslda/examples/onecoin/onecoin" // annotators: my-one-coin
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
