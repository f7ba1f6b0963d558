package plots

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Kinds of annotators.json.
const (
	KindConfusion     = "confusion"      // name, answers, accuracy, confusion
	KindBiasPrecision = "bias-precision" // annotator, answers, bias, precision, sd
	KindOrdinalShift  = "ordinal-shift"  // name, shift, stretch, precision, accuracy
)

// Annotator is one entry of annotators.json as written by `maslda train`.
type Annotator struct {
	Name    string
	Answers int
	Line    int // line of the entry's opening brace
	// confusion annotators
	Accuracy  float64
	Confusion [][]float64 // row = true class, column = answer
	// bias-precision annotators (Precision also of ordinal-shift ones)
	Bias, Precision, SD float64
	// ordinal-shift annotators (with Precision and Accuracy)
	Shift, Stretch float64
}

// Annotators is an annotators.json file.
type Annotators struct {
	Name string // file name, for errors
	Kind string // KindConfusion, KindBiasPrecision or KindOrdinalShift
	List []Annotator
}

// Find returns the annotator called name, or an error listing the names.
func (a *Annotators) Find(name string) (*Annotator, error) {
	for i := range a.List {
		if a.List[i].Name == name {
			return &a.List[i], nil
		}
	}
	return nil, fmt.Errorf("%w: unknown annotator %q: %s has %s", framework.ErrBadInput, name, a.Name, quoteList(a.names()))
}

func (a *Annotators) names() []string {
	n := make([]string, len(a.List))
	for i := range a.List {
		n[i] = a.List[i].Name
	}
	return n
}

// C is the number of classes of confusion annotators (0 otherwise).
func (a *Annotators) C() int {
	if a.Kind != KindConfusion || len(a.List) == 0 {
		return 0
	}
	return len(a.List[0].Confusion)
}

type jsonAnnotator struct {
	Name      *string     `json:"name"`
	Annotator *string     `json:"annotator"`
	Answers   *int        `json:"answers"`
	Accuracy  *float64    `json:"accuracy"`
	Confusion [][]float64 `json:"confusion"`
	Bias      *float64    `json:"bias"`
	Precision *float64    `json:"precision"`
	SD        *float64    `json:"sd"`
	Shift     *float64    `json:"shift"`
	Stretch   *float64    `json:"stretch"`
}

// ReadAnnotators reads annotators.json: a list of confusion annotators
// ({name, answers, accuracy, confusion}), of bias-precision annotators
// ({annotator, answers, bias, precision, sd}) or of ordinal-shift
// annotators ({name, shift, stretch, precision, accuracy}). Errors name the file and
// the line of the offending entry.
func ReadAnnotators(r io.Reader, name string) (*Annotators, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte(corpus.BOM)) // a leading byte-order mark is ignored
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	bad := func(err error, off int64) error { return framework.JSONErrorAt(name, data, err, off) }
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		return nil, framework.Errorf(name, 1, "empty file: want a JSON list of annotators (annotators.json from maslda train)")
	}
	if err != nil {
		return nil, bad(err, dec.InputOffset())
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, framework.Errorf(name, 1, "want a JSON list of annotators (annotators.json from maslda train)")
	}
	a := &Annotators{Name: name}
	seen := map[string]int{}
	for dec.More() {
		start := dec.InputOffset()
		var j jsonAnnotator
		if err := dec.Decode(&j); err != nil {
			return nil, bad(err, dec.InputOffset())
		}
		// the entry starts after the separating comma and blanks
		s := int(start)
		for s < len(data) && (data[s] == ',' || data[s] == ' ' || data[s] == '\n' || data[s] == '\r' || data[s] == '\t') {
			s++
		}
		line := lineAt(int64(s))
		an := Annotator{Line: line}
		kind := ""
		switch {
		case j.Confusion != nil:
			kind = KindConfusion
			if j.Name != nil {
				an.Name = *j.Name
			}
			if j.Accuracy == nil {
				return nil, framework.Errorf(name, line, "confusion annotator without \"accuracy\"")
			}
			an.Accuracy, an.Confusion = *j.Accuracy, j.Confusion
			if err := checkMatrix(an.Confusion); err != nil {
				return nil, framework.Errorf(name, line, "annotator %q: %v", an.Name, err)
			}
		case j.Shift != nil || j.Stretch != nil:
			kind = KindOrdinalShift
			if j.Name != nil {
				an.Name = *j.Name
			}
			if j.Shift == nil || j.Stretch == nil || j.Precision == nil {
				return nil, framework.Errorf(name, line, "ordinal-shift annotator needs \"shift\", \"stretch\" and \"precision\"")
			}
			an.Shift, an.Stretch, an.Precision = *j.Shift, *j.Stretch, *j.Precision
			if !(an.Precision > 0) || math.IsInf(an.Precision, 0) || math.IsNaN(an.Shift) || math.IsInf(an.Shift, 0) || math.IsNaN(an.Stretch) || math.IsInf(an.Stretch, 0) {
				return nil, framework.Errorf(name, line, "annotator %q: shift %v, stretch %v, precision %v, want finite numbers and a positive precision", an.Name, an.Shift, an.Stretch, an.Precision)
			}
			an.Accuracy = math.NaN()
			if j.Accuracy != nil {
				an.Accuracy = *j.Accuracy
			}
		case j.Bias != nil || j.Precision != nil:
			kind = KindBiasPrecision
			if j.Annotator != nil {
				an.Name = *j.Annotator
			} else if j.Name != nil {
				an.Name = *j.Name
			}
			if j.Bias == nil || j.Precision == nil {
				return nil, framework.Errorf(name, line, "bias-precision annotator needs both \"bias\" and \"precision\"")
			}
			an.Bias, an.Precision = *j.Bias, *j.Precision
			if !(an.Precision > 0) || math.IsInf(an.Precision, 0) {
				return nil, framework.Errorf(name, line, "annotator %q: precision %v, want positive and finite", an.Name, an.Precision)
			}
			an.SD = 1 / math.Sqrt(an.Precision)
			if j.SD != nil {
				an.SD = *j.SD
			}
		default:
			return nil, framework.Errorf(name, line, "entry has neither \"confusion\" (confusion annotators) nor \"bias\"/\"precision\" (bias-precision annotators) nor \"shift\"/\"stretch\" (ordinal-shift annotators)")
		}
		if a.Kind == "" {
			a.Kind = kind
		} else if a.Kind != kind {
			return nil, framework.Errorf(name, line, "a %s annotator after %s annotators", kind, a.Kind)
		}
		if an.Name == "" {
			return nil, framework.Errorf(name, line, "annotator without a name")
		}
		if l, dup := seen[an.Name]; dup {
			return nil, framework.Errorf(name, line, "annotator %q appears twice (first on line %d)", an.Name, l)
		}
		seen[an.Name] = line
		if j.Answers != nil {
			if *j.Answers < 0 {
				return nil, framework.Errorf(name, line, "annotator %q: %d answers", an.Name, *j.Answers)
			}
			an.Answers = *j.Answers
		}
		if kind == KindConfusion && len(a.List) > 0 && len(an.Confusion) != len(a.List[0].Confusion) {
			return nil, framework.Errorf(name, line, "annotator %q has a %d×%d matrix but %q (line %d) has %d×%d", an.Name,
				len(an.Confusion), len(an.Confusion), a.List[0].Name, a.List[0].Line, len(a.List[0].Confusion), len(a.List[0].Confusion))
		}
		a.List = append(a.List, an)
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err, dec.InputOffset())
	}
	if len(a.List) == 0 {
		return nil, framework.Errorf(name, 1, "no annotators in the list")
	}
	return a, nil
}

func checkMatrix(m [][]float64) error {
	if len(m) == 0 {
		return errors.New("empty confusion matrix")
	}
	for i, r := range m {
		if len(r) != len(m) {
			return fmt.Errorf("confusion matrix row %d has %d entries, want %d (a square matrix)", i+1, len(r), len(m))
		}
		for _, x := range r {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("confusion matrix row %d has entry %v, want finite and ≥ 0", i+1, x)
			}
		}
	}
	return nil
}

// DefaultTrueNames are the names `maslda simulate` gives its n
// annotators: a0, a1, ...
func DefaultTrueNames(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = "a" + strconv.Itoa(i)
	}
	return s
}

// ConfusionOptions configure ConfusionFigure.
type ConfusionOptions struct {
	Truth     [][][]float64 // the true matrices (as for simulate --confusions); nil: estimates only
	TruthName string        // where Truth came from, for errors (a file or a flag)
	TrueNames []string      // names of the true matrices; default DefaultTrueNames
	Select    []string      // annotators to draw, in order; default below
	Classes   []string      // class names in matrix order; default 0, 1, ...
	PerRow    int           // annotators per row (default 2; with truth each takes two panels)
	Title     string
	Width     vg.Length // default from the number of panels
	Height    vg.Length

	// Empirical is the other kind of truth: each annotator's empirical
	// matrix from its answers and the ground truth (EmpiricalConfusions,
	// in the model's class order). At most one of Truth and Empirical.
	Empirical *Empirical
}

// MaxDefaultAnnotators is how many annotators ConfusionFigure and
// BiasPrecisionFigure draw when none are selected: those with the most
// answers.
const MaxDefaultAnnotators = 6

// ConfusionFigure draws heat maps of confusion matrices (rows: true class,
// top to bottom; columns: answer; colour: probability on a fixed 0–1
// scale with a colour bar), true and estimated side by side for each
// selected annotator. Without Select: the annotators with the most
// answers (at most MaxDefaultAnnotators, with a true matrix when Truth is
// given, with an answer on a task with a truth when Empirical is), in
// name order. An empirical panel's title gives the annotator's answers on
// tasks with a truth and its row labels the answers per true class; a row
// without answers is grey.
func ConfusionFigure(est *Annotators, opt ConfusionOptions) (*Figure, error) {
	if est.Kind != KindConfusion {
		return nil, fmt.Errorf("%w: %s describes %s annotators; confusion matrices need confusion annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	C := est.C()
	classes := opt.Classes
	emp := opt.Empirical
	if emp != nil {
		if opt.Truth != nil {
			return nil, fmt.Errorf("%w: two truths: the true matrices of %s and the empirical ones of %s; give one", framework.ErrBadInput, opt.TruthName, emp.AnswersName)
		}
		if err := emp.Match(est); err != nil {
			return nil, err
		}
		if classes == nil {
			classes = emp.Classes
		} else if !slices.Equal(classes, emp.Classes) {
			return nil, fmt.Errorf("%w: the class names (%s) differ from those of the empirical matrices (%s)", framework.ErrBadInput, strings.Join(classes, ", "), strings.Join(emp.Classes, ", "))
		}
	}
	if classes == nil {
		classes = make([]string, C)
		for i := range classes {
			classes[i] = strconv.Itoa(i)
		}
	}
	if len(classes) != C {
		return nil, fmt.Errorf("%w: %s has %d×%d matrices but %d class names are given (%s)", framework.ErrBadInput, est.Name, C, C, len(classes), strings.Join(classes, ", "))
	}
	trueNames := opt.TrueNames
	if opt.Truth != nil {
		if trueNames == nil {
			trueNames = DefaultTrueNames(len(opt.Truth))
		}
		if len(trueNames) != len(opt.Truth) {
			return nil, fmt.Errorf("%w: %d true matrices in %s but %d true names", framework.ErrBadInput, len(opt.Truth), opt.TruthName, len(trueNames))
		}
		for r, m := range opt.Truth {
			if err := checkMatrix(m); err != nil {
				return nil, fmt.Errorf("%w: %s: matrix %d (%s): %v", framework.ErrBadInput, opt.TruthName, r+1, trueNames[r], err)
			}
			if len(m) != C {
				return nil, fmt.Errorf("%w: %s has %d×%d matrices but %s has %d×%d (%s)", framework.ErrBadInput, opt.TruthName, len(m), len(m), est.Name, C, C, trueNames[r])
			}
		}
	}
	trueOf := func(name string) [][]float64 {
		if i := slices.Index(trueNames, name); i >= 0 {
			return opt.Truth[i]
		}
		return nil
	}
	empOf := func(name string) *EmpiricalAnnotator {
		if a := emp.Find(name); a != nil && a.WithTruth > 0 {
			return a
		}
		return nil
	}
	sel := opt.Select
	if sel == nil {
		sel = defaultSelection(est, func(n string) bool {
			switch {
			case opt.Truth != nil:
				return trueOf(n) != nil
			case emp != nil:
				return empOf(n) != nil
			}
			return true
		})
		if len(sel) == 0 && emp != nil {
			return nil, fmt.Errorf("%w: no annotator of %s has an answer in %s on a task with a truth in %s", framework.ErrBadInput, est.Name, emp.AnswersName, emp.TruthName)
		}
		if len(sel) == 0 {
			return nil, fmt.Errorf("%w: no annotator of %s (%s) has a true matrix in %s (named %s)", framework.ErrBadInput, est.Name, quoteList(est.names()), opt.TruthName, quoteList(trueNames))
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("%w: no annotator selected", framework.ErrBadInput)
	}
	perRow := opt.PerRow
	if perRow <= 0 {
		perRow = 2
	}
	perRow = min(perRow, len(sel))
	cmap, pal, err := probabilityColors()
	if err != nil {
		return nil, err
	}
	withLabels := C <= 8
	rotate := rotateLabels(classes, C)
	paired := opt.Truth != nil || emp != nil
	var panels [][]*plot.Plot
	var rowPanels []*plot.Plot
	labelled := map[*plot.Plot]bool{} // empirical panels keep their row labels (with counts)
	longestRow := 0
	for _, n := range sel {
		a, err := est.Find(n)
		if err != nil {
			return nil, err
		}
		switch {
		case opt.Truth != nil:
			t := trueOf(n)
			if t == nil {
				return nil, fmt.Errorf("%w: annotator %q has no true matrix: %s names %s", framework.ErrBadInput, n, opt.TruthName, quoteList(trueNames))
			}
			rowPanels = append(rowPanels, heatPanel(n+": true", t, classes, nil, pal, withLabels, rotate))
		case emp != nil:
			ea := empOf(n)
			if ea == nil {
				return nil, fmt.Errorf("%w: annotator %q has no answer in %s on a task with a truth in %s", framework.ErrBadInput, n, emp.AnswersName, emp.TruthName)
			}
			rows := make([]string, C)
			for c := range rows {
				rows[c] = fmt.Sprintf("%s (%d)", classes[c], ea.RowAnswers[c])
				longestRow = max(longestRow, len([]rune(rows[c])))
			}
			p := heatPanel(fmt.Sprintf("%s: empirical (%d answers)", n, ea.WithTruth), ea.Confusion, classes, rows, pal, withLabels, rotate)
			labelled[p] = true
			rowPanels = append(rowPanels, p)
		}
		rowPanels = append(rowPanels, heatPanel(fmt.Sprintf("%s: estimated (%d answers)", n, a.Answers), a.Confusion, classes, nil, pal, withLabels, rotate))
		if len(rowPanels) == perRow*panelsPer(paired) {
			panels = append(panels, rowPanels)
			rowPanels = nil
		}
	}
	if rowPanels != nil {
		panels = append(panels, rowPanels)
	}
	bar := plot.New()
	bar.HideY()
	bar.X.Padding = 0
	bar.X.Label.Text = "P(answer | true class)"
	bar.X.Label.TextStyle.Font.Size = 10
	bar.X.Tick.Label.Font.Size = 9
	bar.BackgroundColor = nil
	bar.Add(colorStrip{cmap: cmap, n: 100})
	// The class names are the same on every panel: only the first column
	// shows them on the y axis (and every empirical panel, whose labels
	// give its own answers per row).
	for _, r := range panels {
		for _, p := range r[1:] {
			if labelled[p] {
				continue
			}
			p.Y.Label.Text = ""
			p.Y.Tick.Marker = plot.ConstantTicks{}
		}
	}
	// Size: square data areas of at least 1.8 in, plus room for the names.
	longest := 0
	for _, c := range classes {
		longest = max(longest, len([]rune(c)))
	}
	charW := 0.07 // inches per character at 9 pt
	ds := max(1.8, 0.22*float64(C))
	yLabels := charW*float64(longest) + 0.45
	xLabels := 0.45
	if rotate {
		xLabels += 0.72 * charW * float64(longest)
	}
	cols := perRow * panelsPer(paired)
	extra := 0.0 // the row labels of the empirical panels after the first column
	if emp != nil {
		yLabels = max(yLabels, charW*float64(longestRow)+0.45)
		extra = float64(perRow-1) * yLabels
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(yLabels + extra + float64(cols)*(ds+0.25) + 0.3)
	}
	if h == 0 {
		h = inches(float64(len(panels))*(ds+xLabels+0.45) + 1.1)
	}
	f := &Figure{Width: w, Height: h, Title: opt.Title, Panels: panels, ColorBar: bar}
	if rotate { // slanted names overhang to the left
		f.PadX = inches(min(1.2, 0.5*charW*float64(longest)))
		if opt.Width == 0 {
			f.Width += f.PadX * vg.Length(cols-1)
		}
	}
	var caption []string
	if opt.Select == nil && len(sel) < len(est.List) {
		caption = append(caption, fmt.Sprintf("The %d annotators with the most answers (of %d).", len(sel), len(est.List)))
	}
	if emp != nil {
		c := fmt.Sprintf("Empirical: the answers of %s against the truth of %s; in brackets, the answers per true class (grey: none).", filepath.Base(emp.AnswersName), filepath.Base(emp.TruthName))
		if emp.NoTruth > 0 {
			c += fmt.Sprintf(" %d answers on tasks without a truth are not counted.", emp.NoTruth)
		}
		caption = append(caption, c)
	}
	f.Caption = strings.Join(caption, "\n")
	return f, nil
}

func panelsPer(truth bool) int {
	if truth {
		return 2
	}
	return 1
}

// defaultSelection: up to MaxDefaultAnnotators annotators with the most
// answers among those ok accepts, in name order.
func defaultSelection(est *Annotators, ok func(string) bool) []string {
	var cand []Annotator
	for _, a := range est.List {
		if ok(a.Name) {
			cand = append(cand, a)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return cand[i].Answers > cand[j].Answers })
	var sel []string
	for _, a := range cand[:min(len(cand), MaxDefaultAnnotators)] {
		sel = append(sel, a.Name)
	}
	sortNatural(sel)
	return sel
}

// sortNatural sorts names with their digit runs compared as numbers
// (a2 before a10).
func sortNatural(s []string) {
	sort.SliceStable(s, func(i, j int) bool { return naturalLess(s[i], s[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da != "" && db != "" {
			na, _ := strconv.ParseFloat(da, 64)
			nb, _ := strconv.ParseFloat(db, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[len(da):], b[len(db):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// probabilityColors is a sequential white → dark blue scale on [0, 1]
// (moreland's luminance maps need increasing luminance, hence Reverse).
func probabilityColors() (palette.ColorMap, palette.Palette, error) {
	m, err := moreland.NewLuminance([]color.Color{color.NRGBA{8, 48, 107, 255}, color.NRGBA{255, 255, 255, 255}})
	if err != nil {
		return nil, nil, fmt.Errorf("colour scale: %w", err)
	}
	r := palette.Reverse(m)
	r.SetMin(0)
	r.SetMax(1)
	return r, r.Palette(256), nil
}

// heatPanel is one confusion matrix: true class on y (first class at the
// top, labelled rows, default classes), answer on x. NaN cells (an
// empirical row without answers) are grey and labelled "–".
func heatPanel(title string, m [][]float64, classes, rows []string, pal palette.Palette, withLabels, rotate bool) *plot.Plot {
	C := len(m)
	p := newPanel(title, "answer", "true class")
	g := matrixGrid(m)
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = 0, 1
	hm.Overflow = pal.Colors()[len(pal.Colors())-1] // rounding above 1
	hm.NaN = color.Gray{Y: 215}
	p.Add(hm)
	p.NominalX(classes...)
	if rows == nil {
		rows = classes
	}
	rev := slices.Clone(rows)
	slices.Reverse(rev)
	p.NominalY(rev...)
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(C)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(C)-0.5
	if rotate {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YTop
	}
	if withLabels {
		var xys plotter.XYs
		var labels []string
		var styles []text.Style
		for i := range C {
			for j := range C {
				xys = append(xys, plotter.XY{X: float64(j), Y: float64(C - 1 - i)})
				l := strconv.FormatFloat(m[i][j], 'f', 2, 64)
				if math.IsNaN(m[i][j]) {
					l = "–"
				}
				labels = append(labels, l)
				sty := textStyle(vg.Points(max(6, 11-float64(C)/2)))
				sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
				if m[i][j] > 0.55 {
					sty.Color = color.White
				}
				styles = append(styles, sty)
			}
		}
		l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
		if err == nil {
			l.TextStyle = styles
			p.Add(l)
		}
	}
	return p
}

// rotateLabels: slant the class names when they would not fit side by side.
func rotateLabels(classes []string, C int) bool {
	total := 0
	for _, c := range classes {
		total += len([]rune(c)) + 1
	}
	return total > 24 || C > 8
}

type matrixGrid [][]float64

func (g matrixGrid) Dims() (c, r int)   { return len(g), len(g) }
func (g matrixGrid) Z(c, r int) float64 { return g[len(g)-1-r][c] }
func (g matrixGrid) X(c int) float64    { return float64(c) }
func (g matrixGrid) Y(r int) float64    { return float64(r) }

// Styles of BiasPrecisionFigure.
const (
	StyleAuto    = "auto"    // StyleScatter with a truth and more than ScatterAbove annotators, else StyleBars
	StyleBars    = "bars"    // annotators on the x axis, truth and estimate side by side
	StyleScatter = "scatter" // estimate against truth, one point per annotator, with y = x
)

// Styles are the valid BiasPrecisionOptions.Style values.
var Styles = []string{StyleAuto, StyleBars, StyleScatter}

// ScatterAbove is the most annotators StyleAuto draws as bars: their
// names on the x axis stay legible up to about a dozen.
const ScatterAbove = 12

// BiasPrecisionOptions configure BiasPrecisionFigure.
type BiasPrecisionOptions struct {
	TrueBias, TruePrecision []float64 // as for simulate --bias/--precision; nil: estimates only
	TrueNames               []string  // default DefaultTrueNames
	// Empirical is the other kind of truth: each annotator's empirical bias
	// and precision from its answers and the ground truth
	// (EmpiricalBiasPrecisions). At most one of TrueBias and Empirical.
	Empirical *Empirical
	// MinAnswers: with Empirical, annotators with fewer answers on tasks
	// with a truth are left out, and the caption says how many (≤ 1: those
	// with at least one).
	MinAnswers int
	Style      string   // one of Styles; "" is StyleAuto
	Select     []string // default: every annotator (with a truth when given), in name order
	Title      string
	Width      vg.Length // default from the style and the number of annotators
	Height     vg.Length
}

// bpItem is one drawn annotator: its estimate and its truth (NaN: none).
type bpItem struct {
	name       string
	est        *Annotator
	bias, prec float64 // true or empirical
	n          int     // empirical: answers with a truth
}

// BiasPrecisionFigure draws the estimated bias and precision of each
// selected annotator next to the truth, when one is given: the true
// values of a simulation (TrueBias, TruePrecision) or the empirical ones
// (Empirical). Two panels side by side, bias on a linear axis and
// precision on a log axis, in one of two styles:
//
//   - bars: annotators on the x axis (by name), truth as an open ring and
//     estimate as a filled dot beside it;
//   - scatter: estimate (y) against truth (x), one point per annotator,
//     with the diagonal y = x and equal axes (precision on log–log axes),
//     each panel's title giving the correlation over its points (of the
//     logarithms for the precision).
//
// StyleAuto picks the scatter when there is a truth and more than
// ScatterAbove annotators are drawn; a scatter without a truth is an
// error. With Empirical the caption says how many annotators were left
// out (MinAnswers; no finite empirical precision) and compares the
// answer-weighted mean biases, whose common offset the model does not
// identify (annotators/biasprecision).
func BiasPrecisionFigure(est *Annotators, opt BiasPrecisionOptions) (*Figure, error) {
	if est.Kind != KindBiasPrecision {
		return nil, fmt.Errorf("%w: %s describes %s annotators; biases and precisions need bias-precision annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	truth := opt.TrueBias != nil || opt.TruePrecision != nil
	emp := opt.Empirical
	if emp != nil {
		if truth {
			return nil, fmt.Errorf("%w: two truths: true biases and precisions, and the empirical ones of %s; give one", framework.ErrBadInput, emp.AnswersName)
		}
		if err := emp.Match(est); err != nil {
			return nil, err
		}
	}
	trueNames := opt.TrueNames
	if truth {
		if len(opt.TrueBias) != len(opt.TruePrecision) {
			return nil, fmt.Errorf("%w: %d true biases but %d true precisions", framework.ErrBadInput, len(opt.TrueBias), len(opt.TruePrecision))
		}
		if trueNames == nil {
			trueNames = DefaultTrueNames(len(opt.TrueBias))
		}
		if len(trueNames) != len(opt.TrueBias) {
			return nil, fmt.Errorf("%w: %d true biases but %d true names", framework.ErrBadInput, len(opt.TrueBias), len(trueNames))
		}
		for i, p := range opt.TruePrecision {
			if !(p > 0) || math.IsInf(p, 0) {
				return nil, fmt.Errorf("%w: true precision %v of %s, want positive and finite", framework.ErrBadInput, p, trueNames[i])
			}
		}
	}
	style := opt.Style
	if style == "" {
		style = StyleAuto
	}
	if !slices.Contains(Styles, style) {
		return nil, fmt.Errorf("%w: style %q; valid: %s", framework.ErrBadInput, style, strings.Join(Styles, ", "))
	}
	if style == StyleScatter && !truth && emp == nil {
		return nil, fmt.Errorf("%w: a scatter of estimated against true values needs a truth (true or empirical biases and precisions)", framework.ErrBadInput)
	}
	sel := opt.Select
	if sel == nil {
		for _, a := range est.List {
			if !truth || slices.Contains(trueNames, a.Name) {
				sel = append(sel, a.Name)
			}
		}
		sortNatural(sel)
		if len(sel) == 0 {
			return nil, fmt.Errorf("%w: no annotator of %s (%s) has a true bias and precision (named %s)", framework.ErrBadInput, est.Name, quoteList(est.names()), quoteList(trueNames))
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("%w: no annotator selected", framework.ErrBadInput)
	}
	minN := max(1, opt.MinAnswers)
	var items []bpItem
	few := 0
	for _, n := range sel {
		a, err := est.Find(n)
		if err != nil {
			return nil, err
		}
		it := bpItem{name: n, est: a, bias: math.NaN(), prec: math.NaN()}
		switch {
		case truth:
			t := slices.Index(trueNames, n)
			if t < 0 {
				return nil, fmt.Errorf("%w: annotator %q has no true bias and precision (true annotators: %s)", framework.ErrBadInput, n, quoteList(trueNames))
			}
			it.bias, it.prec = opt.TrueBias[t], opt.TruePrecision[t]
		case emp != nil:
			ea := emp.Find(n) // Match: every annotator of est is there
			if ea == nil || ea.WithTruth < minN {
				few++
				continue
			}
			it.bias, it.prec, it.n = ea.Bias, ea.Precision, ea.WithTruth
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%w: none of the %d annotators has %d or more answers in %s on tasks with a truth in %s", framework.ErrBadInput, len(sel), minN, emp.AnswersName, emp.TruthName)
	}
	if style == StyleAuto {
		style = StyleBars
		if (truth || emp != nil) && len(items) > ScatterAbove {
			style = StyleScatter
		}
	}
	truthLabel := "true"
	if emp != nil {
		truthLabel = "empirical"
	}
	var f *Figure
	var err error
	if style == StyleScatter {
		f, err = biasPrecisionScatter(items, truthLabel)
	} else {
		f, err = biasPrecisionBars(items, truth || emp != nil, truthLabel)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", est.Name, err)
	}
	f.Title = opt.Title
	if opt.Width != 0 {
		f.Width = opt.Width
	}
	if opt.Height != 0 {
		f.Height = opt.Height
	}
	if emp != nil {
		f.Caption = empiricalCaption(emp, items, few, len(sel), minN, style == StyleScatter)
	} else if style == StyleScatter {
		f.Caption = "One point per annotator; the line is y = x."
	}
	return f, nil
}

// empiricalCaption says where the empirical truth comes from, who was
// left out, and the mean biases.
func empiricalCaption(emp *Empirical, items []bpItem, few, selected, minN int, scatter bool) string {
	answers := 0
	var wEmp, wEst float64
	noPrec := 0
	for _, it := range items {
		answers += it.n
		wEmp += float64(it.n) * it.bias
		wEst += float64(it.n) * it.est.Bias
		if math.IsNaN(it.prec) {
			noPrec++
		}
	}
	line := fmt.Sprintf("Empirical: the answers of %s against the truth of %s (%d answers on tasks with a truth",
		filepath.Base(emp.AnswersName), filepath.Base(emp.TruthName), answers)
	if emp.NoTruth > 0 {
		line += fmt.Sprintf("; %d on tasks without one not counted", emp.NoTruth)
	}
	line += ")."
	if scatter {
		line += " One point per annotator; the line is y = x."
	}
	lines := []string{line}
	var out []string
	if few > 0 {
		out = append(out, fmt.Sprintf("%d of the %d annotators have fewer than %d answers with a truth and are left out", few, selected, minN))
	}
	if noPrec > 0 {
		out = append(out, fmt.Sprintf("%d without a finite empirical precision (under 2 answers, or the same error every time) are left out of the precision %s", noPrec, map[bool]string{true: "panel", false: "rings"}[scatter]))
	}
	if out != nil {
		lines = append(lines, strings.Join(out, "; ")+".")
	}
	lines = append(lines, fmt.Sprintf("Mean bias weighted by answers: empirical %s, estimated %s (the model identifies the biases only up to a common offset).",
		formatSigned(wEmp/float64(answers)), formatSigned(wEst/float64(answers))))
	return strings.Join(lines, "\n")
}

// formatSigned writes x with 3 significant digits and a true minus sign.
func formatSigned(x float64) string {
	return strings.Replace(strconv.FormatFloat(x, 'g', 3, 64), "-", "−", 1)
}

// biasPrecisionBars draws the annotators on the x axis: truth (ring, when
// given) and estimate (dot) of the bias, and of the precision on a log
// scale.
func biasPrecisionBars(items []bpItem, truth bool, truthLabel string) (*Figure, error) {
	var estB, estP, trB, trP plotter.XYs
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.name
		off := 0.0
		if truth {
			off = 0.15
			if !math.IsNaN(it.bias) {
				trB = append(trB, plotter.XY{X: float64(i) - off, Y: it.bias})
			}
			if !math.IsNaN(it.prec) {
				trP = append(trP, plotter.XY{X: float64(i) - off, Y: it.prec})
			}
		}
		estB = append(estB, plotter.XY{X: float64(i) + off, Y: it.est.Bias})
		estP = append(estP, plotter.XY{X: float64(i) + off, Y: it.est.Precision})
	}
	leg := newLegend()
	rotate := len(items) > 8
	mk := func(title, ylabel string, est, tr plotter.XYs, log bool) (*plot.Plot, error) {
		p := newPanel(title, "annotator", ylabel)
		p.Add(plotter.NewGrid())
		if log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{}
			// end on labelled ticks
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, xy := range append(slices.Clone(est), tr...) {
				lo, hi = min(lo, xy.Y), max(hi, xy.Y)
			}
			p.Y.Min, p.Y.Max = logRange(lo, hi)
		} else {
			p.Y.Tick.Marker = niceTicks{}
			zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(items)) - 0.5, Y: 0}})
			if err != nil {
				return nil, err
			}
			zero.LineStyle = draw.LineStyle{Color: color.Gray{140}, Width: vg.Points(0.8)}
			p.Add(zero)
		}
		first := ylabel == "bias"
		if truth {
			s, err := plotter.NewScatter(tr)
			if err != nil {
				return nil, err
			}
			s.Shape, s.Color, s.Radius = draw.RingGlyph{}, color.Black, vg.Points(4)
			p.Add(s)
			if first {
				leg.Add(truthLabel, s)
			}
		}
		s, err := plotter.NewScatter(est)
		if err != nil {
			return nil, err
		}
		s.Shape, s.Color, s.Radius = draw.CircleGlyph{}, lineColor(0), vg.Points(4)
		p.Add(s)
		if first {
			leg.Add("estimated", s)
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.5, float64(len(items))-0.5
		if rotate {
			p.X.Tick.Label.Rotation = math.Pi / 2
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
			p.X.Tick.Label.Font.Size = vg.Points(max(5, 9-float64(len(items))/40))
		}
		return p, nil
	}
	pb, err := mk("bias (answer − truth, mean)", "bias", estB, trB, false)
	if err != nil {
		return nil, err
	}
	pp, err := mk("precision (1 / noise variance; log scale)", "precision", estP, trP, true)
	if err != nil {
		return nil, err
	}
	w := inches(max(9, 2*(0.12*float64(len(items))+1.2)+1.2))
	return &Figure{Width: w, Height: inches(4), Panels: [][]*plot.Plot{{pb, pp}}, Legend: leg}, nil
}

// biasPrecisionScatter draws estimate against truth, bias on linear and
// precision on log–log axes, with the diagonal.
func biasPrecisionScatter(items []bpItem, truthLabel string) (*Figure, error) {
	var b, p plotter.XYs
	for _, it := range items {
		b = append(b, plotter.XY{X: it.bias, Y: it.est.Bias})
		if !math.IsNaN(it.prec) {
			p = append(p, plotter.XY{X: it.prec, Y: it.est.Precision})
		}
	}
	pb, err := scatterPanel("bias", truthLabel+" bias (mean of answer − truth)", "estimated bias", b, false)
	if err != nil {
		return nil, err
	}
	panels := []*plot.Plot{pb}
	if len(p) > 0 {
		pp, err := scatterPanel("precision (log scales)", truthLabel+" precision (1 / variance of answer − truth)", "estimated precision", p, true)
		if err != nil {
			return nil, err
		}
		panels = append(panels, pp)
	}
	return &Figure{Width: inches(4.6*float64(len(panels)) + 0.4), Height: inches(5), Panels: [][]*plot.Plot{panels}}, nil
}

// scatterPanel is one panel of points (x truth, y estimate) on equal axes
// with the diagonal y = x; its title gets the number of points and their
// correlation (of the logarithms on log axes).
func scatterPanel(title, xlabel, ylabel string, pts plotter.XYs, log bool) (*plot.Plot, error) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xy := range pts {
		lo, hi = min(lo, xy.X, xy.Y), max(hi, xy.X, xy.Y)
	}
	xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
	for i, xy := range pts {
		xs[i], ys[i] = xy.X, xy.Y
		if log {
			xs[i], ys[i] = math.Log(xy.X), math.Log(xy.Y)
		}
	}
	title = fmt.Sprintf("%s: %d annotators", title, len(pts))
	if r := pearson(xs, ys); !math.IsNaN(r) {
		title += ", r = " + strings.Replace(strconv.FormatFloat(r, 'f', 3, 64), "-", "−", 1)
		if log {
			title += " (of the logs)"
		}
	}
	p := newPanel(title, xlabel, ylabel)
	p.Add(plotter.NewGrid())
	if log {
		lo, hi = logRange(lo, hi)
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = logTicks{}, logTicks{}
	} else {
		pad := 0.05 * (hi - lo)
		if pad == 0 {
			pad = max(0.1*math.Abs(hi), 0.1)
		}
		lo, hi = lo-pad, hi+pad
		p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle = draw.LineStyle{Color: color.Gray{110}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	p.Add(diag)
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.Shape, s.Color, s.Radius = draw.CircleGlyph{}, withAlpha(lineColor(0), 150), vg.Points(3)
	p.Add(s)
	return p, nil
}

// pearson is the correlation of x and y (NaN with fewer than 3 points or
// a constant series).
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 3 || len(x) != len(y) {
		return math.NaN()
	}
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	sxy, sxx, syy := 0.0, 0.0, 0.0
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// colorStrip is a horizontal colour bar drawn as n rectangles (vector
// output; plotter.ColorBar embeds a raster image that some SVG viewers
// do not show).
type colorStrip struct {
	cmap palette.ColorMap
	n    int
}

func (s colorStrip) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lo, hi := s.cmap.Min(), s.cmap.Max()
	step := (hi - lo) / float64(s.n)
	for i := range s.n {
		col, err := s.cmap.At(lo + step*(float64(i)+0.5))
		if err != nil {
			continue
		}
		// overlap by a hair so that no seam shows between cells
		r := vg.Rectangle{
			Min: vg.Point{X: trX(lo + step*float64(i)), Y: trY(0)},
			Max: vg.Point{X: trX(lo+step*float64(i+1)) + vg.Points(0.3), Y: trY(1)},
		}
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}))
	}
}

func (s colorStrip) DataRange() (xmin, xmax, ymin, ymax float64) {
	return s.cmap.Min(), s.cmap.Max(), 0, 1
}

// BiasVsPrecisionOptions choose BiasVsPrecisionFigure's labels.
type BiasVsPrecisionOptions struct {
	Label int    // label this many annotators, those with the most answers (0: 10)
	Title string // default: a description
}

// BiasVsPrecisionFigure draws every bias-precision annotator as one point
// at (estimated bias, estimated precision), precision on a log scale, the
// point's area proportional to its answers when they are known: readable
// for 5 annotators and for 500 (the bars of BiasPrecisionFigure need one
// column each). The Label annotators with the most answers are named.
func BiasVsPrecisionFigure(est *Annotators, opt BiasVsPrecisionOptions) (*Figure, error) {
	if est.Kind != KindBiasPrecision {
		return nil, fmt.Errorf("%w: %s describes %s annotators; biases and precisions need bias-precision annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	var list []Annotator
	maxN := 0
	for _, a := range est.List {
		if math.IsNaN(a.Bias) || !(a.Precision > 0) || math.IsInf(a.Precision, 0) || math.IsInf(a.Bias, 0) {
			continue
		}
		list = append(list, a)
		maxN = max(maxN, a.Answers)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: %s: no annotator has a finite bias and a positive precision", framework.ErrBadInput, est.Name)
	}
	nLabel := opt.Label
	if nLabel == 0 {
		nLabel = 10
	}
	byAnswers := slices.Clone(list)
	sort.SliceStable(byAnswers, func(i, j int) bool { return byAnswers[i].Answers > byAnswers[j].Answers })
	title := opt.Title
	if title == "" {
		title = fmt.Sprintf("Estimated bias and precision of the %d annotators", len(list))
	}
	p := newPanel("", "bias (answer − true value, on average)", "precision (1 / noise variance)")
	p.Add(plotter.NewGrid())
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{}
	p.X.Tick.Marker = niceTicks{}
	for _, a := range list {
		xy := plotter.XYs{{X: a.Bias, Y: a.Precision}}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		r := 3.0
		if maxN > 0 {
			r = 2 + 8*math.Sqrt(float64(a.Answers)/float64(maxN))
		}
		s.GlyphStyle = draw.GlyphStyle{Color: withAlpha(lineColor(0), 140), Shape: draw.CircleGlyph{}, Radius: vg.Points(r)}
		p.Add(s)
	}
	var xys plotter.XYs
	var labels []string
	var bs, ps, lx, ly []float64
	for _, a := range list {
		bs, ps = append(bs, a.Bias), append(ps, a.Precision)
	}
	x0, x1 := labelRange(bs, false)
	y0, y1 := labelRange(ps, true)
	var cand []string
	for i, a := range byAnswers {
		if i == nLabel {
			break
		}
		lx, ly = append(lx, a.Bias), append(ly, math.Log10(a.Precision))
		cand = append(cand, a.Name)
	}
	keep := spreadLabels(lx, ly, cand, x0, x1, y0, y1, 400, 260)
	for i, n := range cand {
		if keep[i] {
			xys = append(xys, plotter.XY{X: lx[i], Y: math.Pow(10, ly[i])})
			labels = append(labels, n)
		}
	}
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels}); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = 8
		}
		l.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(3)}
		p.Add(l)
	}
	f := &Figure{Width: inches(6.5), Height: inches(4.5), Title: title, Panels: [][]*plot.Plot{{p}}}
	if maxN > 0 {
		f.Caption = fmt.Sprintf("One point per annotator, its area proportional to its answers (at most %d); %s.", maxN, namedCaption(len(labels), min(nLabel, len(list))))
	} else {
		f.Caption = fmt.Sprintf("One point per annotator; named: %d of them.", len(labels))
	}
	return f, nil
}

// AccuracyVsAnswersFigure draws every confusion (or ordinal-shift)
// annotator as one point at (answers, estimated accuracy), answers on a log
// scale: the whole crowd at a glance, for 5 annotators or 500, beside the
// confusion matrices of a few. The label annotators with the most answers
// are named (0: 10).
func AccuracyVsAnswersFigure(est *Annotators, label int) (*Figure, error) {
	var list []Annotator
	for _, a := range est.List {
		if a.Answers > 0 && !math.IsNaN(a.Accuracy) && !math.IsInf(a.Accuracy, 0) {
			list = append(list, a)
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: %s: no annotator has answers and an accuracy", framework.ErrBadInput, est.Name)
	}
	if label == 0 {
		label = 10
	}
	p := newPanel("", "answers (log scale)", "estimated accuracy")
	p.Add(plotter.NewGrid())
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.Y.Tick.Marker = niceTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	var xys plotter.XYs
	for _, a := range list {
		xys = append(xys, plotter.XY{X: float64(a.Answers), Y: a.Accuracy})
	}
	s, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: withAlpha(lineColor(0), 150), Shape: draw.CircleGlyph{}, Radius: vg.Points(3)}
	p.Add(s)
	byAnswers := slices.Clone(list)
	sort.SliceStable(byAnswers, func(i, j int) bool { return byAnswers[i].Answers > byAnswers[j].Answers })
	var lp plotter.XYs
	var names []string
	var lx, ly, all []float64
	for _, a := range list {
		all = append(all, float64(a.Answers))
	}
	x0, x1 := labelRange(all, true)
	for i, a := range byAnswers {
		if i == label {
			break
		}
		lx, ly = append(lx, math.Log10(float64(a.Answers))), append(ly, a.Accuracy)
		names = append(names, a.Name)
	}
	keep := spreadLabels(lx, ly, names, x0, x1, 0, 1, 400, 230)
	var kept []string
	for i, n := range names {
		if keep[i] {
			lp = append(lp, plotter.XY{X: math.Pow(10, lx[i]), Y: ly[i]})
			kept = append(kept, n)
		}
	}
	names = kept
	if l, err := plotter.NewLabels(plotter.XYLabels{XYs: lp, Labels: names}); err == nil {
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = 8
		}
		l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		p.Add(l)
	}
	f := &Figure{Width: inches(6.5), Height: inches(4), Title: fmt.Sprintf("Estimated accuracy of the %d annotators against their answers", len(list)), Panels: [][]*plot.Plot{{p}}}
	f.Caption = fmt.Sprintf("One point per annotator; %s.", namedCaption(len(names), min(label, len(list))))
	return f, nil
}

// spreadLabels chooses, in order, the labels to draw at points (x, y) of a
// panel about widthPt × heightPt points (the data area) whose axes span
// [x0, x1] × [y0, y1] (already transformed: log for a log axis): a label
// of 8-pt text to the right of its point is kept when its box overlaps no
// label kept before it.
func spreadLabels(xs, ys []float64, names []string, x0, x1, y0, y1, widthPt, heightPt float64) []bool {
	keep := make([]bool, len(names))
	type box struct{ a, b, c, d float64 }
	var placed []box
	sx, sy := widthPt/math.Max(x1-x0, 1e-12), heightPt/math.Max(y1-y0, 1e-12)
	for i, n := range names {
		px, py := (xs[i]-x0)*sx+4, (ys[i]-y0)*sy+2
		b := box{px, py, px + 4.6*float64(len([]rune(n))), py + 9}
		ok := true
		for _, q := range placed {
			if b.a < q.c && q.a < b.c && b.b < q.d && q.b < b.d {
				ok = false
				break
			}
		}
		if ok {
			placed = append(placed, b)
			keep[i] = true
		}
	}
	return keep
}

// labelRange is the span of v (log10 of it with log) with its extremes.
func labelRange(v []float64, log bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if log {
			x = math.Log10(x)
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// namedCaption says which annotators a scatter names: the n with the most
// answers, or kept of them when names would overlap.
func namedCaption(kept, n int) string {
	if kept == n {
		return fmt.Sprintf("named: the %d with the most answers", n)
	}
	return fmt.Sprintf("named: %d of the %d with the most answers (no overlaps)", kept, n)
}
