package models

import (
	"context"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

// relabel runs after the schedule (Fit, with the annotators' classifier
// start): when the annotator model proposes a relabelling of the classes
// (framework.Relabeler: the labelling the answers agree with most, when it
// is not the fit's own) and the response and the annotators can be
// permuted (framework.ClassPermuter), it builds the fit's twin with the
// classes renamed, runs the schedule on from it (Progress.Stage 5) and
// keeps whichever of the two has the higher bound (where the annotator
// model's bound cannot tell them apart, framework.AgreementRelabeler, it
// runs on from the twin alone and keeps it: the answers' agreement
// decides). The likelihood cannot
// tell the two apart; the annotators' prior can, and a run may end in the
// basin of the labelling it likes less (docs/design.md, "The relabelled
// twin"). Both the fit itself (Stage 4) and the twin are run on from a
// fresh start of every document (a fresh start alone can move the bound), and the twin
// is kept when its bound is the higher; otherwise the fit stays as it
// was. Batch EM only; without a proposal nothing runs. res is the
// schedule's result, returned with the iterations run here added.
func (s *starting) relabel(ctx context.Context, res *framework.Result) (*framework.Result, error) {
	r := s.r
	m := r.Model
	if _, ok := r.Schedule.(*optim.Batch); !ok || res == nil || r.globals {
		return res, nil
	}
	rl, ok := m.Noise.(framework.Relabeler)
	if !ok {
		return res, nil
	}
	if _, ok := m.Response.(framework.ClassPermuter); !ok {
		return res, nil
	}
	if _, ok := m.Noise.(framework.ClassPermuter); !ok {
		return res, nil
	}
	targets := make([]framework.Target, m.NumDocs())
	for d := range targets {
		targets[d] = m.Target(d)
	}
	perm := rl.Relabeling(targets)
	if perm == nil {
		return res, nil
	}
	// Where the bound cannot tell the twins apart, the answers' agreement
	// decides: only the twin is run on, and kept.
	agreement := false
	if ar, ok := m.Noise.(framework.AgreementRelabeler); ok {
		agreement = ar.ByAgreement()
	}
	// The twin starts every document afresh (its per-document state is
	// the fit's with the classes renamed only in the parameters), which
	// alone can move the bound: the fit is run on from the same fresh
	// start beside it, and the two bounds compared.
	var (
		runs    [2]*framework.Result
		fits    [2]*Model
		elapsed = res.Elapsed
	)
	s.iter, s.epoch = res.Iters, res.Epochs
	for i, p := range [][]int{nil, perm} {
		if agreement && p == nil {
			continue
		}
		s.relabelled = i + 1
		cand, _, err := r.assemble()
		if err != nil {
			return res, err
		}
		c := *r
		c.Model = cand
		if err := c.copyParams(m, "relabelled twin"); err != nil {
			return res, err
		}
		if err := cand.syncWeight(); err != nil {
			return res, err
		}
		if p != nil {
			for _, x := range []any{cand.Response, cand.Noise} {
				if err := x.(framework.ClassPermuter).PermuteClasses(p); err != nil {
					return res, err
				}
			}
		}
		s.elapsed = elapsed
		r.Model = cand // the observer reads the run's model (the truth per iteration)
		out, err := c.schedule(ctx, s.observe(ctx), nil, nil)
		r.Model = m
		if err != nil {
			return res, err
		}
		elapsed += out.Elapsed
		out.Iters += s.iter
		out.Epochs += s.epoch
		out.Elapsed = elapsed
		s.iter, s.epoch = out.Iters, out.Epochs
		runs[i], fits[i] = out, cand
	}
	twin := runs[1]
	if agreement {
		r.Relabelled = &Relabelled{Perm: perm, ELBO: res.ELBO, TwinELBO: twin.ELBO, Kept: true, ByAgreement: true}
		r.Model = fits[1]
		out := *twin
		return &out, nil
	}
	kept := twin.ELBO > runs[0].ELBO
	r.Relabelled = &Relabelled{Perm: perm, ELBO: runs[0].ELBO, TwinELBO: twin.ELBO, Kept: kept}
	out := *twin
	if !kept {
		out.ELBO, out.Converged = res.ELBO, res.Converged
		return &out, nil
	}
	r.Model = fits[1]
	return &out, nil
}

// Relabelled is what Fit's relabelled twin came to: the permutation tried
// (the fit's class c became Perm[c]), the bounds of the fit and of the
// twin, each run on from a fresh start of every document, and whether the
// twin was kept (its bound higher). ByAgreement: the annotator model's
// bound cannot tell the twins apart (framework.AgreementRelabeler), so
// only the twin was run on and it was kept on the answers' agreement; ELBO
// is then the fit's as the schedule ended it.
type Relabelled struct {
	Perm           []int
	ELBO, TwinELBO float64
	Kept           bool
	ByAgreement    bool
}
