// Command maslda-beam trains a maslda model with batch variational EM
// whose E-steps run as Apache Beam pipelines (issue 26; package
// beamtrain), and writes the same model directory as `maslda train`, so
// that `maslda predict`, `eval` and `report` read it.
//
//	maslda-beam train --config FILE.hcl --docs FILE.ldac|DIR [--vocab FILE] [--ids FILE]
//	    [--answers FILE.csv] --out DIR --work DIR [--shard-size N] [--resume] [--retries N]
//
// The documents are streamed from --docs into LDA-C shards of
// --shard-size documents in the work directory; when --docs is a
// directory, its *.ldac files, in the order of their names, are the
// shards themselves (the first document of each follows the last of the
// one before) and are read in place. The driver holds no document and no
// per-document state (models.BuildGlobals): its memory is that of the
// globals, O(K·V), plus the answers and, with answers, the document ids.
//
// The runner is --beam-runner (prism in-process by default; universal
// for a job server), with Beam's own flags (--endpoint,
// --environment_type, ...) after a `--`.
// The configuration's `inference "batch"` block gives max_iters, min_iters
// and tol; the convergence test is optim.Batch's, as in `maslda train`.
// As `maslda train` does, it first runs the configuration's restarts
// (restarts, restart_iters, and the default restarts of a model with a
// response) and the response's pilot (the gaussian's exact pilot), each
// iteration a pipeline; --resume goes on from the checkpoint written
// after each iteration of the schedule that follows, or, stopped during
// the restarts, after the last candidate done (prelude.json; the pilot
// runs again whole). The confusion annotators' classifier start (init =
// "classifier", their default) runs as in maslda train too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"

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
	// Beam's loopback runner leaves a file in the temporary directory
	// for every pipeline (an iteration's): give it one that goes away.
	restore, err := beamtrain.PrivateTempDir()
	if err != nil {
		fmt.Fprintf(stderr, "maslda-beam: %v\n", err)
		return 1
	}
	err = train(ctx, args, stdout)
	if rerr := restore(); rerr != nil && err == nil {
		err = rerr
	}
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
	var vocab []string
	if *vocabPath != "" {
		if vocab, err = corpus.ReadPath(*vocabPath, corpus.ReadVocab); err != nil {
			return err
		}
	}
	layout, err := shardDocs(ctx, *docsPath, len(vocab), *work, *shardSize)
	if err != nil {
		return err
	}
	info := models.CorpusInfo{Docs: layout.Docs, V: max(layout.V, 1), Vocab: vocab, Fetch: layout.Fetch}
	if vocab != nil {
		info.V = len(vocab)
	}
	if *idsPath != "" && *ansPath == "" {
		// Only the answers need the ids; check them all the same.
		if _, err := readIDs(*idsPath, layout.Docs); err != nil {
			return err
		}
	}
	if *ansPath != "" {
		if cfg.Response == nil {
			return fmt.Errorf("%w: --answers needs a response block in %s", errUsage, *cfgPath)
		}
		ids, err := readIDs(*idsPath, layout.Docs)
		if err != nil {
			return err
		}
		if info.Answers, err = readAnswers(cfg, ids, *ansPath); err != nil {
			return err
		}
		if err := layout.WriteAnswers(*work, info.Answers); err != nil {
			return err
		}
	}
	r, err := models.BuildGlobals(cfg, nil, info)
	if err != nil {
		return err
	}
	b, ok := r.Schedule.(*optim.Batch)
	if !ok {
		return fmt.Errorf("%w: maslda-beam runs inference \"batch\" only (the configuration has %q)", framework.ErrIncompatible, cfg.Inference.Name)
	}
	res, err := beamtrain.Train(ctx, r, beamtrain.Options{
		Dir: *work, Layout: layout, MaxIters: b.MaxIters, MinIters: b.MinIters, Tol: b.Tol,
		Resume: *resume, Retries: *retries,
		Run: func(ctx context.Context, p *beam.Pipeline) error {
			_, err := beam.Run(ctx, *runner, p)
			return err
		},
		Progress: func(it int, elbo float64) error {
			_, err := fmt.Fprintf(stdout, "iteration %d: ELBO %.10g\n", it, elbo)
			return err
		},
		Prelude: func(p framework.Progress) error {
			var err error
			if p.Restart > 0 {
				_, err = fmt.Fprintf(stdout, "restart %d, iteration %d: ELBO %.10g\n", p.Restart, p.Iter, p.ELBO)
			} else {
				_, err = fmt.Fprintf(stdout, "pilot iteration %d: ELBO %.10g\n", p.Iter, p.ELBO)
			}
			return err
		},
	})
	if err != nil {
		return err
	}
	if res.Marks != nil {
		n := 0
		for _, v := range res.Marks {
			if v >= 0 {
				n++
			}
		}
		if _, err := fmt.Fprintf(stdout, "the annotators' start marked %d near-constant annotators: trained again from the beginning with them ignored (the second warm-up)\n", n); err != nil {
			return err
		}
	}
	r.Result = &framework.Result{Iters: res.Iters, Epochs: res.Iters, ELBO: res.ELBO, Converged: res.Converged}
	r.RestartELBOs = res.RestartELBOs
	if err := r.SaveAtomic(*out, nil); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "trained: %d iterations, ELBO %.10g, converged %v; model in %s\n", res.Iters, res.ELBO, res.Converged, *out)
	return err
}

// shardDocs streams the LDA-C file docs into shards of size documents
// in work, or, when docs is a directory, takes its *.ldac files as the
// shards.
func shardDocs(ctx context.Context, docs string, vocab int, work string, size int) (*beamtrain.Layout, error) {
	st, err := os.Stat(docs)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if size < 1 {
			return nil, fmt.Errorf("%w: --shard-size %d, want ≥ 1", errUsage, size)
		}
		return beamtrain.ShardLDAC(ctx, docs, vocab, work, size)
	}
	paths, err := filepath.Glob(filepath.Join(docs, "*.ldac"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: --docs %s: a directory without *.ldac files", errUsage, docs)
	}
	sort.Strings(paths)
	return beamtrain.ScanShards(ctx, paths, vocab)
}

// readIDs reads the ids of D documents from path, or, without one, the
// documents' line numbers from 0 (corpus.ReadLDAC's ids).
func readIDs(path string, D int) ([]string, error) {
	if path == "" {
		ids := make([]string, D)
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
		return ids, nil
	}
	ids, err := corpus.ReadPath(path, corpus.ReadIDs)
	if err != nil {
		return nil, err
	}
	switch {
	case len(ids) > D:
		return nil, framework.Errorf(path, D+1, "id %q has no document: the file has %d ids but there are %d documents", ids[D], len(ids), D)
	case len(ids) < D:
		return nil, framework.Errorf(path, 0, "the file has %d ids but there are %d documents", len(ids), D)
	}
	return ids, nil
}

// readAnswers reads answers as the configured response's kind of target
// parses them (classes: the answers' distinct labels).
func readAnswers(cfg *models.Config, ids []string, path string) (*framework.Answers, error) {
	t, err := corpus.ReadPath(path, corpus.ReadAnswers)
	if err != nil {
		return nil, err
	}
	lik, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		return nil, cfg.Response.At(err)
	}
	kind, err := framework.Default.KindOf(lik)
	if err != nil {
		return nil, cfg.Response.At(err)
	}
	return t.Resolve(ids, kind, nil)
}
