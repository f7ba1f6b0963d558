package experiment

import "syscall"

// childAttr makes a child die with the runner: the kernel sends it SIGTERM
// when the runner exits, even by SIGKILL (train then exits as on Ctrl-C,
// removing its staging directory; leftovers of a harder kill are cleaned
// by the next run).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
