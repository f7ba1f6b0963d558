package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/targets"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

func defineSimulate(fs *pflag.FlagSet) runFunc {
	truthPath := fs.String("truth", "", "true labels, CSV task,label")
	truthCol := fs.String("truth-column", "", "true labels, one per line; task = line number from 0")
	corpusPath := fs.String("corpus", "", "a directory maslda prepare wrote with labels (its train/ part for a split corpus): its labels.csv as --truth, so the answers' tasks are its ids")
	out := fs.String("out", "", "answers CSV to write: task,worker,label (required; written atomically; - for standard output)")
	annPath := fs.String("annotators", "", "the simulated annotators: a file with one annotators \"NAME\" { … } block of a noise model that can simulate (maslda components); the flags below are shorthands for the confusion and bias-precision blocks")
	accs := fs.String("accuracies", "", "classification: one accuracy per annotator; the rest of each row spread evenly (MODEL.md §7; e.g. the paper's 0.737,0.468,0.284,0.278,0.260)")
	confPath := fs.String("confusions", "", "classification: JSON list of C×C row-stochastic confusion matrices, one per annotator")
	classesPath := fs.String("classes", "", "classification: the classes in matrix order, one per line (a file, as for train and eval; default: the truth's labels, sorted)")
	biasList := fs.String("bias", "", "regression: one bias per annotator (e.g. the paper's 0.1,-0.3,-2.5,0.1,1)")
	precList := fs.String("precision", "", "regression: one precision per annotator (e.g. the paper's 10,3,10,0.5,0.25)")
	perDoc := fs.Int("per-doc", 1, "answers per document, from distinct annotators chosen at random (0 = every annotator)")
	seed := fs.Uint64("seed", 1, "random seed")
	return func(_ context.Context, e *env, args []string) error {
		if *corpusPath != "" {
			if *truthPath != "" || *truthCol != "" {
				return fmt.Errorf("%w: --corpus gives the truth (its labels.csv): not with --truth or --truth-column", errUsage)
			}
			cd, err := openCorpusDir(*corpusPath, "train")
			if err != nil {
				return err
			}
			if cd.labels == "" {
				return fmt.Errorf("%w: --corpus %s has no %s: prepare it with labels (--label-column, --label-dir or a label line field)", framework.ErrBadInput, cd.dir, "labels.csv")
			}
			*truthPath = cd.labels
		}
		if err := need(map[string]string{"out": *out}); err != nil {
			return err
		}
		if err := checkOutTable("out", *out, inPath{"truth", *truthPath}, inPath{"truth-column", *truthCol}, inPath{"confusions", *confPath}, inPath{"annotators", *annPath}, inPath{"classes", *classesPath}); err != nil {
			return err
		}
		tt, err := readTruthTable(*truthPath, *truthCol)
		if err != nil {
			return err
		}
		if tt == nil {
			return fmt.Errorf("%w: missing --truth or --truth-column", errUsage)
		}
		if *perDoc < 0 {
			return fmt.Errorf("%w: --per-doc %d, want ≥ 0", errUsage, *perDoc)
		}
		ids := make([]string, len(tt.Rows))
		for i, r := range tt.Rows {
			ids[i] = r.Task
		}
		rng := models.NewRand(*seed)
		// The simulated annotators: a block, from --annotators or from the
		// shorthand flags; subject is what the messages call them.
		classification := *accs != "" || *confPath != ""
		regression := *biasList != "" || *precList != ""
		var (
			blk     *simBlock
			subject string
		)
		switch {
		case *annPath != "" && (classification || regression):
			return fmt.Errorf("%w: give --annotators or the shorthands --accuracies, --confusions, --bias/--precision, not both", errUsage)
		case *annPath != "":
			if blk, err = readSimBlock(*annPath); err != nil {
				return err
			}
			subject = fmt.Sprintf("annotators %q", blk.Name)
		case classification && regression:
			return fmt.Errorf("%w: give classification (--accuracies/--confusions) or regression (--bias/--precision) annotators, not both", errUsage)
		case classification:
			if *confPath != "" && *accs != "" {
				return fmt.Errorf("%w: give --accuracies or --confusions, not both", errUsage)
			}
			src := "confusions_file = " + hclString(*confPath)
			if *accs != "" {
				a, err := floatList("--accuracies", *accs)
				if err != nil {
					return err
				}
				src = "accuracies = " + hclNumbers(a)
			}
			if blk, err = parseSimBlock([]byte("annotators \"confusion\" {\n  "+src+"\n}\n"), "<flags>"); err != nil {
				return err
			}
			subject = "--accuracies and --confusions"
		case regression:
			b, err := floatList("--bias", *biasList)
			if err != nil {
				return err
			}
			p, err := floatList("--precision", *precList)
			if err != nil {
				return err
			}
			if blk, err = parseSimBlock([]byte("annotators \"bias-precision\" {\n  bias = "+hclNumbers(b)+"\n  precision = "+hclNumbers(p)+"\n}\n"), "<flags>"); err != nil {
				return err
			}
			subject = "--bias and --precision"
		default:
			return fmt.Errorf("%w: say how annotators answer: --annotators FILE, or --accuracies, --confusions, or --bias with --precision", errUsage)
		}
		sampler, err := samplerOf(blk)
		if err != nil {
			return err
		}
		kind, err := framework.Default.TargetKind(sampler.SampleKind())
		if err != nil {
			return fmt.Errorf("%s: %w", subject, err)
		}
		var classes []string
		switch {
		case kind.HasClasses() && *classesPath != "":
			if classes, err = readClasses(*classesPath); err != nil {
				return err
			}
			if len(classes) < 2 {
				return framework.Errorf(*classesPath, 0, "%d classes, want at least 2 (one per line)", len(classes))
			}
		case kind.HasClasses():
			all := make([]string, len(tt.Rows))
			for i, r := range tt.Rows {
				all[i] = r.Label
			}
			if targets.LooksNumeric(all) {
				hint := "for numbers use --bias and --precision"
				if blk.where != "" {
					hint = "for numbers use annotators that answer numbers"
				}
				return framework.Errorf(tt.Name, tt.Rows[0].Line, "the truth looks numeric (%d distinct numbers, e.g. %q): %s simulate answers to classes; %s, or name the classes with --classes", len(corpus.SortLabels(all)), tt.Rows[0].Label, subject, hint)
			}
			classes = kind.Classes(all)
		case *classesPath != "":
			return fmt.Errorf("%w: --classes names classes, but %s answer targets of kind %q, without classes", errUsage, subject, kind.Name())
		}
		truth, err := tt.Resolve(ids, kind, classes)
		if err != nil {
			return err
		}
		if w := classTwins(tt.Name, truth.Classes); w != "" {
			e.log.Warn(w)
		}
		for i, h := range truth.Has {
			if !h {
				return fmt.Errorf("%w: task %q has no true value", framework.ErrBadInput, ids[i])
			}
		}
		sim, err := sampler.Simulate(blk.params(), truth)
		if err != nil {
			return blk.at(err)
		}
		if *perDoc > sim.Annotators() {
			return fmt.Errorf("%w: --per-doc %d but only %d annotators", errUsage, *perDoc, sim.Annotators())
		}
		byDoc, err := sim.Sample(*perDoc, rng)
		if err != nil {
			return blk.at(err)
		}
		ans := &framework.Answers{Annotators: workerNames(sim.Annotators()), Classes: truth.Classes, ByDoc: byDoc}
		if err := e.writeTable(*out, func(w io.Writer) error { return corpus.WriteAnswers(w, ans, ids) }); err != nil {
			return err
		}
		e.log.Info("simulated", "documents", len(ids), "annotators", len(ans.Annotators), "answers", ans.Count(), "out", *out)
		return nil
	}
}

// simBlock is an `annotators "NAME" { … }` block of simulated annotators
// (simulate --annotators, or made from simulate's shorthand flags).
type simBlock struct {
	Name  string    `hcl:"name,label"`
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
	where string    // "file:line: " of the block, "" for the flags'
}

// simFile is simulate --annotators's file: one annotators block.
type simFile struct {
	Annotators []*simBlock `hcl:"annotators,block"`
}

type simParams struct{ body hcl.Body }

func (p simParams) Decode(into any) error { return models.DecodeStrict(p.body, nil, into, "") }

func (b *simBlock) params() framework.Params { return simParams{b.Body} }

// at prefixes err with the block's file and line (none for the flags').
func (b *simBlock) at(err error) error {
	if b.where == "" || err == nil {
		return err
	}
	return fmt.Errorf("%s%w", b.where, err)
}

// readSimBlock reads simulate --annotators's file (HCL, or HCL's JSON
// syntax for .json).
func readSimBlock(path string) (*simBlock, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	b, err := parseSimBlock(src, path)
	if err != nil {
		return nil, err
	}
	b.where = fmt.Sprintf("%s:%d: ", path, b.Where.Start.Line)
	return b, nil
}

func parseSimBlock(src []byte, name string) (*simBlock, error) {
	src = []byte(strings.TrimPrefix(string(src), "\ufeff"))
	p := hclparse.NewParser()
	var (
		f     *hcl.File
		diags hcl.Diagnostics
	)
	if strings.EqualFold(filepath.Ext(name), ".json") {
		f, diags = p.ParseJSON(src, name)
	} else {
		f, diags = p.ParseHCL(src, name)
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
	}
	var sf simFile
	if err := models.DecodeStrict(f.Body, nil, &sf, ""); err != nil {
		return nil, err
	}
	if len(sf.Annotators) != 1 {
		return nil, framework.Errorf(name, 0, "%d annotators blocks, want one: annotators \"NAME\" { … } with the simulated annotators' parameters (annotators that can simulate: %s)", len(sf.Annotators), listOr(samplerNames()))
	}
	return sf.Annotators[0], nil
}

// samplerOf is the noise model named by the block, if it can simulate
// (framework.Sampler); the errors list those that can.
func samplerOf(b *simBlock) (framework.Sampler, error) {
	noise, err := framework.Default.Noise(b.Name, nil)
	if err != nil {
		return nil, b.at(fmt.Errorf("%w; those that can simulate: %s", err, listOr(samplerNames())))
	}
	s, ok := noise.(framework.Sampler)
	if !ok {
		return nil, b.at(fmt.Errorf("%w: annotators %q cannot simulate answers (framework.Sampler); those that can: %s", framework.ErrIncompatible, b.Name, listOr(samplerNames())))
	}
	return s, nil
}

// samplerNames lists the registered noise models that can simulate.
func samplerNames() []string {
	var names []string
	for _, n := range framework.Default.Names(framework.KindAnnotators) {
		if m, err := framework.Default.Noise(n, nil); err == nil {
			if _, ok := m.(framework.Sampler); ok {
				names = append(names, n)
			}
		}
	}
	return names
}

// hclString quotes s as an HCL string literal (no interpolation).
func hclString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "${", "$${", "%{", "%%{")
	return `"` + r.Replace(s) + `"`
}

// hclNumbers writes numbers as an HCL list that reads back exactly.
func hclNumbers(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func floatList(flagName, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %s: %q is not a finite number", errUsage, flagName, f)
		}
		out = append(out, x)
	}
	return out, nil
}

func workerNames(n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = "a" + strconv.Itoa(i)
	}
	return w
}
