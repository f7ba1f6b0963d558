package models

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/maslda/maslda/framework"
)

// Preset is a named composition of the model's blocks (`model = "NAME"` at
// the top of a configuration; docs/design.md "Named compositions", MODEL.md
// §6). Its blocks are HCL text; a response, annotators or inference block
// written in the configuration replaces the preset's whole block, while
// the preset's topics settings are defaults under the configuration's own
// topics block, which overrides them one at a time.
type Preset struct {
	Name        string
	Description string
	Source      string // the preset's blocks, native HCL
}

// presets is the table of docs/design.md. Plug-in names are resolved when
// the model is built, so a preset may name a plug-in that is not linked in
// (Build then fails with the registry's error).
var presets = []Preset{
	{"ma-sldac", "MA-sLDAc (MODEL.md §2): softmax response, confusion-matrix annotators (communities, each annotator weighed by its own answers, when the answers are few per annotator; near-constant answerers found at the classifier start are ignored; the communities' rows of a class with few answers held at their start), batch EM; a fresh restart's exact sweeps only where its cheap half ends away from the warm sweep", `
topics {
  fresh_exact = "unsettled"
}
response "softmax" {}
annotators "confusion" {
  prior      = "auto"
  prior_rate = 0.1
  membership = "structured"
  constant   = "almost"
  prior_rare = 0.25
}
inference "batch" {}
`},
	{"ma-sldar", "MA-sLDAr (MODEL.md §3): Gaussian response, bias/precision annotators, batch EM; θ's prior α = 1 (predicts new documents far better than 0.1 on the movie reviews and we8there)", `
topics {
  alpha = 1
}
response "gaussian" {}
annotators "bias-precision" {}
inference "batch" {}
`},
	{"lda+logreg(mv)", "LDA, then logistic regression on φ̄ of the majority vote", `
response "logreg" {}
annotators "perfect" {
  aggregate = "majority"
}
inference "two-stage" {}
`},
	{"lda+linreg(mean)", "LDA, then ridge regression on φ̄ of the mean answer", `
response "linreg" {}
annotators "perfect" {
  aggregate = "mean"
}
inference "two-stage" {}
`},
	{"slda(mv)", "supervised LDA (softmax) on the majority vote", `
response "softmax" {}
annotators "perfect" {
  aggregate = "majority"
}
inference "batch" {}
`},
	{"slda(mean)", "supervised LDA (Gaussian) on the mean answer", `
response "gaussian" {}
annotators "perfect" {
  aggregate = "mean"
}
inference "batch" {}
`},
	{"lda+raykar", "LDA, then Raykar et al. 2010: logistic regression on φ̄ with point-estimated confusion matrices", `
response "logreg" {}
annotators "confusion" {
  estimate = "point"
  init     = "majority"
  diagonal = 0
}
inference "two-stage" {}
`},
	{"dawid-skene", "Dawid–Skene: class prior and point-estimated confusion matrices, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "confusion" {
  estimate = "point"
  init     = "majority"
  diagonal = 0
}
inference "batch" {}
`},
	{"dawid-skene(bayes)", "Bayesian Dawid–Skene: Dirichlet posteriors of the class prior and the confusion matrices, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {}
annotators "confusion" {
  init = "majority"
}
inference "batch" {}
`},
	{"communities", "community-based Dawid–Skene (Venanzi et al. 2014): every annotator's confusion matrix is drawn near the learned matrix of one of 3 communities, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {}
annotators "confusion" {
  init        = "majority"
  prior       = "communities"
  communities = 3
}
inference "batch" {}
`},
	{"majority-vote", "majority vote: the class with the most answers (ties split by the class prior), documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "perfect" {
  aggregate = "majority"
}
inference "batch" {}
`},
	{"wawa", "weighted majority vote (Wawa): each annotator weighs its agreement with the majority vote, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "perfect" {
  aggregate = "wawa"
}
inference "batch" {}
`},
	{"mace", "MACE (Hovy et al. 2013): class prior and each annotator's competence and spam distribution, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "mace" {}
inference "batch" {}
`},
	{"one-coin", "one-coin Dawid–Skene: class prior and one accuracy per annotator (Beta posterior), wrong answers uniform, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "one-coin" {}
inference "batch" {}
`},
	{"glad", "GLAD (Whitehill et al. 2009): class prior, each annotator's ability and each task's difficulty, documents ignored (k = 1)", `
topics {
  k = 1
}
response "class-prior" {
  estimate = "point"
}
annotators "glad" {}
inference "batch" {}
`},
}

// presetsMu guards presets: RegisterPreset may run in any package's init,
// lookups at any time.
var presetsMu sync.RWMutex

// RegisterPreset adds a named composition from outside this package (a
// plug-in's init: `model = "NAME"` then works in configuration files and
// `maslda components` lists it). Like the Register functions of plug-ins
// it panics on an empty name, a name already registered, or blocks that
// do not parse as a configuration's blocks (topics, response, annotators,
// inference); plug-in names are resolved when a model is built, as for the
// built-in presets.
func RegisterPreset(p Preset) {
	if err := checkPreset(p); err != nil {
		panic("models: RegisterPreset: " + err.Error())
	}
	presetsMu.Lock()
	defer presetsMu.Unlock()
	for _, q := range presets {
		if q.Name == p.Name {
			panic(fmt.Sprintf("models: RegisterPreset called twice for %q", p.Name))
		}
	}
	presets = append(presets, p)
}

// checkPreset parses a preset's blocks as applyPreset will.
func checkPreset(p Preset) error {
	if p.Name == "" {
		return fmt.Errorf("a preset with an empty name")
	}
	_, err := parsePreset(p)
	return err
}

// parsePreset decodes a preset's blocks.
func parsePreset(p Preset) (*fileConfig, error) {
	pf, diags := hclparse.NewParser().ParseHCL([]byte(p.Source), fmt.Sprintf("preset %q", p.Name))
	if diags.HasErrors() {
		return nil, fmt.Errorf("preset %q: %s", p.Name, diags.Error())
	}
	var pc fileConfig
	if err := decodeStrict(pf.Body, &pc); err != nil {
		return nil, fmt.Errorf("preset %q: %w", p.Name, err)
	}
	if pc.Model != nil || pc.Seed != nil || pc.Workers != nil || pc.Restarts != nil || pc.RestartIts != nil || pc.Selected != nil {
		return nil, fmt.Errorf("preset %q: only blocks (topics, response, annotators, inference, select), no model, seed, workers, restarts, restart_iters or selected", p.Name)
	}
	return &pc, nil
}

// Presets lists the named compositions: the built-in ones in the order of
// docs/design.md, then those registered, in order of registration.
func Presets() []Preset {
	presetsMu.RLock()
	defer presetsMu.RUnlock()
	return append([]Preset(nil), presets...)
}

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	presetsMu.RLock()
	defer presetsMu.RUnlock()
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, bool) {
	presetsMu.RLock()
	defer presetsMu.RUnlock()
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// applyPreset fills the blocks fc does not write from the preset named by
// its `model` attribute, and returns the preset's name ("" without one). A
// block taken from the preset is located at the `model` line of file.
func applyPreset(fc *fileConfig, file string) (string, error) {
	if fc.Model == nil {
		return "", nil
	}
	line := fc.Model.Range.Start.Line
	var name string
	if diags := gohcl.DecodeExpression(fc.Model.Expr, nil, &name); diags.HasErrors() {
		return "", framework.Errorf(file, line, "model: %s", diags.Error())
	}
	p, ok := LookupPreset(name)
	if !ok {
		return "", framework.Errorf(file, line, "unknown model %q; presets: %s", name, strings.Join(PresetNames(), ", "))
	}
	ppc, err := parsePreset(p)
	if err != nil {
		return "", fmt.Errorf("models: %w", err) // a bug in the table (tested) or in RegisterPreset's check
	}
	pc := *ppc
	where := fmt.Sprintf("%s:%d (model %q)", file, line, name)
	fc.presetTopics = pc.Topics // defaults under the file's own topics block
	if fc.Select == nil {
		fc.Select = pc.Select
	}
	for _, b := range []struct{ dst, src **namedBlock }{{&fc.Response, &pc.Response}, {&fc.Annotators, &pc.Annotators}, {&fc.Inference, &pc.Inference}} {
		if *b.dst == nil && *b.src != nil {
			*b.dst = *b.src
			(*b.dst).where = where
		}
	}
	return name, nil
}
