//go:build race

package race

// Enabled reports whether the binary was built with -race (off.go is its
// other half).
const Enabled = true
