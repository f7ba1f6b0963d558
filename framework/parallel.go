package framework

import (
	"sync"
	"sync/atomic"
)

// ForRange calls f on consecutive parts [lo, hi) of [0, n) that cover it,
// on up to w goroutines at once (the calling one among them), and returns
// when every call has. The parts have at least minChunk elements, about
// eight per goroutine, and are taken in turn by whichever goroutine is
// free: one slowed by the machine's other work leaves its share to the
// others instead of keeping them waiting at the end. With w ≤ 1, or n
// below 2·minChunk, it calls f(0, n) on the calling goroutine.
//
// It is for a Parallel component's passes whose every element is computed
// as by one goroutine: which goroutine takes a part must not change a
// result (sums over parts are the caller's, in index order).
func ForRange(w, n, minChunk int, f func(lo, hi int)) {
	minChunk = max(1, minChunk)
	if w = min(w, n/minChunk); w <= 1 {
		f(0, n)
		return
	}
	size := max(minChunk, (n+8*w-1)/(8*w))
	chunks := (n + size - 1) / size
	var next atomic.Int64
	run := func() {
		for {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			f(c*size, min(n, (c+1)*size))
		}
	}
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
}
