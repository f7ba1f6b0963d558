//go:build !linux

package models

import "errors"

var errNoExchange = errors.New("atomic exchange not supported")

// exchange is Linux-only; elsewhere Publish uses two renames.
func exchange(a, b string) error { return errNoExchange }

// pidAlive: without a portable test, every other process counts as alive
// (its leftovers are kept).
func pidAlive(int) bool { return true }

// writable: the staging directory created beside dir is the check.
func writable(string) error { return nil }
