//go:build darwin

package experiment

import (
	"os"
	"syscall"
)

// peakRSSMiB is a finished child's peak resident set size in MiB (macOS
// reports ru_maxrss in bytes).
func peakRSSMiB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / (1 << 20)
	}
	return 0
}
