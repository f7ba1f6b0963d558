// Command maslda-beam trains a maslda model with batch variational EM
// whose E-steps run as Apache Beam pipelines (issue 26; package
// beamtrain), and writes the same model directory as `maslda train`, so
// that `maslda predict`, `eval` and `report` read it.
//
//	maslda-beam train --config FILE.hcl --docs FILE.ldac [--vocab FILE] [--ids FILE]
//	    [--answers FILE.csv] --out DIR --work DIR [--shard-size N] [--resume] [--retries N]
//
// The runner is --beam-runner (prism in-process by default; universal
// for a job server), with Beam's own flags (--endpoint,
// --environment_type, ...) after a `--`.
// The configuration's `inference "batch"` block gives max_iters, min_iters
// and tol; the convergence test is optim.Batch's, as in `maslda train`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/maslda/maslda/beam/beamtrain"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	_ "github.com/maslda/maslda/plugins/std"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "train" {
		// A worker started by a runner (the PROCESS environment) gets
		// Beam's flags: beam.Init runs it and exits.
		flag.Parse()
		beam.Init()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := train(ctx, args, stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "maslda-beam: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "maslda-beam: %v\n", err)
		return 1
	}
}

func train(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "train" {
		return fmt.Errorf("%w: maslda-beam train --config FILE --docs FILE --out DIR --work DIR [flags] [-- beam flags]", errUsage)
	}
	fs := flag.NewFlagSet("maslda-beam train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		cfgPath   = fs.String("config", "", "model configuration (HCL or JSON)")
		docsPath  = fs.String("docs", "", "documents, LDA-C")
		vocabPath = fs.String("vocab", "", "vocabulary, one term per line (optional)")
		idsPath   = fs.String("ids", "", "document ids, one per line (optional)")
		ansPath   = fs.String("answers", "", "answers CSV (task, worker, label)")
		out       = fs.String("out", "", "model directory to write")
		work      = fs.String("work", "", "work directory (shards, per-document state, checkpoint)")
		shardSize = fs.Int("shard-size", models.ShardSize, "documents per shard")
		resume    = fs.Bool("resume", false, "continue from the work directory's checkpoint")
		retries   = fs.Int("retries", 2, "reruns of an iteration's pipeline after a failure")
		runner    = fs.String("beam-runner", "prism", "Beam runner (prism in-process; universal with Beam's --endpoint)")
	)
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	// Beam's own flags (--endpoint, --environment_type, ...) follow "--".
	if err := flag.CommandLine.Parse(fs.Args()); err != nil {
		return fmt.Errorf("%w: beam flags: %v", errUsage, err)
	}
	beam.Init()
	for name, v := range map[string]string{"--config": *cfgPath, "--docs": *docsPath, "--out": *out, "--work": *work} {
		if v == "" {
			return fmt.Errorf("%w: %s is required", errUsage, name)
		}
	}
	cfg, err := models.LoadConfig(*cfgPath)
	if err != nil {
		return err
	}
	c, err := readCorpus(*docsPath, *idsPath, *vocabPath)
	if err != nil {
		return err
	}
	if *ansPath != "" {
		if cfg.Response == nil {
			return fmt.Errorf("%w: --answers needs a response block in %s", errUsage, *cfgPath)
		}
		if err := readAnswers(cfg, c, *ansPath); err != nil {
			return err
		}
	}
	r, err := models.Build(cfg, nil, c)
	if err != nil {
		return err
	}
	if r.Config.Restarts > 1 {
		if !r.Config.RestartsDefault {
			return fmt.Errorf("%w: %s: restarts = %d: maslda-beam runs one start (it has no restarts); write restarts = 1", errUsage, *cfgPath, r.Config.Restarts)
		}
		// maslda train would first run its default restarts (plain-LDA
		// candidates); the Beam driver trains from the one start.
		r.Config.Restarts = 1
		if _, err := fmt.Fprintln(stdout, "note: one start: maslda train would first pick the topics among its default restarts; maslda-beam has none"); err != nil {
			return err
		}
	}
	b, ok := r.Schedule.(*optim.Batch)
	if !ok {
		return fmt.Errorf("%w: maslda-beam runs inference \"batch\" only (the configuration has %q)", framework.ErrIncompatible, cfg.Inference.Name)
	}
	res, err := beamtrain.Train(ctx, r, beamtrain.Options{
		Dir: *work, ShardSize: *shardSize, MaxIters: b.MaxIters, MinIters: b.MinIters, Tol: b.Tol,
		Resume: *resume, Retries: *retries,
		Run: func(ctx context.Context, p *beam.Pipeline) error {
			_, err := beam.Run(ctx, *runner, p)
			return err
		},
		Progress: func(it int, elbo float64) error {
			_, err := fmt.Fprintf(stdout, "iteration %d: ELBO %.10g\n", it, elbo)
			return err
		},
	})
	if err != nil {
		return err
	}
	r.Result = &framework.Result{Iters: res.Iters, Epochs: res.Iters, ELBO: res.ELBO, Converged: res.Converged}
	if err := r.SaveAtomic(*out, nil); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "trained: %d iterations, ELBO %.10g, converged %v; model in %s\n", res.Iters, res.ELBO, res.Converged, *out)
	return err
}

// readCorpus reads the documents, ids and vocabulary as maslda train does.
func readCorpus(docsPath, idsPath, vocabPath string) (*framework.Corpus, error) {
	return corpus.ReadFiles(docsPath, idsPath, vocabPath, 0)
}

// readAnswers reads answers as the configured response's kind of target
// parses them (classes: the answers' distinct labels).
func readAnswers(cfg *models.Config, c *framework.Corpus, path string) error {
	t, err := corpus.ReadPath(path, corpus.ReadAnswers)
	if err != nil {
		return err
	}
	lik, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		return cfg.Response.At(err)
	}
	kind, err := framework.Default.KindOf(lik)
	if err != nil {
		return cfg.Response.At(err)
	}
	ids := make([]string, len(c.Docs))
	for i := range c.Docs {
		ids[i] = c.Docs[i].ID
	}
	a, err := t.Resolve(ids, kind, nil)
	if err != nil {
		return err
	}
	c.Answers = a
	return nil
}
