package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Statuses of a finished cell.
const (
	StatusDone   = "done"
	StatusFailed = "failed"
)

// Result is a finished cell, as saved in its result.json.
type Result struct {
	ID             string    `json:"id"`
	Experiment     string    `json:"experiment"`
	Model          string    `json:"model"`
	K              string    `json:"k,omitempty"`
	Alpha          string    `json:"alpha,omitempty"`
	Tau            string    `json:"tau,omitempty"`
	Omega          string    `json:"omega,omitempty"`
	Seed           uint64    `json:"seed"`
	Status         string    `json:"status"` // StatusDone or StatusFailed
	Error          string    `json:"error,omitempty"`
	Truth          *Metrics  `json:"truth,omitempty"`   // inferred truth (posterior.csv) against the training truth
	Heldout        *Metrics  `json:"heldout,omitempty"` // test predictions against the test truth
	Iters          int       `json:"iters"`             // rows of history.csv
	Seconds        float64   `json:"seconds"`           // train's wall time
	PredictSeconds float64   `json:"predict_seconds"`   // predict's wall time
	PeakRSSMiB     float64   `json:"peak_rss_mib"`      // the larger peak resident memory of train and predict; 0: unknown
	Finished       time.Time `json:"finished"`
}

// Metrics are the scores of `maslda eval --json` (classification:
// accuracy, macro-F1; regression: R², MAE, RMSE).
type Metrics struct {
	N        int      `json:"n"`
	Accuracy *float64 `json:"accuracy,omitempty"`
	MacroF1  *float64 `json:"macro_f1,omitempty"`
	R2       *float64 `json:"r2,omitempty"`
	MAE      *float64 `json:"mae,omitempty"`
	RMSE     *float64 `json:"rmse,omitempty"`
}

func (m *Metrics) kind() string {
	if m == nil {
		return ""
	}
	if m.R2 != nil {
		return MetricRegression
	}
	return MetricClassification
}

// Columns are the columns of results.csv, in order.
var Columns = []string{"experiment", "model", "k", "alpha", "tau", "omega", "seed", "status",
	"truth_accuracy", "truth_macro_f1", "heldout_accuracy", "heldout_macro_f1",
	"truth_r2", "truth_mae", "truth_rmse", "heldout_r2", "heldout_mae", "heldout_rmse",
	"iters", "seconds", "peak_rss_mib", "error"}

// value is one numeric column of a result.
type value struct {
	name  string
	about string // what the summary's table says about it
	prec  int    // decimals in the summary
	get   func(r *Result) (float64, bool)
}

// of is v's values over g's runs that have one.
func (v value) of(g *group) []float64 {
	var xs []float64
	for _, r := range g.runs {
		if x, ok := v.get(r); ok {
			xs = append(xs, x)
		}
	}
	return xs
}

func metric(which func(*Result) *Metrics, field func(*Metrics) *float64) func(*Result) (float64, bool) {
	return func(r *Result) (float64, bool) {
		m := which(r)
		if m == nil || field(m) == nil {
			return 0, false
		}
		return *field(m), true
	}
}

var (
	truthM   = func(r *Result) *Metrics { return r.Truth }
	heldoutM = func(r *Result) *Metrics { return r.Heldout }
	accuracy = func(m *Metrics) *float64 { return m.Accuracy }
	macroF1  = func(m *Metrics) *float64 { return m.MacroF1 }
	r2       = func(m *Metrics) *float64 { return m.R2 }
	mae      = func(m *Metrics) *float64 { return m.MAE }
	rmse     = func(m *Metrics) *float64 { return m.RMSE }
)

// values are the numeric columns of results.csv, in order.
var values = []value{
	{"truth_accuracy", "accuracy of the inferred truth of the training documents (posterior.csv)", 4, metric(truthM, accuracy)},
	{"truth_macro_f1", "macro-F1 of the inferred truth of the training documents", 4, metric(truthM, macroF1)},
	{"heldout_accuracy", "accuracy of the predictions of the test documents", 4, metric(heldoutM, accuracy)},
	{"heldout_macro_f1", "macro-F1 of the predictions of the test documents", 4, metric(heldoutM, macroF1)},
	{"truth_r2", "R² of the inferred truth of the training documents (posterior.csv)", 4, metric(truthM, r2)},
	{"truth_mae", "MAE of the inferred truth of the training documents", 4, metric(truthM, mae)},
	{"truth_rmse", "RMSE of the inferred truth of the training documents", 4, metric(truthM, rmse)},
	{"heldout_r2", "R² of the predictions of the test documents", 4, metric(heldoutM, r2)},
	{"heldout_mae", "MAE of the predictions of the test documents", 4, metric(heldoutM, mae)},
	{"heldout_rmse", "RMSE of the predictions of the test documents", 4, metric(heldoutM, rmse)},
	{"iters", "updates of the schedule (rows of history.csv)", 1, func(r *Result) (float64, bool) { return float64(r.Iters), r.Iters > 0 }},
	{"seconds", "wall time of train, in seconds", 1, func(r *Result) (float64, bool) { return r.Seconds, r.Seconds > 0 }},
	{"peak_rss_mib", "peak resident memory of train and predict, in MiB", 0, func(r *Result) (float64, bool) { return r.PeakRSSMiB, r.PeakRSSMiB > 0 }},
}

// WriteCSV writes results.csv: the header Columns, then one row per result
// in the order given; a column that does not apply is empty.
func WriteCSV(w io.Writer, results []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Columns); err != nil {
		return err
	}
	for i := range results {
		r := &results[i]
		row := []string{r.Experiment, r.Model, r.K, r.Alpha, r.Tau, r.Omega, strconv.FormatUint(r.Seed, 10), r.Status}
		for _, v := range values {
			x, ok := v.get(r)
			switch {
			case !ok:
				row = append(row, "")
			case v.name == "iters":
				row = append(row, strconv.Itoa(r.Iters))
			case v.name == "seconds":
				row = append(row, strconv.FormatFloat(x, 'f', 3, 64))
			case v.name == "peak_rss_mib":
				row = append(row, strconv.FormatFloat(x, 'f', 1, 64))
			default:
				row = append(row, strconv.FormatFloat(x, 'g', 10, 64))
			}
		}
		row = append(row, oneLine(r.Error))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// group is the runs of one model at one grid point (all seeds).
type group struct {
	model, k, alpha, tau, omega string
	runs                        []*Result
}

// MeanSD returns the mean and the sample standard deviation (n − 1 in the
// denominator; NaN for fewer than two values).
func MeanSD(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// WriteSummary writes summary.md: for every column of results.csv with at
// least one value, a table with one row per model × k (× alpha, tau, omega
// when some model and k have more than one setting), the mean ± sample
// standard deviation over the seeds of the done runs, and n; then the
// failed runs with their errors.
func WriteSummary(w io.Writer, name string, results []Result) error {
	var groups []*group
	index := map[[5]string]*group{}
	done, failed := 0, 0
	for i := range results {
		r := &results[i]
		if r.Status != StatusDone {
			failed++
			continue
		}
		done++
		key := [5]string{r.Model, r.K, r.Alpha, r.Tau, r.Omega}
		g := index[key]
		if g == nil {
			g = &group{model: r.Model, k: r.K, alpha: r.Alpha, tau: r.Tau, omega: r.Omega}
			index[key] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
	}
	// A hyper-parameter gets a column when one model and k have several
	// settings of it.
	show := [3]bool{}
	settings := map[[2]string][3]map[string]bool{}
	for _, g := range groups {
		mk := [2]string{g.model, g.k}
		s, ok := settings[mk]
		if !ok {
			s = [3]map[string]bool{{}, {}, {}}
			settings[mk] = s
		}
		for i, v := range []string{g.alpha, g.tau, g.omega} {
			s[i][v] = true
			show[i] = show[i] || len(s[i]) > 1
		}
	}
	hp := []string{"alpha", "tau", "omega"}

	bw := &errWriter{w: w}
	bw.printf("# Experiment %s\n\n", name)
	bw.printf("%d runs: %d done, %d failed. Each entry is the mean ± sample standard deviation over the seeds of the done runs (the mean alone when n = 1); n counts the runs with a value. Columns as in results.csv.\n", done+failed, done, failed)
	writeGlance(bw, groups)
	for _, v := range values {
		var rows [][]string
		for _, g := range groups {
			xs := v.of(g)
			if len(xs) == 0 {
				continue
			}
			row := []string{g.model, dash(g.k)}
			for i, x := range []string{g.alpha, g.tau, g.omega} {
				if show[i] {
					row = append(row, dash(x))
				}
			}
			mean, sd := MeanSD(xs)
			cell := strconv.FormatFloat(mean, 'f', v.prec, 64)
			if !math.IsNaN(sd) {
				cell += " ± " + strconv.FormatFloat(sd, 'f', v.prec, 64)
			}
			rows = append(rows, append(row, cell, strconv.Itoa(len(xs))))
		}
		if len(rows) == 0 {
			continue
		}
		bw.printf("\n## %s\n\n%s.\n\n", v.name, upperFirst(v.about))
		head := []string{"model", "k"}
		for i, h := range hp {
			if show[i] {
				head = append(head, h)
			}
		}
		head = append(head, "mean ± s.d.", "n")
		bw.printf("| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat(" --- |", len(head)))
		for _, row := range rows {
			bw.printf("| %s |\n", strings.Join(row, " | "))
		}
	}
	if failed > 0 {
		bw.printf("\n## Failed runs\n\n| model | k | alpha | tau | omega | seed | error |\n| --- | --- | --- | --- | --- | --- | --- |\n")
		for i := range results {
			r := &results[i]
			if r.Status == StatusDone {
				continue
			}
			msg := oneLine(r.Error)
			if rs := []rune(msg); len(rs) > 300 {
				msg = string(rs[:300]) + "…"
			}
			msg = strings.ReplaceAll(msg, "|", `\|`)
			bw.printf("| %s | %s | %s | %s | %s | %d | %s |\n", r.Model, dash(r.K), dash(r.Alpha), dash(r.Tau), dash(r.Omega), r.Seed, msg)
		}
	}
	return bw.err
}

// glance are the metrics of the "At a glance" tables, in order.
var glance = []string{"heldout_accuracy", "heldout_macro_f1", "truth_accuracy", "heldout_r2", "truth_r2"}

// lowerIsBetter says whether the best setting of a value has the smallest
// mean.
func lowerIsBetter(name string) bool {
	for _, s := range []string{"mae", "rmse", "seconds", "peak_rss_mib", "iters"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// writeGlance writes, for each metric of glance with a value, a wide table:
// one row per k (numerically; "–" alone when no run has a k), one column
// per model (in order of appearance), the mean ± s.d. over seeds. For a
// model with several (alpha, tau, omega) settings at one k the entry is
// the setting with the best mean (the paper's grid search), named below
// the table; a model without k (no topics: Dawid–Skene) has the same
// entry on every row.
func writeGlance(bw *errWriter, groups []*group) {
	byName := map[string]value{}
	for _, v := range values {
		byName[v.name] = v
	}
	first := true
	for _, name := range glance {
		v := byName[name]
		type cell struct {
			mean, sd float64
			n        int
			setting  string
			settings int
		}
		best := map[[2]string]*cell{} // (model, k) → best setting
		var models []string
		kset := map[string]bool{}
		for _, g := range groups {
			xs := v.of(g)
			if len(xs) == 0 {
				continue
			}
			if !slices.Contains(models, g.model) {
				models = append(models, g.model)
			}
			if g.k != "" {
				kset[g.k] = true
			}
			mean, sd := MeanSD(xs)
			key := [2]string{g.model, g.k}
			c := best[key]
			if c == nil {
				c = &cell{mean: math.NaN()}
				best[key] = c
			}
			c.settings++
			if better := mean < c.mean; math.IsNaN(c.mean) || better == lowerIsBetter(name) && mean != c.mean {
				c.mean, c.sd, c.n = mean, sd, len(xs)
				c.setting = settingName(g)
			}
		}
		if len(models) == 0 {
			continue
		}
		if first {
			bw.printf("\n## At a glance\n\nOne row per k, one column per model. A model run at several (alpha, tau, omega) at one k shows the setting with the best mean (%s), named under the table; a model without k (no topics) has the same entry on every row. The tables by column below have every setting.\n", "largest; smallest for errors and costs")
			first = false
		}
		ks := make([]string, 0, len(kset))
		for k := range kset {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		})
		if len(ks) == 0 {
			ks = []string{""}
		}
		bw.printf("\n### %s\n\n| k | %s |\n|%s\n", v.name, strings.Join(models, " | "), strings.Repeat(" --- |", len(models)+1))
		var notes []string
		for _, k := range ks {
			row := []string{dash(k)}
			for _, m := range models {
				c := best[[2]string{m, k}]
				if c == nil {
					c = best[[2]string{m, ""}]
				} else if c.settings > 1 && k != "" {
					notes = append(notes, fmt.Sprintf("%s at k %s: %s (best of %d settings)", m, dash(k), c.setting, c.settings))
				}
				if c == nil {
					row = append(row, "–")
					continue
				}
				e := strconv.FormatFloat(c.mean, 'f', v.prec, 64)
				if !math.IsNaN(c.sd) {
					e += " ± " + strconv.FormatFloat(c.sd, 'f', v.prec, 64)
				}
				row = append(row, e)
			}
			bw.printf("| %s |\n", strings.Join(row, " | "))
		}
		// Settings of k-less models, once.
		for _, m := range models {
			if c := best[[2]string{m, ""}]; c != nil && c.settings > 1 {
				notes = append(notes, fmt.Sprintf("%s: %s (best of %d settings)", m, c.setting, c.settings))
			}
		}
		if len(notes) > 0 {
			bw.printf("\n")
			for _, n := range notes {
				bw.printf("- %s\n", n)
			}
		}
	}
}

// settingName names a group's hyper-parameters: "alpha 0.1, tau 1".
func settingName(g *group) string {
	var parts []string
	for i, v := range []string{g.alpha, g.tau, g.omega} {
		if v != "" {
			parts = append(parts, []string{"alpha", "tau", "omega"}[i]+" "+v)
		}
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, ", ")
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
