package experiment_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/maslda/maslda/cmd/maslda/experiment"
)

const asParent = "MASLDA_TEST_AS_PARENT"

// parentMain is the test binary run as a runner: it starts a long child
// through childCommand, prints its pid and waits.
func parentMain() {
	cmd := experiment.ChildCommand(context.Background(), "sleep", "60")
	if err := cmd.Start(); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println(cmd.Process.Pid)
	cmd.Wait()
	os.Exit(0)
}

// alive reports whether pid runs (a zombie waiting to be reaped counts as
// dead).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestChildDiesWithRunner: SIGKILL of the runner takes its children along.
func TestChildDiesWithRunner(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "-test.run=^$")
	parent.Env = append(os.Environ(), asParent+"=1")
	stdout, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		parent.Process.Kill()
		t.Fatal(err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("parent said %q", line)
	}
	if !alive(child) {
		t.Fatal("the child is not running")
	}
	parent.Process.Signal(syscall.SIGKILL)
	parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(child) {
		if time.Now().After(deadline) {
			syscall.Kill(child, syscall.SIGKILL)
			t.Fatal("the child outlived its parent by 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
