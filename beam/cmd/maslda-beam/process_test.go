//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestProcessEnvironment: maslda-beam built as a binary, its workers
// started by prism's PROCESS environment through docs/scripts/bootwrap.sh
// and the SDK's boot binary (both built here), writes the model of the
// LOOPBACK run file for file, and leaves no boot (nor its worker)
// running. It builds two binaries (about a minute): it runs only with
// MASLDA_BEAM_PROCESS=1 (docs/scale.md).
func TestProcessEnvironment(t *testing.T) {
	if os.Getenv("MASLDA_BEAM_PROCESS") != "1" {
		t.Skip("set MASLDA_BEAM_PROCESS=1 to run the PROCESS environment (builds maslda-beam and boot)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := t.TempDir()
	for _, b := range [][2]string{{"maslda-beam", "."}, {"boot", "github.com/apache/beam/sdks/v2/go/container"}} {
		if out, err := exec.Command(goTool, "build", "-o", filepath.Join(bin, b[0]), b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	wrap, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "scripts", "bootwrap.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "bootwrap.sh"), wrap, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var docs bytes.Buffer
	for d := range 200 {
		fmt.Fprintf(&docs, "3 %d:2 %d:2 %d:1\n", d%17, 17+d%5, 22+d%3)
	}
	src := "seed = 3\nconsensus = 1\ntopics {\n  k = 3\n}\ninference \"batch\" {\n  max_iters = 3\n  tol = 0\n}\n"
	for name, b := range map[string][]byte{"docs.ldac": docs.Bytes(), "config.hcl": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := func(out, work string) []string {
		return []string{"train", "--config", filepath.Join(dir, "config.hcl"), "--docs", filepath.Join(dir, "docs.ldac"),
			"--out", out, "--work", work, "--shard-size", "50"}
	}
	loop := filepath.Join(dir, "loopback")
	if out, err := exec.Command(filepath.Join(bin, "maslda-beam"), args(loop, filepath.Join(dir, "w1"))...).CombinedOutput(); err != nil {
		t.Fatalf("LOOPBACK: %v\n%s", err, out)
	}
	proc := filepath.Join(dir, "process")
	cmd := exec.Command(filepath.Join(bin, "maslda-beam"), append(args(proc, filepath.Join(dir, "w2")), "--",
		"--environment_type", "PROCESS", "--environment_config", `{"command":"`+filepath.Join(bin, "bootwrap.sh")+`"}`,
		"--worker_binary", filepath.Join(bin, "maslda-beam"))...)
	// Every process the run starts (prism's wrapper, boot, the workers)
	// inherits this variable: the test finds them by it afterwards.
	tag := fmt.Sprintf("MASLDA_BEAM_PROCESS_TEST=%d", time.Now().UnixNano())
	cmd.Env = append(os.Environ(), tag)
	cmd.Dir = dir // boot writes pipeline_options.json in its working directory
	logf, err := os.Create(filepath.Join(dir, "process.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf // files, not pipes: a leftover process cannot hold Wait
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		err = fmt.Errorf("no end within 5 minutes: %v", <-done)
	}
	if err != nil {
		b, _ := os.ReadFile(logf.Name())
		t.Fatalf("PROCESS: %v\n%s", err, b)
	}
	for _, name := range []string{"model.json", "topics.bin"} {
		a, err := os.ReadFile(filepath.Join(loop, name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(proc, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between LOOPBACK and PROCESS", name)
		}
	}
	// The watchdog kills boot's process group within about 0.2 s.
	var alive []string
	for try := 0; try < 30; try++ {
		alive = alive[:0]
		envs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range envs {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(tag)) {
				if c, err := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline")); err == nil {
					alive = append(alive, filepath.Dir(p)+": "+string(bytes.ReplaceAll(c, []byte{0}, []byte{' '})))
				}
			}
		}
		if len(alive) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(alive) > 0 {
		for _, a := range alive { // they would run on: end them (they are this test's)
			var pid int
			if _, err := fmt.Sscanf(a, "/proc/%d:", &pid); err == nil {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
		}
		t.Errorf("processes of the run still running after it: %v", alive)
	}
}
