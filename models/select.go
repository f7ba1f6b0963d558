package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/maslda/maslda/framework"
	"github.com/zclconf/go-cty/cty"
)

// The select block (docs/config.md, "Choosing by held-out answers"):
//
//	select {
//	  share = 0.1
//	  candidate "fixed" {}
//	  candidate "learned" {
//	    annotators "confusion" { prior = "learned" }
//	  }
//	}
//
// Each candidate is the configuration with the candidate's blocks (and
// seed, restarts, restart_iters) replacing those of the same kind, as a
// file's blocks replace a preset's. Choose fits every candidate on the
// answers that SplitAnswers keeps, scores each on those it holds out
// (Model.ScoreAnswers) and returns the best candidate's configuration,
// whose source then says `selected = "NAME"` so that a saved model
// rebuilds it.
type selectBlock struct {
	Share      *float64         `hcl:"share,optional"`
	Refit      *string          `hcl:"refit,optional"`
	Folds      *int             `hcl:"folds,optional"`
	Candidates []candidateBlock `hcl:"candidate,block"`
	Where      hcl.Range        `hcl:",def_range"`
}

type candidateBlock struct {
	Name  string    `hcl:"name,label"`
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
}

// candidateFile is what a candidate block may write.
type candidateFile struct {
	Seed       *uint64     `hcl:"seed,optional"`
	Restarts   *int        `hcl:"restarts,optional"`
	RestartIts *int        `hcl:"restart_iters,optional"`
	Topics     *rawBlock   `hcl:"topics,block"`
	Response   *namedBlock `hcl:"response,block"`
	Annotators *namedBlock `hcl:"annotators,block"`
	Inference  *namedBlock `hcl:"inference,block"`
}

// How Choose's caller trains the chosen candidate on every answer.
const (
	RefitWarm  = "warm"  // from the candidate's fit on the kept answers (Run.WarmFrom): no classifier start, no restarts
	RefitFresh = "fresh" // from the configured initialisation, as if the candidate had been written alone
)

// DefaultSelectShare is the share of the answers a select block holds out
// when it does not say.
const DefaultSelectShare = 0.1

// Select is a configuration's select block: candidate configurations
// among which Choose picks by the held-out answers criterion.
type Select struct {
	Share      float64  // the share of the answers held out (SplitAnswers)
	Refit      string   // RefitWarm or RefitFresh
	Folds      int      // ≥ 2: cross-validation over the answers (FoldAnswers) instead of one split
	Candidates []string // the candidates' names, in the file's order
	Chosen     string   // `selected = "NAME"`: the candidate this configuration is ("" before Choose)
	Where      string   // file:line of the block

	file   *fileConfig // the file, its preset applied
	cands  map[string]*candidateFile
	preset string
	name   string // the file's name
	src    []byte
}

// newSelect decodes fc's select block.
func newSelect(fc *fileConfig, preset, name string, src []byte) (*Select, error) {
	b := fc.Select
	where := b.where(name)
	s := &Select{Share: DefaultSelectShare, Where: where, file: fc, cands: map[string]*candidateFile{}, preset: preset, name: name, src: src}
	if b.Share != nil {
		s.Share = *b.Share
	}
	if b.Folds != nil {
		s.Folds = *b.Folds
		if s.Folds < 2 || s.Folds > 100 {
			return nil, fmt.Errorf("%w: %s: select: folds = %d, want 2 to 100 (each answer held out once, every candidate fitted once per fold), or no folds for one split by share", framework.ErrBadInput, where, s.Folds)
		}
		if b.Share != nil {
			return nil, fmt.Errorf("%w: %s: select: share and folds together; folds hold out 1/folds of the answers in turn", framework.ErrBadInput, where)
		}
	}
	s.Refit = RefitWarm
	if b.Refit != nil {
		s.Refit = *b.Refit
	}
	if s.Refit != RefitWarm && s.Refit != RefitFresh {
		return nil, fmt.Errorf("%w: %s: select: refit = %q; valid: %q (from the chosen candidate's fit), %q (from the configured start)", framework.ErrBadInput, where, s.Refit, RefitWarm, RefitFresh)
	}
	if !(s.Share > 0 && s.Share < 1) {
		return nil, fmt.Errorf("%w: %s: select: share = %v, want 0 < share < 1 (the share of the answers held out to score the candidates)", framework.ErrBadInput, where, s.Share)
	}
	if len(b.Candidates) < 2 {
		return nil, fmt.Errorf("%w: %s: select: %d candidates, want at least 2 (candidate \"NAME\" { blocks that replace the configuration's })", framework.ErrBadInput, where, len(b.Candidates))
	}
	for _, c := range b.Candidates {
		cw := fmt.Sprintf("%s:%d", c.Where.Filename, c.Where.Start.Line)
		if c.Name == "" {
			return nil, fmt.Errorf("%w: %s: a candidate with an empty name", framework.ErrBadInput, cw)
		}
		if _, dup := s.cands[c.Name]; dup {
			return nil, fmt.Errorf("%w: %s: candidate %q named twice", framework.ErrBadInput, cw, c.Name)
		}
		var cf candidateFile
		if err := decodeStrict(c.Body, &cf); err != nil {
			return nil, err
		}
		s.cands[c.Name] = &cf
		s.Candidates = append(s.Candidates, c.Name)
	}
	// Every candidate must build: an error in one is reported now, with
	// its line, not after the others have trained.
	for _, n := range s.Candidates {
		if _, err := s.config(n, nil); err != nil {
			return nil, fmt.Errorf("%s: candidate %q: %w", where, n, err)
		}
	}
	return s, nil
}

func (b *selectBlock) where(name string) string {
	if b.Where.Filename == "" {
		return name
	}
	return fmt.Sprintf("%s:%d", b.Where.Filename, b.Where.Start.Line)
}

// config builds candidate n's configuration: the file with the
// candidate's blocks in place of its own; base (may be nil) supplies the
// seed and workers when the candidate does not set them (a caller may
// have changed them after parsing, as `maslda train --seed` does).
func (s *Select) config(n string, base *Config) (*Config, error) {
	cf, ok := s.cands[n]
	if !ok {
		return nil, fmt.Errorf("%w: %s: no candidate %q; candidates: %s", framework.ErrBadInput, s.Where, n, strings.Join(s.Candidates, ", "))
	}
	fc := *s.file
	if cf.Restarts != nil || cf.RestartIts != nil {
		// The candidate's own values: the file's lines would point at
		// the wrong ones (the error names the candidate's block).
		fc.lines = nil
	}
	if cf.Seed != nil {
		fc.Seed = cf.Seed
	}
	if cf.Restarts != nil {
		fc.Restarts = cf.Restarts
	}
	if cf.RestartIts != nil {
		fc.RestartIts = cf.RestartIts
	}
	if cf.Topics != nil {
		fc.Topics = cf.Topics
	}
	if cf.Response != nil {
		fc.Response = cf.Response
	}
	if cf.Annotators != nil {
		fc.Annotators = cf.Annotators
	}
	if cf.Inference != nil {
		fc.Inference = cf.Inference
	}
	src, err := withSelected(s.src, s.name, n)
	if err != nil {
		return nil, err
	}
	cfg, err := fromFile(&fc, s.preset, s.name, src)
	if err != nil {
		return nil, err
	}
	if base != nil {
		if cf.Seed == nil {
			cfg.Seed = base.Seed
		}
		cfg.Workers = base.Workers
	}
	sel := *s
	sel.Chosen = n
	cfg.Select = &sel
	return cfg, nil
}

// SelectCandidate returns candidate name's configuration (its source says
// `selected = "name"`), with c's seed (unless the candidate sets its own)
// and workers. c must have a select block.
func (c *Config) SelectCandidate(name string) (*Config, error) {
	if c.Select == nil {
		return nil, fmt.Errorf("%w: %s: no select block to choose candidate %q from", framework.ErrBadInput, c.SourceName, name)
	}
	return c.Select.config(name, c)
}

// Unresolved reports whether c has a select block whose candidate is not
// chosen yet (Choose does).
func (c *Config) Unresolved() bool { return c.Select != nil && c.Select.Chosen == "" }

// withSelected returns src with the top-level attribute selected = n
// (added or replaced).
func withSelected(src []byte, name, n string) ([]byte, error) {
	if strings.EqualFold(filepath.Ext(name), ".json") {
		var m map[string]any
		if len(strings.TrimSpace(string(src))) > 0 {
			if err := json.Unmarshal(src, &m); err != nil {
				return nil, fmt.Errorf("%w: %s: %v", framework.ErrBadInput, name, err)
			}
		}
		if m == nil {
			m = map[string]any{}
		}
		m["selected"] = n
		return json.MarshalIndent(m, "", "  ")
	}
	f, diags := hclwrite.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
	}
	f.Body().SetAttributeValue("selected", cty.StringVal(n))
	return f.Bytes(), nil
}

// CandidateScore is one candidate's result in a selection.
type CandidateScore struct {
	Name              string  `json:"name"`
	MeanLogPredictive float64 `json:"mean_log_predictive"` // of the held-out answers (AnswerScore.Mean)
	ELBO              float64 `json:"elbo"`                // its final bound on the kept answers
	Iters             int     `json:"iterations"`
	Seconds           float64 `json:"seconds"`
}

// Choice is the outcome of Choose, saved in model.json as "selection".
type Choice struct {
	Share      float64          `json:"share,omitempty"` // the share of the answers held out (one split)
	Folds      int              `json:"folds,omitempty"` // the folds of the answers, each held out once (folds ≥ 2)
	Seed       uint64           `json:"seed"`            // SplitAnswers' seed (the configuration's)
	Answers    int              `json:"answers"`         // answers held out and scored
	Candidates []CandidateScore `json:"candidates"`
	Chosen     string           `json:"chosen"`
	Refit      string           `json:"refit"`
	Config     *Config          `json:"-"` // the chosen candidate's configuration
	fitted     *Run             // the chosen candidate's fit on the kept answers (refit = "warm")
}

// Start prepares r, built from Config over every answer, for its fit:
// with refit = "warm" it starts from the chosen candidate's fit
// (Run.WarmFrom); with "fresh", from its configured initialisation.
func (ch *Choice) Start(r *Run) error {
	if ch.Refit != RefitWarm || ch.fitted == nil {
		return nil
	}
	return r.WarmFrom(ch.fitted)
}

// Choose picks among cfg's candidates (cfg.Select) by the held-out answers
// criterion: it holds out cfg.Select.Share of c's answers (SplitAnswers
// with cfg.Seed), fits each candidate on the rest and scores it on them
// (Model.ScoreAnswers); the candidate with the highest mean log predictive
// probability wins (the first on a tie). The caller then builds the
// returned Choice.Config on every answer, calls Choice.Start and fits it. obs (may be nil) gives the
// observer of each candidate's fit. A candidate whose annotator model is
// not a framework.AnswerPredictor is an error.
func Choose(ctx context.Context, cfg *Config, reg *framework.Registry, c *framework.Corpus, obs func(candidate string) framework.Observer) (*Choice, error) {
	if cfg.Select == nil {
		return nil, fmt.Errorf("%w: %s: no select block", framework.ErrBadInput, cfg.SourceName)
	}
	sel := cfg.Select
	if c.Answers == nil {
		return nil, fmt.Errorf("%w: %s: select needs answers to hold out", framework.ErrBadInput, sel.Where)
	}
	// The splits: one (share) or every fold of FoldAnswers.
	type split struct {
		train *framework.Corpus
		held  [][]framework.Answer
	}
	var splits []split
	if sel.Folds >= 2 {
		for f := range sel.Folds {
			kept, held, err := FoldAnswers(c.Answers, sel.Folds, f, cfg.Seed)
			if err != nil {
				return nil, err
			}
			tr := *c
			tr.Answers = kept
			splits = append(splits, split{&tr, held})
		}
	} else {
		kept, held, err := SplitAnswers(c.Answers, sel.Share, cfg.Seed)
		if err != nil {
			return nil, err
		}
		tr := *c
		tr.Answers = kept
		splits = append(splits, split{&tr, held})
	}
	n := 0
	for _, sp := range splits {
		for _, h := range sp.held {
			n += len(h)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: %s: select: share %v of %d answers holds none out; raise the share", framework.ErrBadInput, sel.Where, sel.Share, c.Answers.Count())
	}
	ch := &Choice{Share: sel.Share, Folds: sel.Folds, Seed: cfg.Seed, Answers: n, Refit: sel.Refit}
	if sel.Folds >= 2 {
		ch.Share = 0
	}
	best := math.Inf(-1)
	for _, name := range sel.Candidates {
		cc, err := cfg.SelectCandidate(name)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		cs := CandidateScore{Name: name}
		var total AnswerScore
		var first *Run
		for i, sp := range splits {
			r, err := Build(cc, reg, sp.train)
			if err != nil {
				return nil, fmt.Errorf("candidate %q: %w", name, err)
			}
			if _, ok := r.Model.Noise.(framework.AnswerPredictor); !ok {
				return nil, fmt.Errorf("%w: %s: candidate %q: annotators %q cannot score held-out answers (no predictive probability of an answer)", framework.ErrBadInput, sel.Where, name, annotatorsName(cc))
			}
			var o framework.Observer
			if obs != nil {
				o = obs(name)
			}
			res, err := r.Fit(ctx, o)
			if err != nil {
				return nil, fmt.Errorf("candidate %q: %w", name, err)
			}
			sc, err := r.Model.ScoreAnswers(ctx, sp.held)
			if err != nil {
				return nil, fmt.Errorf("candidate %q: %w", name, err)
			}
			total.Sum += sc.Sum
			total.N += sc.N
			cs.ELBO += res.ELBO / float64(len(splits))
			cs.Iters += res.Iters
			if i == 0 {
				first = r
			}
		}
		cs.MeanLogPredictive, cs.Seconds = total.Mean(), time.Since(start).Seconds()
		ch.Candidates = append(ch.Candidates, cs)
		if cs.MeanLogPredictive > best {
			best, ch.Chosen, ch.Config = cs.MeanLogPredictive, name, cc
			if ch.Refit == RefitWarm {
				ch.fitted = first
			}
		}
	}
	if ch.Config == nil {
		return nil, fmt.Errorf("%s: select: no candidate scored the held-out answers (every score NaN)", sel.Where)
	}
	if ch.Refit == RefitWarm && ch.Config.Restarts > 1 {
		// The candidate's restarts have run; the warm refit continues
		// from the one they kept.
		c := *ch.Config
		c.Restarts = 1
		ch.Config = &c
	}
	return ch, nil
}

func annotatorsName(c *Config) string {
	if c.Annotators == nil {
		return "(none)"
	}
	return c.Annotators.Name
}
