package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"gonum.org/v1/plot/vg"
)

const resultsHeader = "experiment,model,k,alpha,tau,omega,seed,status,truth_accuracy,truth_macro_f1,heldout_accuracy,heldout_macro_f1,truth_r2,truth_mae,truth_rmse,heldout_r2,heldout_mae,heldout_rmse,iters,seconds,peak_rss_mib,error\n"

// resultRow builds a results.csv row with the given cells (others empty).
func resultRow(cells map[string]string) string {
	cols := strings.Split(strings.TrimSpace(resultsHeader), ",")
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = cells[c]
	}
	return strings.Join(out, ",") + "\n"
}

func done(model, k, alpha, seed, metric, value string) string {
	return resultRow(map[string]string{"experiment": "e", "model": model, "k": k, "alpha": alpha, "seed": seed, "status": "done", metric: value})
}

func readResults(t *testing.T, csv, metric string) *Results {
	t.Helper()
	r, err := ReadResults(strings.NewReader(csv), "results.csv", metric)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSummarize(t *testing.T) {
	m := "heldout_accuracy"
	tests := []struct {
		name string
		csv  string
		opt  SummaryOptions
		want []Series
	}{
		{
			name: "mean and sample s.d. over seeds; failed rows and empty cells ignored",
			csv: resultsHeader +
				done("a", "10", "", "1", m, "0.5") + done("a", "10", "", "2", m, "0.7") + done("a", "10", "", "3", m, "0.6") +
				resultRow(map[string]string{"model": "a", "k": "10", "seed": "4", "status": "failed", m: "0.99", "error": "boom"}) +
				done("a", "20", "", "1", m, "0.8") + done("a", "20", "", "2", m, ""),
			want: []Series{{Model: "a", Points: []Point{
				{K: 10, Mean: 0.6, SD: 0.1, N: 3, Setting: "defaults", Settings: 1},
				{K: 20, Mean: 0.8, SD: 0, N: 1, Setting: "defaults", Settings: 1},
			}}},
		},
		{
			name: "best setting per (model, K); models in order of appearance",
			csv: resultsHeader +
				done("b", "10", "", "1", m, "0.4") +
				done("a", "10", "0.1", "1", m, "0.5") + done("a", "10", "0.1", "2", m, "0.7") +
				done("a", "10", "1", "1", m, "0.55") + done("a", "10", "1", "2", m, "0.55") +
				done("a", "20", "0.1", "1", m, "0.6") + done("a", "20", "1", "1", m, "0.9"),
			want: []Series{
				{Model: "b", Points: []Point{{K: 10, Mean: 0.4, N: 1, Setting: "defaults", Settings: 1}}},
				{Model: "a", Points: []Point{
					{K: 10, Mean: 0.6, SD: math.Sqrt(0.02), N: 2, Setting: "alpha=0.1", Settings: 2},
					{K: 20, Mean: 0.9, N: 1, Setting: "alpha=1", Settings: 2},
				}},
			},
		},
		{
			// maslda experiment leaves k empty for a model without topics.
			name: "empty k (Dawid–Skene) is K 0",
			csv: resultsHeader +
				done("a", "10", "", "1", m, "0.5") + done("ds", "", "", "1", m, "0.4"),
			want: []Series{
				{Model: "a", Points: []Point{{K: 10, Mean: 0.5, N: 1, Setting: "defaults", Settings: 1}}},
				{Model: "ds", Points: []Point{{K: 0, Mean: 0.4, N: 1, Setting: "defaults", Settings: 1}}},
			},
		},
		{
			name: "lower is better for errors",
			csv: resultsHeader +
				done("a", "5", "0.1", "1", "heldout_rmse", "2") + done("a", "5", "1", "1", "heldout_rmse", "1"),
			opt:  SummaryOptions{LowerIsBetter: true},
			want: []Series{{Model: "a", Points: []Point{{K: 5, Mean: 1, N: 1, Setting: "alpha=1", Settings: 2}}}},
		},
		{
			name: "equal means: more runs, then the setting's name",
			csv: resultsHeader +
				done("a", "5", "2", "1", m, "0.5") +
				done("a", "5", "1", "1", m, "0.5") + done("a", "5", "1", "2", m, "0.5") +
				done("a", "6", "2", "1", m, "0.5") + done("a", "6", "1", "1", m, "0.5"),
			want: []Series{{Model: "a", Points: []Point{
				{K: 5, Mean: 0.5, N: 2, Setting: "alpha=1", Settings: 2},
				{K: 6, Mean: 0.5, N: 1, Setting: "alpha=1", Settings: 2},
			}}},
		},
		{
			name: "chosen models in the chosen order",
			csv:  resultsHeader + done("a", "5", "", "1", m, "0.1") + done("b", "5", "", "1", m, "0.2") + done("c", "5", "", "1", m, "0.3"),
			opt:  SummaryOptions{Models: []string{"c", "a"}},
			want: []Series{
				{Model: "c", Points: []Point{{K: 5, Mean: 0.3, N: 1, Setting: "defaults", Settings: 1}}},
				{Model: "a", Points: []Point{{K: 5, Mean: 0.1, N: 1, Setting: "defaults", Settings: 1}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			metric := m
			if tc.opt.LowerIsBetter {
				metric = "heldout_rmse"
			}
			got, err := Summarize(readResults(t, tc.csv, metric), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Summarize mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarizeErrors(t *testing.T) {
	m := "heldout_accuracy"
	twoExps := resultsHeader + done("a", "5", "", "1", m, "0.1") +
		resultRow(map[string]string{"experiment": "other", "model": "a", "k": "5", "status": "done", m: "0.2"})
	tests := []struct {
		name, csv string
		opt       SummaryOptions
		want      string
	}{
		{"header only", resultsHeader, SummaryOptions{}, "results.csv: nothing to plot: 0 rows, 0 with status done"},
		{"no done row", resultsHeader + resultRow(map[string]string{"model": "a", "k": "5", "status": "failed"}), SummaryOptions{}, "1 rows, 0 with status done"},
		{"metric empty everywhere", resultsHeader + done("a", "5", "", "1", "truth_accuracy", "0.5"), SummaryOptions{}, "none with a value of heldout_accuracy"},
		{"several experiments", twoExps, SummaryOptions{}, `several experiments ("e", "other")`},
		{"unknown experiment", twoExps, SummaryOptions{Experiment: "x"}, `no done run of experiment "x"`},
		{"unknown model", resultsHeader + done("a", "5", "", "1", m, "0.1"), SummaryOptions{Models: []string{"zz"}}, `no done run of model "zz"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Summarize(readResults(t, tc.csv, m), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("error %v; want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
	// the experiment filter works
	got, err := Summarize(readResults(t, twoExps, m), SummaryOptions{Experiment: "other"})
	if err != nil || len(got) != 1 || got[0].Points[0].Mean != 0.2 {
		t.Errorf("experiment filter: %v, %v", got, err)
	}
}

func TestReadResultsErrors(t *testing.T) {
	tests := []struct {
		name, csv, metric, want string
	}{
		{"missing metric column", "model,k,status,seed\n", "heldout_accuracy", `results.csv:1: no column "heldout_accuracy"; the header has columns "model", "k", "status", "seed"`},
		{"missing model column", "k,status,truth_r2\n", "truth_r2", `no column "model"`},
		{"unknown metric lists metrics", "model,k,status\n", "accuracy", "results.csv metrics: truth_accuracy"},
		{"identity column", resultsHeader, "seed", `"seed" is not a metric column`},
		{"empty file", "", "truth_r2", "results.csv:1: empty file"},
		{"bad k", "model,k,status,truth_r2\na,x,done,0.5\n", "truth_r2", `results.csv:2: k "x"`},
		{"bad value", "model,k,status,truth_r2\na,5,done,0.5\na,5,done,NaN\n", "truth_r2", `results.csv:3: truth_r2 "NaN": want a finite number`},
		{"ragged row", "model,k,status,truth_r2\na,5,done\n", "truth_r2", "results.csv:2: wrong number of fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadResults(strings.NewReader(tc.csv), "results.csv", tc.metric)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
				t.Errorf("error %v; want ErrBadInput containing %q", err, tc.want)
			}
		})
	}
	// a failed row may have an empty k
	if _, err := ReadResults(strings.NewReader("model,k,status,truth_r2\na,,failed,\n"), "r", "truth_r2"); err != nil {
		t.Errorf("failed row with empty k: %v", err)
	}
}

func TestLowerIsBetter(t *testing.T) {
	got := map[string]bool{}
	for _, m := range []string{"truth_accuracy", "heldout_r2", "heldout_mae", "truth_rmse", "seconds", "peak_rss_mib", "heldout_macro_f1"} {
		got[m] = LowerIsBetter(m)
	}
	want := map[string]bool{"truth_accuracy": false, "heldout_r2": false, "heldout_mae": true, "truth_rmse": true, "seconds": true, "peak_rss_mib": true, "heldout_macro_f1": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LowerIsBetter (-want +got):\n%s", diff)
	}
}

const batchHistory = "iteration,epoch,rho,elbo,seconds,truth_accuracy\n1,1,1,-100,0.5,0.4\n2,2,1,-90,1.0,0.5\n3,3,1,-85,1.5,\n"

// sviHistory has 4 updates per epoch.
func sviHistory() string {
	var b strings.Builder
	b.WriteString("iteration,epoch,rho,elbo,seconds\n")
	for i := 1; i <= 12; i++ {
		b.WriteString(strings.Join([]string{itoa(i), itoa((i + 3) / 4), "0.5", itoa(-120 + 3*i + 5*(i%2)), itoa(i)}, ",") + "\n")
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestReadHistory(t *testing.T) {
	h, err := ReadHistory(strings.NewReader(batchHistory), "h.csv")
	if err != nil {
		t.Fatal(err)
	}
	acc, err := h.Column("truth_accuracy")
	if err != nil {
		t.Fatal(err)
	}
	if !(acc[0] == 0.4 && acc[1] == 0.5 && math.IsNaN(acc[2])) {
		t.Errorf("truth_accuracy = %v, want [0.4 0.5 NaN]", acc)
	}
	if _, err := h.Column("loss"); err == nil || !strings.Contains(err.Error(), `h.csv:1: no column "loss"; the header has columns "iteration", "epoch", "rho", "elbo", "seconds", "truth_accuracy"`) {
		t.Errorf("missing column: %v", err)
	}
	for _, tc := range []struct{ csv, want string }{
		{"", "h.csv:1: empty file"},
		{"iteration,elbo\n", "h.csv: no rows after the header"},
		{"iteration,elbo\n1,x\n", `h.csv:2: elbo "x": want a finite number`},
		{"iteration,elbo,elbo\n1,2,3\n", `h.csv:1: column "elbo" appears twice`},
	} {
		if _, err := ReadHistory(strings.NewReader(tc.csv), "h.csv"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadHistory(%q): %v, want %q", tc.csv, err, tc.want)
		}
	}
}

func TestFractionalEpochsAndSmoothing(t *testing.T) {
	got := fractionalEpochs([]float64{1, 1, 1, 1, 2, 2, 2, 2, 3})
	want := []float64{0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fractionalEpochs (-want +got):\n%s", diff)
	}
	h, err := ReadHistory(strings.NewReader(sviHistory()), "svi.csv")
	if err != nil {
		t.Fatal(err)
	}
	if n := updatesPerEpoch(h); n != 4 {
		t.Errorf("updatesPerEpoch = %d, want 4", n)
	}
}

const confusionJSON = `[
  {"name": "a1", "answers": 30, "accuracy": 0.8, "confusion": [[0.8, 0.2], [0.1, 0.9]]},
  {"name": "a0", "answers": 50, "accuracy": 0.6, "confusion": [[0.6, 0.4], [0.3, 0.7]]}
]`

const biasJSON = `[
  {"annotator": "a0", "answers": 10, "bias": 0.2, "precision": 8, "sd": 0.35},
  {"annotator": "a1", "answers": 12, "bias": -1.1, "precision": 0.5, "sd": 1.41}
]`

func readAnn(t *testing.T, s string) *Annotators {
	t.Helper()
	a, err := ReadAnnotators(strings.NewReader(s), "annotators.json")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReadAnnotators(t *testing.T) {
	got := readAnn(t, confusionJSON)
	want := &Annotators{Name: "annotators.json", Kind: KindConfusion, List: []Annotator{
		{Name: "a1", Answers: 30, Line: 2, Accuracy: 0.8, Confusion: [][]float64{{0.8, 0.2}, {0.1, 0.9}}},
		{Name: "a0", Answers: 50, Line: 3, Accuracy: 0.6, Confusion: [][]float64{{0.6, 0.4}, {0.3, 0.7}}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("confusion annotators (-want +got):\n%s", diff)
	}
	bp := readAnn(t, biasJSON)
	if bp.Kind != KindBiasPrecision || bp.List[1].Name != "a1" || bp.List[1].Precision != 0.5 || bp.List[1].Line != 3 {
		t.Errorf("bias-precision annotators: %+v", bp)
	}
	for _, tc := range []struct{ json, want string }{
		{"", "annotators.json:1: empty file"},
		{`{"name": "a0"}`, "annotators.json:1: want a JSON list of annotators"},
		{"[\n {\"name\": \"a0\", \"answers\": 1}\n]", `annotators.json:2: entry has neither "confusion"`},
		{"[\n {\"name\": \"a0\", \"accuracy\": 1, \"confusion\": [[1, 0]]}\n]", "annotators.json:2: annotator \"a0\": confusion matrix row 1 has 2 entries, want 1"},
		{"[\n {\"name\": \"a0\", \"accuracy\": 1, \"confusion\": [[1]]},\n {\"name\": \"a1\", \"accuracy\": 1, \"confusion\": [[1, 0], [0, 1]]}\n]", `annotators.json:3: annotator "a1" has a 2×2 matrix but "a0" (line 2) has 1×1`},
		{"[\n {\"name\": \"a0\", \"accuracy\": 1, \"confusion\": [[1]]},\n {\"annotator\": \"a1\", \"bias\": 0, \"precision\": 1}\n]", "annotators.json:3: a bias-precision annotator after confusion annotators"},
		{"[\n {\"name\": \"a0\", \"accuracy\": 1, \"confusion\": [[1]]},\n {\"name\": \"a0\", \"accuracy\": 1, \"confusion\": [[1]]}\n]", `annotators.json:3: annotator "a0" appears twice (first on line 2)`},
		{"[\n {\"annotator\": \"a0\", \"bias\": 0, \"precision\": -1}\n]", `annotators.json:2: annotator "a0": precision -1`},
		{"[\n {\"name\": \"a0\", \"accuracy\": \"high\", \"confusion\": [[1]]}\n]", "annotators.json:2: json: cannot unmarshal string"},
		{"[]", "annotators.json:1: no annotators"},
	} {
		_, err := ReadAnnotators(strings.NewReader(tc.json), "annotators.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, framework.ErrBadInput) {
			t.Errorf("ReadAnnotators(%q): %v; want ErrBadInput containing %q", tc.json, err, tc.want)
		}
	}
}

func TestFigureErrors(t *testing.T) {
	conf, bp := readAnn(t, confusionJSON), readAnn(t, biasJSON)
	three := [][][]float64{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"mismatched matrix sizes", figErr(ConfusionFigure(conf, ConfusionOptions{Truth: three, TruthName: "true.json"})), "true.json has 3×3 matrices but annotators.json has 2×2"},
		{"class names", figErr(ConfusionFigure(conf, ConfusionOptions{Classes: []string{"x", "y", "z"}})), "2×2 matrices but 3 class names are given (x, y, z)"},
		{"unknown annotator", figErr(ConfusionFigure(conf, ConfusionOptions{Select: []string{"a7"}})), `unknown annotator "a7": annotators.json has "a1", "a0"`},
		{"no true matrix", figErr(ConfusionFigure(conf, ConfusionOptions{Truth: [][][]float64{{{1, 0}, {0, 1}}}, TruthName: "t", Select: []string{"a1"}})), `annotator "a1" has no true matrix: t names "a0"`},
		{"true names count", figErr(ConfusionFigure(conf, ConfusionOptions{Truth: [][][]float64{{{1, 0}, {0, 1}}}, TruthName: "t", TrueNames: []string{"x", "y"}})), "1 true matrices in t but 2 true names"},
		{"wrong kind for confusion", figErr(ConfusionFigure(bp, ConfusionOptions{})), "describes bias-precision annotators"},
		{"wrong kind for biasprec", figErr(BiasPrecisionFigure(conf, BiasPrecisionOptions{})), "describes confusion annotators"},
		{"bias/precision counts", figErr(BiasPrecisionFigure(bp, BiasPrecisionOptions{TrueBias: []float64{1}, TruePrecision: []float64{1, 2}})), "1 true biases but 2 true precisions"},
		{"unknown annotator (biasprec)", figErr(BiasPrecisionFigure(bp, BiasPrecisionOptions{Select: []string{"zz"}})), `unknown annotator "zz"`},
		{"no truth for annotator", figErr(BiasPrecisionFigure(bp, BiasPrecisionOptions{TrueBias: []float64{1}, TruePrecision: []float64{1}, Select: []string{"a1"}})), `annotator "a1" has no true bias and precision`},
		{"no history", figErr(HistoryFigure(nil, HistoryOptions{})), "no history to plot"},
		{"history column", figErr(HistoryFigure([]Run{{Label: "b", History: mustHistory(t, batchHistory)}}, HistoryOptions{Y: "loss"})), `h.csv:1: no column "loss"`},
		{"no series", figErr(MetricFigure(nil, MetricOptions{})), "no series to plot"},
		{"no box", figErr(BoxFigure(nil, BoxOptions{})), "no box plot"},
		{"log box of zero", figErr(BoxFigure([]BoxPanel{{Title: "p", Log: true, Groups: []BoxGroup{{Label: "g", Values: []float64{0, 1}}}}}, BoxOptions{})), "value 0 cannot be drawn"},
		{"nothing to summarise", boxErr(AnnotatorBoxes(nil, nil, nil, false)), "give annotators.json or answers"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || !errors.Is(tc.err, framework.ErrBadInput) {
				t.Errorf("error %v; want ErrBadInput containing %q", tc.err, tc.want)
			}
		})
	}
	var buf bytes.Buffer
	f := &Figure{Width: vg.Inch, Height: vg.Inch}
	if err := f.Encode(&buf, "gif"); err == nil || !strings.Contains(err.Error(), `image format "gif"; valid: png, svg`) {
		t.Errorf("Encode gif: %v", err)
	}
}

func figErr(_ *Figure, err error) error    { return err }
func boxErr(_ []BoxPanel, err error) error { return err }

func mustHistory(t *testing.T, s string) *History {
	t.Helper()
	h, err := ReadHistory(strings.NewReader(s), "h.csv")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// checkImages encodes f as PNG and SVG, decodes the PNG (its size must be
// the figure's at PNGDPI) and parses the SVG as XML.
func checkImages(t *testing.T, f *Figure) {
	t.Helper()
	var pngBuf, svgBuf bytes.Buffer
	if err := f.Encode(&pngBuf, "png"); err != nil {
		t.Fatalf("png: %v", err)
	}
	img, err := png.Decode(&pngBuf)
	if err != nil {
		t.Fatalf("decoding the PNG: %v", err)
	}
	wantW, wantH := f.Width.Dots(PNGDPI), f.Height.Dots(PNGDPI)
	if b := img.Bounds(); math.Abs(float64(b.Dx())-wantW) > 1 || math.Abs(float64(b.Dy())-wantH) > 1 {
		t.Errorf("PNG is %d×%d, want %.0f×%.0f", b.Dx(), b.Dy(), wantW, wantH)
	}
	if err := f.Encode(&svgBuf, "svg"); err != nil {
		t.Fatalf("svg: %v", err)
	}
	svg := svgBuf.String()
	dec := xml.NewDecoder(strings.NewReader(svg))
	elems := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		if _, ok := tok.(xml.StartElement); ok {
			elems++
		}
	}
	if elems < 10 || !strings.Contains(svg, "<svg") {
		t.Errorf("SVG has %d elements", elems)
	}
	if strings.Contains(svg, "#-") {
		t.Error("SVG has an invalid colour (a fully transparent fill?)")
	}
}

// small shrinks a figure so that rendering under -race stays fast.
func small(f *Figure, err error) (*Figure, error) {
	if f != nil {
		f.Width, f.Height = min(f.Width, 6*vg.Inch), min(f.Height, 4*vg.Inch)
	}
	return f, err
}

func TestRenderEveryKind(t *testing.T) {
	m := "heldout_accuracy"
	res := readResults(t, resultsHeader+
		done("ma-sldac", "10", "", "1", m, "0.6")+done("ma-sldac", "10", "", "2", m, "0.64")+
		done("ma-sldac", "20", "", "1", m, "0.7")+done("lda+logreg(mv)", "10", "", "1", m, "0.5")+
		done("lda+logreg(mv)", "20", "", "1", m, "0.55")+done("dawid-skene", "1", "", "1", m, "0.58"), m)
	series, err := Summarize(res, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conf, bp := readAnn(t, confusionJSON), readAnn(t, biasJSON)
	answers, err := corpus.ReadAnswers(strings.NewReader("task,worker,label\n0,a0,x\n1,a0,y\n0,a1,x\n2,a1,x\n"), "answers.csv")
	if err != nil {
		t.Fatal(err)
	}
	truth, err := corpus.ReadTruth(strings.NewReader("task,label\n0,x\n1,x\n2,y\n"), "truth.csv")
	if err != nil {
		t.Fatal(err)
	}
	boxes, err := AnnotatorBoxes(conf, answers, truth, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(boxes) != 2 || len(boxes[1].Groups) != 2 {
		t.Fatalf("AnnotatorBoxes: %d panels, want answers + accuracy (estimated, empirical)", len(boxes))
	}
	if diff := cmp.Diff([]float64{0.5, 0.5}, boxes[1].Groups[1].Values); diff != "" {
		t.Errorf("empirical accuracy (-want +got):\n%s", diff)
	}
	svi := mustHistory(t, sviHistory())
	figures := map[string]func() (*Figure, error){
		"metric": func() (*Figure, error) { return MetricFigure(series, MetricOptions{Metric: m}) },
		"history": func() (*Figure, error) {
			return HistoryFigure([]Run{{"batch", mustHistory(t, batchHistory)}, {"svi", svi}}, HistoryOptions{X: []string{"epoch", "seconds"}})
		},
		"confusion": func() (*Figure, error) {
			return ConfusionFigure(conf, ConfusionOptions{Truth: [][][]float64{{{0.7, 0.3}, {0.2, 0.8}}, {{0.9, 0.1}, {0.1, 0.9}}}, TruthName: "t", Classes: []string{"neg", "pos"}})
		},
		"confusion, estimates only": func() (*Figure, error) { return ConfusionFigure(conf, ConfusionOptions{Select: []string{"a1"}}) },
		"biasprec": func() (*Figure, error) {
			return BiasPrecisionFigure(bp, BiasPrecisionOptions{TrueBias: []float64{0, -1}, TruePrecision: []float64{10, 0.5}})
		},
		"boxes": func() (*Figure, error) { return BoxFigure(boxes, BoxOptions{Title: "annotators"}) },
	}
	for name, build := range figures {
		t.Run(name, func(t *testing.T) {
			f, err := small(build())
			if err != nil {
				t.Fatal(err)
			}
			checkImages(t, f)
		})
	}
}

func TestAnnotatorBoxesRegression(t *testing.T) {
	bp := readAnn(t, biasJSON)
	answers, err := corpus.ReadAnswers(strings.NewReader("task,worker,label\n0,a0,1\n1,a0,3\n2,a0,2\n0,a1,5\n"), "answers.csv")
	if err != nil {
		t.Fatal(err)
	}
	truth, err := corpus.ReadTruth(strings.NewReader("task,label\n0,1\n1,2\n2,3\n"), "truth.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, err := AnnotatorBoxes(bp, answers, truth, false)
	if err != nil {
		t.Fatal(err)
	}
	// a0: answer − truth = 0, 1, −1: s.d. √(2/3) (n in the denominator, as the
	// model's precision); a1 has one answer with a truth: left out.
	want := []BoxPanel{
		{Title: "answers per annotator", YLabel: "answers", Groups: []BoxGroup{{Label: "answers.csv", Values: []float64{3, 1}}}},
		{Title: "annotator noise s.d.", YLabel: "s.d. of answer − truth", Groups: []BoxGroup{
			{Label: "estimated", Values: []float64{0.35, 1.41}},
			{Label: "empirical (vs truth)", Values: []float64{math.Sqrt(2.0 / 3)}},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AnnotatorBoxes (-want +got):\n%s", diff)
	}
	other, err := corpus.ReadTruth(strings.NewReader("task,label\nx,1\n"), "other.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AnnotatorBoxes(bp, answers, other, false); err == nil || !strings.Contains(err.Error(), `no task of answers.csv has a truth in other.csv (answers' tasks look like "0", the truth's like "x")`) {
		t.Errorf("disjoint tasks: %v", err)
	}
}

func TestNaturalOrderAndTicks(t *testing.T) {
	names := []string{"a10", "a2", "b1", "a1", "a"}
	sortNatural(names)
	if diff := cmp.Diff([]string{"a", "a1", "a2", "a10", "b1"}, names); diff != "" {
		t.Errorf("sortNatural (-want +got):\n%s", diff)
	}
	var labels []string
	for _, tk := range (niceTicks{Compact: true}).Ticks(-8.3e6, -7.8e6) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if diff := cmp.Diff([]string{"−8.3M", "−8.2M", "−8.1M", "−8.0M", "−7.9M", "−7.8M"}, labels); diff != "" {
		t.Errorf("niceTicks (-want +got):\n%s", diff)
	}
	labels = nil
	for _, tk := range (logTicks{}).Ticks(0.1, 10) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if diff := cmp.Diff([]string{"0.1", "0.2", "0.5", "1", "2", "5", "10"}, labels); diff != "" {
		t.Errorf("logTicks (-want +got):\n%s", diff)
	}
}
