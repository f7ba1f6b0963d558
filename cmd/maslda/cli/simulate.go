package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/maslda/maslda/annotators/biasprecision"
	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
)

func runSimulate(_ context.Context, e *env, args []string) error {
	fs, level := e.flags("simulate", "(--truth FILE | --truth-column FILE) --out answers.csv (--accuracies A,B,... | --confusions FILE.json | --bias B,... --precision P,...) [--per-doc N] [--seed N]")
	truthPath := fs.String("truth", "", "true labels, CSV task,label")
	truthCol := fs.String("truth-column", "", "true labels, one per line; task = line number from 0")
	out := fs.String("out", "", "answers CSV to write: task,worker,label (required; written atomically)")
	accs := fs.String("accuracies", "", "classification: one accuracy per annotator; the rest of each row spread evenly (MODEL.md §7; e.g. the paper's 0.737,0.468,0.284,0.278,0.260)")
	confPath := fs.String("confusions", "", "classification: JSON list of C×C row-stochastic confusion matrices, one per annotator")
	classList := fs.String("classes", "", "classification: the class names in matrix order (default: the truth's labels, sorted)")
	biasList := fs.String("bias", "", "regression: one bias per annotator (e.g. the paper's 0.1,-0.3,-2.5,0.1,1)")
	precList := fs.String("precision", "", "regression: one precision per annotator (e.g. the paper's 10,3,10,0.5,0.25)")
	perDoc := fs.Int("per-doc", 1, "answers per document, from distinct annotators chosen at random (0 = every annotator)")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := e.parse(fs, level, args); err != nil {
		return err
	}
	if err := need(map[string]string{"out": *out}); err != nil {
		return err
	}
	if err := checkOverlap("out", *out, inPath{"truth", *truthPath}, inPath{"truth-column", *truthCol}, inPath{"confusions", *confPath}); err != nil {
		return err
	}
	if err := checkOutFile("out", *out); err != nil {
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
	classification := *accs != "" || *confPath != ""
	regression := *biasList != "" || *precList != ""
	var ans *framework.Answers
	switch {
	case classification && regression:
		return fmt.Errorf("%w: give classification (--accuracies/--confusions) or regression (--bias/--precision) annotators, not both", errUsage)
	case classification:
		var classes []string
		if *classList != "" {
			classes = strings.Split(*classList, ",")
		} else {
			labels := map[string]bool{}
			var all []string
			for _, r := range tt.Rows {
				labels[r.Label] = true
				all = append(all, r.Label)
			}
			if looksNumeric(all) {
				return framework.Errorf(tt.Name, tt.Rows[0].Line, "the truth looks numeric (%d distinct numbers, e.g. %q): --accuracies and --confusions simulate answers to classes; for numbers use --bias and --precision, or name the classes with --classes", len(labels), tt.Rows[0].Label)
			}
			for l := range labels {
				classes = append(classes, l)
			}
			classes = corpus.SortLabels(classes)
		}
		truthIdx, err := tt.Categorical(ids, classes)
		if err != nil {
			return err
		}
		var pis [][][]float64
		if *confPath != "" {
			if *accs != "" {
				return fmt.Errorf("%w: give --accuracies or --confusions, not both", errUsage)
			}
			if pis, err = confusion.ReadMatrices(*confPath); err != nil {
				return err
			}
			if len(pis[0]) != len(classes) {
				return fmt.Errorf("%w: %s has %d×%d matrices but there are %d classes (%s)", framework.ErrBadInput, *confPath, len(pis[0]), len(pis[0]), len(classes), strings.Join(classes, ", "))
			}
		} else {
			a, err := floatList("--accuracies", *accs)
			if err != nil {
				return err
			}
			if pis, err = confusion.FromAccuracies(a, len(classes)); err != nil {
				return err
			}
		}
		if *perDoc > len(pis) {
			return fmt.Errorf("%w: --per-doc %d but only %d annotators", errUsage, *perDoc, len(pis))
		}
		byDoc, err := confusion.Sample(truthIdx, pis, *perDoc, rng)
		if err != nil {
			return err
		}
		ans = &framework.Answers{Workers: workerNames(len(pis)), Classes: classes, ByDoc: byDoc}
	case regression:
		b, err := floatList("--bias", *biasList)
		if err != nil {
			return err
		}
		p, err := floatList("--precision", *precList)
		if err != nil {
			return err
		}
		if len(b) != len(p) {
			return fmt.Errorf("%w: %d biases but %d precisions", errUsage, len(b), len(p))
		}
		for _, x := range p {
			if !(x > 0) || math.IsInf(x, 0) {
				return fmt.Errorf("%w: --precision %v, want positive finite numbers", errUsage, x)
			}
		}
		if *perDoc > len(b) {
			return fmt.Errorf("%w: --per-doc %d but only %d annotators", errUsage, *perDoc, len(b))
		}
		vals, has, err := tt.Numeric(ids)
		if err != nil {
			return err
		}
		for i, h := range has {
			if !h {
				return fmt.Errorf("%w: task %q has no true value", framework.ErrBadInput, ids[i])
			}
		}
		ans = &framework.Answers{Workers: workerNames(len(b)), ByDoc: biasprecision.Sample(vals, b, p, *perDoc, rng)}
	default:
		return fmt.Errorf("%w: say how annotators answer: --accuracies, --confusions, or --bias with --precision", errUsage)
	}
	if err := writeFileAtomic(*out, func(w io.Writer) error { return corpus.WriteAnswers(w, ans, ids) }); err != nil {
		return err
	}
	e.log.Info("simulated", "documents", len(ids), "annotators", len(ans.Workers), "answers", ans.Count(), "out", *out)
	return nil
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
