package softmax

import (
	"testing"

	"github.com/maslda/maslda/framework/frameworktest"
)

func TestMain(m *testing.M) { frameworktest.MainVerifyingLogs(m) }
