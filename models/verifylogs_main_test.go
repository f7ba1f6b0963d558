package models_test

import (
	"flag"
	"os"
	"testing"

	"github.com/maslda/maslda/topics"
)

// TestMain checks, in -short runs (CI's race pass) or with
// MASLDA_VERIFY_LOGS=1, every DocELBO evaluated from a sweep's cached
// normalisers against the same with a logarithm per word and topic
// (topics.VerifyLogs): a write to φ that forgets DocState.PhiChanged
// panics there.
func TestMain(m *testing.M) {
	flag.Parse()
	topics.VerifyLogs = testing.Short() || os.Getenv("MASLDA_VERIFY_LOGS") == "1"
	os.Exit(m.Run())
}
