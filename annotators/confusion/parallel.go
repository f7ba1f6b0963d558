package confusion

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// SetWorkers sets the number of goroutines of the communities' update
// under membership = "structured" (framework.Parallel): the model's number
// of workers, so that a run with one worker uses one core. n ≤ 0 means
// GOMAXPROCS. The update's result does not depend on n: each annotator's
// membership and each prior row is computed as by one goroutine, and the
// bound's terms are added in annotator order (fitStructured).
func (m *Model) SetWorkers(n int) { m.threads = n }

// goroutines is the update's number of goroutines.
func (m *Model) goroutines() int {
	if m.threads > 0 {
		return m.threads
	}
	return runtime.GOMAXPROCS(0)
}

// parallelRange calls f on consecutive parts [lo, hi) of [0, n) that cover
// it, about eight per goroutine, taken in turn by whichever of up to w
// goroutines (the calling one among them) is free, and returns when every
// call has. w ≤ 1 or n ≤ 1: f(0, n) on the calling goroutine.
func parallelRange(w, n int, f func(lo, hi int)) {
	if w = min(w, n); w <= 1 {
		f(0, n)
		return
	}
	size := max(1, (n+8*w-1)/(8*w))
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
