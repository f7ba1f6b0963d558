package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/targets"
	"github.com/maslda/maslda/models"
	"github.com/maslda/maslda/optim"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
)

func defineTrain(fs *pflag.FlagSet) runFunc {
	cfgPath := fs.String("config", "", "configuration file (HCL, or HCL's JSON syntax for .json); default: plain LDA, batch EM")
	modelName := fs.String("model", "", "a preset, as model = \"NAME\" in the configuration (maslda components lists them; with --config, the file's blocks override the preset's)")
	docsPath := fs.String("docs", "", "training documents, LDA-C (required unless the response ignores the documents, e.g. model = \"dawid-skene\": then the answers alone)")
	corpusPath := fs.String("corpus", "", "a directory maslda prepare wrote (its train/ part for a split corpus): its docs.ldac, ids.txt and vocab.txt, instead of --docs, --ids and --vocab, and its labels.csv as --truth when there is no --truth or --truth-column")
	idsPath := fs.String("ids", "", "document ids, one per line (default: the line number from 0)")
	vocabPath := fs.String("vocab", "", "vocabulary, one term per line (fixes V; enables words in maslda topics)")
	vocabSize := fs.Int("vocab-size", 0, "vocabulary size V when there is no --vocab (default: 1 + the largest word id); set it to cover test documents' ids")
	ansPath := fs.String("answers", "", "annotators' answers, CSV task,worker,label")
	widePath := fs.String("answers-wide", "", "annotators' answers as a wide matrix (row = document, column = annotator)")
	missing := fs.String("missing", "999999999", "missing-value sentinel of --answers-wide")
	dupFlag := fs.String("duplicates", "keep", "a worker's repeated answers to a task in --answers: keep (count each), first, last, or error")
	out := fs.String("out", "", "output directory for the model and history.csv (required; replaced atomically)")
	truthPath := fs.String("truth", "", "ground truth of the training documents, CSV task,label: history.csv gets the truth-inference metric per update")
	truthCol := fs.String("truth-column", "", "ground truth as one label per line in document order (e.g. labels_train.txt)")
	classesPath := fs.String("classes", "", "the classes of a categorical response, one per line, in order: answers and truth outside them are errors (default: --init-model's classes, else the answers' distinct labels, sorted)")
	seed := fs.Uint64("seed", 0, "override the configuration's seed")
	workers := fs.Int("workers", -1, "override the configuration's E-step goroutines (0 = all cores)")
	progress := fs.String("progress", "auto", "progress bar: auto (on a terminal), always, never")
	initModel := fs.String("init-model", "", "start from this trained model's topics, response and annotators (same k, vocabulary, components, classes and annotators; the schedule may differ) instead of the configured initialisation; skips the classifier start")
	every := fs.String("checkpoint-every", "10m", "save the run's state to OUT.checkpoint for --resume: every N iterations (N counts SVI updates) or every DURATION of training (e.g. 30s, 10m), and when interrupted (Ctrl-C, SIGTERM); by default every 10 minutes, and when interrupted after a minute; 0: no checkpoints. batch, SVI and two-stage schedules")
	holdout := fs.Float64("holdout-answers", 0, "hold out this share of the answers (0 ≤ share < 1, drawn from the seed), train on the rest and score the model on them: the mean log predictive probability of the held-out answers, logged, saved in model.json and per answer in heldout-answers.csv (a criterion to compare models on a crowd without gold labels)")
	resume := fs.Bool("resume", false, "continue the interrupted run whose checkpoint is OUT.checkpoint (same configuration, seed and inputs); it ends as the uninterrupted run would")
	return func(ctx context.Context, e *env, args []string) error {
		truthFromCorpus := false
		if *corpusPath != "" {
			cd, err := openCorpusDir(*corpusPath, "train")
			if err != nil {
				return err
			}
			if err := cd.apply(docsPath, idsPath, vocabPath, truthPath, truthCol); err != nil {
				return err
			}
			truthFromCorpus = *truthPath != "" && *truthPath == cd.labels
			e.log.Info("corpus", "dir", cd.dir, "ids", cd.ids != "", "vocabulary", cd.vocab != "", "labels", cd.labels != "")
		}
		ck, err := parseCheckpointEvery(*every, flagSet(fs, "checkpoint-every"))
		if err != nil {
			return err
		}
		if !(*holdout >= 0 && *holdout < 1) {
			return fmt.Errorf("%w: --holdout-answers %v, want a share 0 ≤ share < 1 (0: keep every answer)", errUsage, *holdout)
		}
		required := map[string]string{"docs": *docsPath, "out": *out}
		if *ansPath != "" || *widePath != "" {
			delete(required, "docs") // answers alone, if the response allows (answersOnly)
		}
		if err := need(required); err != nil {
			return err
		}
		if err := checkProgress(*progress); err != nil {
			return err
		}
		dup, err := corpus.ParseDuplicates(*dupFlag)
		if err != nil {
			return fmt.Errorf("%w: --duplicates %q; valid: keep, first, last, error", errUsage, *dupFlag)
		}
		if *workers < -1 {
			return fmt.Errorf("%w: --workers %d, want ≥ 0 (0 = all cores)", errUsage, *workers)
		}
		// --init-model may be --out itself (continue a run in place: it is read
		// before the output is replaced), but not inside or around it.
		initIn := *initModel
		if initIn != "" && resolvePath(initIn) == resolvePath(*out) {
			initIn = ""
		}
		if err := checkOverlap("out", *out, inPath{"docs", *docsPath}, inPath{"ids", *idsPath}, inPath{"vocab", *vocabPath}, inPath{"config", *cfgPath},
			inPath{"answers", *ansPath}, inPath{"answers-wide", *widePath}, inPath{"truth", *truthPath}, inPath{"truth-column", *truthCol}, inPath{"classes", *classesPath}, inPath{"init-model", initIn}); err != nil {
			return err
		}
		if err := models.CheckOutDir(*out, models.IsModelDir); err != nil {
			return err
		}
		// One run at a time into --out and its checkpoint: a second is
		// refused naming the holder's pid; a lock left by a killed run (the
		// kernel released it) is taken over.
		lock, err := lockOut("out", *out)
		if err != nil {
			return err
		}
		defer lock.release()
		if lock != nil && lock.prev != 0 {
			e.log.Warn("taking over the lock of an earlier run that ended without releasing it", "lock", lock.path, "pid", lock.prev)
		}
		cp := checkpoints{dir: checkpointDir(*out), policy: ck}
		if !ck.explicit && !*resume && ck.on() {
			// Default checkpoints give way to what stands in their place.
			if err := cp.check(*out); err != nil {
				e.log.Warn("no checkpoints for this run", "reason", oneLine(err))
				cp.policy, ck = checkpointPolicy{}, checkpointPolicy{}
			}
		}
		if ck.on() || *resume {
			if err := checkOverlap("out", cp.dir, inPath{"docs", *docsPath}, inPath{"ids", *idsPath}, inPath{"vocab", *vocabPath}, inPath{"config", *cfgPath},
				inPath{"answers", *ansPath}, inPath{"answers-wide", *widePath}, inPath{"truth", *truthPath}, inPath{"truth-column", *truthCol}, inPath{"classes", *classesPath}, inPath{"init-model", *initModel}); err != nil {
				return err
			}
			if *resume {
				// A save killed between its two renames left the checkpoint aside.
				did, err := models.Recover(cp.dir)
				if err != nil {
					return err
				}
				for _, r := range did {
					e.log.Warn("leftover of an interrupted checkpoint", "action", r)
				}
			}
			if err := cp.check(*out); err != nil {
				return err
			}
		}
		// Answers without --config or --model: the crowd model they call
		// for, said in the log, never plain LDA.
		model := *modelName
		var table *corpus.AnswerTable
		if *cfgPath == "" && model == "" && (*ansPath != "" || *widePath != "") {
			if table, err = loadTrainAnswers(ctx, e, *ansPath, *widePath, *missing, dup); err != nil {
				return err
			}
			var why string
			if model, why, err = defaultModel(table, *docsPath != "", *classesPath != ""); err != nil {
				return err
			}
			e.log.Info("no --config or --model: training model = \""+model+"\"", "because", why)
		}
		cfg, err := trainConfig(*cfgPath, model)
		if err != nil {
			return err
		}
		if flagSet(fs, "seed") {
			cfg.Seed = *seed
		}
		if *workers >= 0 {
			cfg.Workers = *workers
		}
		if *vocabSize < 0 || (*vocabSize > 0 && *vocabPath != "") {
			return fmt.Errorf("%w: --vocab-size must be positive and cannot be combined with --vocab", errUsage)
		}
		var c *framework.Corpus
		if *docsPath != "" {
			if c, err = loadDocs(*docsPath, *idsPath, *vocabPath, 0); err != nil {
				return err
			}
			if *vocabSize > 0 {
				if *vocabSize < c.V {
					return fmt.Errorf("%w: --vocab-size %d but %s uses word id %d", framework.ErrBadInput, *vocabSize, *docsPath, c.V-1)
				}
				c.V = *vocabSize
			}
		} else {
			if *vocabPath != "" || *vocabSize > 0 {
				return fmt.Errorf("%w: --vocab and --vocab-size describe --docs, which is not given", errUsage)
			}
			if err := answersOnly(cfg); err != nil {
				return err
			}
		}
		if table == nil {
			if table, err = loadTrainAnswers(ctx, e, *ansPath, *widePath, *missing, dup); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil { // Ctrl-C while the inputs loaded
			return err
		}
		if c == nil {
			if c, err = answerDocs(table, *idsPath); err != nil {
				return err
			}
			e.log.Info("no --docs: one document without words per task", "tasks", len(c.Docs))
		}
		if table != nil && table.Repeats > 0 {
			e.log.Info("repeated answers", "file", table.Name, "repeats", table.Repeats, "duplicates", dup.String())
		}
		var classes []string
		if *classesPath != "" {
			if table == nil || cfg.Response == nil {
				return fmt.Errorf("%w: --classes needs answers and a configuration with a categorical response", errUsage)
			}
			if classes, err = readClasses(*classesPath); err != nil {
				return err
			}
			if len(classes) < 2 {
				return framework.Errorf(*classesPath, 0, "%d classes, want at least 2 (one per line)", len(classes))
			}
		}
		var warmFrom *models.Manifest
		if *initModel != "" && table != nil && cfg.Response != nil {
			if warmFrom, err = models.ReadManifest(*initModel); err != nil {
				return err
			}
			// A warm start continues the saved model: its classes, in its
			// order, are the declared ones (an answer outside them is an
			// error naming its line, a class nobody chose here is kept).
			if classes == nil && len(warmFrom.Classes) > 0 {
				classes = warmFrom.Classes
				e.log.Info("classes from --init-model", "model", *initModel, "classes", len(classes))
			}
		}
		if table != nil {
			if cfg.Response == nil {
				e.log.Warn("answers given but the configuration has no response block: training plain LDA and ignoring them")
			} else {
				var warning string
				if c.Answers, warning, err = resolveAnswers(cfg, table, docIDs(c), classes); err != nil {
					return idsHint(err, *docsPath, *idsPath)
				}
				if warning != "" {
					e.log.Warn(warning)
				}
				from := table.Name
				if *classesPath != "" {
					from = *classesPath
				}
				if w := classTwins(from, c.Answers.Classes); w != "" {
					e.log.Warn(w)
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if warmFrom != nil && len(warmFrom.AnnotatorNames) > 0 {
					// and its annotators, in its order (the answers number
					// them in order of first appearance).
					if err := c.Answers.OrderAnnotators(warmFrom.AnnotatorNames); err != nil {
						return fmt.Errorf("%s: --init-model %s: %w", table.Name, *initModel, err)
					}
				}
			}
		}
		var held [][]framework.Answer
		if *holdout > 0 {
			if c.Answers == nil {
				return fmt.Errorf("%w: --holdout-answers needs answers and a configuration with a response", errUsage)
			}
			all := c.Answers
			if c.Answers, held, err = models.SplitAnswers(all, *holdout, cfg.Seed); err != nil {
				return err
			}
			e.log.Info("held out answers", "answers", all.Count()-c.Answers.Count(), "of", all.Count(), "seed", cfg.Seed)
		}
		e.log.Info("corpus", "docs", len(c.Docs), "vocabulary", c.V, "tokens", int64(c.Tokens()))
		if c.Answers != nil {
			e.log.Info("answers", "answers", c.Answers.Count(), "annotators", len(c.Answers.Annotators), "classes", len(c.Answers.Classes))
		}
		tr, err := loadTruth(*truthPath, *truthCol, c, cfg)
		if err != nil && truthFromCorpus && !errors.Is(err, context.Canceled) {
			// The corpus's labels are the truth only when they fit the model.
			e.log.Warn("the corpus's labels are not the truth of this model: training without a truth metric", "reason", oneLine(err))
			tr, err = nil, nil
		}
		if err != nil {
			return err
		}
		var choice *models.Choice
		if cfg.Unresolved() {
			if choice, err = choose(ctx, e, cfg, c, *initModel); err != nil {
				return err
			}
			cfg = choice.Config
		}
		run, err := models.Build(cfg, nil, c)
		if err != nil {
			return err
		}
		run.Choice = choice
		if p, ok := run.Model.Noise.(interface{ PriorInUse() string }); ok {
			e.log.Info("annotators' prior", "prior", p.PriorInUse())
		}
		if p, ok := run.Model.Noise.(interface{ BiasPriorInUse() float64 }); ok {
			e.log.Info("annotators' bias prior", "kappa0", p.BiasPriorInUse())
		}
		if p, ok := run.Model.Noise.(interface{ IgnoredAnnotators() []string }); ok {
			if names := p.IgnoredAnnotators(); len(names) > 0 {
				e.log.Info("annotators who give one answer to every document are ignored (constant = \"keep\" reads them)", "count", len(names), "first", names[:min(len(names), 5)])
			}
		}
		if choice != nil {
			if err := choice.Start(run); err != nil {
				return err
			}
		}
		if _, ok := run.Model.Noise.(framework.AnswerPredictor); held != nil && !ok {
			return fmt.Errorf("%w: --holdout-answers: annotators %q cannot score held-out answers (no predictive probability of an answer; confusion, one-coin and bias-precision have one)", errUsage, cfg.Annotators.Name)
		}
		if *initModel != "" {
			if err := run.WarmStart(*initModel); err != nil {
				return err
			}
			e.log.Info("warm start", "from", *initModel)
		}
		if ck.on() && !ck.explicit && !*resume {
			if err := run.Checkpointable(); err != nil {
				e.log.Debug("no checkpoints for this run", "reason", err)
				cp.policy, ck = checkpointPolicy{}, checkpointPolicy{}
			}
		}
		if ck.on() || *resume {
			if err := run.Checkpointable(); err != nil {
				return fmt.Errorf("%w: --checkpoint-every and --resume: %v", errUsage, err)
			}
			if cp.fingerprint, err = trainFingerprint(run, *truthPath, *truthCol); err != nil {
				return err
			}
		}
		var resumed *models.Position
		if *resume {
			if resumed, err = run.LoadCheckpoint(cp.dir, cp.fingerprint); err != nil {
				return err
			}
			e.log.Info("resuming", "checkpoint", cp.dir, "after update", resumed.Iter)
		}
		// The output is staged now, before training: this checks that it can
		// be written, and history.csv grows in the staging directory as the
		// run goes.
		st, err := models.Stage(*out, models.IsModelDir)
		if err != nil {
			return err
		}
		defer st.Abort()
		for _, r := range st.Recovered {
			e.log.Warn("leftover of an interrupted run", "action", r)
		}
		hist := &history{full: evaluatesFull(run.Schedule)}
		if tr != nil {
			hist.metric = tr.metric
		}
		if err := hist.open(filepath.Join(st.Tmp, "history.csv")); err != nil {
			return err
		}
		defer hist.close()
		if resumed != nil {
			if err := hist.resume(filepath.Join(cp.dir, "history.csv")); err != nil {
				return err
			}
		}
		e.log.Info("history", "file", hist.path)
		obs := e.observer(*progress, run, hist)
		obs.truth = tr
		if ck.on() {
			var stop func()
			ctx, stop = cp.watch(ctx, e, run, hist)
			defer stop()
		}
		ignoredBefore := -1
		if p, ok := run.Model.Noise.(interface{ IgnoredAnnotators() []string }); ok {
			ignoredBefore = len(p.IgnoredAnnotators())
		}
		res, err := run.Fit(ctx, obs.observe)
		obs.finish()
		if err != nil {
			return err
		}
		if p, ok := run.Model.Noise.(interface{ IgnoredAnnotators() []string }); ok && ignoredBefore >= 0 {
			if names := p.IgnoredAnnotators(); len(names) > ignoredBefore {
				e.log.Info("annotators ignored in training (constant = \"almost\": answers nearly one class whatever the class, found at the classifier start; the run was then trained again from the beginning with them ignored)", "count", len(names)-ignoredBefore, "ignored", names[:min(len(names), 10)])
			}
		}
		if err := hist.close(); err != nil {
			return err
		}
		if cs := run.Consensus; cs != nil {
			e.log.Info("consensus: the fit whose truth differs least from the others' kept (history.csv is the configured seed's fit)", "chosen", cs.Chosen+1, "seed", cs.Seeds[cs.Chosen], "distances", cs.Distance[cs.Chosen], "elbos", cs.ELBO)
		}
		if rl := run.Relabelled; rl != nil {
			if rl.ByAgreement {
				e.log.Info("relabelled twin (the labelling the answers agree with most; the annotators' bound cannot tell the twins apart, so the twin is kept)", "perm", rl.Perm, "elbo", rl.ELBO, "twin_elbo", rl.TwinELBO)
			} else {
				e.log.Info("relabelled twin (the labelling the answers agree with most, run on; the higher bound kept)", "perm", rl.Perm, "elbo", rl.ELBO, "twin_elbo", rl.TwinELBO, "kept", rl.Kept)
			}
		}
		e.log.Info("trained", "iterations", res.Iters, "epochs", res.Epochs, "elbo", res.ELBO, "converged", res.Converged, "seconds", res.Elapsed.Seconds())
		var post []models.Prediction
		if run.Model.Response != nil {
			if post, err = run.Model.Posterior(ctx); err != nil {
				return err
			}
			if tr != nil {
				e.log.Info("truth inference", tr.metric, tr.score(func(i int) framework.Target { return post[i].Target }))
			}
		}
		if post != nil {
			kind, err := framework.Default.KindOf(run.Model.Response)
			if err != nil {
				return fmt.Errorf("posterior.csv: %w", err)
			}
			if err := writeFileAtomic(filepath.Join(st.Tmp, "posterior.csv"), func(w io.Writer) error {
				return writePosterior(w, c, post, kind, run.Classes)
			}); err != nil {
				return err
			}
		}
		if held != nil {
			if err := scoreHeldOut(ctx, e, run, c, held, *holdout, cfg.Seed, st.Tmp); err != nil {
				return err
			}
		}
		if run.Model.Noise != nil {
			if err := writeAnnotators(st.Tmp, run.Model.Noise); err != nil {
				return err
			}
		}
		if err := run.WriteFiles(st.Tmp); err != nil {
			return err
		}
		if err := st.Publish(); err != nil {
			return err
		}
		e.log.Info("saved", "dir", *out)
		if ck.on() || *resume {
			cp.remove(e)
		}
		return nil
	}
}

// numericAnswersPreset is the preset for numeric answers alone (a response
// that ignores the documents, for numeric targets).
const numericAnswersPreset = "bias-precision"

// defaultModel is the preset train runs on answers given without --config
// or --model: MA-sLDAc for class labels and MA-sLDAr for numbers
// (targets.LooksNumeric: some has a fraction, or more than 20 distinct)
// with documents; Dawid–Skene, or the numeric answers-only preset, without.
// why says which in words for the log.
func defaultModel(t *corpus.AnswerTable, docs, declared bool) (name, why string, err error) {
	labels := make([]string, len(t.Rows))
	for i, r := range t.Rows {
		labels[i] = r.Label
	}
	numeric := !declared && targets.LooksNumeric(labels)
	switch {
	case docs && numeric:
		return "ma-sldar", "the answers are numbers (MA-sLDAr: Gaussian response, bias/precision annotators)", nil
	case docs:
		return "ma-sldac", "the answers are class labels (MA-sLDAc: softmax response, confusion-matrix annotators; --model ma-sldar for numbers)", nil
	case numeric:
		if _, ok := models.LookupPreset(numericAnswersPreset); !ok {
			return "", "", fmt.Errorf("%w: numeric answers without --docs and no preset for them linked in (%q); give --config", errUsage, numericAnswersPreset)
		}
		return numericAnswersPreset, "the answers are numbers and there are no documents (each annotator's bias and precision, documents ignored)", nil
	}
	return "dawid-skene", "the answers are class labels and there are no documents (Dawid–Skene, documents ignored)", nil
}

// trainConfig is train's configuration: the file, with `model = "NAME"`
// for --model; the preset alone without a file; plain LDA without both.
func trainConfig(path, model string) (*models.Config, error) {
	var cfg *models.Config
	switch {
	case path == "" && model == "":
		return models.DefaultConfig(), nil
	case path == "":
		return presetConfig(model, "--model")
	default:
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading configuration: %w", err)
		}
		if model != "" {
			if src, err = withModel(src, path, model); err != nil {
				return nil, err
			}
		}
		if cfg, err = models.ParseConfig(src, path); err != nil {
			if model != "" && strings.Contains(err.Error(), "Attribute redefined") && strings.Contains(err.Error(), `"model"`) {
				return nil, fmt.Errorf("%w: --model %q and model = … in %s: give the preset once", errUsage, model, path)
			}
			return nil, err
		}
	}
	return cfg, cfg.Check(nil)
}

// choose runs the configuration's select block (models.Choose): every
// candidate is fitted on the answers kept and scored on those held out,
// each logged; the best is then trained on every answer.
func choose(ctx context.Context, e *env, cfg *models.Config, c *framework.Corpus, initModel string) (*models.Choice, error) {
	if c.Answers == nil {
		return nil, fmt.Errorf("%w: %s: the select block chooses by held-out answers, and there are none (give --answers)", errUsage, cfg.Select.Where)
	}
	if initModel != "" {
		return nil, fmt.Errorf("%w: --init-model cannot start a select block's candidates: write selected = \"NAME\" in the configuration to train one candidate", errUsage)
	}
	split := []any{"share", cfg.Select.Share}
	if cfg.Select.Folds >= 2 {
		split = []any{"folds", cfg.Select.Folds}
	}
	e.log.Info("choosing by held-out answers", append(append([]any{"candidates", strings.Join(cfg.Select.Candidates, ", ")}, split...), "seed", cfg.Seed)...)
	ch, err := models.Choose(ctx, cfg, nil, c, nil)
	if err != nil {
		return nil, err
	}
	for _, cs := range ch.Candidates {
		e.log.Info("candidate", "name", cs.Name, "mean_log_predictive", cs.MeanLogPredictive, "iterations", cs.Iters, "seconds", cs.Seconds)
	}
	e.log.Info("chosen", "candidate", ch.Chosen, "held_out_answers", ch.Answers)
	return ch, nil
}

// answersOnly checks that the configuration can be trained on answers
// alone, without --docs: its response must ignore the documents
// (framework.DocumentFree, the class prior).
func answersOnly(cfg *models.Config) error {
	if cfg.Response == nil {
		return fmt.Errorf("%w: missing --docs: the configuration has no response block, and plain LDA needs documents", errUsage)
	}
	lik, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		return cfg.Response.At(err)
	}
	if f, ok := lik.(framework.DocumentFree); ok && f.IgnoresDocuments() {
		return nil
	}
	return fmt.Errorf("%w: missing --docs: response %q models the documents' topics; only a response that ignores the documents trains on answers alone (\"class-prior\": model = \"dawid-skene\" or \"dawid-skene(bayes)\")", errUsage, cfg.Response.Name)
}

// answerDocs makes the documents of a run on answers alone, one document
// without words per task (N_d = 0, so the topic layer's word terms are
// 0 and V = 1): the ids of idsPath in order when given; for a wide matrix
// its rows (ids 0, 1, …); otherwise the distinct tasks of the CSV in
// corpus.SortLabels order (numeric when every task is a number, so that
// tasks 0..n−1 are documents 0..n−1 for --truth-column).
func answerDocs(t *corpus.AnswerTable, idsPath string) (*framework.Corpus, error) {
	var ids []string
	switch {
	case idsPath != "":
		var err error
		if ids, err = withFile(idsPath, corpus.ReadIDs); err != nil {
			return nil, err
		}
	case t.Wide != nil:
		ids = make([]string, t.Wide.Rows)
		for i := range ids {
			ids[i] = strconv.Itoa(i)
		}
	default:
		tasks := make([]string, len(t.Rows))
		for i, r := range t.Rows {
			tasks[i] = r.Task
		}
		ids = corpus.SortLabels(tasks)
	}
	if len(ids) == 0 {
		return nil, framework.Errorf(t.Name, 0, "no answers, and no --docs: there is nothing to train on")
	}
	docs := make([]framework.Doc, len(ids))
	for d, id := range ids {
		docs[d].ID = id
	}
	return &framework.Corpus{Docs: docs, V: 1}, nil
}

// checkProgress validates a --progress value.
func checkProgress(mode string) error {
	switch mode {
	case "auto", "always", "never":
		return nil
	}
	return fmt.Errorf("%w: --progress %q; valid: auto, always, never", errUsage, mode)
}

// manyNumericClasses: more distinct numeric-looking labels than this under
// a categorical response are refused (without --classes); fewer are a
// warning.
const manyNumericClasses = 100

// resolveAnswers turns raw answers into class indices or numbers, as the
// configured response's kind of target (framework.TargetKind) parses
// them; classes (nil: the answers' distinct labels) are the declared
// classes of a kind with classes. Numeric-looking answers under a kind
// with classes give a warning, or an error when they would make more than
// manyNumericClasses classes.
func resolveAnswers(cfg *models.Config, t *corpus.AnswerTable, ids []string, classes []string) (*framework.Answers, string, error) {
	lik, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		return nil, "", cfg.Response.At(err)
	}
	kind, err := framework.Default.KindOf(lik)
	if err != nil {
		return nil, "", cfg.Response.At(fmt.Errorf("response %q: answers cannot be read: %w", cfg.Response.Name, err))
	}
	if !kind.HasClasses() {
		if classes != nil {
			return nil, "", fmt.Errorf("%w: --classes applies to a categorical response (a kind of target with classes); response %q has targets of kind %q, without classes", errUsage, cfg.Response.Name, kind.Name())
		}
		a, err := t.Resolve(ids, kind, nil)
		return a, "", err
	}
	warning := ""
	if mixed := mixedLabels(t); mixed != "" {
		if classes == nil {
			return nil, "", fmt.Errorf("%w: %s; a typo or two files joined? Declare the classes with --classes to use these labels as they are", framework.ErrBadInput, mixed)
		}
		warning = mixed + " (used as classes, as --classes declares)"
	}
	if classes == nil {
		labels := make([]string, len(t.Rows))
		for i, r := range t.Rows {
			labels[i] = r.Label
		}
		if targets.LooksNumeric(labels) {
			distinct := len(corpus.SortLabels(labels))
			msg := fmt.Sprintf("%s: the answers look numeric (%d distinct numbers, e.g. %q on line %d) but response %q is %s: each distinct value becomes a class",
				t.Name, distinct, t.Rows[0].Label, t.Rows[0].Line, cfg.Response.Name, kind.Name())
			if distinct > manyNumericClasses {
				return nil, "", fmt.Errorf("%w: %s; refusing %d classes: use a regression configuration (response \"gaussian\"), or declare the classes with --classes", framework.ErrBadInput, msg, distinct)
			}
			warning = msg
		}
	}
	a, err := t.Resolve(ids, kind, classes)
	return a, warning, err
}

// mixedLabels describes answers whose labels mix numbers and words (the
// first line of each), or is "".
func mixedLabels(t *corpus.AnswerTable) string {
	return mixedKinds(t.Name, len(t.Rows), func(i int) (string, int) { return t.Rows[i].Label, t.Rows[i].Line })
}

// mixedKinds describes n labels (row i: its label and line) that mix
// numbers and words, naming the first line of each, or is "".
func mixedKinds(name string, n int, row func(i int) (string, int)) string {
	num, word := -1, -1
	for i := range n {
		l, _ := row(i)
		if _, ok := corpus.ParseNumber(strings.TrimSpace(l)); ok {
			if num < 0 {
				num = i
			}
		} else if word < 0 {
			word = i
		}
		if num >= 0 && word >= 0 {
			nl, nline := row(num)
			wl, wline := row(word)
			return fmt.Sprintf("%s: the labels mix numbers (line %d: %q) and words (line %d: %q)", name, nline, nl, wline, wl)
		}
	}
	return ""
}

// history is the per-update trace written to history.csv.
type history struct {
	rows   []framework.Progress
	metric string    // truth metric column name ("" without --truth)
	truth  []float64 // its value after each update
	full   bool      // the column elbo_full (SVI with eval_every > 0)

	// Streaming to a file (open): each update is written and flushed.
	file    *os.File
	path    string
	csv     *csv.Writer
	headed  bool
	written int
}

// evaluatesFull reports whether history.csv has the column elbo_full, the
// bound over the whole corpus: under SVI with eval_every > 0 (evaluated now
// and then), and under batch EM, whose bound is over every document at
// every iteration (elbo_full = elbo), so that `plot history --y elbo_full`
// compares the two.
func evaluatesFull(s framework.Schedule) bool {
	switch s := s.(type) {
	case *optim.SVI:
		return s.EvalEvery > 0
	case *optim.Batch:
		return true
	}
	return false
}

// header is history.csv's header, from the first row: staged training
// (two-stage, or the annotators' classifier start) adds a column "stage"
// (the bound is monotone within a stage only); a schedule with the full
// bound adds a last column "elbo_full" (Progress.FullELBO), empty where
// not evaluated. Both come after the fixed columns, so that those keep
// their positions.
func (h *history) header() []string {
	hdr := historyHeader(h.metric)
	if h.staged() {
		hdr = append(hdr, "stage")
	}
	if h.full {
		hdr = append(hdr, "elbo_full")
	}
	return hdr
}

func (h *history) staged() bool { return len(h.rows) > 0 && h.rows[0].Stage > 0 }

func (h *history) row(i int) []string {
	p := h.rows[i]
	row := []string{strconv.Itoa(p.Iter), strconv.Itoa(p.Epoch), ftoa(p.Rho), strconv.FormatFloat(p.ELBO, 'g', -1, 64), strconv.FormatFloat(p.Elapsed.Seconds(), 'f', 3, 64)}
	if h.metric != "" {
		row = append(row, ftoa(h.truth[i]))
	}
	if h.staged() {
		row = append(row, strconv.Itoa(p.Stage))
	}
	if h.full {
		full := ""
		if !math.IsNaN(p.FullELBO) {
			full = strconv.FormatFloat(p.FullELBO, 'g', -1, 64)
		}
		row = append(row, full)
	}
	return row
}

// write writes the whole history.
func (h *history) write(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(h.header())
	for i := range h.rows {
		cw.Write(h.row(i))
	}
	cw.Flush()
	return cw.Error()
}

// open makes the history stream into path: the header with the first row,
// then each row as it comes, flushed to the file at once.
func (h *history) open(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	h.file, h.path, h.csv = f, path, csv.NewWriter(f)
	return nil
}

// flush writes the rows not yet written (and the header before the first).
func (h *history) flush() error {
	if h.csv == nil {
		return nil
	}
	if !h.headed && len(h.rows) > 0 {
		h.csv.Write(h.header())
		h.headed = true
	}
	for ; h.written < len(h.rows); h.written++ {
		h.csv.Write(h.row(h.written))
	}
	h.csv.Flush()
	if err := h.csv.Error(); err != nil {
		return fmt.Errorf("writing %s: %w", h.path, err)
	}
	return nil
}

// close writes what is left (the header alone when there were no rows)
// and closes the file; it may be called again.
func (h *history) close() error {
	if h.file == nil {
		return nil
	}
	if !h.headed {
		h.csv.Write(h.header())
		h.headed = true
	}
	err := h.flush()
	if cerr := h.file.Close(); err == nil {
		err = cerr
	}
	h.file, h.csv = nil, nil
	return err
}

// observer logs, records history and drives the progress bar.
type observer struct {
	e    *env
	h    *history
	bar  *progressbar.ProgressBar
	last time.Time

	restartIters int
	fullELBO     float64     // the last full bound (SVI eval_every), NaN before one
	truth        *truth      // nil without --truth
	run          *models.Run // for the truth metric (its Model changes after restarts)
	fit          int         // the consensus fit whose progress came last (Progress.Fit; 0: the configured seed's)
}

func (e *env) observer(mode string, run *models.Run, h *history) *observer {
	o := &observer{e: e, h: h, restartIters: run.Config.RestartIts, run: run, fullELBO: math.NaN()}
	show := mode == "always" || (mode == "auto" && e.interactive)
	if show {
		total := -1
		if b, ok := run.Schedule.(interface{ MaxUpdates(int) int }); ok {
			total = b.MaxUpdates(run.Model.NumDocs())
		}
		o.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(e.stderr), progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(), progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	return o
}

func (o *observer) observe(p framework.Progress) error {
	if p.Fit > 0 {
		// One of the fits from the seeds after the configured one
		// (consensus): logged, not in history.csv.
		if p.Fit != o.fit {
			o.fit = p.Fit
			o.e.log.Info("consensus: another seed's fit", "fit", p.Fit, "of", o.run.Config.Consensus, "seed", o.run.Config.Seed+uint64(p.Fit-1))
		}
		o.e.log.Debug("consensus fit", "fit", p.Fit, "restart", p.Restart, "iter", p.Iter, "elbo", p.ELBO)
		return nil
	}
	if o.fit > 0 {
		o.fit = 0
		o.e.log.Info("consensus: the configured seed's fit", "fit", 1, "of", o.run.Config.Consensus, "seed", o.run.Config.Seed)
	}
	if p.Restart > 0 {
		o.e.log.Debug("restart", "candidate", p.Restart, "iter", p.Iter, "elbo", p.ELBO)
		if p.Iter == o.restartIters {
			o.e.log.Info("restart candidate", "candidate", p.Restart, "elbo", p.ELBO)
		}
		return nil
	}
	o.h.rows = append(o.h.rows, p)
	if o.truth != nil {
		v := o.truth.score(o.run.Model.Target)
		o.h.truth = append(o.h.truth, v)
		o.e.log.Debug("truth", o.truth.metric, v)
	}
	if err := o.h.flush(); err != nil {
		return err
	}
	if o.h.full && !math.IsNaN(p.FullELBO) {
		o.fullELBO = p.FullELBO
		if o.bar == nil {
			o.e.log.Info("full bound", "iter", p.Iter, "epoch", p.Epoch, "elbo_full", p.FullELBO)
		}
	}
	if o.bar != nil {
		desc := fmt.Sprintf("epoch %d ELBO %.6g", p.Epoch, p.ELBO)
		if !math.IsNaN(o.fullELBO) {
			desc += fmt.Sprintf(" (full %.6g)", o.fullELBO)
		}
		o.bar.Describe(desc)
		o.bar.Add(1)
		o.e.log.Debug("update", "iter", p.Iter, "epoch", p.Epoch, "rho", p.Rho, "elbo", p.ELBO)
		return nil
	}
	// Without a bar, log at most once a second (every update at debug).
	if o.e.log.IsDebug() || time.Since(o.last) >= time.Second {
		o.e.log.Info("update", "iter", p.Iter, "epoch", p.Epoch, "rho", p.Rho, "elbo", p.ELBO)
		o.last = time.Now()
	}
	return nil
}

func (o *observer) finish() {
	if o.bar != nil {
		o.bar.Finish()
	}
}

// scoreHeldOut scores the held-out answers (models.Model.ScoreAnswers),
// logs the mean, records it for model.json and writes every held-out
// answer's log predictive probability to dir/heldout-answers.csv
// (task,annotator,label,log_predictive, in document order).
func scoreHeldOut(ctx context.Context, e *env, run *models.Run, c *framework.Corpus, held [][]framework.Answer, share float64, seed uint64, dir string) error {
	score, err := run.Model.ScoreAnswers(ctx, held)
	if err != nil {
		return err
	}
	run.HeldOut = &models.HeldOutAnswers{Share: share, Seed: seed, Answers: score.N, MeanLogPredictive: score.Mean()}
	if score.N == 0 {
		run.HeldOut.MeanLogPredictive = 0
		e.log.Warn("held-out answers: none was held out (too few answers for the share)", "share", share)
	} else {
		e.log.Info("held-out answers", "answers", score.N, "mean_log_predictive", score.Mean())
	}
	post, err := run.Model.Posterior(ctx)
	if err != nil {
		return err
	}
	ap := run.Model.Noise.(framework.AnswerPredictor)
	names := c.Answers.Annotators
	return writeFileAtomic(filepath.Join(dir, "heldout-answers.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.Write([]string{"task", "annotator", "label", "log_predictive"}); err != nil {
			return err
		}
		for d, as := range held {
			for _, a := range as {
				label := strconv.FormatFloat(a.Value, 'g', -1, 64)
				if c.Answers.Classes != nil {
					label = c.Answers.Classes[a.Class]
				}
				lp := ap.LogPredictive(post[d].Target, a)
				if err := cw.Write([]string{c.Docs[d].ID, names[a.Annotator], label, strconv.FormatFloat(lp, 'g', 10, 64)}); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		return cw.Error()
	})
}
