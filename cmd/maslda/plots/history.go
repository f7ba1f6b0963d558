package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// History is a history.csv written by `maslda train`: one row per update,
// columns by name (iteration, epoch, rho, elbo, seconds, and
// truth_accuracy or truth_r2 with --truth, stage with staged training,
// elbo_full — empty except at evaluated updates — with SVI's eval_every;
// others may follow).
type History struct {
	Name    string               // file name, for errors
	Columns []string             // the header as found
	Values  map[string][]float64 // column → one value per row; NaN for an empty cell
}

// ReadHistory reads a history.csv. Every cell must be a number or empty.
func ReadHistory(r io.Reader, name string) (*History, error) {
	header, rows, err := readTable(r, name)
	if err != nil {
		return nil, err
	}
	h := &History{Name: name, Columns: header, Values: map[string][]float64{}}
	for j, c := range header {
		if c == "" {
			return nil, framework.Errorf(name, 1, "column %d has no name", j+1)
		}
		if _, dup := h.Values[c]; dup {
			return nil, framework.Errorf(name, 1, "column %q appears twice", c)
		}
		h.Values[c] = make([]float64, 0, len(rows))
	}
	for _, row := range rows {
		for j, v := range row.fields {
			x := math.NaN()
			if v = strings.TrimSpace(v); v != "" {
				x, err = strconv.ParseFloat(v, 64)
				if err != nil || math.IsInf(x, 0) {
					return nil, framework.Errorf(name, row.line, "%s %q: want a finite number or an empty cell", header[j], v)
				}
			}
			h.Values[header[j]] = append(h.Values[header[j]], x)
		}
	}
	if len(rows) == 0 {
		return nil, framework.Errorf(name, 0, "no rows after the header: nothing to plot")
	}
	return h, nil
}

// Column returns a column's values, or an error naming the file and the
// columns found.
func (h *History) Column(c string) ([]float64, error) {
	v, ok := h.Values[c]
	if !ok {
		return nil, framework.Errorf(h.Name, 1, "no column %q; the header has columns %s", c, quoteList(h.Columns))
	}
	return v, nil
}

// Run is one labelled history.
type Run struct {
	Label   string
	History *History
}

// HistoryOptions choose HistoryFigure's axes.
type HistoryOptions struct {
	X []string // one panel per x column (iteration, epoch, seconds); default iteration, seconds
	Y string   // default elbo
	// Smooth: a centred moving average over this many updates is drawn
	// over the raw trace (drawn thin and light, and not counted in the axis
	// range). 0: automatic: for the ELBO, one epoch's worth of updates
	// for runs with several updates per epoch (SVI's noisy mini-batch
	// estimates), none for batch runs; no smoothing of other columns.
	// 1: off.
	Smooth        int
	Title         string
	Width, Height vg.Length // default 5 in per panel (+ legend) × 4 in
	// StageName names a stage of the stage column (staged training); where
	// the stage changes a dashed vertical line is drawn with the new
	// stage's name. Nil: "stage N".
	StageName func(stage int) string
}

// HistoryFigure overlays the runs' Y column against each X column (panels
// side by side, one legend). Rows where either value is empty are skipped:
// a sparse column (elbo_full, the bound over the whole corpus that SVI
// evaluates every eval_every epochs) is drawn as a line through the rows
// that have a value, each marked (as is every point of a trace of at most
// 60 points, or with values in at most half the rows).
func HistoryFigure(runs []Run, opt HistoryOptions) (*Figure, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no history to plot", framework.ErrBadInput)
	}
	if opt.Smooth < 0 {
		return nil, fmt.Errorf("%w: smoothing window %d, want ≥ 0", framework.ErrBadInput, opt.Smooth)
	}
	xs := opt.X
	if len(xs) == 0 {
		xs = []string{"iteration", "seconds"}
	}
	y := opt.Y
	if y == "" {
		y = "elbo"
	}
	windows := make([]int, len(runs))
	var notes []string
	for i, r := range runs {
		windows[i] = opt.Smooth
		if opt.Smooth == 0 && y == "elbo" {
			windows[i] = updatesPerEpoch(r.History)
		}
		if windows[i] > 1 {
			notes = append(notes, fmt.Sprintf("%s: %d", r.Label, windows[i]))
		}
	}
	leg := newLegend()
	var panels []*plot.Plot
	for pi, x := range xs {
		p := newPanel(MetricLabel(y)+" versus "+axisWord(x), MetricLabel(x), MetricLabel(y))
		p.Add(plotter.NewGrid())
		p.Y.Tick.Marker = niceTicks{Compact: true}
		p.X.Tick.Marker = niceTicks{}
		var front []plot.Plotter // drawn after every raw trace
		for i, r := range runs {
			xv, err := r.History.Column(x)
			if err != nil {
				return nil, err
			}
			if x == "epoch" {
				xv = fractionalEpochs(xv)
			}
			yv, err := r.History.Column(y)
			if err != nil {
				return nil, err
			}
			xys := tracePoints(xv, yv)
			if len(xys) == 0 {
				return nil, framework.Errorf(r.History.Name, 0, "no row has both %s and %s", x, y)
			}
			var thumbs []plot.Thumbnailer
			if windows[i] > 1 && len(xys) > windows[i] {
				raw, err := plotter.NewLine(xys)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", r.History.Name, err)
				}
				raw.LineStyle = draw.LineStyle{Color: withAlpha(lineColor(i), 60), Width: vg.Points(0.5)}
				p.Add(unranged{raw})
				xys = movingAverage(xys, windows[i])
			}
			line, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", r.History.Name, err)
			}
			line.LineStyle = draw.LineStyle{Color: lineColor(i), Width: vg.Points(1.5), Dashes: dashes(i)}
			front = append(front, line)
			thumbs = append(thumbs, line)
			if markPoints(len(xys), len(xv)) {
				pts, err := plotter.NewScatter(xys)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", r.History.Name, err)
				}
				pts.Color, pts.Shape, pts.Radius = lineColor(i), glyph(i), vg.Points(2.5)
				front = append(front, pts)
				thumbs = append(thumbs, pts)
			}
			if pi == 0 {
				leg.Add(r.Label, thumbs...)
			}
			if st, ok := r.History.Values["stage"]; ok && i == 0 {
				for _, m := range stageMarkers(xv, st, opt.StageName) {
					front = append(front, m)
				}
			}
		}
		p.Add(front...)
		panels = append(panels, p)
	}
	// One run needs no legend: the axes say what it is.
	legendWidth := 1.5
	if len(runs) == 1 {
		leg, legendWidth = nil, 0
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(5*float64(len(xs)) + legendWidth)
	}
	if h == 0 {
		h = inches(4)
	}
	f := &Figure{Width: w, Height: h, Title: opt.Title, Panels: [][]*plot.Plot{panels}, Legend: leg}
	if notes != nil {
		f.Caption = fmt.Sprintf("Thin light lines: every update (clipped to the axes); thick lines: centred moving average over N updates (%s).", strings.Join(notes, ", "))
	}
	return f, nil
}

// tracePoints are the (x, y) of the rows where both have a value, in row
// order: the line through them skips the empty cells.
func tracePoints(xv, yv []float64) plotter.XYs {
	var xys plotter.XYs
	for j := range xv {
		if !math.IsNaN(xv[j]) && !math.IsNaN(yv[j]) {
			xys = append(xys, plotter.XY{X: xv[j], Y: yv[j]})
		}
	}
	return xys
}

// markPoints reports whether each of the n points of a trace from rows
// rows gets a marker: few updates (batch), or a sparse column (values in
// at most half the rows, as elbo_full).
func markPoints(n, rows int) bool { return n <= 60 || 2*n <= rows }

// updatesPerEpoch is the number of updates per epoch (rows / last epoch)
// of a run with an epoch column, rounded; 1 without one.
func updatesPerEpoch(h *History) int {
	ep, ok := h.Values["epoch"]
	if !ok || len(ep) == 0 {
		return 1
	}
	last := 0.0
	for _, e := range ep {
		if !math.IsNaN(e) {
			last = max(last, e)
		}
	}
	if last < 1 {
		return 1
	}
	return max(1, int(math.Round(float64(len(ep))/last)))
}

// fractionalEpochs spreads the updates of one epoch evenly over it: the
// j-th of n updates of epoch e is at e − 1 + j/n (batch EM, one update per
// epoch, stays at e).
func fractionalEpochs(ep []float64) []float64 {
	out := make([]float64, len(ep))
	for i := 0; i < len(ep); {
		j := i
		for j < len(ep) && ep[j] == ep[i] {
			j++
		}
		for k := i; k < j; k++ {
			out[k] = ep[i] - 1 + float64(k-i+1)/float64(j-i)
		}
		if math.IsNaN(ep[i]) {
			out[i], j = math.NaN(), i+1
		}
		i = j
	}
	return out
}

// unranged hides a plotter from the axis range computation (it is drawn,
// clipped, within the range of the others).
// stageMarker is a dashed vertical line across a panel at x with a name
// at its top: where staged training enters a new stage.
type stageMarker struct {
	x    float64
	name string
}

// stageMarkers marks each row whose stage differs from the row before it,
// between the two rows' x (the first row of the new stage when the rows
// before have no x).
func stageMarkers(xv, stage []float64, name func(int) string) []stageMarker {
	var out []stageMarker
	for i := 1; i < len(stage) && i < len(xv); i++ {
		if math.IsNaN(stage[i]) || math.IsNaN(stage[i-1]) || stage[i] == stage[i-1] {
			continue
		}
		x := xv[i]
		if !math.IsNaN(xv[i-1]) {
			x = (xv[i-1] + xv[i]) / 2
		}
		n := "stage " + strconv.Itoa(int(stage[i]))
		if name != nil {
			n = name(int(stage[i]))
		}
		out = append(out, stageMarker{x, n})
	}
	return out
}

// Plot draws the marker (it has no data range: the axes follow the traces).
func (m stageMarker) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(m.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, x, c.Min.Y, x, c.Max.Y)
	ts := textStyle(8)
	ts.Color = color.Gray{Y: 60}
	c.FillText(ts, vg.Point{X: x + vg.Points(3), Y: c.Min.Y + vg.Points(4)}, m.name)
}

type unranged struct{ p plot.Plotter }

func (u unranged) Plot(c draw.Canvas, p *plot.Plot) { u.p.Plot(c, p) }

func axisWord(x string) string {
	switch x {
	case "iteration":
		return "updates"
	case "epoch":
		return "epochs"
	}
	return x
}

// movingAverage is the centred moving average over window points (fewer
// at the ends).
func movingAverage(xys plotter.XYs, window int) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	half := window / 2
	for i := range xys {
		lo, hi := max(0, i-half), min(len(xys), i-half+window)
		s := 0.0
		for j := lo; j < hi; j++ {
			s += xys[j].Y
		}
		out[i] = plotter.XY{X: xys[i].X, Y: s / float64(hi-lo)}
	}
	return out
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	// non-premultiplied
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}

// niceTicks puts about five labelled ticks at multiples of 1, 2 or 5
// × 10^k, with minor ticks between; Compact writes large magnitudes with
// a suffix (−7.9M rather than −7900000).
type niceTicks struct{ Compact bool }

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minor := mag, mag/5
	switch f := raw / mag; {
	case f >= 7:
		step, minor = 10*mag, 2*mag
	case f >= 3:
		step, minor = 5*mag, mag
	case f >= 1.4:
		step, minor = 2*mag, mag/2
	}
	div, suffix := 1.0, ""
	if t.Compact {
		switch big := max(math.Abs(lo), math.Abs(hi)); {
		case big >= 1e9:
			div, suffix = 1e9, "G"
		case big >= 1e6:
			div, suffix = 1e6, "M"
		case big >= 1e4:
			div, suffix = 1e3, "k"
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step/div)+1e-9)))
	var ticks []plot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi+minor*1e-9; i++ {
		v := i * minor
		tk := plot.Tick{Value: v}
		if r := math.Round(v / step); math.Abs(v/step-r) < 1e-6 {
			v = r * step
			tk.Value = v
			l := strconv.FormatFloat(v/div, 'f', prec, 64)
			if v == 0 {
				l = "0"
			}
			tk.Label = strings.Replace(l, "-", "−", 1) + suffix
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// logTicks labels 1, 2 and 5 × 10^k on a log axis spanning at most three
// decades, and powers of ten otherwise, with unlabelled ticks at the
// other integer multiples.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	few := math.Log10(hi/lo) <= 3
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (few && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// logRange widens [lo, hi] (positive) to the enclosing 1, 2 or 5 × 10^k
// marks, so that a log axis ends on labelled ticks.
func logRange(lo, hi float64) (float64, float64) {
	down := func(x float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(x)))
		for _, m := range []float64{5, 2, 1} {
			if m*p <= x*(1+1e-9) {
				return m * p
			}
		}
		return p
	}
	up := func(x float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(x)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*p >= x*(1-1e-9) {
				return m * p
			}
		}
		return 10 * p
	}
	l, h := down(lo), up(hi)
	if l == h {
		h = up(h * 1.01)
	}
	return l, h
}
