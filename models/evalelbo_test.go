package models

import (
	"bytes"
	"context"
	"github.com/maslda/maslda/framework/frameworktest/race"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
)

// evalCase is a model in a phase for the EvalELBO tests.
type evalCase struct {
	name   string
	src    string // configuration (its inference block is not used)
	corpus func(testing.TB) *framework.Corpus
	phase  framework.Phase
}

func crowdTrain(t testing.TB) *framework.Corpus {
	train, _, _ := smallCrowd(t)
	return train
}

const evalCrowd = twoStageTopics + `response "softmax" {}
annotators "confusion" {}
`

func evalCases() []evalCase {
	return []evalCase{
		{"MA-sLDAc", evalCrowd, crowdTrain, framework.PhaseJoint},
		{"LDA", twoStageTopics, crowdTrain, framework.PhaseJoint},
		{"MA-sLDAc in the topics phase", evalCrowd, crowdTrain, framework.PhaseTopics},
		{"MA-sLDAc in the response phase", evalCrowd, crowdTrain, framework.PhaseResponse},
		{"MA-sLDAr", smallRegConfig, smallRegCorpus, framework.PhaseJoint},
	}
}

// evalStep runs an E-step on docs and the update st, returning the ELBO.
func evalStep(t *testing.T, m *Model, docs []int, st framework.Step) float64 {
	t.Helper()
	ctx := context.Background()
	s, err := m.EStep(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Update(ctx, s, st); err != nil {
		t.Fatal(err)
	}
	return m.ELBO(s, st)
}

func docRange(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// prepared builds tc's model with the given workers and brings it to a
// state where the stored local state is mixed: the phase set (the response
// phase after a topics-phase batch step), a batch step, then a mini-batch
// step on the first 60% of the documents.
func prepared(t *testing.T, tc evalCase, workers int) *Model {
	t.Helper()
	cfg := mustConfig(t, tc.src)
	cfg.Workers = workers
	r, err := Build(cfg, nil, tc.corpus(t))
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	D := m.NumDocs()
	switch tc.phase {
	case framework.PhaseTopics:
		if err := m.SetPhase(framework.PhaseTopics); err != nil {
			t.Fatal(err)
		}
	case framework.PhaseResponse:
		if err := m.SetPhase(framework.PhaseTopics); err != nil {
			t.Fatal(err)
		}
		evalStep(t, m, docRange(0, D), framework.BatchStep(1))
		if err := m.SetPhase(framework.PhaseResponse); err != nil {
			t.Fatal(err)
		}
	}
	evalStep(t, m, docRange(0, D), framework.BatchStep(1))
	part := docRange(0, D*6/10)
	evalStep(t, m, part, framework.Step{Rho: 0.7, Scale: float64(D) / float64(len(part)), Iter: 2})
	return m
}

// modelState is everything of a model that training reads: the global
// parameters (ζ, and the components' saved parameters) and the stored
// local state (γ, targets, frozen φ).
type modelState struct {
	Zeta    []float64
	Resp    string
	Noise   string
	Gamma   [][]float64
	Targets []framework.Target
	Frozen  [][]float32
}

func stateOf(t *testing.T, m *Model) modelState {
	t.Helper()
	s := modelState{Zeta: append([]float64(nil), m.Topics.Zeta...)}
	save := func(c any) string {
		p, ok := c.(framework.Persister)
		if !ok {
			return ""
		}
		var b bytes.Buffer
		if err := p.SaveParams(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	s.Resp, s.Noise = save(m.Response), save(m.Noise)
	for d := range m.NumDocs() {
		s.Gamma = append(s.Gamma, append([]float64(nil), m.Gamma(d)...))
		var tg framework.Target
		if x := m.Target(d); x != nil {
			tg = m.Response.NewTarget()
			tg.CopyFrom(x)
		}
		s.Targets = append(s.Targets, tg)
		s.Frozen = append(s.Frozen, m.FrozenPhi(d))
	}
	return s
}

// TestEvalELBONoSideEffects: EvalELBO twice gives the same value, and a
// model that called it trains on bit for bit as its twin that did not
// (a mini-batch step on documents both in and out of the last mini-batch,
// then a batch step), in every phase.
func TestEvalELBONoSideEffects(t *testing.T) {
	t.Parallel()
	race.SkipLong(t)
	ctx := context.Background()
	for _, tc := range evalCases() {
		t.Run(tc.name, func(t *testing.T) {
			a, b := prepared(t, tc, 2), prepared(t, tc, 2)
			before := stateOf(t, a)
			e1, err := a.EvalELBO(ctx)
			if err != nil {
				t.Fatal(err)
			}
			e2, err := a.EvalELBO(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if e1 != e2 || math.IsNaN(e1) || math.IsInf(e1, 0) {
				t.Errorf("EvalELBO twice: %v then %v, want the same finite value", e1, e2)
			}
			if diff := cmp.Diff(before, stateOf(t, a), cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("EvalELBO changed the model's state (-before +after):\n%s", diff)
			}
			D := a.NumDocs()
			part := docRange(D/3, D)
			steps := []struct {
				docs []int
				st   framework.Step
			}{
				{part, framework.Step{Rho: 0.5, Scale: float64(D) / float64(len(part)), Iter: 3}},
				{docRange(0, D), framework.BatchStep(4)},
			}
			for i, s := range steps {
				ea, eb := evalStep(t, a, s.docs, s.st), evalStep(t, b, s.docs, s.st)
				if ea != eb {
					t.Errorf("step %d: ELBO %v after EvalELBO, %v without", i+1, ea, eb)
				}
				if diff := cmp.Diff(stateOf(t, b), stateOf(t, a), cmpopts.EquateNaNs()); diff != "" {
					t.Errorf("step %d: state after EvalELBO differs from the twin's (-twin +evaluated):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestEvalELBOEqualsEStep: EvalELBO is EStep over every document followed
// by ELBO(stats, Step{Scale: 1, Full: true}) at the same state, bit for
// bit, whatever the number of workers.
func TestEvalELBOEqualsEStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range evalCases() {
		t.Run(tc.name, func(t *testing.T) {
			a, b, c := prepared(t, tc, 1), prepared(t, tc, 3), prepared(t, tc, 2)
			ea, err := a.EvalELBO(ctx)
			if err != nil {
				t.Fatal(err)
			}
			ec, err := c.EvalELBO(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ea != ec {
				t.Errorf("EvalELBO %v with 1 worker, %v with 2", ea, ec)
			}
			s, err := b.EStep(ctx, docRange(0, b.NumDocs()))
			if err != nil {
				t.Fatal(err)
			}
			eb := b.ELBO(s, framework.Step{Rho: 1, Scale: 1, Full: true})
			if ea != eb {
				t.Errorf("EvalELBO %.17g, EStep + ELBO %.17g (relative difference %.3g)", ea, eb, math.Abs(ea-eb)/math.Abs(eb))
			}
		})
	}
}

// TestEvalELBOAfterBatch: after each batch EM update the bound over the
// corpus at the new globals is at least the reported ELBO (the next E-step
// cannot lower the bound).
func TestEvalELBOAfterBatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range evalCases()[:2] {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustConfig(t, tc.src+`inference "batch" {
  max_iters = 4
  tol = 0
}`)
			r, err := Build(cfg, nil, tc.corpus(t))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			if _, err := r.Fit(ctx, func(p framework.Progress) error {
				if p.Restart > 0 { // a restart's candidate, not r.Model
					return nil
				}
				n++
				full, err := r.Model.EvalELBO(ctx)
				if err != nil {
					return err
				}
				if full < p.ELBO-1e-9*math.Abs(p.ELBO) {
					t.Errorf("update %d: EvalELBO %.12g below the batch ELBO %.12g", p.Iter, full, p.ELBO)
				}
				if p.FullELBO != p.ELBO {
					t.Errorf("update %d: batch FullELBO %v ≠ ELBO %v", p.Iter, p.FullELBO, p.ELBO)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if n != 4 {
				t.Errorf("%d updates, want 4", n)
			}
		})
	}
}

// TestSVIEvalEveryModel: SVI with eval_every = 1 trains exactly as with
// eval_every = 0 (same ELBO trace, same final state, bit for bit); the full
// bound is reported at the last update of each epoch only; with the whole
// corpus as mini-batch and ρ = 1 it lies between the update's ELBO and the
// next update's (the next E-step cannot lower the bound, nor can the next
// M-step).
func TestSVIEvalEveryModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type trace struct {
		elbo, full []float64
		epoch      []int
		state      modelState
	}
	fit := func(t *testing.T, tc evalCase, inference string) trace {
		t.Helper()
		r, err := Build(mustConfig(t, tc.src+inference), nil, tc.corpus(t))
		if err != nil {
			t.Fatal(err)
		}
		var tr trace
		if _, err := r.Fit(ctx, func(p framework.Progress) error {
			tr.elbo, tr.full, tr.epoch = append(tr.elbo, p.ELBO), append(tr.full, p.FullELBO), append(tr.epoch, p.Epoch)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		tr.state = stateOf(t, r.Model)
		return tr
	}
	for _, tc := range evalCases()[:2] {
		t.Run(tc.name, func(t *testing.T) {
			svi := func(every string) string {
				return "inference \"svi\" {\n  batch_size = 70\n  epochs = 3\n  tol = 0\n  eval_every = " + every + "\n}\n"
			}
			t0, t1 := fit(t, tc, svi("0")), fit(t, tc, svi("1"))
			if diff := cmp.Diff(t0.elbo, t1.elbo); diff != "" {
				t.Errorf("ELBO trace with eval_every 1 differs from eval_every 0 (-0 +1):\n%s", diff)
			}
			if diff := cmp.Diff(t0.state, t1.state, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("final state with eval_every 1 differs from eval_every 0 (-0 +1):\n%s", diff)
			}
			for i, f := range t0.full {
				if !math.IsNaN(f) {
					t.Errorf("eval_every 0: update %d has FullELBO %v, want NaN", i+1, f)
				}
			}
			if len(t1.full) != 12 { // 240 documents in mini-batches of 70: 4 updates per epoch
				t.Fatalf("%d updates, want 12", len(t1.full))
			}
			for i, f := range t1.full {
				last := i == len(t1.full)-1 || t1.epoch[i+1] != t1.epoch[i]
				if last == math.IsNaN(f) {
					t.Errorf("update %d (epoch %d, last of its epoch: %v): FullELBO %v", i+1, t1.epoch[i], last, f)
				}
			}

			full := fit(t, tc, "inference \"svi\" {\n  batch_size = 100000\n  kappa = 0\n  epochs = 4\n  tol = 0\n  eval_every = 1\n}\n")
			tol := func(x float64) float64 { return 1e-9 * math.Abs(x) }
			for i, f := range full.full {
				e := full.elbo[i]
				if math.IsNaN(f) || f < e-tol(e) {
					t.Errorf("full batch, ρ = 1: update %d: FullELBO %.12g, want ≥ its ELBO %.12g", i+1, f, e)
				}
				if i+1 < len(full.elbo) && full.elbo[i+1] < f-tol(f) {
					t.Errorf("full batch, ρ = 1: update %d: next ELBO %.12g below FullELBO %.12g", i+1, full.elbo[i+1], f)
				}
			}
		})
	}
}
