package frameworktest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TB is the part of testing.TB the kit uses. *testing.T and *testing.B
// satisfy it; so does Recorder.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Recorder is a TB that records instead of failing: the way to assert that
// a deliberately broken component fails a check. Fatalf records and then
// stops the check it was called from, or the whole kit call when it
// refuses its descriptor (the kit recovers), as testing.T's
// does. It is safe for concurrent use.
type Recorder struct {
	mu     sync.Mutex
	errors []string
	logs   []string
}

type fatal struct{}

// Helper does nothing.
func (r *Recorder) Helper() {}

// Logf records a log line.
func (r *Recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// Errorf records a failure.
func (r *Recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and stops the current check.
func (r *Recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

// recoverFatal ends a kit entry point that a Recorder's Fatalf stopped
// outside any check (a descriptor the kit refuses); any other panic goes
// on. With a *testing.T, Fatalf ends the goroutine and there is nothing to
// recover.
func recoverFatal() {
	if r := recover(); r != nil {
		if _, ok := r.(fatal); !ok {
			panic(r)
		}
	}
}

// Failed reports whether a failure was recorded.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.errors) > 0
}

// Errors returns the recorded failures, each prefixed by the name of the
// check that reported it ("Check: message").
func (r *Recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errors)
}

// Logs returns the recorded log lines.
func (r *Recorder) Logs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.logs)
}

// FailedCheck reports whether the named check recorded a failure.
func (r *Recorder) FailedCheck(name string) bool {
	for _, e := range r.Errors() {
		if strings.HasPrefix(e, name+": ") {
			return true
		}
	}
	return false
}

// named prefixes a non-testing TB's messages with the check's name.
type named struct {
	TB
	name string
}

func (n named) Logf(format string, args ...any) { n.TB.Logf(n.name+": "+format, args...) }
func (n named) Errorf(format string, args ...any) {
	n.TB.Errorf(n.name+": "+format, args...)
}
func (n named) Fatalf(format string, args ...any) {
	n.TB.Fatalf(n.name+": "+format, args...)
}

// Checks selects checks by name. The names are those of the subtests
// (TestLikelihood's "PhiGradient", …; see each function's documentation).
type Checks struct {
	// Only runs these checks (all when empty).
	Only []string
	// Skip names checks that do not apply, each with the reason (logged).
	Skip map[string]string
}

// run runs check name as a subtest of a *testing.T, or with named
// messages on any other TB, recovering a Recorder's Fatalf.
func (c Checks) run(t TB, name string, f func(t TB)) {
	t.Helper()
	if len(c.Only) > 0 && !slices.Contains(c.Only, name) {
		return
	}
	if why, ok := c.Skip[name]; ok {
		t.Logf("%s: skipped: %s", name, why)
		return
	}
	if tt, ok := t.(*testing.T); ok {
		tt.Run(name, func(t *testing.T) { f(t) })
		return
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(fatal); !ok {
				panic(r)
			}
		}
	}()
	f(named{t, name})
}

// near reports whether a and b agree to rel relative or abs absolute.
func near(a, b, rel, abs float64) bool {
	d := math.Abs(a - b)
	return d <= abs || d <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// maxDiff is max_i |a_i − b_i| (+Inf when the lengths differ).
func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

func maxAbs(a []float64) float64 {
	m := 0.0
	for _, x := range a {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func itoa(i int) string { return fmt.Sprint(i) }
