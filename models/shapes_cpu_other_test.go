//go:build !unix

package models_test

import "time"

var cpuStart = time.Now()

// processCPU is wall-clock seconds where the process's CPU time is not
// read (not unix).
func processCPU() float64 { return time.Since(cpuStart).Seconds() }
