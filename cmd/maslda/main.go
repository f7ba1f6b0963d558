// Command maslda learns supervised topic models from crowds: topics, a
// classifier or regressor, and every annotator's reliability and bias.
// Run `maslda help` for the commands, `maslda demo` for a self-contained
// run on generated data.
//
// This file only links the standard plug-ins in (plugins/std: each
// registers itself by name) and hands over to cli.Main; a researcher's own
// build is this file plus a blank import of their own plug-ins.
package main

import (
	"os"

	"github.com/maslda/maslda/cmd/maslda/cli"
	_ "github.com/maslda/maslda/plugins/std" // the standard plug-ins
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
