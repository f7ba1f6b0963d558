package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/maslda/maslda/cmd/maslda/cli"
)

// The command is the full CLI plus one-coin: `components` lists it with the
// built-in plug-ins.
func TestComponentsListsOneCoin(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"components"}, &out, &errb); code != 0 {
		t.Fatalf("components: exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"my-one-coin", "confusion", "softmax", "svi"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("components does not list %q:\n%s", name, out.String())
		}
	}
}
