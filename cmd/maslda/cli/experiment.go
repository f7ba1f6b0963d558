package cli

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"text/tabwriter"

	"github.com/maslda/maslda/cmd/maslda/experiment"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

// experimentEnv is added to the environment of the children of `maslda
// experiment`, which run os.Executable() (tests: the test binary, made to
// act as maslda by a variable of this environment).
var experimentEnv []string

func defineExperiment(fs *pflag.FlagSet) runFunc {
	specPath := fs.String("spec", "", "experiment spec, HCL (required; docs/experiments.md)")
	out := fs.String("out", "", "output directory (default: results/<experiment name>); running again resumes it")
	cores := fs.Int("cores", runtime.NumCPU(), "core budget: at most cores / workers runs at once (workers: the spec's, per run)")
	data := fs.String("data", "", "the directory ${data} stands for in the spec (default: the spec's data_root, relative to the spec file)")
	dry := fs.Bool("dry-run", false, "print the steps and cells with their status and run nothing")
	return func(ctx context.Context, e *env, args []string) error {
		if err := need(map[string]string{"spec": *specPath}); err != nil {
			return err
		}
		if *cores < 1 {
			return fmt.Errorf("%w: --cores %d, want ≥ 1", errUsage, *cores)
		}
		if *out != "" {
			if err := checkOverlap("out", *out, inPath{"spec", *specPath}); err != nil {
				return err
			}
		}
		spec, err := experiment.LoadSpec(*specPath, experiment.Options{DataRoot: *data, Out: *out})
		if err != nil {
			return err
		}
		// Before any work: an --out that holds what this experiment did not
		// write is refused, as train's (running again resumes one it wrote).
		if err := checkOverlap("out", spec.Out, inPath{"spec", *specPath}); err != nil {
			return err
		}
		if err := models.CheckOutDir(spec.Out, experimentOwner(spec)); err != nil {
			return err
		}
		r := &experiment.Runner{Spec: spec, Env: experimentEnv, Cores: *cores, Log: e.log}
		if *dry {
			return printPlan(ctx, e, r)
		}
		rep, err := r.Run(ctx)
		if err != nil {
			return err
		}
		e.log.Info("experiment finished", "cells", len(rep.Cells), "ran", rep.Ran, "done_before", rep.Skipped, "failed", rep.Failed,
			"results", rep.CSV, "summary", rep.Summary)
		if rep.Failed > 0 {
			return fmt.Errorf("%d of %d runs failed; %s and %s were written (the error column says why; running again retries the failed cells)",
				rep.Failed, len(rep.Cells), rep.CSV, rep.Summary)
		}
		return nil
	}
}

// printPlan prints what a run would do.
func printPlan(ctx context.Context, e *env, r *experiment.Runner) error {
	p, err := r.Plan(ctx)
	if err != nil {
		return err
	}
	s := r.Spec
	fmt.Fprintf(e.stdout, "experiment %s (%s): %d models, %d cells, at most %d at a time (workers = %d per run); output %s\n",
		s.Name, s.File, len(s.Models), len(p.Cells), p.Parallel, s.Workers, s.Out)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for i, st := range p.Steps {
		state := "will run"
		if p.Cached[i] {
			state = "cached"
		}
		fmt.Fprintf(tw, "step\t%s %q\t%s\t(%s)\n", st.Command, st.Name, state, st.Where)
	}
	if !p.DataReady {
		fmt.Fprintln(tw, "(the cells' ids and statuses are known once the steps have run)")
	}
	fmt.Fprintln(tw, "status\tmodel\tk\talpha\ttau\tomega\tseed\tid")
	for i, c := range p.Cells {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", orDash(p.Status[i]), c.Model, orDash(c.K), orDash(c.Alpha), orDash(c.Tau), orDash(c.Omega),
			strconv.FormatUint(c.Seed, 10), orDash(c.ID))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
