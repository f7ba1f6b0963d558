package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// Commit may be set at link time (-ldflags "-X
// github.com/maslda/maslda/cmd/maslda/cli.Commit=...") for builds without
// VCS stamping (-buildvcs=false); the build information's vcs.revision wins
// when there is one.
var Commit string

// versionString is the module version, the commit (with "+dirty" when the
// work tree had changes) and the Go version, from the binary's build
// information.
func versionString() string {
	version, commit, dirty := "(devel)", Commit, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	switch {
	case commit == "":
		commit = "unknown (built without VCS information)"
	case dirty:
		commit += "+dirty"
	}
	return fmt.Sprintf("%s, commit %s, %s", version, commit, runtime.Version())
}

func defineVersion(*pflag.FlagSet) runFunc {
	return func(_ context.Context, e *env, _ []string) error {
		_, err := fmt.Fprintf(e.stdout, "maslda %s\n", versionString())
		return err
	}
}
