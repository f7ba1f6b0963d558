// Package race tells a test whether its binary was built with the race
// detector (-race), like the standard library's internal/race, and skips
// the long tests that have nothing to show it.
//
// Under -race a test runs about ten times slower. A test that checks what
// a whole fit computes (a choice, a score, a recovered number) runs in
// .ci/run's plain pass; the concurrent code it goes through (the E-step's
// workers, the exact sums, checkpoints, the command line's interrupts) is
// what the worker-count, bit-identity, checkpoint and interrupt tests
// exercise under -race. Such a test calls SkipLong first.
//
// The longest recovery tests also call SkipUnlessLong: they run when
// MASLDA_LONG=1, which .ci/run sets in a pass of its own, and not in the
// README's `go test ./...` (kept under two minutes on two cores). The
// package imports only os, so that any test, the models package's own
// included, can use it.
package race
