package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/maslda/maslda/cmd/maslda/plots"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/spf13/pflag"
	"gonum.org/v1/plot/vg"
)

// plotKinds are the subcommands of `maslda plot`: each defines its own
// flags beside the common ones (plotFlags) and says how to build its figure.
var plotKinds = []struct {
	name, summary, synopsis string
	define                  func(fs *pflag.FlagSet, pf plotFlags) plotSpec
}{
	{"metric", "a metric of results.csv versus K, one line per model, mean ± 1 s.d. over seeds", "--results results.csv --metric COLUMN [--experiment NAME] [--models m1,m2]", plotMetric},
	{"history", "ELBO (or another column) of history.csv files versus updates, epochs or seconds", "--history FILE|DIR[,...] [--labels L1,...] [--x iteration,seconds] [--y elbo]", plotHistory},
	{"confusion", "estimated (and true) confusion matrices of chosen annotators as heat maps", "--annotators annotators.json|DIR [--true-confusions FILE.json | --true-accuracies A,B,... | (--answers FILE | --answers-wide FILE) (--truth FILE | --truth-column FILE)] [--select a0,a1] [--classes FILE]", plotConfusion},
	{"biasprec", "estimated (and true) bias and precision of each annotator (regression)", "--annotators annotators.json|DIR [--true-bias B,... --true-precision P,... | (--answers FILE | --answers-wide FILE) (--truth FILE | --truth-column FILE)] [--select a0,a1] [--style auto|bars|scatter]", plotBiasPrec},
	{"boxes", "box plots of answers per annotator and annotator accuracy", "[--annotators annotators.json|DIR] [(--answers FILE.csv | --answers-wide FILE) [--truth FILE | --truth-column FILE]]", plotBoxes},
	{"ordshift", "estimated (and true) shift, stretch and precision of ordinal-shift annotators", "--annotators annotators.json|DIR [--true-shift S,... [--true-stretch S,...] [--true-precision P,...]] [--select a0,a1]", plotOrdShift},
}

// plotFlags are the flags every kind has.
type plotFlags struct {
	out, formats, title *string
	width, height       *float64
}

func definePlotFlags(fs *pflag.FlagSet) plotFlags {
	return plotFlags{
		out:     fs.String("out", "", "output prefix: writes PREFIX.png and PREFIX.svg (a trailing .png/.svg is dropped; written atomically; required)"),
		formats: fs.String("format", "png,svg", "image formats, comma-separated: png, svg"),
		title:   fs.String("title", "", "figure title (default: none, or a description of the data)"),
		width:   fs.Float64("width", 0, "width in inches (0: from the number of panels)"),
		height:  fs.Float64("height", 0, "height in inches (0: from the number of panels)"),
	}
}

// check validates the common flags (after parsing).
func (pf plotFlags) check() error {
	if err := need(map[string]string{"out": *pf.out}); err != nil {
		return err
	}
	if !(*pf.width >= 0 && *pf.height >= 0) {
		return fmt.Errorf("%w: --width/--height must be ≥ 0 (inches)", errUsage)
	}
	if w, h := pf.size(); w > plots.MaxSide || h > plots.MaxSide || (w > 0 && h > 0 && w*h > plots.MaxArea) {
		return fmt.Errorf("%w: --width %g --height %g: at most %g inches a side and %g square inches", errUsage, *pf.width, *pf.height, float64(plots.MaxSide/vg.Inch), float64(plots.MaxArea/vg.Inch/vg.Inch))
	}
	for _, f := range strings.Split(*pf.formats, ",") {
		if !slices.Contains(plots.Formats, strings.ToLower(strings.TrimSpace(f))) {
			return fmt.Errorf("%w: --format %q; valid: %s", errUsage, f, strings.Join(plots.Formats, ", "))
		}
	}
	return nil
}

// plotInputFlags are the flags of plot's kinds that name input files or
// directories (--history a comma-separated list).
var plotInputFlags = []string{"results", "history", "answers", "answers-wide", "truth", "truth-column", "annotators", "true-confusions"}

// checkOverlap refuses, as every command does (checkOverlap), an output
// file that is an input, lies in an input directory (a model given as
// --annotators or --history) or contains one.
func (pf plotFlags) checkOverlap(fs *pflag.FlagSet) error {
	var ins []inPath
	for _, name := range plotInputFlags {
		f := fs.Lookup(name)
		if f == nil || f.Value.String() == "" {
			continue
		}
		for _, p := range plotList(f.Value.String()) {
			ins = append(ins, inPath{name, p})
		}
	}
	for _, path := range pf.paths() {
		if err := checkOverlap("out", path, ins...); err != nil {
			return err
		}
	}
	return nil
}

// paths are the files write writes: PREFIX.FORMAT for each format.
func (pf plotFlags) paths() []string {
	prefix := *pf.out
	if ext := strings.ToLower(filepath.Ext(prefix)); ext == ".png" || ext == ".svg" {
		prefix = strings.TrimSuffix(prefix, filepath.Ext(prefix))
	}
	var out []string
	for _, format := range strings.Split(*pf.formats, ",") {
		out = append(out, prefix+"."+strings.ToLower(strings.TrimSpace(format)))
	}
	return out
}

func (pf plotFlags) size() (w, h vg.Length) {
	return vg.Length(*pf.width) * vg.Inch, vg.Length(*pf.height) * vg.Inch
}

// write encodes the figure in every format, then writes the files
// atomically (nothing is written when any encoding fails).
func (pf plotFlags) write(e *env, f *plots.Figure) error {
	prefix := *pf.out
	if ext := strings.ToLower(filepath.Ext(prefix)); ext == ".png" || ext == ".svg" {
		prefix = strings.TrimSuffix(prefix, filepath.Ext(prefix))
	}
	if w, h := pf.size(); w > 0 || h > 0 {
		if w > 0 {
			f.Width = w
		}
		if h > 0 {
			f.Height = h
		}
	}
	type out struct {
		path string
		data []byte
	}
	var outs []out
	for _, format := range strings.Split(*pf.formats, ",") {
		format = strings.ToLower(strings.TrimSpace(format))
		var buf bytes.Buffer
		if err := f.Encode(&buf, format); err != nil {
			return err
		}
		outs = append(outs, out{prefix + "." + format, buf.Bytes()})
	}
	for _, o := range outs {
		if err := writeFileAtomic(o.path, func(w io.Writer) error { _, err := w.Write(o.data); return err }); err != nil {
			return err
		}
		e.log.Info("wrote", "file", o.path, "bytes", len(o.data))
	}
	return nil
}

// plotList splits a comma-separated flag value (empty: nil).
func plotList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, x := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(x))
	}
	return out
}

// plotSpec is one kind's own part of its command: the flags it requires
// and how it builds the figure once every flag is parsed and checked.
type plotSpec struct {
	required map[string]*string
	build    func(e *env) (*plots.Figure, error)
}

// definePlotKind defines one kind's flags, the common ones (plotFlags) and
// those define adds, and returns its run: the kind's required flags, the
// common checks, then the kind's build and the writing of the figure.
func definePlotKind(define func(fs *pflag.FlagSet, pf plotFlags) plotSpec) func(fs *pflag.FlagSet) runFunc {
	return func(fs *pflag.FlagSet) runFunc {
		pf := definePlotFlags(fs)
		spec := define(fs, pf)
		return func(_ context.Context, e *env, _ []string) error {
			req := make(map[string]string, len(spec.required))
			for name, v := range spec.required {
				req[name] = *v
			}
			if err := need(req); err != nil {
				return err
			}
			if err := pf.check(); err != nil {
				return err
			}
			if err := pf.checkOverlap(fs); err != nil {
				return err
			}
			f, err := spec.build(e)
			if err != nil {
				return err
			}
			return pf.write(e, f)
		}
	}
}

func plotMetric(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	resultsPath := fs.String("results", "", "results.csv of maslda experiment (required)")
	metric := fs.String("metric", "", "the column to plot: truth_accuracy, heldout_accuracy, truth_r2, heldout_r2, ... (required)")
	experiment := fs.String("experiment", "", "plot this experiment's rows (required when the file has several)")
	models := fs.String("models", "", "models to draw, in legend order (default: all, in order of appearance)")
	return plotSpec{required: map[string]*string{"results": resultsPath, "metric": metric}, build: func(e *env) (*plots.Figure, error) {
		res, err := withFile(*resultsPath, func(r io.Reader, name string) (*plots.Results, error) {
			return plots.ReadResults(r, name, *metric)
		})
		if err != nil {
			return nil, err
		}
		series, err := plots.Summarize(res, plots.SummaryOptions{Experiment: *experiment, Models: plotList(*models), LowerIsBetter: plots.LowerIsBetter(*metric)})
		if err != nil {
			return nil, err
		}
		for _, s := range series {
			for _, p := range s.Points {
				e.log.Debug("point", "model", s.Model, "k", p.K, "mean", p.Mean, "sd", p.SD, "runs", p.N, "setting", p.Setting, "settings", p.Settings)
			}
		}
		return plots.MetricFigure(series, plots.MetricOptions{Metric: *metric, Title: *pf.title})
	}}
}

func plotHistory(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	hist := fs.String("history", "", "history.csv files or model directories, comma-separated (required)")
	labels := fs.String("labels", "", "legend labels, comma-separated (default: each file's directory name)")
	xs := fs.String("x", "iteration,seconds", "x columns, one panel each: iteration, epoch, seconds")
	y := fs.String("y", "elbo", "y column: elbo, truth_accuracy, truth_r2, rho, ...")
	smooth := fs.Int("smooth", 0, "moving average over this many updates drawn over the raw trace (0: for the ELBO of SVI runs one epoch's updates, otherwise none; 1: off)")
	return plotSpec{required: map[string]*string{"history": hist}, build: func(e *env) (*plots.Figure, error) {
		paths, labs := plotList(*hist), plotList(*labels)
		if labs != nil && len(labs) != len(paths) {
			return nil, fmt.Errorf("%w: %d --labels for %d --history files", errUsage, len(labs), len(paths))
		}
		if *smooth < 0 {
			return nil, fmt.Errorf("%w: --smooth %d, want ≥ 0", errUsage, *smooth)
		}
		var runs []plots.Run
		for i, p := range paths {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				p = filepath.Join(p, "history.csv")
			}
			h, err := withFile(p, plots.ReadHistory)
			if err != nil {
				return nil, err
			}
			label := filepath.Base(filepath.Dir(p))
			if filepath.Base(p) != "history.csv" {
				label = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
			}
			if labs != nil {
				label = labs[i]
			}
			runs = append(runs, plots.Run{Label: label, History: h})
		}
		return plots.HistoryFigure(runs, plots.HistoryOptions{X: plotList(*xs), Y: *y, Smooth: *smooth, Title: *pf.title})
	}}
}

// plotReadAnnotators reads annotators.json (a file, or a model directory) and,
// when it lies in a model directory, the class names of its model.json.
func plotReadAnnotators(path string) (*plots.Annotators, []string, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "annotators.json")
	}
	est, err := withFile(path, plots.ReadAnnotators)
	if err != nil {
		return nil, nil, err
	}
	manifest := filepath.Join(filepath.Dir(path), "model.json")
	data, err := os.ReadFile(manifest)
	if errors.Is(err, fs.ErrNotExist) {
		return est, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var m struct {
		Classes []string `json:"classes"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %v", framework.ErrBadInput, manifest, err)
	}
	if len(m.Classes) != est.C() {
		return est, nil, nil // not the manifest of these annotators
	}
	return est, m.Classes, nil
}

// empiricalFlags are the training answers and truth of `plot confusion`
// and `plot biasprec`, from which each annotator's empirical noise model
// is computed (the same flags as maslda train's).
type empiricalFlags struct {
	answers, wide, missing, truth, truthCol *string
}

func defineEmpiricalFlags(fs *pflag.FlagSet, what string) empiricalFlags {
	return empiricalFlags{
		answers:  fs.String("answers", "", "the training answers, CSV task,worker,label; with --truth or --truth-column the truth drawn is each annotator's empirical "+what+" on them"),
		wide:     fs.String("answers-wide", "", "the training answers as a wide matrix (row = document, column = annotator a0, a1, ...), instead of --answers"),
		missing:  fs.String("missing", "999999999", "missing-value sentinel of --answers-wide"),
		truth:    fs.String("truth", "", "ground truth of the training documents, CSV task,label (with --answers or --answers-wide)"),
		truthCol: fs.String("truth-column", "", "ground truth, one label per line; task = line number from 0 (with --answers or --answers-wide)"),
	}
}

// given reports whether any answers or truth flag is set.
func (ef empiricalFlags) given() bool {
	return *ef.answers != "" || *ef.wide != "" || *ef.truth != "" || *ef.truthCol != ""
}

// load reads the answers and the truth (nil, nil when neither is given):
// one source of each, and both or neither.
func (ef empiricalFlags) load() (*corpus.AnswerTable, *corpus.TruthTable, error) {
	hasAnswers, hasTruth := *ef.answers != "" || *ef.wide != "", *ef.truth != "" || *ef.truthCol != ""
	if hasAnswers != hasTruth {
		return nil, nil, fmt.Errorf("%w: the empirical truth needs the answers (--answers or --answers-wide) and the ground truth (--truth or --truth-column) together", errUsage)
	}
	if !hasAnswers {
		return nil, nil, nil
	}
	if *ef.answers != "" && *ef.wide != "" {
		return nil, nil, fmt.Errorf("%w: give --answers or --answers-wide, not both", errUsage)
	}
	if *ef.truth != "" && *ef.truthCol != "" {
		return nil, nil, fmt.Errorf("%w: give --truth or --truth-column, not both", errUsage)
	}
	ans, err := loadAnswers(context.Background(), nil, *ef.answers, *ef.wide, *ef.missing)
	if err != nil {
		return nil, nil, err
	}
	tt, err := readTruthTable(*ef.truth, *ef.truthCol)
	if err != nil {
		return nil, nil, err
	}
	return ans, tt, nil
}

// logEmpirical logs what the empirical truth counted.
func logEmpirical(e *env, emp *plots.Empirical) {
	n := 0
	for _, a := range emp.List {
		n += a.WithTruth
	}
	e.log.Info("empirical truth", "answers", emp.AnswersName, "truth", emp.TruthName, "annotators", len(emp.List), "answers with a truth", n, "without", emp.NoTruth)
}

func plotConfusion(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	annPath := fs.String("annotators", "", "annotators.json of maslda train, or the model directory (required)")
	trueConf := fs.String("true-confusions", "", "the true matrices: JSON list of C×C matrices, as given to simulate --confusions")
	trueAcc := fs.String("true-accuracies", "", "the true accuracies, as given to simulate --accuracies (the rest of each row spread evenly)")
	trueNames := fs.String("true-names", "", "names of the true annotators, comma-separated (default a0, a1, ...: simulate's names)")
	ef := defineEmpiricalFlags(fs, "confusion matrix (row = true class, answers per row normalised)")
	sel := fs.String("select", "", "annotators to draw, comma-separated (default: up to 6 with the most answers)")
	classes := fs.String("classes", "", "the class names in matrix order, one per line (a file, as for train, eval and simulate; default: model.json beside annotators.json, else 0, 1, ...)")
	perRow := fs.Int("per-row", 2, "annotators per row of panels")
	return plotSpec{required: map[string]*string{"annotators": annPath}, build: func(e *env) (*plots.Figure, error) {
		if *trueConf != "" && *trueAcc != "" {
			return nil, fmt.Errorf("%w: give --true-confusions or --true-accuracies, not both", errUsage)
		}
		if (*trueConf != "" || *trueAcc != "") && ef.given() {
			return nil, fmt.Errorf("%w: give one truth: --true-confusions, --true-accuracies, or the answers with the ground truth (--answers/--answers-wide with --truth/--truth-column)", errUsage)
		}
		if *perRow < 1 {
			return nil, fmt.Errorf("%w: --per-row %d, want ≥ 1", errUsage, *perRow)
		}
		ans, tt, err := ef.load()
		if err != nil {
			return nil, err
		}
		est, cls, err := plotReadAnnotators(*annPath)
		if err != nil {
			return nil, err
		}
		if est.Kind != plots.KindConfusion {
			return nil, fmt.Errorf("%w: %s describes %s annotators; use maslda plot biasprec", framework.ErrBadInput, est.Name, est.Kind)
		}
		if *classes != "" {
			if cls, err = readClasses(*classes); err != nil {
				return nil, err
			}
		}
		opt := plots.ConfusionOptions{TrueNames: plotList(*trueNames), Select: plotList(*sel), Classes: cls, PerRow: *perRow, Title: *pf.title}
		switch {
		case *trueConf != "":
			if opt.Truth, err = synth.ReadMatrices(*trueConf); err != nil {
				return nil, err
			}
			opt.TruthName = *trueConf
		case *trueAcc != "":
			a, err := floatList("--true-accuracies", *trueAcc)
			if err != nil {
				return nil, err
			}
			if opt.Truth, err = synth.FromAccuracies(a, est.C()); err != nil {
				return nil, err
			}
			opt.TruthName = "--true-accuracies"
		case ans != nil:
			if cls == nil {
				// maslda train's class order: the distinct answers, sorted.
				labels := make([]string, len(ans.Rows))
				for i, r := range ans.Rows {
					labels[i] = r.Label
				}
				cls = corpus.SortLabels(labels)
				e.log.Warn("no class names (model.json beside annotators.json, or --classes): taking the answers' labels in maslda train's order", "classes", strings.Join(cls, ","))
			}
			if opt.Empirical, err = plots.EmpiricalConfusions(ans, tt, cls); err != nil {
				return nil, err
			}
			logEmpirical(e, opt.Empirical)
		}
		return plots.ConfusionFigure(est, opt)
	}}
}

func plotBiasPrec(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	annPath := fs.String("annotators", "", "annotators.json of maslda train (bias-precision annotators), or the model directory (required)")
	trueBias := fs.String("true-bias", "", "the true biases, as given to simulate --bias")
	truePrec := fs.String("true-precision", "", "the true precisions, as given to simulate --precision")
	trueNames := fs.String("true-names", "", "names of the true annotators, comma-separated (default a0, a1, ...: simulate's names)")
	ef := defineEmpiricalFlags(fs, "bias (mean of answer − truth) and precision (n / Σ(answer − truth − bias)²)")
	minAnswers := fs.Int("min-answers", 10, "with --answers/--answers-wide: leave out annotators with fewer answers on tasks with a truth (the caption says how many)")
	style := fs.String("style", plots.StyleAuto, "bars (annotators on the x axis), scatter (estimated against true, one point per annotator, with y = x), or auto: scatter when there is a truth and more than 12 annotators are drawn")
	sel := fs.String("select", "", "annotators to draw, comma-separated (default: all, with a truth when given)")
	return plotSpec{required: map[string]*string{"annotators": annPath}, build: func(e *env) (*plots.Figure, error) {
		if (*trueBias == "") != (*truePrec == "") {
			return nil, fmt.Errorf("%w: give --true-bias and --true-precision together", errUsage)
		}
		if *trueBias != "" && ef.given() {
			return nil, fmt.Errorf("%w: give one truth: --true-bias with --true-precision, or the answers with the ground truth (--answers/--answers-wide with --truth/--truth-column)", errUsage)
		}
		if !slices.Contains(plots.Styles, *style) {
			return nil, fmt.Errorf("%w: --style %q; valid: %s", errUsage, *style, strings.Join(plots.Styles, ", "))
		}
		if *style == plots.StyleScatter && *trueBias == "" && !ef.given() {
			return nil, fmt.Errorf("%w: --style scatter needs a truth: --true-bias/--true-precision, or --answers/--answers-wide with --truth/--truth-column", errUsage)
		}
		if *minAnswers < 0 {
			return nil, fmt.Errorf("%w: --min-answers %d, want ≥ 0", errUsage, *minAnswers)
		}
		ans, tt, err := ef.load()
		if err != nil {
			return nil, err
		}
		est, _, err := plotReadAnnotators(*annPath)
		if err != nil {
			return nil, err
		}
		opt := plots.BiasPrecisionOptions{TrueNames: plotList(*trueNames), Select: plotList(*sel), Title: *pf.title, Style: *style, MinAnswers: *minAnswers}
		if *trueBias != "" {
			if opt.TrueBias, err = floatList("--true-bias", *trueBias); err != nil {
				return nil, err
			}
			if opt.TruePrecision, err = floatList("--true-precision", *truePrec); err != nil {
				return nil, err
			}
		}
		if ans != nil {
			if est.Kind != plots.KindBiasPrecision {
				return nil, fmt.Errorf("%w: %s describes %s annotators; use maslda plot confusion", framework.ErrBadInput, est.Name, est.Kind)
			}
			if opt.Empirical, err = plots.EmpiricalBiasPrecisions(ans, tt); err != nil {
				return nil, err
			}
			logEmpirical(e, opt.Empirical)
		}
		return plots.BiasPrecisionFigure(est, opt)
	}}
}

func plotBoxes(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	annPath := fs.String("annotators", "", "annotators.json of maslda train, or the model directory (estimated accuracy or noise s.d.)")
	ansPath := fs.String("answers", "", "answers CSV task,worker,label (answers per annotator; with a truth, empirical accuracy)")
	widePath := fs.String("answers-wide", "", "answers as a wide matrix (row = document, column = annotator a0, a1, ...), instead of --answers")
	missing := fs.String("missing", "999999999", "missing-value sentinel of --answers-wide")
	truthPath := fs.String("truth", "", "ground truth CSV task,label (with --answers: each annotator's empirical accuracy)")
	truthCol := fs.String("truth-column", "", "ground truth, one label per line; task = line number from 0")
	target := fs.String("target", "auto", "without --annotators: categorical (accuracy), numeric (s.d. of answer − truth), or auto (numeric when every label is a number and some is fractional or there are more than 20 distinct ones)")
	return plotSpec{build: func(e *env) (*plots.Figure, error) {
		if *target != "auto" && *target != "categorical" && *target != "numeric" {
			return nil, fmt.Errorf("%w: --target %q; valid: auto, categorical, numeric", errUsage, *target)
		}
		if *annPath == "" && *ansPath == "" && *widePath == "" {
			return nil, fmt.Errorf("%w: missing --annotators or --answers (or --answers-wide)", errUsage)
		}
		var est *plots.Annotators
		if *annPath != "" {
			var err error
			if est, _, err = plotReadAnnotators(*annPath); err != nil {
				return nil, err
			}
		}
		ans, err := loadAnswers(context.Background(), e, *ansPath, *widePath, *missing)
		if err != nil {
			return nil, err
		}
		tt, err := readTruthTable(*truthPath, *truthCol)
		if err != nil {
			return nil, err
		}
		if tt != nil && ans == nil {
			return nil, fmt.Errorf("%w: --truth needs --answers or --answers-wide (it gives each annotator's empirical accuracy)", errUsage)
		}
		numeric := *target == "numeric" || (*target == "auto" && ans != nil && plots.LooksNumeric(ans))
		panels, err := plots.AnnotatorBoxes(est, ans, tt, numeric)
		if err != nil {
			return nil, err
		}
		return plots.BoxFigure(panels, plots.BoxOptions{Title: *pf.title})
	}}
}

func plotOrdShift(fs *pflag.FlagSet, pf plotFlags) plotSpec {
	annPath := fs.String("annotators", "", "annotators.json of maslda train (ordinal-shift annotators), or the model directory (required)")
	trueShift := fs.String("true-shift", "", "the true shifts, as in simulate's ordinal-shift block")
	trueStretch := fs.String("true-stretch", "", "the true stretches (default 1 for every annotator)")
	truePrec := fs.String("true-precision", "", "the true precisions (adds a panel of estimated against true precision)")
	trueNames := fs.String("true-names", "", "names of the true annotators, comma-separated (default a0, a1, ...: simulate's names)")
	sel := fs.String("select", "", "annotators to draw, comma-separated (default: all, with a truth when given)")
	return plotSpec{required: map[string]*string{"annotators": annPath}, build: func(e *env) (*plots.Figure, error) {
		if *trueShift == "" && (*trueStretch != "" || *truePrec != "") {
			return nil, fmt.Errorf("%w: --true-stretch and --true-precision need --true-shift", errUsage)
		}
		est, _, err := plotReadAnnotators(*annPath)
		if err != nil {
			return nil, err
		}
		opt := plots.OrdinalShiftOptions{TrueNames: plotList(*trueNames), Select: plotList(*sel), Title: *pf.title}
		for _, f := range []struct {
			name, val string
			into      *[]float64
		}{{"--true-shift", *trueShift, &opt.TrueShift}, {"--true-stretch", *trueStretch, &opt.TrueStretch}, {"--true-precision", *truePrec, &opt.TruePrecision}} {
			if f.val != "" {
				if *f.into, err = floatList(f.name, f.val); err != nil {
					return nil, err
				}
			}
		}
		return plots.OrdinalShiftFigure(est, opt)
	}}
}
