package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNormalisationTwins (issue 30, item 7): labels equal after NFC but
// written differently are reported in groups; distinct labels, repeats of
// one spelling and case differences are not.
func TestNormalisationTwins(t *testing.T) {
	const nfc, nfd = "caf\u00e9", "cafe\u0301"
	for _, tc := range []struct {
		in   []string
		want [][]string
	}{
		{nil, nil},
		{[]string{"a", "b", "a"}, nil},
		{[]string{nfc, nfc, "Café"}, nil},
		{[]string{nfc, "x", nfd}, [][]string{{nfc, nfd}}},
		{[]string{nfd, nfc, "\u212b", "\u00c5", "A\u030a"}, [][]string{{nfd, nfc}, {"\u212b", "\u00c5", "A\u030a"}}},
	} {
		if diff := cmp.Diff(tc.want, normalisationTwins(tc.in)); diff != "" {
			t.Errorf("normalisationTwins(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
