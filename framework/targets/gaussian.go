package targets

import (
	"fmt"
	"io"
	"math"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// Gaussian is the kind "gaussian": a numeric target, q(x_d) = N(m_d, v_d)
// (framework.Gaussian). Labels are finite numbers (corpus.NumberParser);
// its columns are label (the posterior mean) and var.
type Gaussian struct{}

// Name is "gaussian".
func (Gaussian) Name() string { return "gaussian" }

// HasClasses is false.
func (Gaussian) HasClasses() bool { return false }

// Classes is nil: numbers have no classes.
func (Gaussian) Classes([]string) []string { return nil }

// Parser is corpus.NumberParser; classes must be nil.
func (Gaussian) Parser(classes []string) (framework.LabelParser, error) {
	if classes != nil {
		return nil, fmt.Errorf("%w: a numeric target has no classes", framework.ErrBadInput)
	}
	return corpus.NumberParser, nil
}

// Columns are label, var.
func (Gaussian) Columns([]string) []string { return []string{"label", "var"} }

// AppendCells appends the posterior mean and variance; t must be a
// *framework.Gaussian.
func (Gaussian) AppendCells(row []string, t framework.Target, _ []string) ([]string, error) {
	g, ok := t.(*framework.Gaussian)
	if !ok {
		return nil, fmt.Errorf("%w: a target of type %T is not gaussian", framework.ErrIncompatible, t)
	}
	return append(row, FormatFloat(g.Mean), FormatFloat(g.Var)), nil
}

// Matches label,var followed only by theta:k columns.
func (Gaussian) Matches(cols []string) bool {
	return len(cols) >= 2 && cols[0] == "label" && cols[1] == "var" && onlyTheta(cols[2:])
}

// TruthMetric is truth_r2.
func (Gaussian) TruthMetric() string { return "truth_r2" }

// ScoreTruth is R² of the posterior means against the true values.
func (Gaussian) ScoreTruth(tr *framework.Truth, target func(d int) framework.Target) float64 {
	var pred, obs []float64
	for i, x := range tr.Value {
		tg, ok := target(i).(*framework.Gaussian)
		if !tr.Has[i] || !ok {
			continue
		}
		pred = append(pred, tg.Mean)
		obs = append(obs, x)
	}
	return R2(pred, obs)
}

// Evaluate scores the predicted means against the true values
// (RegressionMetricsOf); declared classes are refused.
func (Gaussian) Evaluate(in *framework.EvalInput) (framework.Metrics, error) {
	if in.Classes != nil {
		return nil, fmt.Errorf("%w: classes declared, but %s holds numbers (kind gaussian)", framework.ErrBadInput, in.PredFile)
	}
	m, err := RegressionMetricsOf(in.Pred, in.Truth, in.PredFile)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// R2 is the coefficient of determination 1 − SS_res/SS_tot (NaN for no
// observation or constant ones).
func R2(pred, obs []float64) float64 {
	if len(obs) == 0 {
		return math.NaN()
	}
	mean := 0.0
	for _, x := range obs {
		mean += x
	}
	mean /= float64(len(obs))
	res, tot := 0.0, 0.0
	for i, x := range obs {
		res += (pred[i] - x) * (pred[i] - x)
		tot += (x - mean) * (x - mean)
	}
	if tot == 0 {
		return math.NaN()
	}
	return 1 - res/tot
}

// RegressionMetrics are the regression scores `eval --json` prints.
type RegressionMetrics struct {
	N    int     `json:"n"`
	R2   float64 `json:"r2"`
	MAE  float64 `json:"mae"`
	RMSE float64 `json:"rmse"`
}

// RegressionMetricsOf scores predicted against true numbers given as
// text; name is the predictions' file, for messages.
func RegressionMetricsOf(pred, truth []string, name string) (RegressionMetrics, error) {
	p, t := make([]float64, len(pred)), make([]float64, len(truth))
	for i := range pred {
		var ok bool
		if p[i], ok = corpus.ParseNumber(pred[i]); !ok || math.IsNaN(p[i]) || math.IsInf(p[i], 0) {
			return RegressionMetrics{}, fmt.Errorf("%w: %s: prediction %q is not a finite number", framework.ErrBadInput, name, pred[i])
		}
		if t[i], ok = corpus.ParseNumber(truth[i]); !ok || math.IsNaN(t[i]) || math.IsInf(t[i], 0) {
			return RegressionMetrics{}, fmt.Errorf("%w: truth label %q is not a finite number", framework.ErrBadInput, truth[i])
		}
	}
	m := RegressionMetrics{N: len(p), R2: R2(p, t)}
	if math.IsNaN(m.R2) {
		return m, fmt.Errorf("%w: R² is undefined: the %d true values are all equal", framework.ErrBadInput, len(t))
	}
	for i := range p {
		d := p[i] - t[i]
		m.MAE += math.Abs(d)
		m.RMSE += d * d
	}
	m.MAE /= float64(len(p))
	m.RMSE = math.Sqrt(m.RMSE / float64(len(p)))
	return m, nil
}

// WriteText writes n, R², MAE and RMSE.
func (m *RegressionMetrics) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "n     %d\nR²    %.4f\nMAE   %.4f\nRMSE  %.4f\n", m.N, m.R2, m.MAE, m.RMSE)
	return err
}
