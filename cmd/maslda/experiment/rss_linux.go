//go:build linux

package experiment

import (
	"os"
	"syscall"
)

// peakRSSMiB is a finished child's peak resident set size in MiB (Linux
// reports ru_maxrss in KiB).
func peakRSSMiB(ps *os.ProcessState) float64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}
