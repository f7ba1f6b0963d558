//go:build !race

package textprep

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = false
