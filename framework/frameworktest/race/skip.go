package race

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
