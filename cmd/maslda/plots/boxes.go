package plots

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BoxGroup is one box: a label and its values (one per annotator).
type BoxGroup struct {
	Label  string
	Values []float64
}

// BoxPanel is one panel of boxes side by side.
type BoxPanel struct {
	Title, YLabel string
	Groups        []BoxGroup
	Log           bool // log-scale y (values must be positive)
	Unit          bool // values are proportions: the y axis spans 0 to 1
}

// BoxOptions style BoxFigure.
type BoxOptions struct {
	Title         string
	Width, Height vg.Length // default 3.6 in per panel × 4.2 in
}

// BoxFigure draws the panels side by side: for each group a box (median,
// quartiles, whiskers to the furthest value within 1.5 IQR) with every
// value drawn as a small dot beside it.
func BoxFigure(panels []BoxPanel, opt BoxOptions) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("%w: no box plot to draw", framework.ErrBadInput)
	}
	var row []*plot.Plot
	for _, bp := range panels {
		if len(bp.Groups) == 0 {
			return nil, fmt.Errorf("%w: box panel %q has no groups", framework.ErrBadInput, bp.Title)
		}
		p := newPanel(bp.Title, "", bp.YLabel)
		grid := plotter.NewGrid()
		grid.Vertical.Color = nil
		p.Add(grid)
		if bp.Unit {
			p.Y.Min, p.Y.Max = 0, 1
		}
		if bp.Log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, g := range bp.Groups {
				for _, v := range g.Values {
					if v > 0 {
						lo, hi = min(lo, v), max(hi, v)
					}
				}
			}
			if hi > 0 {
				p.Y.Min, p.Y.Max = logRange(lo, hi)
			}
		} else {
			p.Y.Tick.Marker = niceTicks{}
		}
		var names []string
		for i, g := range bp.Groups {
			if len(g.Values) == 0 {
				return nil, fmt.Errorf("%w: box %q of panel %q has no values", framework.ErrBadInput, g.Label, bp.Title)
			}
			for _, v := range g.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) || (bp.Log && v <= 0) {
					return nil, fmt.Errorf("%w: box %q of panel %q: value %v cannot be drawn", framework.ErrBadInput, g.Label, bp.Title, v)
				}
			}
			box, err := plotter.NewBoxPlot(vg.Points(36), float64(i), plotter.Values(g.Values))
			if err != nil {
				return nil, fmt.Errorf("box %q: %w", g.Label, err)
			}
			box.FillColor = withAlpha(lineColor(i), 60)
			box.BoxStyle.Color = lineColor(i)
			box.BoxStyle.Width = vg.Points(1.2)
			box.MedianStyle.Width = vg.Points(2)
			box.GlyphStyle.Shape = noGlyph{} // the dots show every value
			p.Add(box)
			dots := make(plotter.XYs, len(g.Values))
			for j, v := range g.Values {
				// deterministic jitter to the right of the box
				u := math.Mod(float64(j)*0.6180339887498949, 1)
				dots[j] = plotter.XY{X: float64(i) + 0.3 + 0.12*u, Y: v}
			}
			sc, err := plotter.NewScatter(dots)
			if err != nil {
				return nil, fmt.Errorf("box %q: %w", g.Label, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: withAlpha(lineColor(i), 170), Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
			p.Add(sc)
			names = append(names, fmt.Sprintf("%s\n(%d annotators)", g.Label, len(g.Values)))
		}
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(bp.Groups))-0.4
		row = append(row, p)
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(3.6*float64(len(panels)) + 0.4)
	}
	if h == 0 {
		h = inches(4.2)
	}
	return &Figure{Width: w, Height: h, Title: opt.Title, Panels: [][]*plot.Plot{row}}, nil
}

// AnnotatorBoxes builds the panels of the annotator summary from what is
// given (at least est or answers):
//
//   - answers per annotator, from the answers when given, else from
//     annotators.json (log scale when the counts span a factor of 30 or more);
//   - for confusion annotators or categorical answers: annotator accuracy,
//     estimated (annotators.json) and empirical (answers against the truth,
//     when both are given);
//   - for bias-precision annotators: the noise standard deviation,
//     estimated (1/√precision) and empirical (the s.d. of answer − truth
//     over the annotator's answered tasks that have a truth; at least two).
//
// answers and truth are tables as read by corpus.ReadAnswers / ReadTruth.
// numeric says that answers are numbers (regression) when there is no
// est (whose kind decides otherwise); see LooksNumeric.
func AnnotatorBoxes(est *Annotators, answers *corpus.AnswerTable, truth *corpus.TruthTable, numeric bool) ([]BoxPanel, error) {
	if est == nil && answers == nil {
		return nil, fmt.Errorf("%w: nothing to summarise: give annotators.json or answers", framework.ErrBadInput)
	}
	regression := numeric
	if est != nil {
		regression = est.Kind == KindBiasPrecision
	}
	var counts BoxGroup
	if answers != nil {
		n := map[string]int{}
		var order []string
		for _, r := range answers.Rows {
			if n[r.Worker] == 0 {
				order = append(order, r.Worker)
			}
			n[r.Worker]++
		}
		if len(order) == 0 {
			return nil, framework.Errorf(answers.Name, 0, "no answers")
		}
		counts.Label = filepath.Base(answers.Name)
		for _, w := range order {
			counts.Values = append(counts.Values, float64(n[w]))
		}
	} else {
		counts.Label = "annotators.json"
		for _, a := range est.List {
			if a.Answers > 0 {
				counts.Values = append(counts.Values, float64(a.Answers))
			}
		}
		if len(counts.Values) == 0 {
			return nil, framework.Errorf(est.Name, 0, "every annotator has 0 answers")
		}
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range counts.Values {
		lo, hi = min(lo, v), max(hi, v)
	}
	wide := hi >= 30*lo
	title := "answers per annotator"
	if wide {
		title += " (log scale)"
	}
	panels := []BoxPanel{{Title: title, YLabel: "answers", Groups: []BoxGroup{counts}, Log: wide}}

	quality := BoxPanel{Title: "annotator accuracy", YLabel: "accuracy", Unit: true}
	if regression {
		quality = BoxPanel{Title: "annotator noise s.d.", YLabel: "s.d. of answer − truth"}
	}
	if est != nil {
		g := BoxGroup{Label: "estimated"}
		for _, a := range est.List {
			if regression {
				g.Values = append(g.Values, a.SD)
			} else {
				g.Values = append(g.Values, a.Accuracy)
			}
		}
		quality.Groups = append(quality.Groups, g)
	}
	if answers != nil && truth != nil {
		g, err := empirical(answers, truth, regression)
		if err != nil {
			return nil, err
		}
		quality.Groups = append(quality.Groups, g)
	}
	if len(quality.Groups) > 0 {
		panels = append(panels, quality)
	}
	return panels, nil
}

// empirical is each annotator's accuracy (or s.d. of answer − truth)
// on the answered tasks that have a truth.
func empirical(answers *corpus.AnswerTable, truth *corpus.TruthTable, regression bool) (BoxGroup, error) {
	g := BoxGroup{Label: "empirical (vs truth)"}
	tv := make(map[string]string, len(truth.Rows))
	for _, r := range truth.Rows {
		tv[r.Task] = r.Label
	}
	type acc struct {
		n, right int
		diffs    []float64
	}
	per := map[string]*acc{}
	var order []string
	for _, r := range answers.Rows {
		t, ok := tv[r.Task]
		if !ok {
			continue
		}
		a := per[r.Worker]
		if a == nil {
			a = &acc{}
			per[r.Worker] = a
			order = append(order, r.Worker)
		}
		a.n++
		if regression {
			x, err := strconv.ParseFloat(r.Label, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return g, framework.Errorf(answers.Name, r.Line, "label %q: want a finite number (bias-precision annotators)", r.Label)
			}
			y, err := strconv.ParseFloat(t, 64)
			if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
				return g, fmt.Errorf("%w: %s: true value %q of task %q is not a finite number", framework.ErrBadInput, truth.Name, t, r.Task)
			}
			a.diffs = append(a.diffs, x-y)
		} else if r.Label == t {
			a.right++
		}
	}
	if len(order) == 0 {
		ex := ""
		if len(answers.Rows) > 0 && len(truth.Rows) > 0 {
			ex = fmt.Sprintf(" (answers' tasks look like %q, the truth's like %q)", answers.Rows[0].Task, truth.Rows[0].Task)
		}
		return g, fmt.Errorf("%w: no task of %s has a truth in %s%s", framework.ErrBadInput, answers.Name, truth.Name, ex)
	}
	for _, w := range order {
		a := per[w]
		if regression {
			if len(a.diffs) >= 2 {
				g.Values = append(g.Values, noiseSD(a.diffs))
			}
		} else {
			g.Values = append(g.Values, float64(a.right)/float64(a.n))
		}
	}
	if len(g.Values) == 0 {
		return g, fmt.Errorf("%w: no annotator of %s has two answers with a truth in %s", framework.ErrBadInput, answers.Name, truth.Name)
	}
	return g, nil
}

// noGlyph draws nothing.
type noGlyph struct{}

func (noGlyph) DrawGlyph(*draw.Canvas, draw.GlyphStyle, vg.Point) {}

// LooksNumeric says whether answers look like a regression target: every
// label is a finite number, and some label is not a whole number or there
// are more than MaxClasses distinct labels (a scale of up to MaxClasses
// whole numbers counts as classes).
func LooksNumeric(answers *corpus.AnswerTable) bool {
	distinct := map[string]bool{}
	fractional := false
	for _, r := range answers.Rows {
		x, err := strconv.ParseFloat(r.Label, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		fractional = fractional || x != math.Trunc(x)
		distinct[r.Label] = true
	}
	return len(distinct) > 0 && (fractional || len(distinct) > MaxClasses)
}

// MaxClasses is the most distinct whole-number labels LooksNumeric still
// takes for classes.
const MaxClasses = 20

// noiseSD is the standard deviation of answer − truth around its mean with
// n in the denominator: 1/√precision with the precision the bias-precision
// M-step (and EmpiricalBiasPrecisions) defines, so that the empirical box
// and the estimated one measure the same thing.
func noiseSD(d []float64) float64 {
	m := 0.0
	for _, x := range d {
		m += x
	}
	m /= float64(len(d))
	v := 0.0
	for _, x := range d {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(d)))
}
