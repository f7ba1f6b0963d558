// Package cli is the maslda command line: argument parsing (spf13/cobra),
// logging (go-hclog), progress bars and output files. It is importable so
// that a researcher's own main package can link extra plug-ins and call
// Main. Library packages never print; everything a user sees comes from
// here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitError       = 1   // bad input or a failed run
	ExitUsage       = 2   // bad command line
	ExitInterrupted = 130 // stopped by a signal; nothing was written
)

// runFunc runs a command once its flags are parsed; args are the
// positional arguments.
type runFunc func(ctx context.Context, e *env, args []string) error

// command is one subcommand: define adds its flags to fs (bound to
// variables the returned runFunc reads) and returns how to run it.
type command struct {
	name, summary, synopsis string
	define                  func(fs *pflag.FlagSet) runFunc
	// args are the positional arguments the command takes (nil: none).
	args cobra.PositionalArgs
	// values completes flag values in the shell (flag name → candidates).
	values map[string]func() []string
	// subs are its subcommands (maslda simulate corpus).
	subs []command
	// group is its heading in `maslda help`.
	group string
}

// `maslda help` lists the commands in the order of commands(), the most
// used first, not alphabetically.
func init() { cobra.EnableCommandSorting = false }

// The headings of `maslda help`.
var commandGroups = []*cobra.Group{
	{ID: "data", Title: "Data:"},
	{ID: "models", Title: "Crowd and topic models:"},
	{ID: "results", Title: "Results:"},
	{ID: "other", Title: "Other commands:"},
}

// groupOf is each command's heading.
var groupOf = map[string]string{
	"prepare": "data", "import": "data", "simulate": "data",
	"train": "models", "aggregate": "models", "predict": "models", "topics": "models", "demo": "models",
	"eval": "results", "report": "results", "plot": "results", "experiment": "results",
	"components": "other", "version": "other",
}

// commands are maslda's subcommands, in the order of `maslda help`.
func commands() []command {
	return []command{
		{name: "prepare", summary: "turn raw text (CSV, JSONL, files, lines) into a corpus directory", define: definePrepare,
			synopsis: "--input PATH --format csv|jsonl|dir|lines --out DIR [flags]",
			values:   map[string]func() []string{"format": fixed("csv", "jsonl", "dir", "lines"), "encoding": fixed("utf8", "latin1")}},
		{name: "train", summary: "fit a model on documents (and answers) and save it", define: defineTrain,
			synopsis: "(--docs FILE | --corpus DIR) --out DIR [--model NAME] [--config FILE] [--answers FILE | --answers-wide FILE] [--truth FILE | --truth-column FILE] [--classes FILE] [--vocab FILE] [--ids FILE] [--init-model DIR] [--holdout-answers SHARE] [--checkpoint-every N|DURATION] [--resume]",
			values:   map[string]func() []string{"duplicates": fixed("keep", "first", "last", "error"), "model": models.PresetNames}},
		{name: "aggregate", summary: "infer each task's label from the answers alone (Dawid–Skene, MACE, majority vote, ...)", define: defineAggregate,
			synopsis: "[--method NAME] [--out FILE.csv] ANSWERS.csv", args: cobra.ArbitraryArgs,
			values: map[string]func() []string{"method": answerPresets, "duplicates": fixed("keep", "first", "last", "error")}},
		{name: "predict", summary: "predict topic proportions (and targets) of new documents", define: definePredict,
			synopsis: "--model DIR --docs FILE --out FILE.csv [--ids FILE]"},
		{name: "topics", summary: "print the top words of each topic of a trained model", define: defineTopics,
			synopsis: "--model DIR [--top N]"},
		{name: "demo", summary: "generate a planted corpus, train on it, compare with the truth", define: defineDemo,
			synopsis: "[--case crowd|lda] [--out DIR] [--inference batch|svi] [--seed N]",
			values:   map[string]func() []string{"case": fixed("crowd", "lda"), "inference": fixed("batch", "svi")}},
		{name: "eval", summary: "score predictions or inferred truth against ground truth", define: defineEval,
			synopsis: "--pred FILE (--truth FILE | --truth-column FILE) [--kind NAME] [--classes FILE] [--json]",
			values:   map[string]func() []string{"kind": registered(framework.KindTarget)}},
		{name: "simulate", summary: "turn true labels into answers of simulated annotators", define: defineSimulate,
			synopsis: "(--truth FILE | --truth-column FILE | --corpus DIR) --out answers.csv (--annotators FILE.hcl | --accuracies A,B,... | --confusions FILE.json | --bias B,... --precision P,...) [--classes FILE] [--per-doc N] [--seed N]",
			subs: []command{{name: "corpus", summary: "write planted documents, their truth and simulated answers as a corpus directory", define: defineSimulateCorpus,
				synopsis: "--out DIR [--target categorical|numeric|ordinal] [--docs N] [--test N] [flags]",
				values:   map[string]func() []string{"target": fixed("categorical", "numeric", "ordinal")}}}},
		{name: "import", summary: "convert a wide answer matrix into answers CSV (task,worker,label)", define: defineImport,
			synopsis: "--wide FILE --out FILE.csv [--missing S]"},
		{name: "experiment", summary: "run a grid of runs from a spec into results.csv and summary.md", define: defineExperiment,
			synopsis: "--spec FILE.hcl [--out DIR] [--cores N] [--data DIR] [--dry-run]"},
		{name: "report", summary: "write one self-contained HTML page describing a trained model", define: defineReport,
			synopsis: "--model DIR --out report.html [--top N] [--max-annotators N]"},
		{name: "components", summary: "list the registered plug-ins", define: defineComponents},
		{name: "version", summary: "print maslda's version (module version and commit)", define: defineVersion},
	}
}

// fixed completes a flag's value from a fixed list.
func fixed(values ...string) func() []string { return func() []string { return values } }

// registered completes a flag's value from the plug-ins of a kind.
func registered(kind string) func() []string {
	return func() []string { return framework.Default.Names(kind) }
}

// commonValues complete flags that several commands share.
var commonValues = map[string]func() []string{"progress": fixed("auto", "always", "never")}

// dirFlags are flags naming a directory (completed with directories only).
var dirFlags = map[string]bool{"init-model": true, "data": true}

// logLevels are the values of --log-level.
var logLevels = []string{"trace", "debug", "info", "warn", "error", "off"}

// env is what a command needs from the process.
type env struct {
	stdout, stderr io.Writer
	log            hclog.Logger
	interactive    bool // stderr is a terminal
}

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// errHelpShown ends `maslda` without a command: the help was printed, and
// the exit status is ExitUsage.
var errHelpShown = errors.New("help shown")

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
	e := &env{stdout: stdout, stderr: stderr, interactive: isTerminal(stderr), log: hclog.NewNullLogger()}
	root := newRoot(e)
	root.SetArgs(longFlags(root, args))
	// ran is set once a command's own run starts: errors before it are the
	// command line's.
	ran := false
	wrapRun(root, func(run func() error) error {
		ran = true
		return run()
	})
	c, err := root.ExecuteContextC(ctx)
	name := "maslda"
	if c != nil {
		name = c.CommandPath()
	}
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errHelpShown):
		return ExitUsage
	case !ran || errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimPrefix(err.Error(), "usage: "))
		return ExitUsage
	case errors.As(err, new(errCheckpointed)):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitInterrupted
	case errors.Is(err, context.Canceled) && ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: interrupted; no output was written (any previous output is intact)\n", name)
		return ExitInterrupted
	default:
		fmt.Fprintf(stderr, "%s: %v\n", name, oneLine(err))
		return ExitError
	}
}

// usageTemplate is cobra's default usage template (v1.10.2) without the
// line "maslda [flags]" for the root, whose run only prints the help.
const usageTemplate = `Usage:{{if and .Runnable .HasParent}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} [command]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}{{$cmds := .Commands}}{{if eq (len .Groups) 0}}

Available Commands:{{range $cmds}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{else}}{{range $group := .Groups}}

{{.Title}}{{range $cmds}}{{if (and (eq .GroupID $group.ID) (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if not .AllChildCommandsHaveGroup}}

Additional Commands:{{range $cmds}}{{if (and (eq .GroupID "") (or .IsAvailableCommand (eq .Name "help")))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasHelpSubCommands}}

Additional help topics:{{range .Commands}}{{if .IsAdditionalHelpTopicCommand}}
  {{rpad .CommandPath .CommandPathPadding}} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} [command] --help" for more information about a command.{{end}}
`

// newRoot builds the command tree on e.
func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "maslda",
		Short: "supervised topic models learned from crowds (MA-sLDA)",
		Long: "maslda: supervised topic models learned from crowds (MA-sLDA)\n\n" +
			"Topics, a classifier or regressor, and every annotator's reliability and bias,\n" +
			"from documents and the answers of a crowd (or from the answers alone).\n\n" +
			"Start with:  maslda demo",
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return fmt.Errorf("%w: unknown command %q%s; 'maslda help' lists the commands", errUsage, args[0], suggest(c.SuggestionsFor(args[0])))
		},
		RunE: func(c *cobra.Command, _ []string) error {
			_ = c.Help()
			return errHelpShown
		},
		SuggestionsMinimumDistance: 2,
		CompletionOptions:          cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetVersionTemplate("maslda {{.Version}}\n")
	root.SetUsageTemplate(usageTemplate)
	root.SetFlagErrorFunc(flagError)
	level := root.PersistentFlags().String("log-level", "info", "log level: "+strings.Join(logLevels, ", "))
	_ = root.RegisterFlagCompletionFunc("log-level", cobra.FixedCompletions(logLevels, cobra.ShellCompDirectiveNoFileComp))
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		lv := hclog.LevelFromString(*level)
		if lv == hclog.NoLevel {
			return fmt.Errorf("%w: --log-level %q; valid: %s", errUsage, *level, strings.Join(logLevels, ", "))
		}
		e.log = hclog.New(&hclog.LoggerOptions{Name: "maslda", Level: lv, Output: e.stderr, Color: hclog.ColorOff})
		return nil
	}
	root.AddGroup(commandGroups...)
	root.SetHelpCommand(helpCommand(root))
	root.SetHelpCommandGroupID("other")
	root.SetCompletionCommandGroupID("other")
	for _, cmd := range commands() {
		c := cmd.cobra(e)
		c.GroupID = groupOf[cmd.name]
		root.AddCommand(c)
	}
	plot := plotCommand(e)
	plot.GroupID = groupOf["plot"]
	root.AddCommand(plot)
	return root
}

// helpCommand is `maslda help [COMMAND...]`: the command's help on stdout;
// an unknown topic is a usage error with the nearest commands (cobra's own
// printed the top-level help for it and exited 0).
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "help about any command (the same as COMMAND --help)",
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			c, _, err := root.Find(args)
			if err != nil || c == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, sub := range c.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), prefix) {
					names = append(names, sub.Name()+"\t"+sub.Short)
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(_ *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err != nil || c == nil {
				c, rest = root, args
			}
			if len(rest) > 0 {
				return fmt.Errorf("%w: unknown help topic %q%s; 'maslda help' lists the commands", errUsage, strings.Join(args, " "), suggest(c.SuggestionsFor(rest[0])))
			}
			return c.Help()
		},
	}
}

// cobra makes the cobra command of cmd.
func (cmd command) cobra(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   strings.TrimSpace(cmd.name + " " + cmd.synopsis),
		Short: cmd.summary,
		Args:  cmd.args,
	}
	if c.Args == nil {
		c.Args = noArgs
	}
	c.SuggestionsMinimumDistance = 2
	run := cmd.define(c.Flags())
	c.RunE = func(c *cobra.Command, args []string) error { return run(c.Context(), e, args) }
	completeValues(c, cmd.values)
	for _, sub := range cmd.subs {
		c.AddCommand(sub.cobra(e))
	}
	return c
}

// completeValues registers shell completions for the values of c's flags:
// those of values, directories for dirFlags, and --model as a preset name
// (train) or a model directory (the others).
func completeValues(c *cobra.Command, values map[string]func() []string) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		var fn cobra.CompletionFunc
		get := values[f.Name]
		if get == nil {
			get = commonValues[f.Name]
		}
		switch {
		case get != nil:
			fn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return get(), cobra.ShellCompDirectiveNoFileComp
			}
		case dirFlags[f.Name] || f.Name == "model" && c.Name() != "train":
			fn = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return nil, cobra.ShellCompDirectiveFilterDirs
			}
		case f.Value.Type() == "bool":
			return
		default:
			return // files: the shell's default
		}
		_ = c.RegisterFlagCompletionFunc(f.Name, fn)
	})
}

// wrapRun wraps the RunE of every runnable command under c (the root's
// own, which prints the help, excepted) in wrap.
func wrapRun(c *cobra.Command, wrap func(run func() error) error) {
	for _, sub := range c.Commands() {
		wrapRun(sub, wrap)
		if sub.RunE == nil {
			continue
		}
		inner := sub.RunE
		sub.RunE = func(c *cobra.Command, args []string) error {
			return wrap(func() error { return inner(c, args) })
		}
	}
}

// noArgs refuses positional arguments; one near a subcommand's name is
// named as a mistyped subcommand.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if near := c.SuggestionsFor(args[0]); len(near) > 0 {
		return fmt.Errorf("%w: unknown command %q%s", errUsage, args[0], suggest(near))
	}
	return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
}

// flagError turns pflag's errors into one line naming the flag, with a
// suggestion and where to find the flags (not the whole list).
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	const unknown = "unknown flag: "
	if name, ok := strings.CutPrefix(msg, unknown); ok {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		var near []string
		for _, n := range closest(strings.TrimPrefix(name, "--"), names) {
			near = append(near, "--"+n)
		}
		msg = "unknown flag " + name + suggest(near)
	}
	// pflag: invalid argument "abc" for "--seed" flag: strconv.ParseUint: …
	if m := invalidArg.FindStringSubmatch(msg); m != nil {
		if f := c.Flags().Lookup(m[2]); f != nil {
			msg = fmt.Sprintf("--%s %q: want %s", m[2], m[1], typeWord(f.Value.Type()))
		}
	}
	return fmt.Errorf("%w: %s; '%s --help' lists the flags", errUsage, msg, c.CommandPath())
}

// invalidArg matches pflag's error for a value its type cannot parse.
var invalidArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: `)

// typeWord says in words what a flag of a pflag type takes.
func typeWord(t string) string {
	switch t {
	case "int", "int64", "int32":
		return "a whole number"
	case "uint", "uint64", "uint32":
		return "a whole number ≥ 0"
	case "float64", "float32":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 30s or 10m"
	}
	return "a " + t
}

// suggest formats candidates as a "did you mean" clause.
func suggest(candidates []string) string {
	switch len(candidates) {
	case 0:
		return ""
	case 1:
		return " (did you mean " + candidates[0] + "?)"
	}
	return " (did you mean one of " + strings.Join(candidates, ", ") + "?)"
}

// closest are the names at edit distance ≤ 2 from name, or having it as a
// prefix, nearest first.
func closest(name string, names []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	for _, n := range names {
		d := levenshtein(name, n)
		if d <= 2 || (len(name) >= 3 && strings.HasPrefix(n, name)) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i, c := range cs {
		if i == 3 {
			break
		}
		out = append(out, c.n)
	}
	return out
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// longFlags rewrites the single-dash long flags of Go's flag package
// (-docs, -out=DIR) as --docs, --out=DIR, so command lines written for
// maslda before it moved to cobra keep working. A token that is the value
// of the flag before it, and anything after "--", is left alone.
func longFlags(root *cobra.Command, args []string) []string {
	if len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd) {
		return args // the shell completes what the user typed, as typed
	}
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		c = root
	}
	lookup := func(name string) *pflag.Flag {
		if f := c.Flags().Lookup(name); f != nil {
			return f
		}
		return root.PersistentFlags().Lookup(name)
	}
	out := make([]string, 0, len(args))
	takesValue := false
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if takesValue {
			takesValue = false
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isLong := strings.HasPrefix(a, "--")
		if !isLong && len(a) > 2 && a[0] == '-' && isFlagName(name) {
			a = "-" + a
			isLong = true
		}
		if isLong && !hasValue {
			if f := lookup(name); f != nil && f.NoOptDefVal == "" {
				takesValue = true
			}
		}
		out = append(out, a)
	}
	return out
}

// isFlagName: a letter, then letters, digits and dashes (not a negative
// number).
func isFlagName(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// plotCommand is `maslda plot KIND`, a subcommand per kind.
func plotCommand(e *env) *cobra.Command {
	var names []string
	for _, k := range plotKinds {
		names = append(names, k.name)
	}
	p := &cobra.Command{
		Use:   "plot KIND --out PREFIX [flags]",
		Short: "draw figures (PNG, SVG) from results, histories and annotators",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("%w: missing the kind of plot: %s", errUsage, strings.Join(names, ", "))
			}
			return fmt.Errorf("%w: unknown kind of plot %q%s; kinds: %s", errUsage, args[0], suggest(c.SuggestionsFor(args[0])), strings.Join(names, ", "))
		},
		SuggestionsMinimumDistance: 2,
	}
	for _, k := range plotKinds {
		cmd := command{name: k.name, summary: k.summary, synopsis: k.synopsis + " --out PREFIX [--format png,svg]", define: definePlotKind(k.define),
			values: map[string]func() []string{"format": fixed("png", "svg", "png,svg"), "style": fixed("auto", "bars", "scatter"), "x": fixed("iteration", "epoch", "seconds", "iteration,seconds")}}
		p.AddCommand(cmd.cobra(e))
	}
	return p
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && termIsTerminal(int(f.Fd()))
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

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *pflag.FlagSet, name string) bool { return fs.Changed(name) }

func defineComponents(*pflag.FlagSet) runFunc {
	return func(_ context.Context, e *env, _ []string) error {
		for _, kind := range []string{framework.KindResponse, framework.KindAnnotators, framework.KindInference} {
			names := framework.Default.Names(kind)
			fmt.Fprintf(e.stdout, "%-11s %s\n", kind, listOr(names))
		}
		// Presets (model = "NAME"); their plug-ins are resolved at train time.
		fmt.Fprintf(e.stdout, "%-11s %s\n", "model", listOr(models.PresetNames()))
		// The presets that run on answers alone (aggregate --method).
		fmt.Fprintf(e.stdout, "%-11s %s\n", "aggregate", listOr(answerPresets()))
		// Kinds of target (framework.TargetKind) and the annotator models that
		// can simulate (framework.Sampler: simulate --annotators).
		fmt.Fprintf(e.stdout, "%-11s %s\n", framework.KindTarget, listOr(framework.Default.Names(framework.KindTarget)))
		fmt.Fprintf(e.stdout, "%-11s %s\n", "simulate", listOr(samplerNames()))
		return nil
	}
}

func listOr(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
