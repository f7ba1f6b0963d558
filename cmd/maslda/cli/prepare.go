package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/framework/textprep"
	"github.com/maslda/maslda/models"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
func (s *stringList) Type() string       { return "glob" }

func definePrepare(fs *pflag.FlagSet) runFunc {
	input := fs.String("input", "", "documents: a CSV, JSONL or lines file, or for dir a directory tree or a .tar/.tar.gz archive (required)")
	format := fs.String("format", "", "input format: csv, jsonl, dir or lines (required)")
	out := fs.String("out", "", "output directory (required; replaced atomically)")
	idCol := fs.String("id-column", "id", "csv, jsonl: column of the document id (\"\": the line number)")
	textCol := fs.String("text-column", "text", "csv, jsonl: column of the text")
	labelCol := fs.String("label-column", "", "csv, jsonl: column of the label (default: no labels)")
	lineFields := fs.String("line-fields", "text", "lines: tab-separated fields of a line, from id, label, text; text last (e.g. label,text)")
	labelDir := fs.Bool("label-dir", false, "dir: label each document with its parent directory's name")
	var include stringList
	fs.Var(&include, "include", "dir: read only files whose name or path matches this glob (path.Match; repeatable)")
	labelMap := fs.String("label-map", "", "file of lines \"pattern label\" (path.Match globs) mapping labels; documents matching no pattern are dropped")
	encoding := fs.String("encoding", "utf8", "input encoding: utf8 (invalid UTF-8 is an error) or latin1")
	stripHeaders := fs.Bool("strip-headers", false, "remove e-mail/news headers (up to the first empty line)")
	stripQuotes := fs.Bool("strip-quotes", false, "remove quoted lines (starting with > or |) and attribution lines (\"... writes:\")")
	stripFooters := fs.Bool("strip-footers", false, "remove signatures: everything after the last line that is empty or only dashes (\"-- \")")
	noLower := fs.Bool("no-lower", false, "do not lower-case tokens (stemming lower-cases anyway)")
	keepNumbers := fs.Bool("keep-numbers", false, "keep tokens that have a digit but no letter")
	minLen := fs.Int("min-length", 2, "drop tokens shorter than this many characters")
	maxLen := fs.Int("max-length", 0, "drop tokens longer than this many characters (0: no limit)")
	stopPath := fs.String("stopwords", "", "stop-word file, one word per line (default: the embedded English list)")
	noStop := fs.Bool("no-stopwords", false, "keep stop words")
	noStem := fs.Bool("no-stem", false, "do not stem (Snowball English)")
	bigrams := fs.Bool("bigrams", false, "add bigrams of adjacent kept tokens, joined by _")
	minDF := fs.Int("min-df", 1, "keep terms in at least N (training) documents")
	maxDF := fs.Float64("max-df", 1, "keep terms in at most this fraction of the (training) documents")
	maxVocab := fs.Int("max-vocab", 0, "keep the N most frequent terms (0: all)")
	vocabPath := fs.String("vocab", "", "apply this vocabulary (one term per line) instead of building one; other terms are dropped and counted")
	split := fs.Float64("split", 0, "write train/ and test/ with this fraction of each label's documents for training")
	seed := fs.Uint64("seed", 0, "seed of --split")
	workers := fs.Int("workers", 0, "tokenizing goroutines (0: all cores)")
	progress := fs.String("progress", "auto", "progress bar: auto (on a terminal), always, never")
	return func(ctx context.Context, e *env, args []string) error {
		if err := need(map[string]string{"input": *input, "format": *format, "out": *out}); err != nil {
			return err
		}
		if err := checkProgress(*progress); err != nil {
			return err
		}
		in := textprep.InputOptions{Path: *input, Format: textprep.Format(*format), Encoding: textprep.Encoding(*encoding)}
		only := func(formats string, flags ...string) error {
			for _, f := range flags {
				if flagSet(fs, f) && !strings.Contains(formats, *format) {
					return fmt.Errorf("%w: --%s applies to --format %s only", errUsage, f, formats)
				}
			}
			return nil
		}
		switch in.Format {
		case textprep.CSV, textprep.JSONL:
			in.IDColumn, in.TextColumn, in.LabelColumn = *idCol, *textCol, *labelCol
			if *textCol == "" {
				return fmt.Errorf("%w: --text-column is empty", errUsage)
			}
		case textprep.Lines:
			in.LineFields = strings.Split(*lineFields, ",")
		case textprep.Dir:
			in.LabelDir, in.Include = *labelDir, include
		default:
			return fmt.Errorf("%w: --format %q; valid: csv, jsonl, dir, lines", errUsage, *format)
		}
		if err := only("csv, jsonl", "id-column", "text-column", "label-column"); err != nil {
			return err
		}
		if err := only("lines", "line-fields"); err != nil {
			return err
		}
		if err := only("dir", "label-dir", "include"); err != nil {
			return err
		}
		if in.Encoding != textprep.UTF8 && in.Encoding != textprep.Latin1 {
			return fmt.Errorf("%w: --encoding %q; valid: utf8, latin1", errUsage, *encoding)
		}
		switch {
		case *stopPath != "" && *noStop:
			return fmt.Errorf("%w: give --stopwords or --no-stopwords, not both", errUsage)
		case *minDF < 1:
			return fmt.Errorf("%w: --min-df %d, want ≥ 1", errUsage, *minDF)
		case !(*maxDF > 0 && *maxDF <= 1):
			return fmt.Errorf("%w: --max-df %v, want a fraction in (0, 1]", errUsage, *maxDF)
		case *maxVocab < 0:
			return fmt.Errorf("%w: --max-vocab %d, want ≥ 0", errUsage, *maxVocab)
		case *minLen < 0 || *maxLen < 0 || (*maxLen > 0 && *maxLen < *minLen):
			return fmt.Errorf("%w: --min-length %d --max-length %d: want 0 ≤ min ≤ max (max 0: no limit)", errUsage, *minLen, *maxLen)
		case *workers < 0:
			return fmt.Errorf("%w: --workers %d, want ≥ 0", errUsage, *workers)
		case flagSet(fs, "split") && !(*split > 0 && *split < 1):
			return fmt.Errorf("%w: --split %v, want a fraction in (0, 1)", errUsage, *split)
		case flagSet(fs, "seed") && !flagSet(fs, "split"):
			return fmt.Errorf("%w: --seed needs --split", errUsage)
		case *vocabPath != "" && (flagSet(fs, "min-df") || flagSet(fs, "max-df") || flagSet(fs, "max-vocab")):
			return fmt.Errorf("%w: --vocab fixes the vocabulary: --min-df, --max-df and --max-vocab do not apply", errUsage)
		case *labelMap != "" && !in.Labeled():
			return fmt.Errorf("%w: --label-map needs labels (--label-column, --label-dir or a label line field)", errUsage)
		}
		if err := checkOverlap("out", *out, inPath{"input", *input}, inPath{"stopwords", *stopPath}, inPath{"label-map", *labelMap}, inPath{"vocab", *vocabPath}); err != nil {
			return err
		}
		if err := models.CheckOutDir(*out, textprep.IsPrepared); err != nil {
			return err
		}

		cfg := textprep.DefaultConfig()
		cfg.Tokens = textprep.TokenOptions{
			StripHeaders: *stripHeaders, StripQuotes: *stripQuotes, StripFooters: *stripFooters,
			Lowercase: !*noLower, KeepNumbers: *keepNumbers, MinLength: *minLen, MaxLength: *maxLen,
			Stem: !*noStem, Bigrams: *bigrams,
		}
		switch {
		case *noStop:
			cfg.StopWordsSource = "none"
		case *stopPath != "":
			words, f, err := textprep.ReadFile(*stopPath, "stopwords", textprep.ReadStopWords)
			if err != nil {
				return err
			}
			cfg.Tokens.StopWords, cfg.StopWordsSource = words, *stopPath
			cfg.Files = append(cfg.Files, f)
		default:
			cfg.Tokens.StopWords = textprep.EnglishStopWords()
		}
		if *labelMap != "" {
			rules, f, err := textprep.ReadFile(*labelMap, "label-map", textprep.ReadLabelMap)
			if err != nil {
				return err
			}
			cfg.LabelMap = rules
			cfg.Files = append(cfg.Files, f)
		}
		if *vocabPath != "" {
			vocab, f, err := textprep.ReadFile(*vocabPath, "vocab", corpus.ReadVocab)
			if err != nil {
				return err
			}
			if len(vocab) == 0 {
				return framework.Errorf(*vocabPath, 0, "empty vocabulary")
			}
			cfg.Vocab = vocab
			cfg.Files = append(cfg.Files, f)
		}
		cfg.MinDF, cfg.MaxDF, cfg.MaxVocab = *minDF, *maxDF, *maxVocab
		cfg.Split, cfg.Seed, cfg.Workers = *split, *seed, *workers

		src, err := textprep.Open(in)
		if err != nil {
			return err
		}
		defer src.Close()
		pr := e.prepareProgress(*progress)
		cfg.Progress = pr.report
		var man *textprep.Manifest
		err = models.PublishDir(*out, textprep.IsPrepared, func(tmp string) error {
			var err error
			man, err = textprep.Prepare(ctx, src, cfg, tmp)
			return err
		})
		pr.finish()
		if err != nil {
			return err
		}
		r := man.Read
		e.log.Info("read", "documents", r.DocumentsRead, "dropped_by_label_map", r.DroppedByLabelMap, "kept", r.Documents, "tokens", r.Tokens, "distinct_terms", r.DistinctTerms)
		logCounts := func(part string, c *textprep.Counts) {
			kv := []any{"documents", c.Documents, "tokens", c.Tokens, "vocabulary", c.Vocabulary,
				"out_of_vocabulary_tokens", c.DroppedTokens, "empty_documents", c.EmptyDocuments, "emptied_by_vocabulary", c.EmptiedDocuments}
			if part != "" {
				kv = append([]any{"part", part}, kv...)
			}
			e.log.Info("prepared", kv...)
			if len(c.Labels) > 0 {
				e.log.Debug("labels", "part", part, "documents_per_label", fmt.Sprint(c.Labels))
			}
		}
		if man.Counts != nil {
			logCounts("", man.Counts)
		}
		for _, part := range []string{"train", "test"} {
			if c := man.Parts[part]; c != nil {
				logCounts(part, c)
			}
		}
		e.log.Info("saved", "dir", *out)
		return nil
	}
}

// prepProgress shows the phases of prepare as progress bars on a
// terminal, or logs them at most once a second.
type prepProgress struct {
	e     *env
	show  bool
	phase string
	bar   *progressbar.ProgressBar
	last  time.Time
}

func (e *env) prepareProgress(mode string) *prepProgress {
	// Without a bar, log once a second from one second on: short runs stay quiet.
	return &prepProgress{e: e, show: mode == "always" || (mode == "auto" && e.interactive), last: time.Now()}
}

func (p *prepProgress) report(pr textprep.Progress) {
	if pr.Phase != p.phase {
		p.finish()
		p.phase = pr.Phase
		if p.show {
			opts := []progressbar.Option{progressbar.OptionSetWriter(p.e.stderr), progressbar.OptionSetDescription(pr.Phase),
				progressbar.OptionSetElapsedTime(true), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100 * time.Millisecond), progressbar.OptionClearOnFinish()}
			if pr.Phase == "read" {
				opts = append(opts, progressbar.OptionShowBytes(true))
			} else {
				opts = append(opts, progressbar.OptionShowCount())
			}
			total := pr.Total
			if total <= 0 {
				total = -1
			}
			p.bar = progressbar.NewOptions64(total, opts...)
		}
	}
	if p.bar != nil {
		p.bar.Set64(pr.Done)
		return
	}
	if p.e.log.IsDebug() || time.Since(p.last) >= time.Second {
		p.e.log.Info("progress", "phase", pr.Phase, "done", pr.Done, "total", pr.Total)
		p.last = time.Now()
	}
}

func (p *prepProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar = nil
	}
}

var _ pflag.Value = (*stringList)(nil)
