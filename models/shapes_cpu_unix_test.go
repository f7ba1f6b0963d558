//go:build unix

package models_test

import "syscall"

// processCPU is the process's CPU seconds so far (user + system, every
// thread): the measure to compare on a shared machine.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
