package glad

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/maslda/maslda/framework"
)

// TestNewtonEqualsCoordinateAscent: Update's Newton steps on the profiled
// objective reach the maximiser that rounds of coordinate ascent alone
// reach (abilities within 1e-7, the objective within 1e-9 relative), with
// random answers from 12 annotators on 300 tasks, C = 3, S = 1 and 2.5.
func TestNewtonEqualsCoordinateAscent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const R, D, C = 12, 300, 3
	fresh := func() *Model {
		n, err := New(nil)
		if err != nil {
			t.Fatal(err)
		}
		m := n.(*Model)
		ann, cls := make([]string, R), make([]string, C)
		for i := range ann {
			ann[i] = strconv.Itoa(i)
		}
		for i := range cls {
			cls[i] = strconv.Itoa(i)
		}
		if err := m.Init(&framework.Setup{Annotators: ann, Classes: cls}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	s := fresh().NewStats().(*Stats)
	for range D {
		for _, r := range rng.Perm(R)[:1+rng.IntN(5)] {
			s.R = append(s.R, int32(r))
			p := rng.Float64()
			if r < 4 {
				p = 0.6 + 0.4*p // good annotators are usually right
			} else if r >= 10 {
				p = 0.3 * p // adversaries
			}
			s.P = append(s.P, p)
		}
		s.Off = append(s.Off, int32(len(s.R)))
	}
	for _, S := range []float64{1, 2.5} {
		st := framework.Step{Rho: 1, Scale: S, Full: S == 1, Iter: 1}
		nm := fresh()
		if err := nm.Update(context.Background(), s, st); err != nil {
			t.Fatal(err)
		}
		saved := newtonMaxAnnotators
		newtonMaxAnnotators = 0
		cm := fresh()
		err := cm.Update(context.Background(), s, st)
		newtonMaxAnnotators = saved
		if err != nil {
			t.Fatal(err)
		}
		for r := range R {
			if math.Abs(nm.Ability[r]-cm.Ability[r]) > 1e-7 {
				t.Errorf("S = %v: ability %d: Newton %.10f, coordinate ascent %.10f", S, r, nm.Ability[r], cm.Ability[r])
			}
		}
		t.Logf("S = %v: %d steps (%d Newton) against %d rounds of coordinate ascent", S, nm.steps, nm.newtonSteps, cm.steps)
		if nm.newtonSteps == 0 || nm.steps >= cm.steps {
			t.Errorf("S = %v: %d steps, %d of them Newton's, against %d rounds: the Newton steps are not taken or do not help", S, nm.steps, nm.newtonSteps, cm.steps)
		}
		en, ec := nm.ELBO(s, st), cm.ELBO(s, st)
		if math.Abs(en-ec) > 1e-9*math.Abs(ec) {
			t.Errorf("S = %v: objective %.12g (Newton) against %.12g", S, en, ec)
		}
	}
}
