package frameworktest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/frameworktest"
	"github.com/maslda/maslda/framework/synth"
)

// A target type of a plug-in's own, unknown to the framework and to the
// kit's fakes: a coin, q(c_d = 1) = σ(Logit). With it, a flat response and
// a "flip" annotator model (annotator r gives the true side with
// probability a_r), written here as a plug-in author would, and a
// TargetType that teaches the kit the coin. The kit must pass them and
// catch a broken evidence and a response that forgets the entropy.

type coin struct{ Logit, P float64 }

func (c *coin) Reset()                        { c.Logit = 0 }
func (c *coin) Finalize()                     { c.P = 1 / (1 + math.Exp(-c.Logit)) }
func (c *coin) CopyFrom(src framework.Target) { *c = *src.(*coin) }
func (c *coin) entropy() float64 {
	h := 0.0
	for _, p := range []float64{c.P, 1 - c.P} {
		if p > 0 {
			h -= p * math.Log(p)
		}
	}
	return h
}

var coinType = &frameworktest.TargetType{
	Name:       "coin",
	Classes:    2,
	New:        func() framework.Target { return &coin{} },
	Natural:    func(t framework.Target) []float64 { return []float64{t.(*coin).Logit} },
	SetNatural: func(t framework.Target, x []float64) { t.(*coin).Logit = x[0] },
	Moments:    func(t framework.Target) []float64 { return []float64{t.(*coin).P} },
	Random:     func(r *rand.Rand) []float64 { return []float64{2 * r.NormFloat64()} },
	RandomMessage: func(r *rand.Rand) []float64 {
		return []float64{2*r.Float64() - 1}
	},
	Answer: func(r *rand.Rand) framework.Answer {
		c := r.IntN(2)
		return framework.Answer{Class: int32(c), Value: float64(c)}
	},
	Score: func(est []framework.Target, truth []float64) (float64, float64) {
		hits, ones := 0, 0
		for d, t := range est {
			if (t.(*coin).P > 0.5) == (truth[d] == 1) {
				hits++
			}
			if truth[d] == 1 {
				ones++
			}
		}
		n := float64(len(est))
		return float64(hits) / n, math.Max(float64(ones), n-float64(ones)) / n
	},
}

// flatCoin is a response with no parameters: q(c) gets a flat prior.
type flatCoin struct{ noEntropy bool }

type sum struct{ s float64 }

func (s *sum) Merge(o framework.Stats) { s.s += o.(*sum).s }
func (s *sum) Reset()                  { s.s = 0 }

func (f *flatCoin) Init(*framework.Setup) error         { return nil }
func (f *flatCoin) Parameterless()                      {}
func (f *flatCoin) IgnoresDocuments() bool              { return true }
func (f *flatCoin) NewTarget() framework.Target         { return &coin{} }
func (f *flatCoin) NewLocal() framework.LikelihoodLocal { return flatCoinLocal{} }
func (f *flatCoin) Predict(d *framework.DocState)       { d.Target.Reset(); d.Target.Finalize() }
func (f *flatCoin) NewStats() framework.Stats           { return &sum{} }
func (f *flatCoin) Accumulate(s framework.Stats, d *framework.DocState) {
	s.(*sum).s += f.DocELBO(d)
}
func (f *flatCoin) Update(ctx context.Context, _ framework.Stats, _ framework.Step) error {
	return ctx.Err()
}
func (f *flatCoin) ELBO(s framework.Stats, st framework.Step) float64 { return st.Scale * s.(*sum).s }
func (f *flatCoin) DocELBO(d *framework.DocState) float64 {
	if f.noEntropy {
		return -math.Ln2
	}
	return -math.Ln2 + d.Target.(*coin).entropy()
}

type flatCoinLocal struct{}

func (flatCoinLocal) Begin(*framework.DocState)                       {}
func (flatCoinLocal) PhiTerm([]float64, *framework.DocState, int)     {}
func (flatCoinLocal) WordChanged(*framework.DocState, int, []float64) {}
func (flatCoinLocal) TargetTerm(*framework.DocState)                  {}

// flip: annotator r answers the true side with probability a_r, a_r with a
// Beta(2, 2) prior and a point estimate. Running statistics per annotator:
// E[agreements] and answers, blended under SVI.
type flip struct {
	A   []float64 // a_r
	run []float64 // 2R: agreements, answers
	mut string    // a deliberate bug (tests): "half-evidence", "flip-evidence", "no-scale", "no-rho"
}

type flipStats struct{ agree, n []float64 }

func (s *flipStats) Merge(o framework.Stats) {
	t := o.(*flipStats)
	for r := range s.agree {
		s.agree[r] += t.agree[r]
		s.n[r] += t.n[r]
	}
}
func (s *flipStats) Reset() { clear(s.agree); clear(s.n) }

func (f *flip) Init(s *framework.Setup) error {
	if len(s.Classes) != 2 {
		return fmt.Errorf("%w: flip: %d classes, want 2", framework.ErrBadInput, len(s.Classes))
	}
	R := len(s.Annotators)
	f.A, f.run = make([]float64, R), make([]float64, 2*R)
	for r := range f.A {
		f.A[r] = 0.7
	}
	return nil
}

func (f *flip) Accepts(t framework.Target) error {
	if _, ok := t.(*coin); !ok {
		return fmt.Errorf("%w: flip: target %T", framework.ErrIncompatible, t)
	}
	return nil
}

func logit(a float64) float64 { return math.Log(a) - math.Log1p(-a) }

func (f *flip) Evidence(d *framework.DocState) {
	c := d.Target.(*coin)
	for _, a := range d.Answers {
		m := logit(f.A[a.Annotator])
		switch f.mut {
		case "half-evidence":
			m /= 2
		case "flip-evidence":
			m = -m
		}
		if a.Class == 1 {
			c.Logit += m
		} else {
			c.Logit -= m
		}
	}
}

// agreement is E_q[c = y].
func agreement(c *coin, y int32) float64 {
	if y == 1 {
		return c.P
	}
	return 1 - c.P
}

func (f *flip) DocELBO(d *framework.DocState) float64 {
	c := d.Target.(*coin)
	e := 0.0
	for _, a := range d.Answers {
		g := agreement(c, a.Class)
		e += g*math.Log(f.A[a.Annotator]) + (1-g)*math.Log1p(-f.A[a.Annotator])
	}
	return e
}

func (f *flip) NewStats() framework.Stats {
	return &flipStats{agree: make([]float64, len(f.A)), n: make([]float64, len(f.A))}
}

func (f *flip) Accumulate(s framework.Stats, d *framework.DocState) {
	st, c := s.(*flipStats), d.Target.(*coin)
	for _, a := range d.Answers {
		st.agree[a.Annotator] += agreement(c, a.Class)
		st.n[a.Annotator]++
	}
}

func (f *flip) Update(ctx context.Context, s framework.Stats, st framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := s.(*flipStats)
	R := len(f.A)
	for r := range R {
		rho, scale := st.Rho, st.Scale
		switch f.mut {
		case "no-scale":
			scale = 1
		case "no-rho":
			rho = 1
		}
		f.run[r] = (1-rho)*f.run[r] + rho*scale*t.agree[r]
		f.run[R+r] = (1-rho)*f.run[R+r] + rho*scale*t.n[r]
		f.A[r] = (f.run[r] + 1) / (f.run[R+r] + 2)
	}
	return nil
}

func (f *flip) ELBO(s framework.Stats, st framework.Step) float64 {
	t := s.(*flipStats)
	e := 0.0
	for r, a := range f.A {
		e += st.Scale*(t.agree[r]*math.Log(a)+(t.n[r]-t.agree[r])*math.Log1p(-a)) + math.Log(a) + math.Log1p(-a)
	}
	return e
}

func (f *flip) SaveParams(w io.Writer) error {
	return json.NewEncoder(w).Encode(map[string][]float64{"a": f.A, "run": f.run})
}

func (f *flip) LoadParams(r io.Reader) error {
	var p map[string][]float64
	if err := json.NewDecoder(r).Decode(&p); err != nil || len(p["a"]) != len(f.A) || len(p["run"]) != len(f.run) {
		return fmt.Errorf("%w: flip parameters: %v", framework.ErrBadInput, err)
	}
	copy(f.A, p["a"])
	copy(f.run, p["run"])
	return nil
}

// plantedCoins: fair coins over a small LDA corpus (the documents say
// nothing about the truth); 5 annotators of accuracy 0.9 … 0.5, 3 answers
// per document.
func plantedCoins(D int) func(seed uint64) (*frameworktest.Planted, error) {
	return func(seed uint64) (*frameworktest.Planted, error) {
		rng := rand.New(rand.NewPCG(seed, 0x636f696e))
		c, _, err := synth.LDA(synth.LDASpec{D: D, V: 30, K: 2, DocLen: 5, Alpha: 0.2, TopicConc: 0.1}, rng)
		if err != nil {
			return nil, err
		}
		acc := []float64{0.9, 0.75, 0.6, 0.55, 0.5}
		names := make([]string, len(acc))
		for r := range names {
			names[r] = "a" + strconv.Itoa(r)
		}
		p := &frameworktest.Planted{Kind: frameworktest.KindCustom, Classes: []string{"tails", "heads"}, Test: &framework.Corpus{V: 30}}
		byDoc := make([][]framework.Answer, D)
		for d := range byDoc {
			truth := int32(rng.IntN(2))
			p.Truth = append(p.Truth, float64(truth))
			for _, r := range rng.Perm(len(acc))[:3] {
				y := truth
				if rng.Float64() >= acc[r] {
					y = 1 - truth
				}
				byDoc[d] = append(byDoc[d], framework.Answer{Annotator: int32(r), Class: y, Value: float64(y)})
			}
		}
		c.Answers = &framework.Answers{Annotators: names, Classes: p.Classes, ByDoc: byDoc}
		p.Train = c
		return p, nil
	}
}

func flipKit(mut string) frameworktest.NoiseModel {
	return frameworktest.NoiseModel{
		New:     func() (framework.NoiseModel, error) { return &flip{mut: mut}, nil },
		Target:  coinType,
		Natural: func(n framework.NoiseModel) []float64 { return append([]float64(nil), n.(*flip).run...) },
		Partner: func() (framework.Likelihood, error) { return &flatCoin{}, nil },
		Fit:     frameworktest.Fit{Problem: plantedCoins(300), Recovery: plantedCoins(1500)},
	}
}

// The kit runs every check on a target type it learns from a TargetType.
func TestKitCustomTarget(t *testing.T) {
	frameworktest.TestNoiseModel(t, flipKit(""))
	frameworktest.TestLikelihood(t, frameworktest.Likelihood{
		New:       func() (framework.Likelihood, error) { return &flatCoin{}, nil },
		Target:    coinType,
		Stateless: true,
		Partner:   func() (framework.NoiseModel, error) { return &flip{}, nil },
		Fit:       frameworktest.Fit{Problem: plantedCoins(300), Recovery: plantedCoins(1500)},
		Checks:    frameworktest.Checks{Skip: map[string]string{"Recovery": "a flat response predicts nothing held out"}},
	})
}

// ...and fails a broken component of that type: an evidence that is half
// the gradient or of the wrong sign, an SVI step that ignores the scale S or
// the step size ρ (the kit's steps use 0 < ρ < 1 and S ≠ 1), a response
// that does not add the target's entropy.
func TestKitCustomTargetCatches(t *testing.T) {
	for _, tc := range []struct{ mut, check, word string }{
		{"half-evidence", "EvidenceGradient", "gradient"},
		{"flip-evidence", "EvidenceGradient", "gradient"},
		{"no-scale", "Scale", ""},
		{"no-rho", "Blend", ""},
	} {
		r := &frameworktest.Recorder{}
		k := flipKit(tc.mut)
		k.Checks = frameworktest.Checks{Only: []string{tc.check}}
		frameworktest.TestNoiseModel(r, k)
		if !r.Failed() || !strings.Contains(strings.Join(r.Errors(), "\n"), tc.word) {
			t.Errorf("flip with %s passed %s: %q", tc.mut, tc.check, r.Errors())
		}
	}
	r := &frameworktest.Recorder{}
	partial := *coinType
	partial.Moments = nil
	k := flipKit("")
	k.Target = &partial
	frameworktest.TestNoiseModel(r, k)
	if !r.Failed() || !strings.Contains(strings.Join(r.Errors(), "\n"), "Moments is nil") {
		t.Errorf("a TargetType without Moments: %q, want an error naming the field", r.Errors())
	}
	r = &frameworktest.Recorder{}
	frameworktest.TestLikelihood(r, frameworktest.Likelihood{
		New:       func() (framework.Likelihood, error) { return &flatCoin{noEntropy: true}, nil },
		Target:    coinType,
		Stateless: true,
		Checks:    frameworktest.Checks{Only: []string{"TargetStationary"}},
	})
	if !r.Failed() || !strings.Contains(strings.Join(r.Errors(), "\n"), "entropy") {
		t.Errorf("a response without the target's entropy passed TargetStationary: %q", r.Errors())
	}
}
