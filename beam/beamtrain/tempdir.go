package beamtrain

import (
	"fmt"
	"os"
)

// PrivateTempDir points the process's temporary directory (TMPDIR, which
// os.TempDir reads) at a new directory of its own under the current one,
// and returns a function that removes that directory with all it holds
// and restores TMPDIR.
//
// Beam's universal runner in loopback mode (prism's default) creates an
// empty file beamloopbackworker-* in os.TempDir() for every pipeline it
// runs and never removes it (apache/beam#27569); Train runs a pipeline
// an iteration, so a run leaves hundreds and a test suite tens of
// thousands. maslda-beam and this module's tests call PrivateTempDir
// first so that nothing is left behind. It changes the environment of
// the whole process: call it from main (or TestMain) before any
// pipeline runs, never while one runs.
func PrivateTempDir() (restore func() error, err error) {
	old, had := os.LookupEnv("TMPDIR")
	dir, err := os.MkdirTemp("", "maslda-beam-")
	if err != nil {
		return nil, fmt.Errorf("a private temporary directory: %w", err)
	}
	if err := os.Setenv("TMPDIR", dir); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("a private temporary directory: %w", err)
	}
	return func() error {
		var err error
		if had {
			err = os.Setenv("TMPDIR", old)
		} else {
			err = os.Unsetenv("TMPDIR")
		}
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = rerr
		}
		return err
	}, nil
}
