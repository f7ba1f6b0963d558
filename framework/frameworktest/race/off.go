//go:build !race

package race

// Enabled reports whether the binary was built with -race (on.go is its
// other half).
const Enabled = false
