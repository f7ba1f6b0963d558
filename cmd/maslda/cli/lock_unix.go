//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/maslda/maslda/framework"
)

// outLock is held by a running `train` on its --out (and so on its
// checkpoint, OUT.checkpoint): the file .NAME.lock beside the output,
// locked with flock(2) and holding the holder's pid. The kernel releases
// the lock when the process ends, however it ends, so a lock file left by
// a killed run (its pid dead) is simply taken over.
type outLock struct {
	f    *os.File
	path string
	prev int // the pid in a lock file taken over (0: none)
}

// lockPath is the lock file of the output out: .NAME.lock beside it
// (symbolic links resolved, so that two spellings of one directory share
// a lock).
func lockPath(out string) string {
	ro := resolvePath(out)
	return filepath.Join(filepath.Dir(ro), "."+filepath.Base(ro)+".lock")
}

// lockOut takes the lock of the output out for this process. When
// another live process holds it, the error names the flag, the path and
// the holder's pid. A file system without flock gives a nil lock and no
// error (nothing is locked).
func lockOut(flagName, out string) (*outLock, error) {
	path := lockPath(out)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flagName, out, err)
	}
	for range 5 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--%s %s: lock file: %w", flagName, out, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder := readPid(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				who := "another process"
				if holder > 0 {
					who = "maslda train with pid " + strconv.Itoa(holder)
				}
				return nil, fmt.Errorf("%w: --%s %s is in use: %s is writing it and its checkpoint (lock %s); wait for that run to end, or choose another --%s", framework.ErrBadInput, flagName, out, who, path, flagName)
			}
			if errors.Is(err, syscall.ENOLCK) || errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS) {
				return nil, nil // no locks on this file system
			}
			return nil, fmt.Errorf("--%s %s: lock %s: %w", flagName, out, path, err)
		}
		// The holder may have removed the file between our open and our
		// lock: then the lock is on a file no one else will open.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			continue
		}
		l := &outLock{f: f, path: path, prev: readPid(f)}
		if l.prev == os.Getpid() {
			l.prev = 0
		}
		if err := f.Truncate(0); err == nil {
			_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return l, nil
	}
	return nil, fmt.Errorf("--%s %s: could not take the lock %s (it kept being replaced)", flagName, out, path)
}

// readPid reads the pid written in a lock file (0 when there is none).
func readPid(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// release removes the lock file and unlocks it (in this order, so that
// no other process locks a file that is then removed).
func (l *outLock) release() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.f.Close()
}
