//go:build !linux && !darwin

package experiment

import "os"

// peakRSSMiB is unknown (0) on this platform: peak_rss_mib stays empty.
func peakRSSMiB(*os.ProcessState) float64 { return 0 }
