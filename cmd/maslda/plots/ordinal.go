package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// OrdinalShiftOptions configure OrdinalShiftFigure.
type OrdinalShiftOptions struct {
	// TrueShift, TrueStretch, TruePrecision are the simulated annotators'
	// parameters, as in simulate's ordinal-shift block (nil: estimates
	// only; TrueStretch nil with TrueShift: 1 for everyone).
	TrueShift, TrueStretch, TruePrecision []float64
	TrueNames                             []string // default DefaultTrueNames
	Select                                []string // default: every annotator, in name order
	Title                                 string
}

// maxOrdinalLabels is how many annotators OrdinalShiftFigure names.
const maxOrdinalLabels = 12

// OrdinalShiftFigure draws ordinal-shift annotators (annotators.json of
// the ordinal-shift model): one point per annotator at (shift, stretch),
// labelled with its name, the reference annotator (0, 1) marked by the
// dashed lines; with a truth, the true point as a ring joined to the
// estimate, and a second panel of estimated against true precision on
// log–log axes with the diagonal.
func OrdinalShiftFigure(est *Annotators, opt OrdinalShiftOptions) (*Figure, error) {
	if est.Kind != KindOrdinalShift {
		return nil, fmt.Errorf("%w: %s describes %s annotators; shifts and stretches need ordinal-shift annotators", framework.ErrBadInput, est.Name, est.Kind)
	}
	truth := opt.TrueShift != nil
	if !truth && (opt.TrueStretch != nil || opt.TruePrecision != nil) {
		return nil, fmt.Errorf("%w: true stretches or precisions without the true shifts", framework.ErrBadInput)
	}
	names := opt.TrueNames
	if truth {
		if names == nil {
			names = DefaultTrueNames(len(opt.TrueShift))
		}
		if len(names) != len(opt.TrueShift) || (opt.TrueStretch != nil && len(opt.TrueStretch) != len(names)) || (opt.TruePrecision != nil && len(opt.TruePrecision) != len(names)) {
			return nil, fmt.Errorf("%w: %d true names, %d shifts, %d stretches and %d precisions: want one of each per annotator", framework.ErrBadInput, len(names), len(opt.TrueShift), len(opt.TrueStretch), len(opt.TruePrecision))
		}
	}
	trueIdx := map[string]int{}
	for i, n := range names {
		trueIdx[n] = i
	}
	sel := opt.Select
	if sel == nil {
		for _, a := range est.List {
			if _, ok := trueIdx[a.Name]; ok || !truth {
				sel = append(sel, a.Name)
			}
		}
		sortNatural(sel)
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("%w: no annotator of %s is among the true ones (%s)", framework.ErrBadInput, est.Name, quoteList(names))
	}
	var pts, tpts plotter.XYs
	var labels []string
	var prec plotter.XYs
	p := newPanel("shift and stretch", "shift (levels; > 0 rates high)", "stretch (> 1 the extremes, < 1 the middle)")
	p.Add(plotter.NewGrid())
	for _, n := range sel {
		a, err := est.Find(n)
		if err != nil {
			return nil, err
		}
		pts = append(pts, plotter.XY{X: a.Shift, Y: a.Stretch})
		labels = append(labels, " "+n)
		i, ok := trueIdx[n]
		if !truth {
			continue
		}
		if !ok {
			return nil, fmt.Errorf("%w: annotator %q has no true parameters (true names: %s)", framework.ErrBadInput, n, quoteList(names))
		}
		t := plotter.XY{X: opt.TrueShift[i], Y: 1}
		if opt.TrueStretch != nil {
			t.Y = opt.TrueStretch[i]
		}
		tpts = append(tpts, t)
		seg, err := plotter.NewLine(plotter.XYs{t, {X: a.Shift, Y: a.Stretch}})
		if err != nil {
			return nil, err
		}
		seg.LineStyle = draw.LineStyle{Color: color.Gray{150}, Width: vg.Points(1)}
		p.Add(seg)
		if opt.TruePrecision != nil {
			prec = append(prec, plotter.XY{X: opt.TruePrecision[i], Y: a.Precision})
		}
	}
	lo, hi := plotter.XY{X: math.Inf(1), Y: math.Inf(1)}, plotter.XY{X: math.Inf(-1), Y: math.Inf(-1)}
	for _, q := range append(append(plotter.XYs{{X: 0, Y: 1}}, pts...), tpts...) {
		lo.X, lo.Y, hi.X, hi.Y = min(lo.X, q.X), min(lo.Y, q.Y), max(hi.X, q.X), max(hi.Y, q.Y)
	}
	padX, padY := max(0.1*(hi.X-lo.X), 0.25), max(0.08*(hi.Y-lo.Y), 0.1)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo.X-padX, hi.X+2*padX, lo.Y-padY, hi.Y+padY
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	ref := draw.LineStyle{Color: color.Gray{110}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	for _, l := range []plotter.XYs{{{X: 0, Y: p.Y.Min}, {X: 0, Y: p.Y.Max}}, {{X: p.X.Min, Y: 1}, {X: p.X.Max, Y: 1}}} {
		line, err := plotter.NewLine(l)
		if err != nil {
			return nil, err
		}
		line.LineStyle = ref
		p.Add(line)
	}
	leg := newLegend()
	if truth {
		s, err := plotter.NewScatter(tpts)
		if err != nil {
			return nil, err
		}
		s.Shape, s.Color, s.Radius = draw.RingGlyph{}, lineColor(1), vg.Points(4)
		p.Add(s)
		leg.Add("true", s)
	}
	allPts := pts
	s, err := plotter.NewScatter(allPts)
	if err != nil {
		return nil, err
	}
	s.Shape, s.Color, s.Radius = draw.CircleGlyph{}, lineColor(0), vg.Points(3)
	p.Add(s)
	leg.Add("estimated", s)
	// Beyond a dozen annotators the names would pile up: name the 12
	// with the most answers (said in the caption).
	caption := ""
	if len(sel) > maxOrdinalLabels {
		rank := make([]int, len(sel))
		for i := range rank {
			rank[i] = i
		}
		answers := func(i int) int {
			a, _ := est.Find(sel[i])
			return a.Answers
		}
		sort.SliceStable(rank, func(i, j int) bool { return answers(rank[i]) > answers(rank[j]) })
		keep := map[int]bool{}
		for _, i := range rank[:maxOrdinalLabels] {
			keep[i] = true
		}
		var lp plotter.XYs
		var ll []string
		for i := range pts {
			if keep[i] {
				lp, ll = append(lp, pts[i]), append(ll, labels[i])
			}
		}
		pts, labels = lp, ll
		caption = fmt.Sprintf("%d annotators; named: the %d with the most answers.", len(sel), maxOrdinalLabels)
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font.Size = 9
	}
	p.Add(lab)
	panels := []*plot.Plot{p}
	if len(prec) > 0 {
		pp, err := scatterPanel("precision (log scales)", "true precision", "estimated precision", prec, true)
		if err != nil {
			return nil, err
		}
		panels = append(panels, pp)
	}
	legendWidth := 1.2
	if !truth {
		leg, legendWidth = nil, 0.2 // one series: the axes say what it is
	}
	return &Figure{Width: inches(4.8*float64(len(panels)) + legendWidth), Height: inches(4.8), Title: opt.Title, Panels: [][]*plot.Plot{panels}, Legend: leg, Caption: caption}, nil
}
