//go:build !unix

package cli

// outLock is a no-op where flock(2) is missing: two runs into one --out
// are not detected there.
type outLock struct {
	path string
	prev int
}

func lockPath(out string) string { return "" }

func lockOut(flagName, out string) (*outLock, error) { return nil, nil }

func (l *outLock) release() {}
