package confusion

import "runtime"

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
