// Package cli is the maslda command line: argument parsing, logging
// (go-hclog), progress bars and output files. It is importable so that a
// researcher's own main package can link extra plug-ins and call Main.
// Library packages never print; everything a user sees comes from here.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitError       = 1   // bad input or a failed run
	ExitUsage       = 2   // bad command line
	ExitInterrupted = 130 // stopped by a signal; nothing was written
)

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env, args []string) error
}

var commands = []command{
	{"prepare", "turn raw text (CSV, JSONL, files, lines) into corpus files", runPrepare},
	{"train", "fit a model on documents (and answers) and save it", runTrain},
	{"predict", "predict topic proportions (and targets) of new documents", runPredict},
	{"topics", "print the top words of each topic of a trained model", runTopics},
	{"demo", "generate a planted corpus, train on it, compare with the truth", runDemo},
	{"eval", "score predictions or inferred truth against ground truth", runEval},
	{"simulate", "turn true labels into answers of simulated annotators", runSimulate},
	{"import", "convert a wide answer matrix into answers CSV (task,worker,label)", runImport},
	{"experiment", "run a grid of runs from a spec into results.csv and summary.md", runExperiment},
	{"plot", "draw figures (PNG, SVG) from results, histories and annotators", runPlot},
	{"report", "write one self-contained HTML page describing a trained model", runReport},
	{"components", "list the registered plug-ins", runComponents},
}

// env is what a command needs from the process.
type env struct {
	stdout, stderr io.Writer
	log            hclog.Logger
	interactive    bool // stderr is a terminal
}

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// Main runs the command line args (without the program name) and returns
// the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return MainContext(ctx, args, stdout, stderr)
}

// MainContext is Main with a caller-supplied context (cancelling it is a
// Ctrl-C).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == args[0] {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "maslda: unknown command %q; commands: %s\n", args[0], commandNames())
		return ExitUsage
	}
	e := &env{stdout: stdout, stderr: stderr, interactive: isTerminal(stderr)}
	err := cmd.run(ctx, e, args[1:])
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "maslda %s: %v\n", cmd.name, strings.TrimPrefix(err.Error(), "usage: "))
		return ExitUsage
	case errors.As(err, new(errCheckpointed)):
		fmt.Fprintf(stderr, "maslda %s: %v\n", cmd.name, err)
		return ExitInterrupted
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(stderr, "maslda %s: interrupted; no output was written (any previous output is intact)\n", cmd.name)
		return ExitInterrupted
	default:
		fmt.Fprintf(stderr, "maslda %s: %v\n", cmd.name, oneLine(err))
		return ExitError
	}
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

func commandNames() string {
	var n []string
	for _, c := range commands {
		n = append(n, c.name)
	}
	return strings.Join(n, ", ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "maslda: supervised topic models learned from crowds (MA-sLDA)")
	fmt.Fprintln(w, "\nUsage: maslda <command> [flags]   (maslda <command> -h for its flags)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nStart with:  maslda demo")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && termIsTerminal(int(f.Fd()))
}

// flags builds a flag set with the common --log-level flag; parse with
// e.parse.
func (e *env) flags(name, synopsis string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("maslda "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: maslda %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	level := fs.String("log-level", "info", "log level: trace, debug, info, warn, error, off")
	return fs, level
}

func (e *env) parse(fs *flag.FlagSet, level *string, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	lv := hclog.LevelFromString(*level)
	if lv == hclog.NoLevel {
		return fmt.Errorf("%w: --log-level %q; valid: trace, debug, info, warn, error, off", errUsage, *level)
	}
	e.log = hclog.New(&hclog.LoggerOptions{Name: "maslda", Level: lv, Output: e.stderr, Color: hclog.ColorOff})
	return nil
}

// need reports a missing required flag.
func need(flags map[string]string) error {
	var missing []string
	for f, v := range flags {
		if v == "" {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("%w: missing %s", errUsage, strings.Join(missing, ", "))
	}
	return nil
}

func runComponents(_ context.Context, e *env, args []string) error {
	fs, level := e.flags("components", "")
	if err := e.parse(fs, level, args); err != nil {
		return err
	}
	for _, kind := range []string{framework.KindResponse, framework.KindAnnotators, framework.KindInference} {
		names := framework.Default.Names(kind)
		fmt.Fprintf(e.stdout, "%-11s %s\n", kind, listOr(names))
	}
	// Presets (model = "NAME"); their plug-ins are resolved at train time.
	fmt.Fprintf(e.stdout, "%-11s %s\n", "model", listOr(models.PresetNames()))
	// Kinds of target (framework.TargetKind) and the annotator models that
	// can simulate (framework.Sampler: simulate --annotators).
	fmt.Fprintf(e.stdout, "%-11s %s\n", framework.KindTarget, listOr(framework.Default.Names(framework.KindTarget)))
	fmt.Fprintf(e.stdout, "%-11s %s\n", "simulate", listOr(samplerNames()))
	return nil
}

func listOr(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
