package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/synth"
	"github.com/maslda/maslda/framework/textprep"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

// simCorpusManifest marks a directory `maslda simulate corpus` wrote (so
// that it may be replaced) and records what was planted.
const simCorpusManifest = "simulated.json"

// simCorpusFlags are the annotator flags `simulate corpus` hands to
// `simulate` (the same meaning).
var simCorpusFlags = []string{"annotators", "accuracies", "confusions", "bias", "precision", "per-doc"}

// defineSimulateCorpus is `maslda simulate corpus`: planted documents,
// their truth and simulated answers in one command, written as a corpus
// directory (prepare's layout: train --corpus DIR reads it).
func defineSimulateCorpus(fs *pflag.FlagSet) runFunc {
	out := fs.String("out", "", "the corpus directory to write (required; replaced atomically): docs.ldac, ids.txt, vocab.txt, labels.csv (the truth), answers.csv and simulated.json; with --test N, train/ and test/ (answers.csv beside them, for train/)")
	target := fs.String("target", "categorical", "categorical: classes c_d ~ Softmax(η z̄_d) (MA-sLDAc's model); numeric: y_d ~ N(η·z̄_d, 0.1²) (MA-sLDAr's); ordinal: levels 1..C, that number cut at its quantiles (the ordinal response's)")
	nDocs := fs.Int("docs", 1000, "training documents (each gets answers)")
	nTest := fs.Int("test", 0, "held-out documents, written to test/ without answers (0: no split)")
	vocabSize := fs.Int("vocab-size", 500, "vocabulary size V (terms w0, w1, ...)")
	k := fs.Int("topics", 8, "planted topics K")
	docLen := fs.Float64("doc-length", 120, "mean tokens per document (Poisson)")
	alpha := fs.Float64("alpha", 0.1, "Dirichlet concentration of each document's topic proportions")
	nClasses := fs.Int("classes", 4, "categorical: the number of classes (c0, c1, ...); ordinal: of levels (1, 2, ...)")
	scale := fs.Float64("eta-scale", 6, "the planted η's entries are N(0, scale²): larger is a more predictable truth")
	fs.String("annotators", "", "the simulated annotators, as for maslda simulate (default: the paper's five, --accuracies 0.737,0.468,0.284,0.278,0.260 or --bias 0.1,-0.3,-2.5,0.1,1 --precision 10,3,10,0.5,0.25)")
	fs.String("accuracies", "", "categorical: one accuracy per annotator, as for maslda simulate")
	fs.String("confusions", "", "categorical: JSON list of confusion matrices, as for maslda simulate")
	fs.String("bias", "", "numeric: one bias per annotator, as for maslda simulate")
	fs.String("precision", "", "numeric: one precision per annotator, as for maslda simulate")
	fs.Int("per-doc", 1, "answers per training document, from distinct annotators (0 = every annotator)")
	seed := fs.Uint64("seed", 1, "random seed of the documents, the truth and the answers")
	return func(ctx context.Context, e *env, _ []string) error {
		if err := need(map[string]string{"out": *out}); err != nil {
			return err
		}
		switch {
		case *target != "categorical" && *target != "numeric" && *target != "ordinal":
			return fmt.Errorf("%w: --target %q; valid: categorical, numeric, ordinal", errUsage, *target)
		case *nDocs < 1 || *nTest < 0:
			return fmt.Errorf("%w: --docs %d --test %d: want at least 1 training document and no negative count", errUsage, *nDocs, *nTest)
		case *vocabSize < 2 || *k < 1 || !(*docLen >= 1) || !(*alpha > 0) || !(*scale >= 0):
			return fmt.Errorf("%w: --vocab-size ≥ 2, --topics ≥ 1, --doc-length ≥ 1, --alpha > 0 and --eta-scale ≥ 0, please", errUsage)
		case *target != "numeric" && *nClasses < 2:
			return fmt.Errorf("%w: --classes %d, want at least 2", errUsage, *nClasses)
		}
		if err := models.CheckOutDir(*out, isSimulatedCorpus); err != nil {
			return err
		}
		// The simulate command's arguments for the answers.
		simArgs := []string{"--seed", strconv.FormatUint(*seed+1, 10)}
		given := false
		for _, name := range simCorpusFlags {
			if f := fs.Lookup(name); f.Changed {
				simArgs = append(simArgs, "--"+name, f.Value.String())
				given = given || name != "per-doc"
			}
		}
		ordinalBlock := ""
		if !given {
			switch *target {
			case "categorical":
				simArgs = append(simArgs, "--accuracies", "0.737,0.468,0.284,0.278,0.260")
			case "numeric":
				simArgs = append(simArgs, "--bias", "0.1,-0.3,-2.5,0.1,1", "--precision", "10,3,10,0.5,0.25")
			case "ordinal":
				// docs/cli.md's ordinal-shift crowd: accurate, a level
				// high, the extremes, two noisy (written beside the answers).
				ordinalBlock = "annotators \"ordinal-shift\" {\n  shift     = [0, 1, 0, 0, -0.5]\n  stretch   = [1, 1, 2.5, 1, 1]\n  precision = [6, 4, 4, 1, 0.7]\n}\n"
			}
		}

		rng := models.NewRand(*seed)
		spec := synth.LDASpec{D: *nDocs + *nTest, V: *vocabSize, K: *k, DocLen: *docLen, Alpha: *alpha, TopicConc: 0.05, NamedVocab: true}
		all, planted, err := synth.LDA(spec, rng)
		if err != nil {
			return err
		}
		labels := make([]string, spec.D)
		var classNames []string
		if *target == "categorical" {
			for c := range *nClasses {
				classNames = append(classNames, "c"+strconv.Itoa(c))
			}
			for d, c := range synth.Classes(planted.ZBar, synth.PlantedEta(*nClasses, *k, *scale, rng), rng) {
				labels[d] = classNames[c]
			}
		} else {
			eta := synth.PlantedEta(1, *k, *scale, rng)[0]
			ys := make([]float64, len(planted.ZBar))
			for d, z := range planted.ZBar {
				y := 0.1 * rng.NormFloat64()
				for j, x := range z {
					y += eta[j] * x
				}
				ys[d] = y
				labels[d] = strconv.FormatFloat(math.Round(y*1e6)/1e6, 'g', -1, 64)
			}
			if *target == "ordinal" {
				// Levels 1..C of equal frequency: the number cut at its
				// quantiles.
				sorted := slices.Clone(ys)
				slices.Sort(sorted)
				for l := range *nClasses {
					classNames = append(classNames, strconv.Itoa(l+1))
				}
				for d, y := range ys {
					level := 1
					for l := 1; l < *nClasses; l++ {
						if y > sorted[l*len(sorted)/(*nClasses)] {
							level = l + 1
						}
					}
					labels[d] = strconv.Itoa(level)
				}
			}
		}
		for d := range all.Docs {
			all.Docs[d].ID = strconv.Itoa(d)
		}
		err = models.PublishDir(*out, isSimulatedCorpus, func(tmp string) error {
			trainDir, testDir := tmp, ""
			if *nTest > 0 {
				trainDir, testDir = filepath.Join(tmp, "train"), filepath.Join(tmp, "test")
			}
			if err := writeCorpusPart(trainDir, all.Docs[:*nDocs], all.Vocab, labels[:*nDocs]); err != nil {
				return err
			}
			if testDir != "" {
				if err := writeCorpusPart(testDir, all.Docs[*nDocs:], all.Vocab, labels[*nDocs:]); err != nil {
					return err
				}
			}
			// The answers: maslda simulate on the training truth.
			sfs := pflag.NewFlagSet("simulate", pflag.ContinueOnError)
			sfs.SetOutput(io.Discard)
			simulate := defineSimulate(sfs)
			answers := filepath.Join(tmp, "answers.csv")
			if ordinalBlock != "" {
				block := filepath.Join(tmp, "annotators.hcl")
				if err := writeFileAtomic(block, func(w io.Writer) error { _, err := io.WriteString(w, ordinalBlock); return err }); err != nil {
					return err
				}
				simArgs = append(simArgs, "--annotators", block)
			}
			if err := sfs.Parse(append(simArgs, "--truth", filepath.Join(trainDir, textprep.LabelsFile), "--out", answers)); err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			if err := simulate(ctx, e, nil); err != nil {
				return err
			}
			m := map[string]any{"tool": "maslda simulate corpus", "target": *target, "docs": *nDocs, "test": *nTest, "vocab_size": *vocabSize,
				"topics": *k, "doc_length": *docLen, "alpha": *alpha, "classes": classNames, "eta_scale": *scale, "seed": *seed,
				"answers": strings.Join(simArgs, " ")}
			return writeFileAtomic(filepath.Join(tmp, simCorpusManifest), func(w io.Writer) error {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(m)
			})
		})
		if err != nil {
			return err
		}
		e.log.Info("simulated corpus", "dir", *out, "docs", *nDocs, "test", *nTest, "target", *target, "answers", filepath.Join(*out, "answers.csv"))
		hint := ""
		if *target == "ordinal" {
			hint = " --config ORDINAL.hcl   # response \"ordinal\" {} and annotators \"ordinal-shift\" {} (docs/config.md)"
		}
		fmt.Fprintf(e.stdout, "Wrote %s. Train on it:\n  maslda train --corpus %s --answers %s --out model%s\n", *out, *out, filepath.Join(*out, "answers.csv"), hint)
		return nil
	}
}

// writeCorpusPart writes one part of a corpus directory in prepare's
// layout: docs.ldac, ids.txt, vocab.txt and labels.csv (the truth).
func writeCorpusPart(dir string, docs []framework.Doc, vocab, labels []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(w io.Writer) error
	}{
		{textprep.DocsFile, func(w io.Writer) error { return corpus.WriteLDAC(w, docs) }},
		{textprep.VocabFile, func(w io.Writer) error { return corpus.WriteVocab(w, vocab) }},
		{textprep.IDsFile, func(w io.Writer) error {
			for _, d := range docs {
				if _, err := fmt.Fprintln(w, d.ID); err != nil {
					return err
				}
			}
			return nil
		}},
		{textprep.LabelsFile, func(w io.Writer) error {
			if _, err := io.WriteString(w, "task,label\n"); err != nil {
				return err
			}
			for i, d := range docs {
				if _, err := fmt.Fprintf(w, "%s,%s\n", d.ID, labels[i]); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return err
		}
	}
	return nil
}

// isSimulatedCorpus recognises a directory `simulate corpus` wrote.
func isSimulatedCorpus(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, simCorpusManifest))
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no %s: not written by maslda simulate corpus", simCorpusManifest)
	}
	if err != nil {
		return err
	}
	var m struct {
		Tool string `json:"tool"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Tool != "maslda simulate corpus" {
		return fmt.Errorf("%s is not maslda simulate corpus's", filepath.Join(dir, simCorpusManifest))
	}
	return nil
}
