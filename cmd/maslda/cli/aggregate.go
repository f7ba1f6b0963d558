package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

// defineAggregate is `maslda aggregate`: truth inference on answers alone,
// as crowd-kit's fit_predict, printing one row per task.
func defineAggregate(fs *pflag.FlagSet) runFunc {
	method := fs.String("method", "", "a preset that runs on answers alone: "+strings.Join(answerPresets(), ", ")+" (default: dawid-skene for class labels, bias-precision for numbers)")
	out := fs.String("out", stdoutPath, "the aggregated labels, CSV task,label[,p:CLASS...] (categorical) or task,label,var (numeric); - is standard output; a file is written atomically")
	widePath := fs.String("answers-wide", "", "the answers as a wide matrix (row = task, column = annotator), instead of ANSWERS.csv")
	missing := fs.String("missing", "999999999", "missing-value sentinel of --answers-wide")
	dupFlag := fs.String("duplicates", "keep", "a worker's repeated answers to a task: keep (count each), first, last, or error")
	classesPath := fs.String("classes", "", "the classes, one per line, in order (categorical methods; default: the answers' distinct labels, sorted)")
	annOut := fs.String("annotators", "", "also write each annotator's estimated reliability here, CSV as train's annotators.csv (crowd-kit's skills; written atomically)")
	seed := fs.Uint64("seed", 0, "override the method's seed")
	workers := fs.Int("workers", -1, "E-step goroutines (0 = all cores)")
	return func(ctx context.Context, e *env, args []string) error {
		ansPath := ""
		switch {
		case len(args) == 1 && *widePath == "":
			ansPath = args[0]
		case len(args) == 0 && *widePath != "":
		case len(args) > 1:
			return fmt.Errorf("%w: one answers file, got %d arguments", errUsage, len(args))
		case len(args) == 1:
			return fmt.Errorf("%w: ANSWERS.csv or --answers-wide, not both", errUsage)
		default:
			return fmt.Errorf("%w: missing the answers: maslda aggregate --method NAME ANSWERS.csv (CSV task,worker,label)", errUsage)
		}
		dup, err := corpus.ParseDuplicates(*dupFlag)
		if err != nil {
			return fmt.Errorf("%w: --duplicates %q; valid: keep, first, last, error", errUsage, *dupFlag)
		}
		if *workers < -1 {
			return fmt.Errorf("%w: --workers %d, want ≥ 0 (0 = all cores)", errUsage, *workers)
		}
		if methods := answerPresets(); *method != "" && !slices.Contains(methods, *method) {
			if _, ok := models.LookupPreset(*method); ok {
				return fmt.Errorf("%w: --method %q models the documents (maslda train --model %s needs --docs); methods on answers alone: %s", errUsage, *method, *method, strings.Join(methods, ", "))
			}
			return fmt.Errorf("%w: --method %q is not a method%s; methods on answers alone: %s", errUsage, *method, suggest(closest(*method, methods)), strings.Join(methods, ", "))
		}
		if err := checkOutTable("out", *out, inPath{"answers", ansPath}, inPath{"answers-wide", *widePath}, inPath{"classes", *classesPath}); err != nil {
			return err
		}
		if *annOut != "" {
			if *annOut == *out || *annOut == stdoutPath {
				return fmt.Errorf("%w: --annotators %s: name a file other than --out", errUsage, *annOut)
			}
			if err := checkOutTable("annotators", *annOut, inPath{"answers", ansPath}, inPath{"answers-wide", *widePath}, inPath{"classes", *classesPath}); err != nil {
				return err
			}
		}
		table, err := loadTrainAnswers(ctx, e, ansPath, *widePath, *missing, dup)
		if err != nil {
			return err
		}
		if len(table.Rows) == 0 {
			return framework.Errorf(table.Name, 0, "no answers (a header and no row): nothing to aggregate")
		}
		name := *method
		if name == "" {
			var why string
			if name, why, err = defaultModel(table, false, *classesPath != ""); err != nil {
				return err
			}
			e.log.Info("no --method: aggregating with "+name, "because", why)
		}
		cfg, err := presetConfig(name, "--method")
		if err != nil {
			return err
		}
		if flagSet(fs, "seed") {
			cfg.Seed = *seed
		}
		if *workers >= 0 {
			cfg.Workers = *workers
		}
		c, err := answerDocs(table, "")
		if err != nil {
			return err
		}
		var classes []string
		if *classesPath != "" {
			if classes, err = readClasses(*classesPath); err != nil {
				return err
			}
		}
		var warning string
		if c.Answers, warning, err = resolveAnswers(cfg, table, docIDs(c), classes); err != nil {
			return err
		}
		if warning != "" {
			e.log.Warn(warning)
		}
		e.log.Info("answers", "file", table.Name, "tasks", len(c.Docs), "answers", c.Answers.Count(), "annotators", len(c.Answers.Annotators), "classes", len(c.Answers.Classes), "method", name)
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			return err
		}
		res, err := run.Fit(ctx, nil)
		if err != nil {
			return err
		}
		e.log.Info("aggregated", "iterations", res.Iters, "converged", res.Converged, "seconds", res.Elapsed.Seconds())
		post, err := run.Model.Posterior(ctx)
		if err != nil {
			return err
		}
		kind, err := framework.Default.KindOf(run.Model.Response)
		if err != nil {
			return err
		}
		if err := e.writeTable(*out, func(w io.Writer) error { return writePosterior(w, c, post, kind, run.Classes) }); err != nil {
			return err
		}
		if *out != stdoutPath {
			e.log.Info("wrote", "file", *out, "tasks", len(post))
		}
		if *annOut != "" {
			rep, ok := run.Model.Noise.(framework.Reporter)
			if !ok {
				return fmt.Errorf("%w: --annotators: annotators %q do not describe themselves (framework.Reporter)", framework.ErrIncompatible, cfg.Annotators.Name)
			}
			header, rows, _ := rep.Report()
			if err := writeFileAtomic(*annOut, func(w io.Writer) error {
				cw := csv.NewWriter(w)
				cw.Write(header)
				cw.WriteAll(rows)
				return cw.Error()
			}); err != nil {
				return err
			}
			e.log.Info("wrote", "file", *annOut, "annotators", len(rows))
		}
		return nil
	}
}

// presetConfig is the configuration `model = "NAME"` (flag names the flag
// that gave it, for errors).
func presetConfig(name, flag string) (*models.Config, error) {
	if _, ok := models.LookupPreset(name); !ok {
		return nil, fmt.Errorf("%w: %s %q is not a preset%s; presets: %s", errUsage, flag, name, suggest(closest(name, models.PresetNames())), strings.Join(models.PresetNames(), ", "))
	}
	cfg, err := models.ParseConfig(fmt.Appendf(nil, "model = %q\n", name), flag)
	if err != nil {
		return nil, err
	}
	return cfg, cfg.Check(nil)
}

// withModel adds `model = "NAME"` (train --model) to a configuration file's
// source: at its end, so that the file's line numbers stay right.
func withModel(src []byte, path, name string) ([]byte, error) {
	if _, ok := models.LookupPreset(name); !ok {
		return nil, fmt.Errorf("%w: --model %q is not a preset%s; presets: %s", errUsage, name, suggest(closest(name, models.PresetNames())), strings.Join(models.PresetNames(), ", "))
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		return nil, fmt.Errorf("%w: --model with a JSON configuration (%s): write \"model\": %q in it", errUsage, path, name)
	}
	return fmt.Appendf(append(src, '\n'), "model = %q\n", name), nil
}

// answerPresets are the presets whose response ignores the documents: they
// run on answers alone (aggregate --method).
func answerPresets() []string {
	var out []string
	for _, name := range models.PresetNames() {
		cfg, err := models.ParseConfig(fmt.Appendf(nil, "model = %q\n", name), "preset")
		if err == nil && answersOnly(cfg) == nil {
			out = append(out, name)
		}
	}
	return out
}
