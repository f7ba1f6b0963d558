package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

func definePredict(fs *pflag.FlagSet) runFunc {
	modelDir := fs.String("model", "", "trained model directory (required)")
	docsPath := fs.String("docs", "", "documents to predict, LDA-C, with the model's word ids (required)")
	corpusPath := fs.String("corpus", "", "a directory maslda prepare wrote (its test/ part for a split corpus): its docs.ldac, ids.txt and vocab.txt, instead of --docs, --ids and --vocab")
	idsPath := fs.String("ids", "", "document ids, one per line (default: the line number from 0)")
	vocabPath := fs.String("vocab", "", "the documents' vocabulary: compared with the model's terms, and words mapped to the model's ids by term when they differ (with a warning counting unknown words)")
	out := fs.String("out", "", "output CSV (required; written atomically; - for standard output)")
	workers := fs.Int("workers", -1, "E-step goroutines (default: the model's configuration; 0 = all cores)")
	strict := fs.Bool("strict", false, "fail on word ids outside the model's vocabulary instead of dropping them (with a warning and counts)")
	return func(ctx context.Context, e *env, args []string) error {
		if *corpusPath != "" {
			cd, err := openCorpusDir(*corpusPath, "test")
			if err != nil {
				return err
			}
			if err := cd.apply(docsPath, idsPath, vocabPath); err != nil {
				return err
			}
			e.log.Info("corpus", "dir", cd.dir, "ids", cd.ids != "", "vocabulary", cd.vocab != "")
		}
		if err := need(map[string]string{"model": *modelDir, "docs": *docsPath, "out": *out}); err != nil {
			return err
		}
		if *workers < -1 {
			return fmt.Errorf("%w: --workers %d, want ≥ 0 (0 = all cores)", errUsage, *workers)
		}
		if err := checkOutTable("out", *out, inPath{"model", *modelDir}, inPath{"docs", *docsPath}, inPath{"ids", *idsPath}, inPath{"vocab", *vocabPath}); err != nil {
			return err
		}
		s, err := models.Load(*modelDir, nil)
		if err != nil {
			return err
		}
		if *workers >= 0 {
			s.Model.SetWorkers(*workers)
		}
		c, err := loadDocs(*docsPath, *idsPath, *vocabPath, 0)
		if err != nil {
			return err
		}
		if c.Vocab != nil {
			switch {
			case s.Vocab == nil:
				return fmt.Errorf("%w: --vocab %s given but the model %s was trained without a vocabulary: its word ids cannot be checked against terms (drop --vocab if the documents use the training ids)", framework.ErrBadInput, *vocabPath, *modelDir)
			case !slices.Equal(c.Vocab, s.Vocab):
				types, tokens := remapByTerm(c, s.Vocab)
				if *strict && tokens > 0 {
					return fmt.Errorf("%w: %s: %d terms (%d tokens) of --vocab %s are not in the model's vocabulary", framework.ErrBadInput, *docsPath, types, tokens, *vocabPath)
				}
				e.log.Warn("the documents' vocabulary differs from the model's: words mapped to the model's ids by term", "vocab", *vocabPath,
					"unknown_terms", types, "unknown_tokens", tokens)
			}
		}
		if c.V > s.Manifest.V {
			if *strict {
				return fmt.Errorf("%w: %s uses word id %d but the model's vocabulary has %d words (ids 0..%d)", framework.ErrBadInput, *docsPath, c.V-1, s.Manifest.V, s.Manifest.V-1)
			}
			types, tokens := dropUnknown(c, s.Manifest.V)
			e.log.Warn("dropped words outside the model's vocabulary", "ids_from", s.Manifest.V, "distinct_ids", types, "tokens", tokens)
		}
		c.V = s.Manifest.V
		var kind framework.TargetKind // nil for plain LDA
		if s.Model.Response != nil {
			if kind, err = framework.Default.KindOf(s.Model.Response); err != nil {
				return fmt.Errorf("%s: %w", *modelDir, err)
			}
		}
		preds, err := s.Model.Predict(ctx, c)
		if err != nil {
			return err
		}
		if err := e.writeTable(*out, func(w io.Writer) error { return writePredictions(w, c, preds, kind, s.Classes()) }); err != nil {
			return err
		}
		e.log.Info("predicted", "docs", len(preds), "out", *out)
		return nil
	}
}

// remapByTerm rewrites every document's word ids from c.Vocab's to
// vocab's, by term, dropping words whose term vocab lacks, and returns the
// number of distinct such terms and of their tokens. c then uses vocab.
func remapByTerm(c *framework.Corpus, vocab []string) (types, tokens int) {
	index := make(map[string]int32, len(vocab))
	for i, t := range vocab {
		index[t] = int32(i)
	}
	to := make([]int32, len(c.Vocab))
	for i, t := range c.Vocab {
		if j, ok := index[t]; ok {
			to[i] = j
		} else {
			to[i] = -1
		}
	}
	seen := map[int32]bool{}
	for i := range c.Docs {
		d := &c.Docs[i]
		j := 0
		for k, w := range d.Words {
			if to[w] < 0 {
				seen[w] = true
				tokens += int(d.Counts[k])
				d.N -= d.Counts[k]
				continue
			}
			d.Words[j], d.Counts[j] = to[w], d.Counts[k]
			j++
		}
		d.Words, d.Counts = d.Words[:j], d.Counts[:j]
	}
	c.Vocab, c.V = vocab, len(vocab)
	return len(seen), tokens
}

// dropUnknown removes word ids ≥ v from every document (they carry no
// information under a model that never saw them) and returns the number of
// distinct ids and of tokens dropped.
func dropUnknown(c *framework.Corpus, v int) (types, tokens int) {
	seen := map[int32]bool{}
	for i := range c.Docs {
		d := &c.Docs[i]
		j := 0
		for k, w := range d.Words {
			if int(w) >= v {
				seen[w] = true
				tokens += int(d.Counts[k])
				d.N -= d.Counts[k]
				continue
			}
			d.Words[j], d.Counts[j] = w, d.Counts[k]
			j++
		}
		d.Words, d.Counts = d.Words[:j], d.Counts[:j]
	}
	return len(seen), tokens
}

// writePredictions writes task,<the kind's columns>,theta:0..theta:K-1
// (categorical: label,p:<class>...; gaussian: label,var; plain LDA, kind
// nil: none).
func writePredictions(w io.Writer, c *framework.Corpus, preds []models.Prediction, kind framework.TargetKind, classes []string) error {
	return writeTargets(w, c, preds, kind, classes, true)
}

// writeTargets writes task, the kind's columns (none when kind is nil:
// plain LDA) and, when withTheta, theta:0..theta:K-1.
func writeTargets(w io.Writer, c *framework.Corpus, preds []models.Prediction, kind framework.TargetKind, classes []string, withTheta bool) error {
	cw := csv.NewWriter(w)
	header := []string{"task"}
	if len(preds) > 0 {
		if kind != nil {
			header = append(header, kind.Columns(classes)...)
		}
		for k := range preds[0].Theta {
			if withTheta {
				header = append(header, "theta:"+strconv.Itoa(k))
			}
		}
	}
	cw.Write(header)
	for i, p := range preds {
		row := []string{c.Docs[i].ID}
		if kind != nil {
			var err error
			if row, err = kind.AppendCells(row, p.Target, classes); err != nil {
				return err
			}
		}
		if withTheta {
			for _, x := range p.Theta {
				row = append(row, ftoa(x))
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func defineTopics(fs *pflag.FlagSet) runFunc {
	modelDir := fs.String("model", "", "trained model directory (required)")
	top := fs.Int("top", 10, "words per topic")
	return func(_ context.Context, e *env, args []string) error {
		if err := need(map[string]string{"model": *modelDir}); err != nil {
			return err
		}
		if *top < 1 {
			return fmt.Errorf("%w: --top %d, want ≥ 1", errUsage, *top)
		}
		s, err := models.Load(*modelDir, nil)
		if err != nil {
			return err
		}
		if s.Vocab == nil {
			e.log.Warn("the model has no vocabulary: words are shown by id; train with --vocab FILE (or --corpus DIR, with prepare's vocab.txt) to see them", "model", *modelDir)
		}
		printTopics(e.stdout, s.Model.Topics.Beta(), s.Vocab, *top)
		return nil
	}
}

// printTopics prints each topic's top words with their probabilities.
func printTopics(w io.Writer, beta [][]float64, vocab []string, top int) {
	for k, b := range beta {
		fmt.Fprintf(w, "topic %d:", k)
		for _, v := range topWords(b, top) {
			term := strconv.Itoa(v)
			if vocab != nil {
				term = vocab[v]
			}
			fmt.Fprintf(w, " %s (%.3f)", term, b[v])
		}
		fmt.Fprintln(w)
	}
}

// topWords returns the indices of the n largest entries, largest first
// (ties by index).
func topWords(b []float64, n int) []int {
	idx := make([]int, len(b))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return b[idx[i]] > b[idx[j]] })
	return idx[:min(n, len(idx))]
}

func defineImport(fs *pflag.FlagSet) runFunc {
	wide := fs.String("wide", "", "wide answer matrix: one row per document, one column per annotator (required)")
	missing := fs.String("missing", "999999999", "missing-value sentinel")
	out := fs.String("out", "", "output answers CSV (required; written atomically; - for standard output)")
	return func(ctx context.Context, e *env, args []string) error {
		if err := need(map[string]string{"wide": *wide, "out": *out}); err != nil {
			return err
		}
		if err := checkOutTable("out", *out, inPath{"wide", *wide}); err != nil {
			return err
		}
		t, err := loadAnswers(ctx, e, "", *wide, *missing)
		if err != nil {
			return err
		}
		if err := e.writeTable(*out, func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.Write([]string{"task", "worker", "label"})
			for _, r := range t.Rows {
				cw.Write([]string{r.Task, r.Worker, r.Label})
			}
			cw.Flush()
			return cw.Error()
		}); err != nil {
			return err
		}
		e.log.Info("imported", "answers", len(t.Rows), "out", *out)
		return nil
	}
}
