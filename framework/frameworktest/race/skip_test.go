package race_test

import (
	"testing"

	"github.com/maslda/maslda/framework/frameworktest/race"
)

type rec struct{ skipped bool }

func (r *rec) Helper()     {}
func (r *rec) Skip(...any) { r.skipped = true }

// TestSkipLong: SkipLong skips exactly when the binary has the race
// detector.
func TestSkipLong(t *testing.T) {
	var r rec
	race.SkipLong(&r)
	if r.skipped != race.Enabled {
		t.Errorf("skipped %v under race.Enabled = %v", r.skipped, race.Enabled)
	}
}
