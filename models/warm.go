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
	if r.Config.RestartsDefault {
		r.Config.Restarts = 1
	}
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
	if err := r.copyParams(s.Model, "warm start from "+dir); err != nil {
		return err
	}
	r.warm = true
	// A response saved after its exact stage resumes with the weight it
	// had (one saved before, or without one, trains on as configured);
	// one that holds the crowd runs its pilot again (reopen).
	r.reopen()
	return r.Model.syncWeight()
}

// reopen puts a response that holds the crowd back before its pilot's end
// (framework.CrowdHolder.Reopen): a warm-started run has no document's
// q(target) of a pilot, so it runs the pilot again from the loaded
// parameters and holds what that pilot ends with.
func (r *Run) reopen() {
	if h, ok := r.Model.Response.(framework.CrowdHolder); ok {
		h.Reopen()
	}
}

// WarmFrom is WarmStart from a run in memory: src (fitted on a corpus of
// the same documents, classes and annotators, with the same topics,
// response and annotator components, such as a candidate of Choose
// fitted on part of the answers) gives this run its initial topics,
// response and annotator parameters.
func (r *Run) WarmFrom(src *Run) error {
	if r.Config.RestartsDefault {
		r.Config.Restarts = 1
	}
	if r.Config.Restarts > 1 {
		return fmt.Errorf("%w: a warm start cannot be combined with restarts = %d (each restart would discard it)", framework.ErrBadInput, r.Config.Restarts)
	}
	name := func(c *Component) string {
		if c == nil {
			return ""
		}
		return c.Name
	}
	switch {
	case src.Model.Topics.K != r.Model.Topics.K || src.Model.Topics.V != r.Model.Topics.V:
		return fmt.Errorf("%w: warm start: k %d, v %d from a run with k %d, v %d", framework.ErrBadInput, r.Model.Topics.K, r.Model.Topics.V, src.Model.Topics.K, src.Model.Topics.V)
	case name(src.Config.Response) != name(r.Config.Response) || name(src.Config.Annotators) != name(r.Config.Annotators):
		return fmt.Errorf("%w: warm start: response %q and annotators %q from a run with %q and %q", framework.ErrBadInput,
			name(r.Config.Response), name(r.Config.Annotators), name(src.Config.Response), name(src.Config.Annotators))
	case !slices.Equal(src.Classes, r.Classes) || !slices.Equal(src.Annotators, r.Annotators):
		return fmt.Errorf("%w: warm start from a run with other classes or annotators", framework.ErrBadInput)
	}
	if err := r.copyParams(src.Model, "warm start"); err != nil {
		return err
	}
	r.warm = true
	r.reopen()
	return r.Model.syncWeight()
}

// copyParams copies ζ and the Persister parameters of the response and
// the annotators from m into the run's model.
func (r *Run) copyParams(from *Model, what string) error {
	m := r.Model
	copy(m.Topics.Zeta, from.Topics.Zeta)
	m.Topics.Refresh()
	for _, p := range []struct {
		name     string
		from, to any
	}{{"response", from.Response, m.Response}, {"annotators", from.Noise, m.Noise}} {
		src, ok := p.from.(framework.Persister)
		if !ok {
			continue
		}
		var buf bytes.Buffer
		if err := src.SaveParams(&buf); err != nil {
			return fmt.Errorf("%s: %s: %w", what, p.name, err)
		}
		dst, ok := p.to.(framework.Persister)
		if !ok {
			return fmt.Errorf("%w: %s: this run's %s cannot load saved parameters", framework.ErrBadInput, what, p.name)
		}
		if err := dst.LoadParams(&buf); err != nil {
			return fmt.Errorf("%s: %s: %w", what, p.name, err)
		}
	}
	return nil
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
