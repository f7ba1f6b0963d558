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

// TestSkipUnlessLong: SkipUnlessLong skips exactly when MASLDA_LONG is
// not 1.
func TestSkipUnlessLong(t *testing.T) {
	for _, tc := range []struct {
		env  string
		skip bool
	}{{"", true}, {"0", true}, {"1", false}} {
		t.Setenv(race.LongEnv, tc.env)
		var r rec
		race.SkipUnlessLong(&r, "what")
		if r.skipped != tc.skip {
			t.Errorf("%s=%q: skipped %v, want %v", race.LongEnv, tc.env, r.skipped, tc.skip)
		}
	}
}
