package beamtrain

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

// TestPrivateTempDir: a pipeline run by prism in loopback mode leaves its
// beamloopbackworker-* file in the private directory, and restore removes
// that directory and puts TMPDIR back.
func TestPrivateTempDir(t *testing.T) {
	before := os.Getenv("TMPDIR")
	restore, err := PrivateTempDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := os.TempDir()
	p := beam.NewPipeline()
	beam.Create(p.Root(), 1, 2, 3)
	if _, err := beam.Run(context.Background(), "prism", p); err != nil {
		restore()
		t.Fatal(err)
	}
	left, err := filepath.Glob(filepath.Join(dir, "beamloopbackworker-*"))
	if err != nil || len(left) == 0 {
		restore()
		t.Fatalf("no loopback file in the private directory %s (%v): is the test still about the leak?", dir, err)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the private directory %s is still there (%v)", dir, err)
	}
	if got := os.Getenv("TMPDIR"); got != before {
		t.Errorf("TMPDIR = %q after restore, want %q", got, before)
	}
}
