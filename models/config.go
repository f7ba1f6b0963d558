package models

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// Config is a run's configuration, read from HCL (or HCL's JSON syntax):
//
//	seed = 1
//	workers = 0
//	topics { k = 20  alpha = 0.1  tau = 0.1 }
//	response "softmax" { l2 = 0.01 }
//	annotators "confusion" { omega = 1 }
//	inference "svi" { batch_size = 500  kappa = 0.6  delay = 1  epochs = 20 }
//
// Every block is optional: no response and no annotators is plain LDA; no
// inference block is batch EM with its defaults. Labelled blocks name
// plug-ins in the registry; each plug-in decodes its own block strictly.
//
// `model = "NAME"` names a preset (Presets: MA-sLDAc/r and the baselines
// of MODEL.md §6) whose blocks are used for every kind of block the file
// does not write; a response, annotators or inference block written in the
// file replaces the preset's block of the same kind entirely. The topics
// block is the exception: every file sets its k, so the preset's topics
// settings (the aggregators' k = 1, ma-sldar's α = 1) are defaults that
// the file's topics block overrides one setting at a time:
//
//	model = "lda+raykar"
//	topics { k = 50 }
type Config struct {
	Model      string // the preset named by `model` ("" for none)
	Seed       uint64 // random seed (default 1)
	Workers    int    // E-step goroutines; 0 = all cores
	Restarts   int    // initialisations tried before training (default: DefaultRestarts for a model with a response under batch EM with k > 1, else 1)
	RestartIts int    // iterations run on each candidate (default 20 with a response: plain LDA's; 5 without)
	// RestartsDefault says that Restarts was not written in the file:
	// a warm start then runs one start instead of refusing restarts.
	RestartsDefault bool
	// Consensus is the number of fits from seeds Seed, Seed+1, … whose
	// medoid Fit keeps (docs/design.md, "Consensus among seeds"); default
	// DefaultConsensus for a crowd model (a response and annotators)
	// under batch EM with k > 1 whose truth is a class (Build sets 1 for
	// any other, and for a response with a supervision weight), else 1.
	Consensus int
	// ConsensusDefault says that Consensus was not written in the file:
	// an engine's driver (BuildGlobals) then runs one fit instead of
	// refusing. A warm start runs one fit either way (Run.Fit).
	ConsensusDefault bool
	Topics           topics.Config // the topics block, defaults filled in
	Response         *Component    // nil for plain LDA
	Annotators       *Component    // nil without annotators
	Inference        Component     // default: batch
	Select           *Select       // the select block (nil without one); see Select and SelectCandidate

	Source     []byte // the file's text, saved with a trained model
	SourceName string // the file's name; its extension selects the syntax

	// fileAlpha is θ's prior α as the configuration gave it before a
	// preset's topics settings became defaults under the file's own
	// (no preset set α then): the file's topics block's α, else the
	// topics default. Load uses it for a model saved without its α in
	// model.json (Manifest.Alpha).
	fileAlpha float64
}

// Component is a labelled block: a plug-in name and its parameters.
type Component struct {
	Name   string
	Params framework.Params
	Where  string // "file:line" of the block, for errors ("" when built in code)
}

func component(b *namedBlock) *Component {
	where := b.where
	if where == "" {
		where = fmt.Sprintf("%s:%d", b.Where.Filename, b.Where.Start.Line)
	}
	return &Component{Name: b.Name, Params: hclParams{b.Body}, Where: where}
}

type fileConfig struct {
	Model      *hcl.Attribute `hcl:"model,optional"`
	Seed       *uint64        `hcl:"seed,optional"`
	Workers    *int           `hcl:"workers,optional"`
	Restarts   *int           `hcl:"restarts,optional"`
	RestartIts *int           `hcl:"restart_iters,optional"`
	Consensus  *int           `hcl:"consensus,optional"`
	Topics     *rawBlock      `hcl:"topics,block"`
	Response   *namedBlock    `hcl:"response,block"`
	Annotators *namedBlock    `hcl:"annotators,block"`
	Inference  *namedBlock    `hcl:"inference,block"`
	Select     *selectBlock   `hcl:"select,block"`
	Selected   *string        `hcl:"selected,optional"`

	// presetTopics is the preset's topics block (applyPreset), decoded
	// under the file's own: its settings are defaults that the file's
	// topics block overrides one by one. Untagged.
	presetTopics *rawBlock

	// lines maps a top-level attribute to the line it is on (attrLines),
	// for fromFile's errors; untagged, so decoding leaves it alone.
	lines map[string]int
}

// checkedAttrs are the top-level numbers fromFile checks.
var checkedAttrs = []string{"workers", "restarts", "restart_iters", "consensus"}

// attrLines maps each of checkedAttrs written at the top level of body to
// its line (nil when the body says nothing of them).
func attrLines(body hcl.Body) map[string]int {
	schema := &hcl.BodySchema{}
	for _, n := range checkedAttrs {
		schema.Attributes = append(schema.Attributes, hcl.AttributeSchema{Name: n})
	}
	content, _, _ := body.PartialContent(schema)
	if content == nil || len(content.Attributes) == 0 {
		return nil
	}
	lines := make(map[string]int, len(content.Attributes))
	for n, a := range content.Attributes {
		lines[n] = a.Range.Start.Line
	}
	return lines
}

// at is where key was written: "file:line", or the file's name when the
// line is not known.
func (fc *fileConfig) at(name, key string) string {
	if l := fc.lines[key]; l > 0 {
		return fmt.Sprintf("%s:%d", name, l)
	}
	return name
}

type rawBlock struct {
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
}

type namedBlock struct {
	Name  string    `hcl:"name,label"`
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
	where string    // for a block taken from a preset: the file's `model` line
}

// hclParams decodes a block strictly.
type hclParams struct{ body hcl.Body }

func (p hclParams) Decode(into any) error { return decodeStrict(p.body, into) }

// decodeStrict decodes body into v (a pointer to a struct with hcl tags)
// without variables; see DecodeStrict.
func decodeStrict(body hcl.Body, v any) error { return DecodeStrict(body, nil, v, "") }

// DecodeStrict decodes an HCL body into v (a pointer to a struct with hcl
// tags) in the evaluation context ctx (nil: no variables), turning an
// unknown argument or block into an error that lists the valid names and,
// when variables is not empty, an unknown variable into one that ends with
// it (the list of defined variables, as the caller words it). Errors wrap
// framework.ErrBadInput and carry HCL's file:line ranges. It is the
// decoder of configuration files and of `maslda experiment` specs.
func DecodeStrict(body hcl.Body, ctx *hcl.EvalContext, v any, variables string) error {
	diags := gohcl.DecodeBody(body, ctx, v)
	if !diags.HasErrors() {
		return nil
	}
	schema, _ := gohcl.ImpliedBodySchema(v)
	var valid []string
	for _, a := range schema.Attributes {
		valid = append(valid, a.Name)
	}
	for _, b := range schema.Blocks {
		valid = append(valid, b.Type+" {}")
	}
	sort.Strings(valid)
	list := "(none)"
	if len(valid) > 0 {
		list = strings.Join(valid, ", ")
	}
	for _, d := range diags {
		switch {
		case strings.HasPrefix(d.Summary, "Unsupported") || strings.HasPrefix(d.Summary, "Extraneous"):
			d.Detail = strings.TrimSpace(d.Detail + " Valid: " + list + ".")
		case variables != "" && (strings.HasPrefix(d.Summary, "Unknown variable") || strings.HasPrefix(d.Summary, "Variables not allowed")):
			d.Detail = strings.TrimSpace(d.Detail + " " + variables)
		}
	}
	return fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
}

// ParseConfig parses a configuration from src; name's extension chooses the
// syntax (".json": HCL's JSON syntax; anything else: native HCL).
func ParseConfig(src []byte, name string) (*Config, error) {
	src = bytes.TrimPrefix(src, []byte("\ufeff")) // the rule of every reader: a leading byte-order mark is ignored
	p := hclparse.NewParser()
	var f *hcl.File
	var diags hcl.Diagnostics
	if strings.EqualFold(filepath.Ext(name), ".json") {
		f, diags = p.ParseJSON(src, name)
	} else {
		f, diags = p.ParseHCL(src, name)
	}
	if diags.HasErrors() {
		for _, d := range diags {
			if strings.HasPrefix(d.Summary, "Missing newline after") || strings.HasPrefix(d.Summary, "Invalid single-argument block") {
				d.Detail += " (HCL allows one argument in a one-line block: put each argument on its own line.)"
			}
		}
		return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
	}
	var fc fileConfig
	if err := decodeStrict(f.Body, &fc); err != nil {
		return nil, err
	}
	fc.lines = attrLines(f.Body)
	preset, err := applyPreset(&fc, name)
	if err != nil {
		return nil, err
	}
	src = append([]byte(nil), src...)
	base, err := fromFile(&fc, preset, name, src)
	if err != nil {
		return nil, err
	}
	if fc.Select == nil {
		if fc.Selected != nil {
			return nil, fmt.Errorf("%w: %s: selected = %q but the configuration has no select block", framework.ErrBadInput, name, *fc.Selected)
		}
		return base, nil
	}
	if base.Select, err = newSelect(&fc, preset, name, src); err != nil {
		return nil, err
	}
	if fc.Selected == nil {
		return base, nil
	}
	return base.SelectCandidate(*fc.Selected)
}

// fromFile builds a configuration from a decoded file (its preset
// applied), without its select block.
func fromFile(fc *fileConfig, preset, name string, src []byte) (*Config, error) {
	cfg := &Config{Model: preset, Seed: 1, Restarts: 1, RestartIts: 5, Consensus: 1, Topics: topics.Defaults(), Inference: Component{Name: "batch", Params: framework.NoParams{}},
		Source: src, SourceName: filepath.Base(name)}
	if fc.Seed != nil {
		cfg.Seed = *fc.Seed
	}
	if fc.Workers != nil {
		if *fc.Workers < 0 {
			return nil, fmt.Errorf("%w: %s: workers = %d, want ≥ 0 (0 = all cores)", framework.ErrBadInput, fc.at(name, "workers"), *fc.Workers)
		}
		cfg.Workers = *fc.Workers
	}
	if fc.Restarts != nil {
		if *fc.Restarts < 1 {
			return nil, fmt.Errorf("%w: %s: restarts = %d, want ≥ 1", framework.ErrBadInput, fc.at(name, "restarts"), *fc.Restarts)
		}
		cfg.Restarts = *fc.Restarts
	}
	if fc.RestartIts != nil {
		if *fc.RestartIts < 1 {
			return nil, fmt.Errorf("%w: %s: restart_iters = %d, want ≥ 1", framework.ErrBadInput, fc.at(name, "restart_iters"), *fc.RestartIts)
		}
		cfg.RestartIts = *fc.RestartIts
	}
	if fc.Consensus != nil {
		if *fc.Consensus < 1 {
			return nil, fmt.Errorf("%w: %s: consensus = %d, want ≥ 1", framework.ErrBadInput, fc.at(name, "consensus"), *fc.Consensus)
		}
		cfg.Consensus = *fc.Consensus
	}
	cfg.fileAlpha = cfg.Topics.Alpha
	if fc.Topics != nil {
		own := topics.Defaults()
		if err := decodeStrict(fc.Topics.Body, &own); err != nil {
			return nil, err
		}
		cfg.fileAlpha = own.Alpha
	}
	// The preset's topics settings first, then the file's over them.
	for _, b := range []*rawBlock{fc.presetTopics, fc.Topics} {
		if b == nil {
			continue
		}
		if err := decodeStrict(b.Body, &cfg.Topics); err != nil {
			return nil, err
		}
	}
	if err := cfg.Topics.Validate(); err != nil {
		where := name
		if fc.Topics != nil && fc.Topics.Where.Filename != "" {
			where = fmt.Sprintf("%s:%d", fc.Topics.Where.Filename, fc.Topics.Where.Start.Line)
		}
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if fc.Response != nil {
		cfg.Response = component(fc.Response)
	}
	if fc.Annotators != nil {
		cfg.Annotators = component(fc.Annotators)
	}
	if fc.Inference != nil {
		cfg.Inference = *component(fc.Inference)
	}
	if cfg.Consensus > 1 && cfg.Response == nil {
		return nil, fmt.Errorf("%w: %s: consensus = %d compares the fits' truths and needs a response block (plain LDA has no truth)", framework.ErrBadInput, fc.at(name, "consensus"), cfg.Consensus)
	}
	if cfg.Annotators != nil && cfg.Response == nil {
		return nil, fmt.Errorf("%w: %s: an annotators block needs a response block (the true target the annotators answer about)", framework.ErrBadInput, name)
	}
	if cfg.Response != nil {
		if fc.Restarts == nil && cfg.Inference.Name == "batch" && cfg.Topics.K > 1 {
			cfg.Restarts, cfg.RestartsDefault = DefaultRestarts, true
		}
		if fc.RestartIts == nil {
			cfg.RestartIts = DefaultRestartIters
		}
		if fc.Consensus == nil && cfg.Annotators != nil && cfg.Inference.Name == "batch" && cfg.Topics.K > 1 {
			cfg.Consensus, cfg.ConsensusDefault = DefaultConsensus, true
		}
	}
	return cfg, nil
}

// The restarts of a model with a response under batch EM (docs/design.md,
// "Initialisation and restarts"): DefaultRestarts candidates, each
// DefaultRestartIters iterations of plain LDA, the best bound kept.
const (
	DefaultRestarts     = 4
	DefaultRestartIters = 20
)

// DefaultConsensus is the number of seeds' fits of a crowd model with a
// categorical truth under batch EM when the file does not set consensus
// (docs/design.md, "Consensus among seeds").
const DefaultConsensus = 3

// Check looks the configured plug-in names up in reg (nil: framework.Default)
// without building anything, so that an unknown name is reported before any
// data is read, with the file and line of its block.
func (c *Config) Check(reg *framework.Registry) error {
	if reg == nil {
		reg = framework.Default
	}
	for _, b := range []struct {
		kind string
		c    *Component
	}{{framework.KindResponse, c.Response}, {framework.KindAnnotators, c.Annotators}, {framework.KindInference, &c.Inference}} {
		if b.c == nil {
			continue
		}
		if err := reg.Check(b.kind, b.c.Name); err != nil {
			if b.c.Where != "" {
				return fmt.Errorf("%s: %w", b.c.Where, err)
			}
			return err
		}
	}
	if c.Select != nil && c.Select.Chosen == "" {
		// Every candidate, so that a misspelt plug-in in the last one is
		// reported before the first one trains.
		for _, n := range c.Select.Candidates {
			cc, err := c.SelectCandidate(n)
			if err != nil {
				return err
			}
			if err := cc.Check(reg); err != nil {
				return fmt.Errorf("candidate %q: %w", n, err)
			}
		}
	}
	return nil
}

// LoadConfig reads and parses a configuration file.
func LoadConfig(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading configuration: %w", err)
	}
	return ParseConfig(src, path)
}

// DefaultConfig is plain LDA with batch EM and every default.
func DefaultConfig() *Config {
	cfg, err := ParseConfig(nil, "default.hcl")
	if err != nil {
		panic(errors.Join(errors.New("models: default configuration"), err))
	}
	return cfg
}
