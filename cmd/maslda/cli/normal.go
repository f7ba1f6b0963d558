package cli

import "golang.org/x/text/unicode/norm"

// normalisationTwins returns the labels that differ as written but are
// equal after Unicode normalisation (NFC): "é" (U+00E9) and "e" + U+0301
// print the same but are two labels, read byte for byte. Each group holds
// at least two labels, in the order of labels; nil when there is none.
// Callers warn (labels are not rewritten: a class's name is what the
// user wrote).
func normalisationTwins(labels []string) [][]string {
	var groups map[string][]string
	var order []string
	seen := make(map[string]bool, len(labels))
	for _, l := range labels {
		if seen[l] {
			continue
		}
		seen[l] = true
		n := l
		if !norm.NFC.IsNormalString(l) {
			n = norm.NFC.String(l)
		}
		if groups == nil {
			groups = map[string][]string{}
		}
		if _, ok := groups[n]; !ok {
			order = append(order, n)
		}
		groups[n] = append(groups[n], l)
	}
	var out [][]string
	for _, n := range order {
		if g := groups[n]; len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}
