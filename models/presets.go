package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/maslda/maslda/framework"
)

// Preset is a named composition of the model's blocks (`model = "NAME"` at
// the top of a configuration; docs/design.md "Named compositions", MODEL.md
// §6). Its blocks are HCL text; a block of the same kind written in the
// configuration replaces the preset's whole block.
type Preset struct {
	Name        string
	Description string
	Source      string // the preset's blocks, native HCL
}

// presets is the table of docs/design.md. Plug-in names are resolved when
// the model is built, so a preset may name a plug-in that is not linked in
// (Build then fails with the registry's error).
var presets = []Preset{
	{"ma-sldac", "MA-sLDAc (MODEL.md §2): softmax response, confusion-matrix annotators, batch EM", `
response "softmax" {}
annotators "confusion" {}
inference "batch" {}
`},
	{"ma-sldar", "MA-sLDAr (MODEL.md §3): Gaussian response, bias/precision annotators, batch EM", `
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
}

// Presets lists the named compositions, in the order of docs/design.md.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// PresetNames lists the preset names, sorted.
func PresetNames() []string {
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	sort.Strings(names)
	return names
}

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, bool) {
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
	pf, diags := hclparse.NewParser().ParseHCL([]byte(p.Source), fmt.Sprintf("preset %q", name))
	if diags.HasErrors() {
		return "", fmt.Errorf("models: preset %q: %s", name, diags.Error()) // a bug in the table (tested)
	}
	var pc fileConfig
	if err := decodeStrict(pf.Body, &pc); err != nil {
		return "", fmt.Errorf("models: preset %q: %w", name, err)
	}
	where := fmt.Sprintf("%s:%d (model %q)", file, line, name)
	if fc.Topics == nil {
		fc.Topics = pc.Topics
	}
	for _, b := range []struct{ dst, src **namedBlock }{{&fc.Response, &pc.Response}, {&fc.Annotators, &pc.Annotators}, {&fc.Inference, &pc.Inference}} {
		if *b.dst == nil && *b.src != nil {
			*b.dst = *b.src
			(*b.dst).where = where
		}
	}
	return name, nil
}
