package softmax

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/maslda/maslda/framework"
)

// gemProblem is a batch M-step's statistics whose optimum is far out along a
// nearly flat direction: 60 documents whose q(c_d) is nearly certain of the
// class a planted linear score of φ̄_d picks (nearly separable classes) and
// the default penalty μ = 1/D.
func gemProblem(t *testing.T) (*framework.Setup, []*framework.DocState) {
	t.Helper()
	const K, C, D = 4, 3, 60
	rng := rand.New(rand.NewPCG(27, 5))
	c := &framework.Corpus{V: 20, Docs: make([]framework.Doc, D)}
	setup := &framework.Setup{K: K, V: 20, Classes: []string{"a", "b", "c"}, Corpus: c}
	var docs []*framework.DocState
	for i := range c.Docs {
		ds := randomDocState(rng, K, C, 5+rng.IntN(8), 3)
		c.Docs[i] = *ds.Doc
		ds.Bind(i, &c.Docs[i], nil)
		for j, p := range ds.Phi {
			ds.Phi[j] = float64(float32(p)) // as a φ store keeps it
		}
		ds.UpdatePhiBar()
		best, arg := math.Inf(-1), 0
		for l := 0; l < C; l++ {
			if v := ds.PhiBar[l] - ds.PhiBar[3]/2; v > best {
				best, arg = v, l
			}
		}
		tg := ds.Target.(*framework.Categorical)
		for l := range tg.Log {
			tg.Log[l] = 0
		}
		tg.Log[arg] = 8
		tg.Finalize()
		docs = append(docs, ds)
	}
	return setup, docs
}

// A batch M-step with gain_tol (a generalised EM M-step) raises the bound
// without reaching the maximum on a crawling solve, stopping by the gain
// test; M-steps repeated on the same statistics, each starting where the
// last ended, raise it at every step and reach the maximum of a full solve
// (gain_tol = 0): the fixed points of EM are unchanged.
func TestGainTolMStep(t *testing.T) {
	// the default precondition ("hessian"), one goroutine
	fit := func(gain float64) (*Softmax, *Stats) { return fitGem(t, gain, "hessian", 1) }
	ctx, step := context.Background(), framework.BatchStep(1)
	full, fst := fit(0)
	start := full.ELBO(fst, step)
	if err := full.Update(ctx, fst, step); err != nil {
		t.Fatal(err)
	}
	best, fullSolve := full.ELBO(fst, step), full.LastSolve()

	gem, gst := fit(DefaultGainTol)
	prev := start
	for round := 1; ; round++ {
		if err := gem.Update(ctx, gst, step); err != nil {
			t.Fatal(err)
		}
		e := gem.ELBO(gst, step)
		if e < prev {
			t.Fatalf("M-step %d lowered the bound: %.17g after %.17g", round, e, prev)
		}
		if e > best+1e-9*math.Abs(best) {
			t.Fatalf("M-step %d: bound %.17g above the full solve's maximum %.17g", round, e, best)
		}
		if round == 1 {
			sv := gem.LastSolve()
			t.Logf("from %.10g: full solve %.10g (%d iterations, %s); gain_tol %g: %.10g (%d iterations, %s)",
				start, best, fullSolve.Iters, fullSolve.Status, DefaultGainTol, e, sv.Iters, sv.Status)
			if sv.Status != "FunctionConvergence" || !(e > start) || !(e < best) {
				t.Fatalf("first M-step with gain_tol: status %s, bound %.17g from %.17g (maximum %.17g); want a raised bound below the maximum, stopped by the gain test",
					sv.Status, e, start, best)
			}
		}
		if best-e <= 1e-9*math.Abs(best) {
			t.Logf("M-steps on the same statistics reach the maximum after %d", round)
			break
		}
		if round == 100 {
			t.Fatalf("after %d M-steps the bound is %.17g, the full solve's %.17g", round, e, best)
		}
		prev = e
	}
}

func TestGainTolValidate(t *testing.T) {
	for _, v := range []float64{-0.01, math.NaN(), math.Inf(1)} {
		if err := (Params{GainTol: &v}).Validate(); !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("gain_tol = %v: error %v, want ErrBadInput", v, err)
		}
	}
	for _, v := range []float64{0, 0.01, 2} {
		if err := (Params{GainTol: &v}).Validate(); err != nil {
			t.Errorf("gain_tol = %v: %v", v, err)
		}
	}
}
