package framework_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/maslda/maslda/framework"
)

// ForRange covers [0, n) with parts of at least minChunk elements (the
// last excepted), each element once, on at most w goroutines; small n or
// w run on the calling goroutine as one part.
func TestForRange(t *testing.T) {
	for _, tc := range []struct {
		w, n, minChunk int
		onePart        bool
	}{
		{1, 100, 1, true},
		{4, 0, 1, true},
		{4, 1, 1, true},
		{2, 3, 2, true}, // n < 2·minChunk
		{2, 4, 2, false},
		{2, 37, 1, false},
		{3, 1000, 16, false},
		{16, 5, 1, false},
		{8, 100000, 4096, false},
		{2, 50, 0, false}, // minChunk < 1 means 1
	} {
		var mu sync.Mutex
		seen := make([]int, tc.n)
		parts := 0
		framework.ForRange(tc.w, tc.n, tc.minChunk, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			parts++
			if hi-lo < max(1, tc.minChunk) && hi != tc.n {
				t.Errorf("%+v: part [%d, %d) shorter than minChunk", tc, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		want := make([]int, tc.n)
		for i := range want {
			want[i] = 1
		}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("%+v: times each element was visited (-want +got):\n%s", tc, diff)
		}
		if tc.onePart && parts != 1 {
			t.Errorf("%+v: %d parts, want 1", tc, parts)
		}
		if !tc.onePart && parts < 2 {
			t.Errorf("%+v: %d part, want several", tc, parts)
		}
	}
}

func ExampleForRange() {
	// Squares of 0..9 on two goroutines, each element written by one.
	sq := make([]int, 10)
	framework.ForRange(2, len(sq), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sq[i] = i * i
		}
	})
	fmt.Println(sq)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}
