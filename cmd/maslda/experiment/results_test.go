package experiment_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/maslda/maslda/cmd/maslda/experiment"
)

func f(x float64) *float64 { return &x }

// fixture: model a at k 10 (seeds 1, 2 done, 3 failed) and k 20, model b
// (no k) at two alphas. Hand-checked: a k 10's truth accuracy 0.5, 0.7
// has mean 0.6 and s.d. √((0.1² + 0.1²)/1) = 0.1414; its seconds 10, 20:
// 15 ± 7.07; its peak memory 100, 110: 105 ± 7.
var fixture = []experiment.Result{
	{Experiment: "x", Model: "a", K: "10", Seed: 1, Status: "done", Iters: 4, Seconds: 10, PeakRSSMiB: 100,
		Truth: &experiment.Metrics{N: 5, Accuracy: f(0.5), MacroF1: f(0.25)}, Heldout: &experiment.Metrics{N: 3, Accuracy: f(0.8), MacroF1: f(0.5)}},
	{Experiment: "x", Model: "a", K: "10", Seed: 2, Status: "done", Iters: 6, Seconds: 20, PeakRSSMiB: 110,
		Truth: &experiment.Metrics{N: 5, Accuracy: f(0.7), MacroF1: f(0.5)}, Heldout: &experiment.Metrics{N: 3, Accuracy: f(0.6), MacroF1: f(0.5)}},
	{Experiment: "x", Model: "a", K: "10", Seed: 3, Status: "failed", Seconds: 1.5, Error: "train: exit status 1: boom | bang\nsecond line"},
	{Experiment: "x", Model: "a", K: "20", Seed: 1, Status: "done", Iters: 5, Seconds: 30,
		Truth: &experiment.Metrics{N: 5, Accuracy: f(0.9), MacroF1: f(0.9)}},
	{Experiment: "x", Model: "b", Alpha: "0.1", Seed: 1, Status: "done", Iters: 2, Seconds: 1,
		Truth: &experiment.Metrics{N: 5, R2: f(0.4), MAE: f(1), RMSE: f(2)}},
	{Experiment: "x", Model: "b", Alpha: "1", Seed: 1, Status: "done", Iters: 3, Seconds: 2,
		Truth: &experiment.Metrics{N: 5, R2: f(-0.25), MAE: f(1.5), RMSE: f(2.5)}},
}

func TestExperimentWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := experiment.WriteCSV(&b, fixture); err != nil {
		t.Fatal(err)
	}
	want := `experiment,model,k,alpha,tau,omega,seed,status,truth_accuracy,truth_macro_f1,heldout_accuracy,heldout_macro_f1,truth_r2,truth_mae,truth_rmse,heldout_r2,heldout_mae,heldout_rmse,iters,seconds,peak_rss_mib,error
x,a,10,,,,1,done,0.5,0.25,0.8,0.5,,,,,,,4,10.000,100.0,
x,a,10,,,,2,done,0.7,0.5,0.6,0.5,,,,,,,6,20.000,110.0,
x,a,10,,,,3,failed,,,,,,,,,,,,1.500,,train: exit status 1: boom | bang second line
x,a,20,,,,1,done,0.9,0.9,,,,,,,,,5,30.000,,
x,b,,0.1,,,1,done,,,,,0.4,1,2,,,,2,1.000,,
x,b,,1,,,1,done,,,,,-0.25,1.5,2.5,,,,3,2.000,,
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("results.csv (-want +got):\n%s", diff)
	}
}

func TestExperimentWriteSummary(t *testing.T) {
	var b bytes.Buffer
	if err := experiment.WriteSummary(&b, "x", fixture); err != nil {
		t.Fatal(err)
	}
	want := `# Experiment x

6 runs: 5 done, 1 failed. Each entry is the mean ± sample standard deviation over the seeds of the done runs (the mean alone when n = 1); n counts the runs with a value. Columns as in results.csv.

## At a glance

One row per k, one column per model. A model run at several (alpha, tau, omega) at one k shows the setting with the best mean (largest; smallest for errors and costs), named under the table; a model without k (no topics) has the same entry on every row. The tables by column below have every setting.

### heldout_accuracy

| k | a |
| --- | --- |
| 10 | 0.7000 ± 0.1414 |

### heldout_macro_f1

| k | a |
| --- | --- |
| 10 | 0.5000 ± 0.0000 |

### truth_accuracy

| k | a |
| --- | --- |
| 10 | 0.6000 ± 0.1414 |
| 20 | 0.9000 |

### truth_r2

| k | b |
| --- | --- |
| – | 0.4000 |

- b: alpha 0.1 (best of 2 settings)

## truth_accuracy

Accuracy of the inferred truth of the training documents (posterior.csv).

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 0.6000 ± 0.1414 | 2 |
| a | 20 | – | 0.9000 | 1 |

## truth_macro_f1

Macro-F1 of the inferred truth of the training documents.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 0.3750 ± 0.1768 | 2 |
| a | 20 | – | 0.9000 | 1 |

## heldout_accuracy

Accuracy of the predictions of the test documents.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 0.7000 ± 0.1414 | 2 |

## heldout_macro_f1

Macro-F1 of the predictions of the test documents.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 0.5000 ± 0.0000 | 2 |

## truth_r2

R² of the inferred truth of the training documents (posterior.csv).

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| b | – | 0.1 | 0.4000 | 1 |
| b | – | 1 | -0.2500 | 1 |

## truth_mae

MAE of the inferred truth of the training documents.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| b | – | 0.1 | 1.0000 | 1 |
| b | – | 1 | 1.5000 | 1 |

## truth_rmse

RMSE of the inferred truth of the training documents.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| b | – | 0.1 | 2.0000 | 1 |
| b | – | 1 | 2.5000 | 1 |

## iters

Updates of the schedule (rows of history.csv).

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 5.0 ± 1.4 | 2 |
| a | 20 | – | 5.0 | 1 |
| b | – | 0.1 | 2.0 | 1 |
| b | – | 1 | 3.0 | 1 |

## seconds

Wall time of train, in seconds.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 15.0 ± 7.1 | 2 |
| a | 20 | – | 30.0 | 1 |
| b | – | 0.1 | 1.0 | 1 |
| b | – | 1 | 2.0 | 1 |

## peak_rss_mib

Peak resident memory of train and predict, in MiB.

| model | k | alpha | mean ± s.d. | n |
| --- | --- | --- | --- | --- |
| a | 10 | – | 105 ± 7 | 2 |

## Failed runs

| model | k | alpha | tau | omega | seed | error |
| --- | --- | --- | --- | --- | --- | --- |
| a | 10 | – | – | – | 3 | train: exit status 1: boom \| bang second line |
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("summary.md (-want +got):\n%s", diff)
	}

	// One setting per model and k: no hyper-parameter columns.
	b.Reset()
	if err := experiment.WriteSummary(&b, "x", fixture[:2]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte("| model | k | mean ± s.d. | n |\n")) {
		t.Errorf("summary of one setting has hyper-parameter columns:\n%s", b.String())
	}
}

// TestExperimentSummaryGlance: the wide tables pick each (model, k)'s best
// setting (largest for accuracy), repeat a model without k on every row,
// order k numerically, and leave a model without a run at some k empty.
func TestExperimentSummaryGlance(t *testing.T) {
	run := func(model, k, alpha string, seed uint64, acc float64) experiment.Result {
		return experiment.Result{Experiment: "g", Model: model, K: k, Alpha: alpha, Seed: seed, Status: "done",
			Heldout: &experiment.Metrics{N: 2, Accuracy: f(acc)}}
	}
	results := []experiment.Result{
		run("m", "10", "0.1", 1, 0.5), run("m", "10", "0.1", 2, 0.7), // mean 0.6
		run("m", "10", "1", 1, 0.65), run("m", "10", "1", 2, 0.65), // mean 0.65: the best at k 10
		run("m", "9", "0.1", 1, 0.4),
		run("ds", "", "", 1, 0.3),
		run("late", "10", "", 1, 0.8),
	}
	var b bytes.Buffer
	if err := experiment.WriteSummary(&b, "g", results); err != nil {
		t.Fatal(err)
	}
	want := `### heldout_accuracy

| k | m | ds | late |
| --- | --- | --- | --- |
| 9 | 0.4000 | 0.3000 | – |
| 10 | 0.6500 ± 0.0000 | 0.3000 | 0.8000 |

- m at k 10: alpha 1 (best of 2 settings)
`
	if !bytes.Contains(b.Bytes(), []byte(want)) {
		t.Errorf("summary.md lacks the wide table\n%s\ngot:\n%s", want, b.String())
	}
}

func TestExperimentMeanSD(t *testing.T) {
	for _, tc := range []struct {
		x        []float64
		mean, sd float64
	}{
		{[]float64{0.5, 0.7}, 0.6, math.Sqrt(0.02)},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
		{[]float64{3}, 3, math.NaN()},
		{nil, math.NaN(), math.NaN()},
	} {
		m, s := experiment.MeanSD(tc.x)
		if !cmp.Equal([]float64{m, s}, []float64{tc.mean, tc.sd}, cmp.Comparer(func(a, b float64) bool {
			return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12
		})) {
			t.Errorf("MeanSD(%v) = %v, %v; want %v, %v", tc.x, m, s, tc.mean, tc.sd)
		}
	}
}
