package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
	"github.com/zclconf/go-cty/cty"
)

// Metric kinds of a spec.
const (
	MetricClassification = "classification"
	MetricRegression     = "regression"
)

// TemplateVars are the variables a model's configuration template may use,
// written ${name}.
var TemplateVars = []string{"alpha", "k", "omega", "seed", "tau"}

// Spec is a parsed experiment specification. Paths are as the children
// will be given them: relative to the current directory or absolute.
type Spec struct {
	Name     string // experiment name: the `name` attribute, default the file's base name without extension
	File     string // the spec file as given
	Dir      string // its directory (${spec_dir})
	DataRoot string // ${data}: Options.DataRoot, else data_root relative to Dir; "" when neither is given
	Out      string // output directory
	Work     string // ${work}: Out/data, where the steps write
	Metric   string // MetricClassification, MetricRegression, or "": whatever each run's eval reports
	Workers  int    // E-step goroutines of every run (train and predict --workers); ≥ 1
	Data     Data
	Steps    []Step  // in file order
	Models   []Model // in file order
	Grid     Grid    // the spec's axes (a model may override them)
}

// Data are the files every run reads; "" when not given.
type Data struct {
	TrainDocs, TrainIDs, TrainVocab string
	VocabSize                       int // train --vocab-size (0: not given)
	Answers, AnswersWide, Missing   string
	TrainTruth, TrainTruthColumn    string
	TestDocs, TestIDs               string
	TestTruth, TestTruthColumn      string

	where map[string]string // attribute name → "file:line", for errors
}

// Step is a maslda command run once before the cells (prepare or simulate)
// and cached in Spec.Work.
type Step struct {
	Command string // "prepare" or "simulate"
	Name    string // the block's label
	Args    []string
	Where   string // "file:line" of the block
}

// Model is one model of the spec: a name and a configuration template.
type Model struct {
	Name     string
	Config   string          // the template's path
	Template string          // its text
	Uses     map[string]bool // the template variables it mentions
	Grid     Grid            // its axes: the model block's own, else the spec's
	Where    string          // "file:line" of the model block
}

// Grid holds the values of every axis.
type Grid struct {
	K     []int
	Alpha []float64
	Tau   []float64
	Omega []float64
	Seeds []uint64
}

// Options are the command line's say in a spec.
type Options struct {
	DataRoot string // the root ${data} stands for (--data); default: the spec's data_root, relative to the spec file
	Out      string // output directory; default results/<name>
}

// LoadSpec reads and parses a spec file.
func LoadSpec(path string, opt Options) (*Spec, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading spec: %w", err)
	}
	return ParseSpec(src, path, opt)
}

type fileSpec struct {
	Name     *string     `hcl:"name,optional"`
	DataRoot *string     `hcl:"data_root,optional"`
	Metric   *string     `hcl:"metric,optional"`
	Workers  *int        `hcl:"workers,optional"`
	K        []int       `hcl:"k,optional"`
	Alpha    []float64   `hcl:"alpha,optional"`
	Tau      []float64   `hcl:"tau,optional"`
	Omega    []float64   `hcl:"omega,optional"`
	Seeds    []uint64    `hcl:"seeds,optional"`
	Data     *rawBlock   `hcl:"data,block"`
	Models   []namedBody `hcl:"model,block"`
}

type rawBlock struct {
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
}

type namedBody struct {
	Name  string    `hcl:"name,label"`
	Body  hcl.Body  `hcl:",remain"`
	Where hcl.Range `hcl:",def_range"`
}

type dataFields struct {
	TrainDocs        string      `hcl:"train_docs"`
	TrainIDs         *string     `hcl:"train_ids,optional"`
	TrainVocab       *string     `hcl:"train_vocab,optional"`
	VocabSize        *int        `hcl:"vocab_size,optional"`
	Answers          *string     `hcl:"answers,optional"`
	AnswersWide      *string     `hcl:"answers_wide,optional"`
	Missing          *string     `hcl:"missing,optional"`
	TrainTruth       *string     `hcl:"train_truth,optional"`
	TrainTruthColumn *string     `hcl:"train_truth_column,optional"`
	TestDocs         *string     `hcl:"test_docs,optional"`
	TestIDs          *string     `hcl:"test_ids,optional"`
	TestTruth        *string     `hcl:"test_truth,optional"`
	TestTruthColumn  *string     `hcl:"test_truth_column,optional"`
	Prepare          []stepBlock `hcl:"prepare,block"`
	Simulate         []stepBlock `hcl:"simulate,block"`
}

type stepBlock struct {
	Name  string    `hcl:"name,label"`
	Args  []string  `hcl:"args"`
	Where hcl.Range `hcl:",def_range"`
}

type modelFields struct {
	Config string    `hcl:"config"`
	K      []int     `hcl:"k,optional"`
	Alpha  []float64 `hcl:"alpha,optional"`
	Tau    []float64 `hcl:"tau,optional"`
	Omega  []float64 `hcl:"omega,optional"`
	Seeds  []uint64  `hcl:"seeds,optional"`
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseSpec parses a spec from src; path names it in errors and anchors
// relative paths.
func ParseSpec(src []byte, path string, opt Options) (*Spec, error) {
	f, diags := hclparse.NewParser().ParseHCL(src, path)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
	}
	s := &Spec{File: path, Dir: filepath.Dir(path), Workers: 1, Data: Data{where: map[string]string{}}}

	// Pass 1: name and data_root, which the variables of pass 2 depend on.
	content, _, diags := f.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "data_root"}}})
	if diags.HasErrors() {
		return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, diags.Error())
	}
	s.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if a := content.Attributes["name"]; a != nil {
		if d := gohcl.DecodeExpression(a.Expr, nil, &s.Name); d.HasErrors() {
			return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, d.Error())
		}
		if !safeName.MatchString(s.Name) {
			return nil, framework.Errorf(path, a.Range.Start.Line, "name %q: want letters, digits, '.', '_' or '-' (it names the default output directory)", s.Name)
		}
	}
	s.DataRoot = opt.DataRoot
	if a := content.Attributes["data_root"]; a != nil && s.DataRoot == "" {
		var root string
		if d := gohcl.DecodeExpression(a.Expr, nil, &root); d.HasErrors() {
			return nil, fmt.Errorf("%w: %s", framework.ErrBadInput, d.Error())
		}
		s.DataRoot = s.rel(root, false)
	}
	s.Out = opt.Out
	if s.Out == "" {
		s.Out = filepath.Join("results", s.Name)
	}
	s.Work = filepath.Join(s.Out, "data")

	// Pass 2: everything, with ${data}, ${work} and ${spec_dir} defined.
	vars := map[string]cty.Value{"work": cty.StringVal(s.Work), "spec_dir": cty.StringVal(s.Dir)}
	if s.DataRoot != "" {
		vars["data"] = cty.StringVal(s.DataRoot)
	}
	ctx := &hcl.EvalContext{Variables: vars}
	var fs fileSpec
	if err := decodeStrict(f.Body, ctx, &fs); err != nil {
		return nil, err
	}
	if fs.Metric != nil {
		switch *fs.Metric {
		case MetricClassification, MetricRegression:
			s.Metric = *fs.Metric
		default:
			return nil, framework.Errorf(path, attrLine(f.Body, "metric"), "metric = %q; valid: %s, %s (or leave it out: each run's eval decides)", *fs.Metric, MetricClassification, MetricRegression)
		}
	}
	if fs.Workers != nil {
		if *fs.Workers < 1 {
			return nil, framework.Errorf(path, attrLine(f.Body, "workers"), "workers = %d, want ≥ 1 (E-step goroutines of each run)", *fs.Workers)
		}
		s.Workers = *fs.Workers
	}
	s.Grid = Grid{K: fs.K, Alpha: fs.Alpha, Tau: fs.Tau, Omega: fs.Omega, Seeds: fs.Seeds}
	if err := s.Grid.check(path, f.Body); err != nil {
		return nil, err
	}
	if len(s.Grid.Seeds) == 0 {
		s.Grid.Seeds = []uint64{1}
	}
	if fs.Data == nil {
		return nil, framework.Errorf(path, 0, "no data block: want data { train_docs = ... }")
	}
	if err := s.parseData(fs.Data, ctx); err != nil {
		return nil, err
	}
	if len(fs.Models) == 0 {
		return nil, framework.Errorf(path, 0, "no model block: want at least one model \"NAME\" { config = \"FILE.hcl\" }")
	}
	for _, mb := range fs.Models {
		m, err := s.parseModel(mb, ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range s.Models {
			if o.Name == m.Name {
				return nil, framework.Errorf(path, mb.Where.Start.Line, "model %q appears twice (first at %s)", m.Name, o.Where)
			}
		}
		s.Models = append(s.Models, m)
	}
	return s, nil
}

// rel anchors a relative path at the spec's directory, unless it was built
// from a variable (which is already anchored).
func (s *Spec) rel(p string, fromVariable bool) string {
	if p == "" || fromVariable || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.Dir, p)
}

func (s *Spec) parseData(b *rawBlock, ctx *hcl.EvalContext) error {
	var d dataFields
	if err := decodeStrict(b.Body, ctx, &d); err != nil {
		return err
	}
	out := &s.Data
	set := func(dst *string, name string, v *string) {
		if v == nil {
			return
		}
		line, usesVars := attrInfo(b.Body, name)
		out.where[name] = fmt.Sprintf("%s:%d", s.File, line)
		*dst = s.rel(*v, usesVars)
	}
	set(&out.TrainDocs, "train_docs", &d.TrainDocs)
	set(&out.TrainIDs, "train_ids", d.TrainIDs)
	set(&out.TrainVocab, "train_vocab", d.TrainVocab)
	set(&out.Answers, "answers", d.Answers)
	set(&out.AnswersWide, "answers_wide", d.AnswersWide)
	set(&out.TrainTruth, "train_truth", d.TrainTruth)
	set(&out.TrainTruthColumn, "train_truth_column", d.TrainTruthColumn)
	set(&out.TestDocs, "test_docs", d.TestDocs)
	set(&out.TestIDs, "test_ids", d.TestIDs)
	set(&out.TestTruth, "test_truth", d.TestTruth)
	set(&out.TestTruthColumn, "test_truth_column", d.TestTruthColumn)
	if d.Missing != nil {
		out.Missing = *d.Missing
	}
	line := func(name string) int { l, _ := attrInfo(b.Body, name); return l }
	bad := func(name, format string, args ...any) error {
		return framework.Errorf(s.File, line(name), format, args...)
	}
	if d.VocabSize != nil {
		if *d.VocabSize < 1 {
			return bad("vocab_size", "vocab_size = %d, want ≥ 1", *d.VocabSize)
		}
		if out.TrainVocab != "" {
			return bad("vocab_size", "give train_vocab or vocab_size, not both")
		}
		out.VocabSize = *d.VocabSize
	}
	switch {
	case out.Answers != "" && out.AnswersWide != "":
		return bad("answers_wide", "give answers (CSV task,worker,label) or answers_wide (a matrix), not both")
	case d.Missing != nil && out.AnswersWide == "":
		return bad("missing", "missing is the no-answer sentinel of answers_wide, which is not given")
	case out.TrainTruth != "" && out.TrainTruthColumn != "":
		return bad("train_truth_column", "give train_truth (CSV task,label) or train_truth_column (one label per line), not both")
	case out.TestTruth != "" && out.TestTruthColumn != "":
		return bad("test_truth_column", "give test_truth (CSV task,label) or test_truth_column (one label per line), not both")
	case out.TrainIDs != "" && out.TrainTruthColumn != "":
		return bad("train_truth_column", "train_ids names the documents but train_truth_column numbers them from 0: use train_truth (CSV task,label) with train_ids, or drop train_ids")
	case out.TestIDs != "" && out.TestTruthColumn != "":
		return bad("test_truth_column", "test_ids names the documents but test_truth_column numbers them from 0: use test_truth (CSV task,label) with test_ids, or drop test_ids")
	case out.TestDocs == "" && (out.TestIDs != "" || out.TestTruth != "" || out.TestTruthColumn != ""):
		return framework.Errorf(s.File, b.Where.Start.Line, "test_ids, test_truth and test_truth_column need test_docs")
	case out.TestDocs != "" && out.TestTruth == "" && out.TestTruthColumn == "":
		return bad("test_docs", "test_docs needs test_truth or test_truth_column (held-out predictions are scored against them)")
	}
	seen := map[string]string{}
	for _, g := range []struct {
		cmd    string
		blocks []stepBlock
	}{{"prepare", d.Prepare}, {"simulate", d.Simulate}} {
		for _, sb := range g.blocks {
			where := fmt.Sprintf("%s:%d", s.File, sb.Where.Start.Line)
			if !safeName.MatchString(sb.Name) {
				return framework.Errorf(s.File, sb.Where.Start.Line, "%s %q: a step name is letters, digits, '.', '_' or '-' (it names the step's log and marker files)", g.cmd, sb.Name)
			}
			if w, dup := seen[sb.Name]; dup {
				return framework.Errorf(s.File, sb.Where.Start.Line, "step %q appears twice (first at %s)", sb.Name, w)
			}
			if len(sb.Args) == 0 {
				return framework.Errorf(s.File, sb.Where.Start.Line, "%s %q: args is empty, want the command's flags", g.cmd, sb.Name)
			}
			seen[sb.Name] = where
			s.Steps = append(s.Steps, Step{Command: g.cmd, Name: sb.Name, Args: sb.Args, Where: where})
		}
	}
	// File order, whatever the block type: a simulate step may read what a
	// prepare step above it wrote.
	sort.SliceStable(s.Steps, func(i, j int) bool { return lineOf(s.Steps[i].Where) < lineOf(s.Steps[j].Where) })
	return nil
}

func lineOf(where string) int {
	n, _ := strconv.Atoi(where[strings.LastIndexByte(where, ':')+1:])
	return n
}

func (s *Spec) parseModel(mb namedBody, ctx *hcl.EvalContext) (Model, error) {
	m := Model{Name: mb.Name, Where: fmt.Sprintf("%s:%d", s.File, mb.Where.Start.Line)}
	if strings.TrimSpace(m.Name) == "" || strings.ContainsAny(m.Name, ",\n\"") {
		return m, framework.Errorf(s.File, mb.Where.Start.Line, "model %q: a model name is not empty and has no comma, quote or line break (it is a CSV field)", m.Name)
	}
	var mf modelFields
	if err := decodeStrict(mb.Body, ctx, &mf); err != nil {
		return m, err
	}
	_, usesVars := attrInfo(mb.Body, "config")
	m.Config = s.rel(mf.Config, usesVars)
	src, err := os.ReadFile(m.Config)
	if err != nil {
		return m, fmt.Errorf("%s: model %q: config: %w", m.Where, m.Name, err)
	}
	m.Template = string(src)
	if m.Uses, err = templateUses(m.Template, m.Config); err != nil {
		return m, err
	}
	own := Grid{K: mf.K, Alpha: mf.Alpha, Tau: mf.Tau, Omega: mf.Omega, Seeds: mf.Seeds}
	if err := own.check(s.File, mb.Body); err != nil {
		return m, err
	}
	m.Grid = s.Grid
	if own.K != nil {
		m.Grid.K = own.K
	}
	if own.Alpha != nil {
		m.Grid.Alpha = own.Alpha
	}
	if own.Tau != nil {
		m.Grid.Tau = own.Tau
	}
	if own.Omega != nil {
		m.Grid.Omega = own.Omega
	}
	if own.Seeds != nil {
		m.Grid.Seeds = own.Seeds
	}
	for _, v := range []string{"k", "alpha", "tau", "omega", "seeds"} {
		tv := strings.TrimSuffix(v, "s")
		if m.Uses[tv] && m.Grid.len(v) == 0 {
			return m, framework.Errorf(m.Config, templateLine(m.Template, tv), "the template uses ${%s} but %s gives no %s values: add %s = [...] to the spec or to model %q (%s)", tv, s.File, v, v, m.Name, m.Where)
		}
	}
	return m, nil
}

func (g Grid) len(axis string) int {
	switch axis {
	case "k":
		return len(g.K)
	case "alpha":
		return len(g.Alpha)
	case "tau":
		return len(g.Tau)
	case "omega":
		return len(g.Omega)
	}
	return len(g.Seeds)
}

// check validates the axes given in body (the spec or a model block).
func (g Grid) check(file string, body hcl.Body) error {
	line := func(name string) int { return attrLine(body, name) }
	for i, k := range g.K {
		if k < 1 {
			return framework.Errorf(file, line("k"), "k = %d, want ≥ 1 topics", k)
		}
		if slices.Contains(g.K[:i], k) {
			return framework.Errorf(file, line("k"), "k lists %d twice", k)
		}
	}
	for _, a := range []struct {
		name string
		v    []float64
	}{{"alpha", g.Alpha}, {"tau", g.Tau}, {"omega", g.Omega}} {
		for i, x := range a.v {
			if !(x > 0) || math.IsInf(x, 0) {
				return framework.Errorf(file, line(a.name), "%s = %v, want positive finite numbers", a.name, x)
			}
			if slices.Contains(a.v[:i], x) {
				return framework.Errorf(file, line(a.name), "%s lists %v twice", a.name, x)
			}
		}
	}
	for i, x := range g.Seeds {
		if slices.Contains(g.Seeds[:i], x) {
			return framework.Errorf(file, line("seeds"), "seeds lists %d twice", x)
		}
	}
	return nil
}

// tmplVar matches ${name} (and $${, HCL's escape for a literal ${, which is
// left alone).
var tmplVar = regexp.MustCompile(`\$?\$\{([^}\n]*)\}`)

// templateUses returns the variables a template mentions, or an error
// naming the line of an unknown one.
func templateUses(src, name string) (map[string]bool, error) {
	uses := map[string]bool{}
	for _, loc := range tmplVar.FindAllStringSubmatchIndex(src, -1) {
		if strings.HasPrefix(src[loc[0]:], "$$") {
			continue
		}
		v := strings.TrimSpace(src[loc[2]:loc[3]])
		if !slices.Contains(TemplateVars, v) {
			return nil, framework.Errorf(name, 1+strings.Count(src[:loc[0]], "\n"), "unknown template variable ${%s}; valid: ${%s}", v, strings.Join(TemplateVars, "}, ${"))
		}
		uses[v] = true
	}
	return uses, nil
}

// templateLine is the line of v's first use in src.
func templateLine(src, v string) int {
	for _, loc := range tmplVar.FindAllStringSubmatchIndex(src, -1) {
		if !strings.HasPrefix(src[loc[0]:], "$$") && strings.TrimSpace(src[loc[2]:loc[3]]) == v {
			return 1 + strings.Count(src[:loc[0]], "\n")
		}
	}
	return 0
}

// substitute replaces the template's variables by vals.
func substitute(src string, vals map[string]string) string {
	return tmplVar.ReplaceAllStringFunc(src, func(m string) string {
		if strings.HasPrefix(m, "$$") {
			return m
		}
		return vals[strings.TrimSpace(m[2:len(m)-1])]
	})
}

// attrInfo returns the line of attribute name in body and whether its
// expression uses variables (0, false when it is not there).
func attrInfo(body hcl.Body, name string) (int, bool) {
	if sb, ok := body.(*hclsyntax.Body); ok {
		if a := sb.Attributes[name]; a != nil {
			return a.SrcRange.Start.Line, len(a.Expr.Variables()) > 0
		}
	}
	return 0, false
}

func attrLine(body hcl.Body, name string) int {
	l, _ := attrInfo(body, name)
	return l
}

// specVariables is the help that ends an unknown-variable error.
const specVariables = "Variables: ${data} (the data root: --data, or data_root in the spec), ${work} (OUT/data, where the steps write), ${spec_dir} (the spec file's directory)."

// decodeStrict decodes a spec's body strictly (models.DecodeStrict): an
// unknown argument or block lists the valid names, an unknown variable
// the defined ones.
func decodeStrict(body hcl.Body, ctx *hcl.EvalContext, v any) error {
	return models.DecodeStrict(body, ctx, v, specVariables)
}
