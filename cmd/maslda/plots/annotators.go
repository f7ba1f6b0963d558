package plots

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
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
)

// Annotator is one entry of annotators.json as written by `maslda train`.
type Annotator struct {
	Name    string
	Answers int
	Line    int // line of the entry's opening brace
	// confusion annotators
	Accuracy  float64
	Confusion [][]float64 // row = true class, column = answer
	// bias-precision annotators
	Bias, Precision, SD float64
}

// Annotators is an annotators.json file.
type Annotators struct {
	Name string // file name, for errors
	Kind string // KindConfusion or KindBiasPrecision
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
}

// ReadAnnotators reads annotators.json: a list of confusion annotators
// ({name, answers, accuracy, confusion}) or of bias-precision annotators
// ({annotator, answers, bias, precision, sd}). Errors name the file and
// the line of the offending entry.
func ReadAnnotators(r io.Reader, name string) (*Annotators, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	bad := func(err error, off int64) error {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			off = te.Offset
		}
		return framework.Errorf(name, lineAt(off), "%v", err)
	}
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
			return nil, framework.Errorf(name, line, "entry has neither \"confusion\" (confusion annotators) nor \"bias\"/\"precision\" (bias-precision annotators)")
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
// given), in name order.
func ConfusionFigure(est *Annotators, opt ConfusionOptions) (*Figure, error) {
	if est.Kind != KindConfusion {
		return nil, fmt.Errorf("%w: %s describes %s annotators; confusion matrices need confusion annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	C := est.C()
	classes := opt.Classes
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
	sel := opt.Select
	if sel == nil {
		sel = defaultSelection(est, func(n string) bool { return opt.Truth == nil || trueOf(n) != nil })
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
	var panels [][]*plot.Plot
	var rowPanels []*plot.Plot
	for _, n := range sel {
		a, err := est.Find(n)
		if err != nil {
			return nil, err
		}
		if opt.Truth != nil {
			t := trueOf(n)
			if t == nil {
				return nil, fmt.Errorf("%w: annotator %q has no true matrix: %s names %s", framework.ErrBadInput, n, opt.TruthName, quoteList(trueNames))
			}
			rowPanels = append(rowPanels, heatPanel(n+": true", t, classes, pal, withLabels, rotate))
		}
		rowPanels = append(rowPanels, heatPanel(fmt.Sprintf("%s: estimated (%d answers)", n, a.Answers), a.Confusion, classes, pal, withLabels, rotate))
		if len(rowPanels) == perRow*panelsPer(opt.Truth != nil) {
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
	// shows them on the y axis.
	for _, r := range panels {
		for _, p := range r[1:] {
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
	cols := perRow * panelsPer(opt.Truth != nil)
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(yLabels + float64(cols)*(ds+0.25) + 0.3)
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
	if opt.Select == nil && len(sel) < len(est.List) {
		f.Caption = fmt.Sprintf("The %d annotators with the most answers (of %d).", len(sel), len(est.List))
	}
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
// top), answer on x.
func heatPanel(title string, m [][]float64, classes []string, pal palette.Palette, withLabels, rotate bool) *plot.Plot {
	C := len(m)
	p := newPanel(title, "answer", "true class")
	g := matrixGrid(m)
	hm := plotter.NewHeatMap(g, pal)
	hm.Min, hm.Max = 0, 1
	hm.Overflow = pal.Colors()[len(pal.Colors())-1] // rounding above 1
	p.Add(hm)
	p.NominalX(classes...)
	rev := slices.Clone(classes)
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
				labels = append(labels, strconv.FormatFloat(m[i][j], 'f', 2, 64))
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

// BiasPrecisionOptions configure BiasPrecisionFigure.
type BiasPrecisionOptions struct {
	TrueBias, TruePrecision []float64 // as for simulate --bias/--precision; nil: estimates only
	TrueNames               []string  // default DefaultTrueNames
	Select                  []string  // default: every annotator (with a truth when given), in name order
	Title                   string
	Width, Height           vg.Length
}

// BiasPrecisionFigure draws, per annotator (x axis, by name), the true
// (open circle) and estimated (filled) bias, and the same for the
// precision on a log scale, in two panels side by side.
func BiasPrecisionFigure(est *Annotators, opt BiasPrecisionOptions) (*Figure, error) {
	if est.Kind != KindBiasPrecision {
		return nil, fmt.Errorf("%w: %s describes %s annotators; biases and precisions need bias-precision annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	truth := opt.TrueBias != nil || opt.TruePrecision != nil
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
	var estB, estP, trB, trP plotter.XYs
	for i, n := range sel {
		a, err := est.Find(n)
		if err != nil {
			return nil, err
		}
		off := 0.0
		if truth {
			off = 0.15
			t := slices.Index(trueNames, n)
			if t < 0 {
				return nil, fmt.Errorf("%w: annotator %q has no true bias and precision (true annotators: %s)", framework.ErrBadInput, n, quoteList(trueNames))
			}
			trB = append(trB, plotter.XY{X: float64(i) - off, Y: opt.TrueBias[t]})
			trP = append(trP, plotter.XY{X: float64(i) - off, Y: opt.TruePrecision[t]})
		}
		estB = append(estB, plotter.XY{X: float64(i) + off, Y: a.Bias})
		estP = append(estP, plotter.XY{X: float64(i) + off, Y: a.Precision})
	}
	leg := newLegend()
	rotate := len(sel) > 8
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
			zero, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 0}, {X: float64(len(sel)) - 0.5, Y: 0}})
			if err != nil {
				return nil, err
			}
			zero.LineStyle = draw.LineStyle{Color: color.Gray{140}, Width: vg.Points(0.8)}
			p.Add(zero)
		}
		first := ylabel == "bias"
		if tr != nil {
			s, err := plotter.NewScatter(tr)
			if err != nil {
				return nil, err
			}
			s.Shape, s.Color, s.Radius = draw.RingGlyph{}, color.Black, vg.Points(4)
			p.Add(s)
			if first {
				leg.Add("true", s)
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
		p.NominalX(sel...)
		p.X.Min, p.X.Max = -0.5, float64(len(sel))-0.5
		if rotate {
			p.X.Tick.Label.Rotation = math.Pi / 2
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
			p.X.Tick.Label.Font.Size = vg.Points(max(5, 9-float64(len(sel))/40))
		}
		return p, nil
	}
	pb, err := mk("bias (answer − truth, mean)", "bias", estB, trB, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", est.Name, err)
	}
	pp, err := mk("precision (1 / noise variance; log scale)", "precision", estP, trP, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", est.Name, err)
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(max(9, 2*(0.12*float64(len(sel))+1.2)+1.2))
	}
	if h == 0 {
		h = inches(4)
	}
	return &Figure{Width: w, Height: h, Title: opt.Title, Panels: [][]*plot.Plot{{pb, pp}}, Legend: leg}, nil
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
