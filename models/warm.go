package models

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/maslda/maslda/framework"
)

// WarmStart replaces the run's initial global parameters with those of the
// model saved in dir: the topics' ζ and the parameters of the response and
// of the annotator model (the components implementing framework.Persister).
// The configured schedule then continues from there, so a model trained by
// batch EM can be handed to SVI, or a run extended by more iterations. The
// saved model must have the same number of topics, vocabulary, response and
// annotator components, classes and annotators as the run; the inference
// schedule may differ. A warm-started run skips the annotators' classifier
// start (framework.Starter) and cannot use restarts. Per-document state (γ,
// the model's stored φ) is not saved, so the first E-step starts every
// document afresh.
func (r *Run) WarmStart(dir string) error {
	if r.Config.Restarts > 1 {
		return fmt.Errorf("%w: a warm start from %s cannot be combined with restarts = %d (each restart would discard it)", framework.ErrBadInput, dir, r.Config.Restarts)
	}
	s, err := Load(dir, r.reg)
	if err != nil {
		return err
	}
	if err := r.compatible(s, dir); err != nil {
		return err
	}
	m := r.Model
	copy(m.Topics.Zeta, s.Model.Topics.Zeta)
	m.Topics.Refresh()
	for _, p := range []struct {
		name     string
		from, to any
	}{{"response", s.Model.Response, m.Response}, {"annotators", s.Model.Noise, m.Noise}} {
		src, ok := p.from.(framework.Persister)
		if !ok {
			continue
		}
		var buf bytes.Buffer
		if err := src.SaveParams(&buf); err != nil {
			return fmt.Errorf("warm start from %s: %s: %w", dir, p.name, err)
		}
		dst, ok := p.to.(framework.Persister)
		if !ok {
			return fmt.Errorf("%w: warm start from %s: this run's %s cannot load saved parameters", framework.ErrBadInput, dir, p.name)
		}
		if err := dst.LoadParams(&buf); err != nil {
			return fmt.Errorf("warm start from %s: %s: %w", dir, p.name, err)
		}
	}
	r.warm = true
	// A response saved after its exact stage resumes with the weight it
	// had (one saved before, or without one, trains on as configured).
	return m.syncWeight()
}

// compatible checks that saved model s (from dir) can start run r.
func (r *Run) compatible(s *Saved, dir string) error {
	man := s.Manifest
	bad := func(what string, saved, run any) error {
		return fmt.Errorf("%w: warm start from %s: the saved model has %s %v, this run %v", framework.ErrBadInput, dir, what, saved, run)
	}
	name := func(c *Component) string {
		if c == nil {
			return "(none)"
		}
		return c.Name
	}
	orNone := func(s string) string {
		if s == "" {
			return "(none)"
		}
		return s
	}
	switch c := r.corpus; {
	case man.K != r.Config.Topics.K:
		return bad("k =", man.K, r.Config.Topics.K)
	case man.V != c.V:
		return bad("a vocabulary of", man.V, c.V)
	case s.Vocab != nil && c.Vocab != nil && !slices.Equal(s.Vocab, c.Vocab):
		i := 0
		for i < len(s.Vocab) && s.Vocab[i] == c.Vocab[i] {
			i++
		}
		return bad(fmt.Sprintf("term %d =", i+1), s.Vocab[i], c.Vocab[i])
	case orNone(man.Response) != name(r.Config.Response):
		return bad("response", orNone(man.Response), name(r.Config.Response))
	case orNone(man.Annotators) != name(r.Config.Annotators):
		return bad("annotators", orNone(man.Annotators), name(r.Config.Annotators))
	case !slices.Equal(man.Classes, r.Classes):
		return bad("classes", man.Classes, r.Classes)
	case !slices.Equal(man.AnnotatorNames, r.Annotators):
		return bad("annotators named", man.AnnotatorNames, r.Annotators)
	}
	return nil
}
