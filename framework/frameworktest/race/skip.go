package race

import "os"

// Skipper is the part of testing.TB that SkipLong uses.
type Skipper interface {
	Helper()
	Skip(args ...any)
}

// SkipLong skips the calling test when the binary runs under the race
// detector (package documentation: which tests call it).
func SkipLong(t Skipper) {
	t.Helper()
	if Enabled {
		t.Skip("a long numeric test: it runs without -race (.ci/run's first pass); the race pass covers its concurrent paths with the worker, checkpoint and interrupt tests")
	}
}

// LongEnv is the environment variable that turns on the longest recovery
// tests (SkipUnlessLong): .ci/run sets it in a pass of its own, so that
// the README's `go test ./...` stays under two minutes on two cores.
const LongEnv = "MASLDA_LONG"

// SkipUnlessLong skips the calling test unless MASLDA_LONG=1, saying
// what the test checks and how to run it.
func SkipUnlessLong(t Skipper, what string) {
	t.Helper()
	if os.Getenv(LongEnv) != "1" {
		t.Skip(what + ": a long recovery test, run by .ci/run; set " + LongEnv + "=1 to run it here")
	}
}
