package frameworktest

import (
	"flag"
	"os"
	"testing"

	"github.com/maslda/maslda/topics"
)

// VerifyLogsEnv turns topics.VerifyLogs on outside -short runs too.
const VerifyLogsEnv = "MASLDA_VERIFY_LOGS"

// MainVerifyingLogs is a TestMain that runs the package's tests with
// topics.VerifyLogs on in -short runs (.ci/run's race pass) or when
// MASLDA_VERIFY_LOGS=1: every DocELBO evaluated from a sweep's cached
// normalisers is checked against K logarithms per word, so that a write
// to φ that forgets DocState.PhiChanged panics there.
func MainVerifyingLogs(m *testing.M) {
	flag.Parse()
	topics.VerifyLogs = testing.Short() || os.Getenv(VerifyLogsEnv) == "1"
	os.Exit(m.Run())
}
