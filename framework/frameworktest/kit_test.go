package frameworktest_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/likelihoods/softmax"
	"github.com/maslda/maslda/optim"
)

// The kit's own tests: each check must pass on a correct component and
// fail on a deliberately broken one (the mutations of issue 13 that the
// plug-ins' former tests let through, and breaches of the contract rules).

// mutModel hands a schedule's steps to the model after changing them.
type mutModel struct {
	framework.Model
	mutate func(st framework.Step, docs int) framework.Step
	docs   int
}

func (m *mutModel) EStep(ctx context.Context, docs []int) (framework.Stats, error) {
	m.docs = len(docs)
	return m.Model.EStep(ctx, docs)
}

func (m *mutModel) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	return m.Model.Update(ctx, s, m.mutate(st, m.docs))
}

func (m *mutModel) ELBO(s framework.Stats, st framework.Step) float64 {
	return m.Model.ELBO(s, m.mutate(st, m.docs))
}

// mutSchedule is a schedule whose steps are mutated.
type mutSchedule struct {
	inner  framework.Schedule
	mutate func(st framework.Step, docs int) framework.Step
}

func (s mutSchedule) Fit(ctx context.Context, m framework.Model, rng *rand.Rand, obs framework.Observer) (*framework.Result, error) {
	return s.inner.Fit(ctx, &mutModel{Model: m, mutate: s.mutate}, rng, obs)
}

func TestScheduleMutations(t *testing.T) {
	const D, bs, kappa, delay = 10, 4, 0.6, 2.5
	rho := func(t int) float64 { return math.Pow(float64(t)+delay, -kappa) }
	for _, tc := range []struct {
		name   string
		mutate func(st framework.Step, docs int) framework.Step
		fails  bool
	}{
		{"unchanged", func(st framework.Step, _ int) framework.Step { return st }, false},
		{"ρ_t without its delay", func(st framework.Step, _ int) framework.Step {
			st.Rho = math.Pow(float64(st.Iter), -kappa)
			return st
		}, true},
		{"S from the nominal batch size", func(st framework.Step, _ int) framework.Step {
			st.Scale = float64(D) / bs
			return st
		}, true},
		{"Full on a mini-batch", func(st framework.Step, _ int) framework.Step {
			st.Full = true
			return st
		}, true},
		{"EpochEnd at every update", func(st framework.Step, _ int) framework.Step {
			st.EpochEnd = true
			return st
		}, true},
		{"EpochEnd never", func(st framework.Step, _ int) framework.Step {
			st.EpochEnd = false
			return st
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec frameworktest.Recorder
			frameworktest.TestSchedule(&rec, frameworktest.Schedule{
				New: func() (framework.Schedule, error) {
					return mutSchedule{&optim.SVI{BatchSize: bs, Kappa: kappa, Delay: delay, Epochs: 3}, tc.mutate}, nil
				},
				Docs: D, Rho: rho, Updates: 9,
			})
			if rec.FailedCheck("Steps") != tc.fails {
				t.Errorf("Steps failed: %v, want %v; errors: %q", rec.FailedCheck("Steps"), tc.fails, rec.Errors())
			}
		})
	}
}

// brokenSoftmax is the softmax with a mutated step in its M-step.
type brokenSoftmax struct {
	*softmax.Softmax
	mutate func(framework.Step) framework.Step
}

func (b brokenSoftmax) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	return b.Softmax.Update(ctx, s, b.mutate(st))
}

func TestLikelihoodMutations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(framework.Step) framework.Step
		check  string
		may    string // another check that may fail too, rightly
	}{
		{"unchanged", func(st framework.Step) framework.Step { return st }, "", ""},
		{"the SVI blend ignores ρ", func(st framework.Step) framework.Step {
			if st.Rho > 0 {
				st.Rho = 1
			}
			return st
		}, "Blend", ""},
		// An update that ignores S does not maximise prior + S·statistics
		// either: whether Maximises sees it depends on how near its other
		// points come (within 1e-6 of the bound here).
		{"the M-step ignores S", func(st framework.Step) framework.Step {
			st.Scale = 1
			return st
		}, "Scale", "Maximises"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec frameworktest.Recorder
			frameworktest.TestLikelihood(&rec, frameworktest.Likelihood{
				New: func() (framework.Likelihood, error) {
					l, err := softmax.New(nil)
					if err != nil {
						return nil, err
					}
					return brokenSoftmax{l.(*softmax.Softmax), tc.mutate}, nil
				},
				Classes: 3,
				Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(brokenSoftmax).Eta) },
				Checks:  frameworktest.Checks{Only: []string{"Blend", "Scale", "ZeroStep", "Merge", "Maximises"}},
			})
			for _, c := range []string{"Blend", "Scale", "ZeroStep", "Merge", "Maximises"} {
				if c == tc.may {
					continue
				}
				if want := c == tc.check; rec.FailedCheck(c) != want {
					t.Errorf("%s failed: %v, want %v; errors: %q", c, rec.FailedCheck(c), want, rec.Errors())
				}
			}
		})
	}
}

// The fakes pass the kit; each broken variant fails the check of the
// contract rule it breaks.
type noEntropy struct{ *frameworktest.FlatResponse }

// DocELBO forgets H[q(target)]: the response must add the target's entropy.
func (n noEntropy) DocELBO(d *framework.DocState) float64 {
	return n.FlatResponse.DocELBO(d) - d.Target.(*framework.Categorical).Entropy()
}

type loudClamped struct{ *frameworktest.Clamped }

// Evidence adds twice the gradient of DocELBO.
func (l loudClamped) Evidence(d *framework.DocState) {
	l.Clamped.Evidence(d)
	l.Clamped.Evidence(d)
}

type unscaled struct{ *frameworktest.Clamped }

// ELBO forgets Step.Scale.
func (u unscaled) ELBO(s framework.Stats, st framework.Step) float64 {
	st.Scale = 1
	return u.Clamped.ELBO(s, st)
}

func TestFakes(t *testing.T) {
	skip := frameworktest.Checks{Skip: map[string]string{"Recovery": "a fake learns nothing"}}
	for _, kind := range []string{frameworktest.KindCategorical, frameworktest.KindGaussian} {
		C := 0
		if kind == frameworktest.KindCategorical {
			C = 3
		}
		t.Run("flat "+kind, func(t *testing.T) {
			frameworktest.TestLikelihood(t, frameworktest.Likelihood{
				New:       func() (framework.Likelihood, error) { return &frameworktest.FlatResponse{Kind: kind}, nil },
				Classes:   C,
				Stateless: true,
				Checks:    skip,
			})
		})
		t.Run("clamped "+kind, func(t *testing.T) {
			frameworktest.TestNoiseModel(t, frameworktest.NoiseModel{
				New:       func() (framework.NoiseModel, error) { return &frameworktest.Clamped{Pot: 3}, nil },
				Kind:      kind,
				Stateless: true,
				Checks:    skip,
			})
		})
	}
	for _, tc := range []struct {
		name  string
		run   func(rec *frameworktest.Recorder)
		check string
	}{
		{"a response without the target's entropy", func(rec *frameworktest.Recorder) {
			frameworktest.TestLikelihood(rec, frameworktest.Likelihood{
				New: func() (framework.Likelihood, error) {
					return noEntropy{&frameworktest.FlatResponse{Kind: frameworktest.KindCategorical}}, nil
				},
				Classes: 3, Stateless: true, Checks: frameworktest.Checks{Only: []string{"TargetStationary"}},
			})
		}, "TargetStationary"},
		{"evidence twice the gradient", func(rec *frameworktest.Recorder) {
			frameworktest.TestNoiseModel(rec, frameworktest.NoiseModel{
				New:  func() (framework.NoiseModel, error) { return loudClamped{&frameworktest.Clamped{Pot: 3}}, nil },
				Kind: frameworktest.KindCategorical, Stateless: true, Checks: frameworktest.Checks{Only: []string{"EvidenceGradient"}},
			})
		}, "EvidenceGradient"},
		{"an ELBO that ignores S", func(rec *frameworktest.Recorder) {
			frameworktest.TestNoiseModel(rec, frameworktest.NoiseModel{
				New:  func() (framework.NoiseModel, error) { return unscaled{&frameworktest.Clamped{Pot: 3}}, nil },
				Kind: frameworktest.KindGaussian, Stateless: true, Checks: frameworktest.Checks{Only: []string{"DocELBOSum"}},
			})
		}, "DocELBOSum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec frameworktest.Recorder
			tc.run(&rec)
			if !rec.FailedCheck(tc.check) {
				t.Errorf("%s did not fail; errors: %q", tc.check, rec.Errors())
			}
			for _, e := range rec.Errors() {
				if !strings.HasPrefix(e, tc.check+": ") {
					t.Errorf("another check failed: %s", e)
				}
			}
		})
	}
}

// doubledDocTerm is the softmax whose per-document term is twice the
// right one.
type doubledDocTerm struct{ *softmax.Softmax }

type doubledLocal struct{ framework.LikelihoodLocal }

func (d doubledDocTerm) NewLocal() framework.LikelihoodLocal {
	return doubledLocal{d.Softmax.NewLocal()}
}

func (l doubledLocal) DocTerm(dst []float64, d *framework.DocState) {
	l.LikelihoodLocal.(framework.PhiDocTerm).DocTerm(dst, d)
	for k := range dst {
		dst[k] *= 2
	}
}

// The kit's DocTerm check passes the softmax and fails a DocTerm that is
// not PhiTerm at φ̄_d.
func TestDocTermMutation(t *testing.T) {
	for _, broken := range []bool{false, true} {
		var rec frameworktest.Recorder
		frameworktest.TestLikelihood(&rec, frameworktest.Likelihood{
			New: func() (framework.Likelihood, error) {
				l, err := softmax.New(nil)
				if err != nil || !broken {
					return l, err
				}
				return doubledDocTerm{l.(*softmax.Softmax)}, nil
			},
			Classes: 3,
			Natural: func(l framework.Likelihood) []float64 {
				if b, ok := l.(doubledDocTerm); ok {
					return slices.Clone(b.Eta)
				}
				return slices.Clone(l.(*softmax.Softmax).Eta)
			},
			Checks: frameworktest.Checks{Only: []string{"DocTerm"}},
		})
		if rec.FailedCheck("DocTerm") != broken {
			t.Errorf("doubled DocTerm %v: the check failed %v; errors: %q", broken, rec.FailedCheck("DocTerm"), rec.Errors())
		}
	}
}

// ascendingSoftmax declares an update that only ascends
// (framework.Ascender); with lower set, its update then flips η, which
// lowers the bound.
type ascendingSoftmax struct {
	brokenSoftmax
	lower bool
}

func (a ascendingSoftmax) Ascends() bool { return true }

func (a ascendingSoftmax) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	if err := a.brokenSoftmax.Update(ctx, s, st); err != nil {
		return err
	}
	if a.lower {
		for i := range a.Eta {
			a.Eta[i] = -a.Eta[i]
		}
	}
	return nil
}

// TestAscendsCheck: an Ascender is checked by Ascends instead of
// Maximises; the check passes an exact update and fails one that lowers
// the bound.
func TestAscendsCheck(t *testing.T) {
	for _, lower := range []bool{false, true} {
		var rec frameworktest.Recorder
		frameworktest.TestLikelihood(&rec, frameworktest.Likelihood{
			New: func() (framework.Likelihood, error) {
				l, err := softmax.New(nil)
				if err != nil {
					return nil, err
				}
				return ascendingSoftmax{brokenSoftmax{l.(*softmax.Softmax), func(st framework.Step) framework.Step { return st }}, lower}, nil
			},
			Classes: 3,
			Natural: func(l framework.Likelihood) []float64 { return slices.Clone(l.(ascendingSoftmax).Eta) },
			Checks:  frameworktest.Checks{Only: []string{"Ascends", "Maximises"}},
		})
		if rec.FailedCheck("Ascends") != lower {
			t.Errorf("update lowering the bound %v: Ascends failed %v; errors: %q", lower, rec.FailedCheck("Ascends"), rec.Errors())
		}
		if rec.FailedCheck("Maximises") {
			t.Errorf("Maximises ran for an Ascender: %q", rec.Errors())
		}
	}
}
