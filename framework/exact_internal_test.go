package framework

import (
	"testing"
	"unsafe"
)

// TestExactBytesPerNumber: the constant that memory estimates use is the
// size of ExactSums' sums and index.
func TestExactBytesPerNumber(t *testing.T) {
	var e ExactSums
	got := float64(unsafe.Sizeof(sum192{})) + float64(unsafe.Sizeof(e.slot[0]))/exactBlock
	if got != ExactBytesPerNumber {
		t.Errorf("ExactSums keep %v bytes a number, ExactBytesPerNumber is %v", got, ExactBytesPerNumber)
	}
}
