package std_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/framework"
	_ "github.com/maslda/maslda/plugins/std"
)

// TestRegistered: importing std registers every standard plug-in.
func TestRegistered(t *testing.T) {
	got := map[string][]string{}
	for _, kind := range []string{framework.KindResponse, framework.KindAnnotators, framework.KindInference, framework.KindTarget} {
		got[kind] = framework.Default.Names(kind)
	}
	want := map[string][]string{
		framework.KindResponse:   {"class-prior", "gaussian", "linreg", "logreg", "ordinal", "softmax", "value-prior"},
		framework.KindAnnotators: {"bias-precision", "confusion", "glad", "mace", "median", "one-coin", "ordinal-shift", "perfect"},
		framework.KindInference:  {"batch", "svi", "two-stage"},
		framework.KindTarget:     {"categorical", "gaussian", "ordinal"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registered (-want +got):\n%s", diff)
	}
}
