package models

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// Run is an assembled model with its schedule and random source: what
// `maslda train` fits and saves.
type Run struct {
	Config   *Config
	Model    *Model
	Schedule framework.Schedule
	Rand     *rand.Rand
	Classes  []string // class names of a categorical target (nil otherwise)
	Workers  []string // annotator names (nil without answers)
	Result   *framework.Result
}

// NewRand is the run's random source for a seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6d61736c6461)) }

// components builds the configured plug-ins through reg and initialises
// them with setup.
func components(cfg *Config, reg *framework.Registry, setup *framework.Setup) (framework.Likelihood, framework.NoiseModel, framework.Schedule, error) {
	var (
		resp  framework.Likelihood
		noise framework.NoiseModel
		err   error
	)
	if cfg.Response != nil {
		if resp, err = reg.Likelihood(cfg.Response.Name, cfg.Response.Params); err != nil {
			return nil, nil, nil, err
		}
		if err = resp.Init(setup); err != nil {
			return nil, nil, nil, fmt.Errorf("response %q: %w", cfg.Response.Name, err)
		}
	}
	if cfg.Annotators != nil {
		if noise, err = reg.Noise(cfg.Annotators.Name, cfg.Annotators.Params); err != nil {
			return nil, nil, nil, err
		}
		if err = noise.Init(setup); err != nil {
			return nil, nil, nil, fmt.Errorf("annotators %q: %w", cfg.Annotators.Name, err)
		}
	}
	sched, err := reg.Schedule(cfg.Inference.Name, cfg.Inference.Params)
	if err != nil {
		return nil, nil, nil, err
	}
	return resp, noise, sched, nil
}

// Build assembles the configured model over a training corpus, drawing the
// initial topics from the configured seed. reg nil means framework.Default.
func Build(cfg *Config, reg *framework.Registry, c *framework.Corpus) (*Run, error) {
	if reg == nil {
		reg = framework.Default
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	rng := NewRand(cfg.Seed)
	layer, err := topics.New(cfg.Topics, c.V)
	if err != nil {
		return nil, err
	}
	layer.Init(c, rng)
	setup := &framework.Setup{K: cfg.Topics.K, V: c.V, Corpus: c, Rand: rng}
	if c.Answers != nil {
		setup.Classes, setup.Workers = c.Answers.Classes, c.Answers.Workers
	}
	resp, noise, sched, err := components(cfg, reg, setup)
	if err != nil {
		return nil, err
	}
	if cfg.Response == nil {
		// Plain LDA ignores answers.
		c = &framework.Corpus{Docs: c.Docs, V: c.V, Vocab: c.Vocab}
	}
	m, err := NewModel(layer, resp, noise, c, cfg.Workers)
	if err != nil {
		return nil, err
	}
	return &Run{Config: cfg, Model: m, Schedule: sched, Rand: rng, Classes: setup.Classes, Workers: setup.Workers}, nil
}

// Fit runs the schedule; obs (may be nil) sees every update.
func (r *Run) Fit(ctx context.Context, obs framework.Observer) (*framework.Result, error) {
	res, err := r.Schedule.Fit(ctx, r.Model, r.Rand, obs)
	r.Result = res
	return res, err
}
