package plots

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ResultColumns are the columns of an experiment's results.csv
// (docs/design.md, "Experiments"), in order.
var ResultColumns = []string{
	"experiment", "model", "k", "alpha", "tau", "omega", "seed", "status",
	"truth_accuracy", "truth_macro_f1", "heldout_accuracy", "heldout_macro_f1",
	"truth_r2", "truth_mae", "truth_rmse", "heldout_r2", "heldout_mae", "heldout_rmse",
	"iters", "seconds", "peak_rss_mib", "error",
}

// identity columns: not metrics.
var resultKeys = []string{"experiment", "model", "k", "alpha", "tau", "omega", "seed", "status", "error"}

// Result is one run (row) of results.csv with the value of one metric.
type Result struct {
	Line       int // 1-based line in the file
	Experiment string
	Model      string
	K          int
	Alpha      string // hyper-parameters as written; empty = the model's default
	Tau        string
	Omega      string
	Seed       string
	Status     string
	Value      float64 // the metric; meaningful when Has
	Has        bool    // the metric's cell is not empty
}

// Results are the rows of a results.csv for one metric.
type Results struct {
	Name    string   // file name, for errors
	Metric  string   // the metric column read into Result.Value
	Columns []string // the header as found
	Rows    []Result
}

// ReadResults reads results.csv (name is used in errors) keeping, besides
// the identity columns, the column metric. Columns are found by header
// name; model, k, status and metric are required (the error names the
// file and lists the columns found); experiment, alpha, tau, omega and
// seed are read when present. k and the metric are parsed only on rows
// with status "done" (a failed run may have neither); an empty k (a model
// without topics, as `maslda experiment` writes for Dawid–Skene) reads as
// K = 0.
func ReadResults(r io.Reader, name, metric string) (*Results, error) {
	if slices.Contains(resultKeys, metric) {
		return nil, fmt.Errorf("%w: %q is not a metric column; metrics: %s", framework.ErrBadInput, metric, strings.Join(metricColumns(), ", "))
	}
	header, rows, err := readTable(r, name)
	if err != nil {
		return nil, err
	}
	col, err := findColumns(name, header, []string{"model", "k", "status", metric}, []string{"experiment", "alpha", "tau", "omega", "seed"})
	if err != nil {
		if !slices.Contains(ResultColumns, metric) {
			err = fmt.Errorf("%w (results.csv metrics: %s)", err, strings.Join(metricColumns(), ", "))
		}
		return nil, err
	}
	res := &Results{Name: name, Metric: metric, Columns: header}
	get := func(rec []string, c string) string {
		if j := col[c]; j >= 0 {
			return strings.TrimSpace(rec[j])
		}
		return ""
	}
	for _, row := range rows {
		rec := row.fields
		x := Result{Line: row.line, Experiment: get(rec, "experiment"), Model: get(rec, "model"),
			Alpha: get(rec, "alpha"), Tau: get(rec, "tau"), Omega: get(rec, "omega"),
			Seed: get(rec, "seed"), Status: get(rec, "status")}
		if x.Status == "done" {
			if x.Model == "" {
				return nil, framework.Errorf(name, row.line, "empty model")
			}
			// An empty k is a model without topics (Dawid–Skene: the runner
			// leaves its k empty): K = 0, drawn as a horizontal line.
			if ks := get(rec, "k"); ks != "" {
				k, err := strconv.Atoi(ks)
				if err != nil || k < 0 {
					return nil, framework.Errorf(name, row.line, "k %q: want a non-negative integer, or empty for a model without topics", ks)
				}
				x.K = k
			}
			if v := get(rec, metric); v != "" {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, framework.Errorf(name, row.line, "%s %q: want a finite number or an empty cell", metric, v)
				}
				x.Value, x.Has = f, true
			}
		}
		res.Rows = append(res.Rows, x)
	}
	return res, nil
}

func metricColumns() []string {
	var m []string
	for _, c := range ResultColumns {
		if !slices.Contains(resultKeys, c) {
			m = append(m, c)
		}
	}
	return m
}

// LowerIsBetter says whether a smaller value of metric is better: errors
// (MAE, RMSE) and costs (seconds, memory, iterations).
func LowerIsBetter(metric string) bool {
	for _, s := range []string{"mae", "rmse", "seconds", "peak_rss_mib", "iters"} {
		if metric == s || strings.HasSuffix(metric, "_"+s) {
			return true
		}
	}
	return false
}

// Point is the summary of one model at one K: mean and standard deviation
// over seeds of the chosen hyper-parameter setting.
type Point struct {
	K        int
	Mean, SD float64 // SD: sample standard deviation (n − 1); 0 for one run
	N        int     // runs (seeds) of the chosen setting
	Setting  string  // the chosen setting: "alpha=0.1 omega=2", or "defaults"
	Settings int     // settings compared at this K
}

// Series is one model's points, by increasing K.
type Series struct {
	Model  string
	Points []Point
}

// SummaryOptions select rows for Summarize.
type SummaryOptions struct {
	Experiment    string   // keep rows of this experiment; required when the file has several
	Models        []string // keep these models, in this order; nil = all, in order of appearance
	LowerIsBetter bool     // the best setting has the smallest mean (errors, costs)
}

// Summarize groups the done rows that have a value by (model, K,
// hyper-parameter setting), takes mean and standard deviation over seeds,
// and keeps for each (model, K) the setting with the best mean (the
// paper's grid search; ties: more runs, then the setting's name). It
// fails when nothing is left to plot, when the file mixes experiments and
// none was chosen, and on an unknown model or experiment.
func Summarize(res *Results, opt SummaryOptions) ([]Series, error) {
	var exps []string
	for _, r := range res.Rows {
		if r.Status == "done" && !slices.Contains(exps, r.Experiment) {
			exps = append(exps, r.Experiment)
		}
	}
	switch {
	case opt.Experiment != "" && !slices.Contains(exps, opt.Experiment):
		return nil, fmt.Errorf("%w: %s: no done run of experiment %q; experiments: %s", framework.ErrBadInput, res.Name, opt.Experiment, quoteList(exps))
	case opt.Experiment == "" && len(exps) > 1:
		return nil, fmt.Errorf("%w: %s has several experiments (%s): choose one", framework.ErrBadInput, res.Name, quoteList(exps))
	}
	type key struct {
		model   string
		k       int
		setting string
	}
	vals := map[key][]float64{}
	var models []string
	done := 0
	for _, r := range res.Rows {
		if r.Status != "done" || (opt.Experiment != "" && r.Experiment != opt.Experiment) {
			continue
		}
		done++
		if !r.Has {
			continue
		}
		if !slices.Contains(models, r.Model) {
			models = append(models, r.Model)
		}
		k := key{r.Model, r.K, settingName(r)}
		vals[k] = append(vals[k], r.Value)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("%w: %s: nothing to plot: %d rows, %d with status done, none with a value of %s", framework.ErrBadInput, res.Name, len(res.Rows), done, res.Metric)
	}
	if opt.Models != nil {
		for _, m := range opt.Models {
			if !slices.Contains(models, m) {
				return nil, fmt.Errorf("%w: %s: no done run of model %q with a value of %s; models: %s", framework.ErrBadInput, res.Name, m, res.Metric, quoteList(models))
			}
		}
		models = opt.Models
	}
	better := func(a, b float64) bool { return a > b }
	if opt.LowerIsBetter {
		better = func(a, b float64) bool { return a < b }
	}
	var out []Series
	for _, m := range models {
		best := map[int]Point{}
		for k, v := range vals {
			if k.model != m {
				continue
			}
			mean, sd := meanSD(v)
			p := Point{K: k.k, Mean: mean, SD: sd, N: len(v), Setting: k.setting}
			b, seen := best[k.k]
			if !seen || better(p.Mean, b.Mean) || (p.Mean == b.Mean && (p.N > b.N || (p.N == b.N && p.Setting < b.Setting))) {
				p.Settings = b.Settings
				b = p
			}
			b.Settings++
			best[k.k] = b
		}
		s := Series{Model: m}
		for _, p := range best {
			s.Points = append(s.Points, p)
		}
		sort.Slice(s.Points, func(i, j int) bool { return s.Points[i].K < s.Points[j].K })
		out = append(out, s)
	}
	return out, nil
}

func settingName(r Result) string {
	var parts []string
	for _, kv := range [][2]string{{"alpha", r.Alpha}, {"tau", r.Tau}, {"omega", r.Omega}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+"="+kv[1])
		}
	}
	if parts == nil {
		return "defaults"
	}
	return strings.Join(parts, " ")
}

func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// MetricOptions style MetricFigure.
type MetricOptions struct {
	Metric        string // column name, for the axis label
	Title         string // default: "<metric> versus the number of topics"
	Width, Height vg.Length
}

// MetricFigure draws one line per model: the mean of the metric at each K
// with ±1 s.d. error bars. A model with results at one K ≤ 1 only (no
// topics, such as Dawid–Skene) while others vary K is drawn as a dashed
// horizontal line across the K range. Models are offset slightly along K
// so that their error bars do not hide each other.
func MetricFigure(series []Series, opt MetricOptions) (*Figure, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: no series to plot", framework.ErrBadInput)
	}
	var ks []int
	flat := func(s Series) bool { return len(s.Points) == 1 && s.Points[0].K <= 1 }
	for _, s := range series {
		if len(s.Points) == 0 {
			return nil, fmt.Errorf("%w: model %q has no points", framework.ErrBadInput, s.Model)
		}
		for _, p := range s.Points {
			if !slices.Contains(ks, p.K) {
				ks = append(ks, p.K)
			}
		}
	}
	var topicKs []int
	for _, s := range series {
		if !flat(s) {
			for _, p := range s.Points {
				if !slices.Contains(topicKs, p.K) {
					topicKs = append(topicKs, p.K)
				}
			}
		}
	}
	if len(topicKs) > 0 {
		ks = topicKs // flat models span these
	}
	slices.Sort(ks)
	lo, hi := float64(ks[0]), float64(ks[len(ks)-1])
	span := hi - lo
	if span == 0 {
		span = max(1, lo)
	}
	pretty := MetricLabel(opt.Metric)
	title := opt.Title
	if title == "" {
		title = pretty + " versus the number of topics"
	}
	p := newPanel("", "number of topics K", pretty)
	ticks := make(plot.ConstantTicks, len(ks))
	for i, k := range ks {
		ticks[i] = plot.Tick{Value: float64(k), Label: strconv.Itoa(k)}
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = lo-0.04*span, hi+0.04*span
	p.Y.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	leg := newLegend()
	nonFlat := 0
	for _, s := range series {
		if !flat(s) {
			nonFlat++
		}
	}
	idx := 0
	for i, s := range series {
		sty := draw.LineStyle{Color: lineColor(i), Width: vg.Points(1.5), Dashes: dashes(i)}
		if flat(s) && len(topicKs) > 0 {
			pt := s.Points[0]
			sty.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: pt.Mean}, {X: hi, Y: pt.Mean}})
			if err != nil {
				return nil, fmt.Errorf("model %q: %w", s.Model, err)
			}
			line.LineStyle = sty
			p.Add(line)
			label := s.Model + " (no topics)"
			if pt.SD > 0 {
				band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: pt.Mean - pt.SD}, {X: hi, Y: pt.Mean - pt.SD}, {X: hi, Y: pt.Mean + pt.SD}, {X: lo, Y: pt.Mean + pt.SD}})
				if err != nil {
					return nil, fmt.Errorf("model %q: %w", s.Model, err)
				}
				band.LineStyle.Width = 0
				band.Color = withAlpha(lineColor(i), 50)
				p.Add(band)
			}
			leg.Add(label, line)
			continue
		}
		off := 0.0
		if nonFlat > 1 {
			off = 0.012 * span * (float64(idx) - float64(nonFlat-1)/2)
		}
		idx++
		xys := make(plotter.XYs, len(s.Points))
		errs := make(plotter.YErrors, len(s.Points))
		for j, pt := range s.Points {
			xys[j] = plotter.XY{X: float64(pt.K) + off, Y: pt.Mean}
			errs[j] = struct{ Low, High float64 }{pt.SD, pt.SD}
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", s.Model, err)
		}
		line.LineStyle = sty
		points.Color = lineColor(i)
		points.Shape = glyph(i)
		points.Radius = vg.Points(3)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xys, errs})
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", s.Model, err)
		}
		bars.LineStyle = draw.LineStyle{Color: lineColor(i), Width: vg.Points(1)}
		bars.CapWidth = vg.Points(6)
		p.Add(line, points, bars)
		leg.Add(s.Model, line, points)
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = inches(8)
	}
	if h == 0 {
		h = inches(4.8)
	}
	return &Figure{
		Width: w, Height: h, Title: title, Panels: [][]*plot.Plot{{p}}, Legend: leg,
		Caption: "Mean ± 1 s.d. over seeds. Where a model was run with several hyper-parameter settings at one K,\nthe setting with the best mean is shown (the paper's grid search).",
	}, nil
}

// MetricLabel is a readable axis label for a results.csv column.
func MetricLabel(metric string) string {
	labels := map[string]string{
		"truth_accuracy":   "accuracy of the inferred truth (training)",
		"truth_macro_f1":   "macro-F1 of the inferred truth (training)",
		"heldout_accuracy": "held-out accuracy (test)",
		"heldout_macro_f1": "held-out macro-F1 (test)",
		"truth_r2":         "R² of the inferred truth (training)",
		"truth_mae":        "MAE of the inferred truth (training)",
		"truth_rmse":       "RMSE of the inferred truth (training)",
		"heldout_r2":       "held-out R² (test)",
		"heldout_mae":      "held-out MAE (test)",
		"heldout_rmse":     "held-out RMSE (test)",
		"iters":            "updates",
		"seconds":          "training time (s)",
		"peak_rss_mib":     "peak memory (MiB)",
		"elbo":             "ELBO",
		"iteration":        "update (iteration or mini-batch)",
		"epoch":            "epoch",
	}
	if l, ok := labels[metric]; ok {
		return l
	}
	return metric
}

// row is one CSV record and its line.
type row struct {
	line   int
	fields []string
}

// readTable reads a CSV file with a header; every record must have the
// header's number of fields.
func readTable(r io.Reader, name string) ([]string, []row, error) {
	cr := csv.NewReader(corpus.SkipBOM(r))
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, framework.Errorf(name, 1, "empty file: expected a header line")
	}
	if err != nil {
		return nil, nil, csvErr(name, err)
	}
	header = slices.Clone(header)
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	var rows []row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, csvErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		rows = append(rows, row{line, rec})
	}
	return header, rows, nil
}

func csvErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return framework.Errorf(name, pe.Line, "%v", pe.Err)
	}
	return fmt.Errorf("reading %s: %w", name, err)
}

// findColumns maps column names to indices (-1 when absent); a missing
// required column is an error naming the file and the columns found.
func findColumns(name string, header, required, optional []string) (map[string]int, error) {
	col := map[string]int{}
	var missing []string
	for _, group := range [][]string{required, optional} {
		for _, c := range group {
			col[c] = slices.Index(header, c)
		}
	}
	for _, c := range required {
		if col[c] < 0 {
			missing = append(missing, c)
		}
	}
	if missing != nil {
		return nil, framework.Errorf(name, 1, "no column %s; the header has columns %s", quoteList(missing), quoteList(header))
	}
	return col, nil
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}
