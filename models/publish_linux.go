package models

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNoExchange: the file system cannot swap two directories atomically.
var errNoExchange = errors.New("atomic exchange not supported")

// exchange swaps the directories a and b atomically (renameat2 with
// RENAME_EXCHANGE, Linux 3.15; ext4, xfs, btrfs, tmpfs, overlayfs, ...).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EOPNOTSUPP):
		return errNoExchange
	}
	return fmt.Errorf("exchanging %s and %s: %w", a, b, err)
}

func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// writable checks that dir (when it exists: it is renamed, which updates
// its ".." entry) and its parent can be written.
func writable(dir string) error {
	for _, p := range []string{dir, filepath.Dir(dir)} {
		err := unix.Access(p, unix.W_OK)
		if errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			return fmt.Errorf("output directory %s: %s is not writable: %w", dir, p, err)
		}
	}
	return nil
}
