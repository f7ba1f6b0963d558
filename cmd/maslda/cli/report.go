package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/maslda/maslda/cmd/maslda/plots"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
	"github.com/maslda/maslda/models"
	"github.com/spf13/pflag"
)

// runReport writes one self-contained HTML page describing a trained
// model: its metrics, the ELBO trace, the topics, the annotators and the
// response's coefficients. Everything is read from the model directory's
// saved files (model.json, history.csv, annotators.json/csv,
// response.params) or through the framework's capabilities (Reporter):
// cmd knows no plug-in.
func defineReport(fs *pflag.FlagSet) runFunc {
	modelDir := fs.String("model", "", "trained model directory (required)")
	out := fs.String("out", "", "the HTML file to write (required; written atomically; an existing file is replaced only if it is HTML)")
	top := fs.Int("top", 10, "words per topic")
	maxAnn := fs.Int("max-annotators", 500, "annotators listed in the table (the most reliable first); the rest are counted")
	return func(_ context.Context, e *env, args []string) error {
		if err := need(map[string]string{"model": *modelDir, "out": *out}); err != nil {
			return err
		}
		if *top < 1 {
			return fmt.Errorf("%w: --top %d, want ≥ 1", errUsage, *top)
		}
		if *maxAnn < 1 {
			return fmt.Errorf("%w: --max-annotators %d, want ≥ 1", errUsage, *maxAnn)
		}
		if err := checkOverlap("out", *out, inPath{"model", *modelDir}); err != nil {
			return err
		}
		if err := checkOutFile("out", *out); err != nil {
			return err
		}
		if err := checkHTMLTarget(*out); err != nil {
			return err
		}
		s, err := models.Load(*modelDir, nil)
		if err != nil {
			return err
		}
		page, err := buildReport(s, *modelDir, *top, *maxAnn)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := reportTemplate.Execute(&buf, page); err != nil {
			return err
		}
		if err := writeFileAtomic(*out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return err
		}
		e.log.Info("wrote", "file", *out, "bytes", buf.Len())
		return nil
	}
}

// checkHTMLTarget refuses to replace an existing file that is not an HTML
// page (a report written before may be replaced).
func checkHTMLTarget(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	h := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(string(head[:n]), "\ufeff")))
	if n == 0 || strings.HasPrefix(h, "<!doctype html") || strings.HasPrefix(h, "<html") {
		return nil
	}
	return fmt.Errorf("%w: --out %s exists and is not an HTML file; refusing to replace it (remove it or name another file)", framework.ErrBadInput, path)
}

type reportKV struct{ Key, Value string }

type reportWord struct {
	Word string
	P    string
}

type reportTopic struct {
	Index  int
	Weight string
	Words  []reportWord
}

type reportAnnotator struct {
	Name, Answers, Reliability, Params string
	Heat                               template.HTML
}

type reportResponse struct {
	Name    string
	Columns []string
	Rows    []reportCoefRow
	Extra   []reportKV // intercept, noise variance...
}

type reportCoefRow struct {
	Topic string
	Cells []template.HTML
}

type reportPage struct {
	Title      string
	Model      string
	Metrics    []reportKV
	ELBO       template.HTML
	ELBONote   string
	Truth      template.HTML
	Topics     []reportTopic
	HasWeights bool
	TopicsNote string
	TopicMap   template.HTML  // the intertopic distance map (inline SVG)
	Explorer   *topicExplorer // the interactive topic view's data (nil: none)

	AnnNote        string // why there is no annotator section, or how it is sorted
	AnnKind        string
	AnnReliability string // column title
	Annotators     []reportAnnotator
	AnnFigure      template.HTML
	AnnCrowd       template.HTML // every annotator in one panel (many annotators)
	AnnMore        string
	Generic        *reportTable // annotators in a format only known as a table

	Response     *reportResponse
	ResponseNote string
}

type reportTable struct {
	Header []string
	Rows   [][]string
}

func rfmt(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func buildReport(s *models.Saved, dir string, top, maxAnn int) (*reportPage, error) {
	m := s.Manifest
	p := &reportPage{Title: "maslda report: " + filepath.Base(filepath.Clean(dir)), Model: dir}
	kind := "plain LDA"
	if m.Response != "" {
		kind = "supervised (response " + m.Response + ")"
	}
	if m.Annotators != "" {
		kind += ", annotators " + m.Annotators
	}
	add := func(k, v string) { p.Metrics = append(p.Metrics, reportKV{k, v}) }
	add("model", kind)
	add("inference", m.Inference)
	add("topics (K)", strconv.Itoa(m.K))
	add("vocabulary (V)", strconv.Itoa(m.V))
	add("training documents", strconv.Itoa(m.TrainDocs))
	if len(m.Classes) > 0 {
		add("classes", strings.Join(m.Classes, ", "))
	}
	if len(m.AnnotatorNames) > 0 {
		add("annotators", strconv.Itoa(len(m.AnnotatorNames)))
	}
	add("iterations", strconv.Itoa(m.Iters))
	add("final ELBO", strconv.FormatFloat(m.ELBO, 'f', 2, 64))

	if err := reportHistory(p, dir, add, stageNames(m)); err != nil {
		return nil, err
	}
	reportTopics(p, s, top)
	if err := reportAnnotators(p, s, dir, maxAnn); err != nil {
		return nil, err
	}
	if err := reportCoefficients(p, s); err != nil {
		return nil, err
	}
	return p, nil
}

// inlineSVG encodes a figure as SVG without its XML prologue, to be
// placed inside the page.
func inlineSVG(f *plots.Figure) (template.HTML, error) {
	var b bytes.Buffer
	if err := f.Encode(&b, "svg"); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return template.HTML(s), nil
}

// reportHistory adds history.csv's metrics and the ELBO (and truth) traces.
func reportHistory(p *reportPage, dir string, add func(k, v string), stage stageNaming) error {
	path := filepath.Join(dir, "history.csv")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		p.ELBONote = "The model directory has no history.csv: no ELBO trace."
		return nil
	}
	if empty, err := historyEmpty(path); err != nil {
		return err
	} else if empty {
		add("updates in history.csv", "0")
		p.ELBONote = "history.csv has no rows (no update was recorded): no ELBO trace."
		return nil
	}
	h, err := withFile(path, plots.ReadHistory)
	if err != nil {
		return err
	}
	last := func(v []float64) (float64, bool) {
		for i := len(v) - 1; i >= 0; i-- {
			if !math.IsNaN(v[i]) {
				return v[i], true
			}
		}
		return 0, false
	}
	add("updates in history.csv", strconv.Itoa(len(h.Values[h.Columns[0]])))
	if v, ok := last(h.Values["seconds"]); ok {
		add("training time (s)", rfmt(v))
	}
	var truthCols []string
	for _, c := range h.Columns {
		if strings.HasPrefix(c, "truth_") {
			truthCols = append(truthCols, c)
			if v, ok := last(h.Values[c]); ok {
				add("final "+c, rfmt(v))
			}
		}
	}
	if _, ok := h.Values["elbo"]; !ok {
		p.ELBONote = "history.csv has no elbo column."
		return nil
	}
	// The updates in file order: staged training (a pilot stage, then
	// the joint one) starts its iterations again at 1 in each stage.
	n := len(h.Values["elbo"])
	seq := &plots.History{Name: h.Name, Columns: h.Columns, Values: map[string][]float64{}}
	for c, v := range h.Values {
		seq.Values[c] = v
	}
	upd := make([]float64, n)
	for i := range upd {
		upd[i] = float64(i + 1)
	}
	seq.Values["iteration"] = upd
	// Epochs restart with each stage too: make them run on, so that the
	// traces' smoothing counts the updates of an epoch right.
	if ep, ok := h.Values["epoch"]; ok {
		run, off, prev := make([]float64, len(ep)), 0.0, math.Inf(-1)
		for i, e := range ep {
			if e < prev {
				off += prev
			}
			run[i], prev = e+off, e
		}
		seq.Values["epoch"] = run
	}
	if st, ok := h.Values["stage"]; ok && n > 0 && st[0] != st[n-1] {
		p.ELBONote = "Staged training: the updates of every stage in order (the stage column of history.csv); the dashed line marks where " + stage.explain + "."
	}
	x := "iteration"
	run := []plots.Run{{Label: "this model", History: seq}}
	f, err := plots.HistoryFigure(run, plots.HistoryOptions{X: []string{x}, Y: "elbo", StageName: stage.name})
	if err != nil {
		return err
	}
	if p.ELBO, err = inlineSVG(f); err != nil {
		return err
	}
	if len(truthCols) > 0 {
		f, err := plots.HistoryFigure(run, plots.HistoryOptions{X: []string{x}, Y: truthCols[0], StageName: stage.name})
		if err != nil {
			return err
		}
		if p.Truth, err = inlineSVG(f); err != nil {
			return err
		}
	}
	return nil
}

// stageNaming names the stages of a model's staged training for the
// traces' markers, and says in words what happens where they change.
type stageNaming struct {
	name    func(stage int) string
	explain string
}

// stageNames are the stages of the manifest's training: the two-stage
// schedule's topics then response, the gaussian response's pilot, or the
// annotators' classifier start (framework.Starter).
func stageNames(m models.Manifest) stageNaming {
	switch {
	case m.Inference == "two-stage":
		return stageNaming{func(int) string { return "stage 2: response on frozen topics" },
			"the two-stage schedule ends LDA (stage 1) and fits the response on the frozen topics (stage 2)"}
	case m.Response == "gaussian":
		return stageNaming{func(int) string { return "pilot ends" },
			"the gaussian response's exact pilot ends and the configured schedule starts from fresh topics"}
	}
	return stageNaming{func(stage int) string {
		switch stage {
		case 3:
			return "text_l2 chosen"
		case 4:
			return "fit run on afresh"
		case 5:
			return "relabelled twin"
		}
		return "classifier start"
	}, "the annotators restart from the model's own classifier (the classifier start, start_iters): the truth metric often jumps there; " +
		"then, when they change, the text's say is chosen (text_l2_folds) and the fit and its class-permuted twin are each run on afresh (relabel)"}
}

// historyEmpty reports whether a history.csv has a header (or nothing)
// and no row: the page is then written without the traces.
func historyEmpty(path string) (bool, error) {
	return withFile(path, func(r io.Reader, name string) (bool, error) {
		cr := csv.NewReader(corpus.SkipBOM(r))
		cr.FieldsPerRecord = -1
		for n := 0; ; n++ {
			rec, err := cr.Read()
			if err == io.EOF {
				return true, nil
			}
			if err != nil {
				return false, nil // ReadHistory reports it, with its line
			}
			if n >= 1 && !(len(rec) == 1 && strings.TrimSpace(rec[0]) == "") {
				return false, nil
			}
		}
	})
}

// reportTopics lists each topic's top words and its share of the corpus's
// words: Σ_v (ζ_kv − τ), the expected number of words the topic drew.
func reportTopics(p *reportPage, s *models.Saved, top int) {
	l := s.Model.Topics
	beta := l.Beta()
	weights := make([]float64, len(beta))
	total := 0.0
	for k := range beta {
		weights[k] = math.Max(0, l.TopicSum[k]-float64(l.V)*l.Tau)
		total += weights[k]
	}
	p.HasWeights = total > 0
	for k, b := range beta {
		t := reportTopic{Index: k}
		if p.HasWeights {
			t.Weight = strconv.FormatFloat(100*weights[k]/total, 'f', 1, 64) + "%"
		}
		for _, v := range topWords(b, top) {
			w := strconv.Itoa(v)
			if s.Vocab != nil {
				w = s.Vocab[v]
			}
			t.Words = append(t.Words, reportWord{w, strconv.FormatFloat(b[v], 'f', 3, 64)})
		}
		p.Topics = append(p.Topics, t)
	}
	if s.Vocab == nil {
		p.TopicsNote = "The model was trained without a vocabulary, so words are shown by their ids: train with --vocab FILE (or --corpus DIR, which has prepare's vocab.txt) to see them."
	}
	if len(beta) >= 2 {
		xy, err := plots.ClassicalMDS(plots.JSDistances(beta))
		if err == nil {
			labels := make([]string, len(beta))
			for k := range labels {
				labels[k] = topicLabel(p, k)
				if p.HasWeights {
					labels[k] += " (" + p.Topics[k].Weight + " of the words)"
				}
			}
			p.TopicMap = template.HTML(plots.TopicMapSVG(xy, weights, labels, 640, 440))
		}
	}
	labels := make([]string, len(beta))
	for k := range labels {
		labels[k] = topicLabel(p, k)
	}
	p.Explorer = buildExplorer(beta, weights, s.Vocab, labels, 20)
}

// topicLabel names topic k by its three top words.
func topicLabel(p *reportPage, k int) string {
	if k >= len(p.Topics) {
		return strconv.Itoa(k)
	}
	var w []string
	for i, x := range p.Topics[k].Words {
		if i == 3 {
			break
		}
		w = append(w, x.Word)
	}
	return strconv.Itoa(k) + ": " + strings.Join(w, " ")
}

// reportAnnotators describes the annotators from annotators.json (or the
// annotator model's own report when the file is absent), sorted by
// reliability; a format plots does not read is shown as its table.
func reportAnnotators(p *reportPage, s *models.Saved, dir string, maxAnn int) error {
	if s.Manifest.Annotators == "" {
		p.AnnNote = "This model has no annotator model (no crowd answers): there are no annotators to describe."
		return nil
	}
	var jsonData []byte
	var table *reportTable
	rep, hasRep := s.Model.Noise.(framework.Reporter)
	if data, err := os.ReadFile(filepath.Join(dir, "annotators.json")); err == nil {
		jsonData = data
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if rows, err := withFile(filepath.Join(dir, "annotators.csv"), func(r io.Reader, _ string) ([][]string, error) { return csv.NewReader(r).ReadAll() }); err == nil && len(rows) > 0 {
		table = &reportTable{Header: rows[0], Rows: rows[1:]}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if hasRep && (jsonData == nil || table == nil) {
		header, rows, doc := rep.Report()
		if jsonData == nil {
			var err error
			if jsonData, err = json.Marshal(doc); err != nil {
				return err
			}
		}
		if table == nil {
			table = &reportTable{Header: header, Rows: rows}
		}
	}
	if jsonData == nil && table == nil {
		p.AnnNote = "The annotator model " + s.Manifest.Annotators + " does not describe its annotators (no annotators.json): no annotator section."
		return nil
	}
	var est *plots.Annotators
	if jsonData != nil {
		est, _ = plots.ReadAnnotators(bytes.NewReader(jsonData), "annotators.json")
	}
	if est == nil {
		reportGeneric(p, table, maxAnn)
		return nil
	}
	p.AnnKind = est.Kind
	rel := func(a *plots.Annotator) float64 { return a.Precision }
	switch est.Kind {
	case plots.KindConfusion:
		p.AnnReliability = "accuracy"
		rel = func(a *plots.Annotator) float64 { return a.Accuracy }
	default:
		p.AnnReliability = "precision"
	}
	list := append([]plots.Annotator(nil), est.List...)
	sort.SliceStable(list, func(i, j int) bool {
		ri, rj := rel(&list[i]), rel(&list[j])
		if math.IsNaN(rj) && !math.IsNaN(ri) {
			return true
		}
		return ri > rj
	})
	p.AnnNote = fmt.Sprintf("%d annotators (%s), the most reliable first (by estimated %s).", len(list), est.Kind, p.AnnReliability)
	answersKnown := false
	for _, a := range list {
		answersKnown = answersKnown || a.Answers > 0
	}
	for i, a := range list {
		if i == maxAnn {
			p.AnnMore = fmt.Sprintf("%d more annotators are not listed (--max-annotators %d).", len(list)-maxAnn, maxAnn)
			break
		}
		r := reportAnnotator{Name: a.Name, Answers: "—", Reliability: rfmt(rel(&a))}
		if answersKnown {
			r.Answers = strconv.Itoa(a.Answers)
		}
		switch est.Kind {
		case plots.KindConfusion:
			r.Heat = heatTable(a.Confusion, s.Manifest.Classes)
		case plots.KindBiasPrecision:
			r.Params = "bias " + rfmt(a.Bias) + ", precision " + rfmt(a.Precision) + ", s.d. " + rfmt(a.SD)
		case plots.KindOrdinalShift:
			r.Params = "shift " + rfmt(a.Shift) + ", stretch " + rfmt(a.Stretch) + ", precision " + rfmt(a.Precision) + ", accuracy " + rfmt(a.Accuracy)
		}
		p.Annotators = append(p.Annotators, r)
	}
	var f *plots.Figure
	var err error
	switch est.Kind {
	case plots.KindConfusion:
		cls := s.Manifest.Classes
		if len(cls) != est.C() {
			cls = nil
		}
		f, err = plots.ConfusionFigure(est, plots.ConfusionOptions{Classes: cls, Title: "Estimated confusion matrices (the annotators with the most answers)"})
	case plots.KindBiasPrecision:
		// Bars need a column per annotator: beyond a dozen, one point each.
		if len(est.List) > 12 {
			f, err = plots.BiasVsPrecisionFigure(est, plots.BiasVsPrecisionOptions{})
		} else {
			f, err = plots.BiasPrecisionFigure(est, plots.BiasPrecisionOptions{})
		}
	case plots.KindOrdinalShift:
		f, err = plots.OrdinalShiftFigure(est, plots.OrdinalShiftOptions{})
	}
	if err != nil {
		return err
	}
	if f != nil {
		if p.AnnFigure, err = inlineSVG(f); err != nil {
			return err
		}
	}
	// Beyond a dozen annotators, the whole crowd in one panel too.
	if (est.Kind == plots.KindConfusion || est.Kind == plots.KindOrdinalShift) && len(est.List) > 12 && answersKnown {
		if g, err := plots.AccuracyVsAnswersFigure(est, 0); err == nil {
			if p.AnnCrowd, err = inlineSVG(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// reportGeneric shows annotators of a format the plots do not read as
// their table, sorted by the third column (the models' reliability:
// accuracy, competence...) when it is numeric.
func reportGeneric(p *reportPage, t *reportTable, maxAnn int) {
	if t == nil || len(t.Header) == 0 {
		p.AnnNote = "The annotators' description is in a format this report does not read."
		return
	}
	rows := append([][]string(nil), t.Rows...)
	p.AnnNote = fmt.Sprintf("%d annotators, as the annotator model describes them (annotators.csv).", len(rows))
	if len(t.Header) > 2 {
		num := func(r []string) float64 {
			if len(r) < 3 {
				return math.NaN()
			}
			x, err := strconv.ParseFloat(r[2], 64)
			if err != nil {
				return math.NaN()
			}
			return x
		}
		ok := true
		for _, r := range rows {
			ok = ok && !math.IsNaN(num(r))
		}
		if ok {
			sort.SliceStable(rows, func(i, j int) bool { return num(rows[i]) > num(rows[j]) })
			p.AnnNote = fmt.Sprintf("%d annotators, as the annotator model describes them, sorted by %s (highest first).", len(rows), t.Header[2])
		}
	}
	if len(rows) > maxAnn {
		p.AnnMore = fmt.Sprintf("%d more annotators are not listed (--max-annotators %d).", len(rows)-maxAnn, maxAnn)
		rows = rows[:maxAnn]
	}
	p.Generic = &reportTable{Header: t.Header, Rows: rows}
}

// heatTable draws a confusion matrix as a small HTML table whose cells are
// shaded by probability (rows: true class; columns: answer).
func heatTable(m [][]float64, classes []string) template.HTML {
	if len(m) > 12 {
		d := make([]string, len(m))
		for i := range m {
			d[i] = rfmt(m[i][i])
		}
		return template.HTML("diagonal " + html.EscapeString(strings.Join(d, ", ")))
	}
	name := func(i int) string {
		if len(classes) == len(m) {
			return classes[i]
		}
		return strconv.Itoa(i)
	}
	var b strings.Builder
	b.WriteString(`<table class="heat"><tr><th></th>`)
	for j := range m {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(name(j)))
	}
	b.WriteString("</tr>")
	for i, row := range m {
		fmt.Fprintf(&b, "<tr><th>%s</th>", html.EscapeString(name(i)))
		for _, x := range row {
			a := math.Max(0, math.Min(1, x))
			fg := "#000"
			if a > 0.6 {
				fg = "#fff"
			}
			fmt.Fprintf(&b, `<td style="background:rgba(33,102,172,%.3f);color:%s" title="%s">%.2f</td>`, a, fg, rfmt(x), x)
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	return template.HTML(b.String())
}

// coefCell shades a coefficient by sign and size (blue positive, red
// negative, relative to the largest magnitude).
func coefCell(x, scale float64) template.HTML {
	a := 0.0
	if scale > 0 {
		a = math.Min(1, math.Abs(x)/scale)
	}
	rgb := "33,102,172"
	if x < 0 {
		rgb = "178,24,43"
	}
	return template.HTML(fmt.Sprintf(`<td class="num" style="background:rgba(%s,%.3f)">%s</td>`, rgb, 0.75*a, html.EscapeString(rfmt(x))))
}

// reportCoefficients shows the response's coefficients through its
// framework.Coefficients capability (the loaded model's response, with its
// saved parameters): one column per class, or one for a rating, and its
// named scalars.
func reportCoefficients(p *reportPage, s *models.Saved) error {
	m := s.Manifest
	if m.Response == "" || s.Model == nil || s.Model.Response == nil {
		p.ResponseNote = "This model has no response (plain LDA): there are no coefficients."
		return nil
	}
	cr, ok := s.Model.Response.(framework.Coefficients)
	if !ok {
		p.ResponseNote = "The response " + m.Response + " does not report coefficients (framework.Coefficients): no coefficients to show."
		return nil
	}
	K := m.K
	eta, scalars := cr.Coefficients()
	var cols []string
	for c, col := range eta {
		if len(col) != K {
			return fmt.Errorf("response %s: coefficients column %d has %d entries, want K = %d", m.Response, c, len(col), K)
		}
		switch {
		case len(eta) == 1:
			cols = append(cols, "weight")
		case len(m.Classes) == len(eta):
			cols = append(cols, m.Classes[c])
		default:
			cols = append(cols, strconv.Itoa(c))
		}
	}
	keys := make([]string, 0, len(scalars))
	for k := range scalars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var extra []reportKV
	for _, k := range keys {
		extra = append(extra, reportKV{k, rfmt(scalars[k])})
	}
	if eta == nil {
		p.ResponseNote = "The parameters of the response " + m.Response + " are in a format this report does not read: no coefficients to show."
		return nil
	}
	scale := 0.0
	for _, r := range eta {
		for _, x := range r {
			scale = math.Max(scale, math.Abs(x))
		}
	}
	r := &reportResponse{Name: m.Response, Columns: cols, Extra: extra}
	for k := 0; k < K; k++ {
		row := reportCoefRow{Topic: topicLabel(p, k)}
		for c := range eta {
			row.Cells = append(row.Cells, coefCell(eta[c][k], scale))
		}
		r.Rows = append(r.Rows, row)
	}
	p.Response = r
	return nil
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1100px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}th,td{padding:2px 8px;text-align:left;vertical-align:top}
table.list tr:nth-child(even){background:#f4f6f8}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.heat td,table.heat th{font-size:.75em;padding:1px 4px;text-align:center}
.words span{display:inline-block;margin-right:.6em}.words small{color:#777}
svg{max-width:100%;height:auto}p.note{color:#555;font-style:italic}
g.topic{cursor:pointer}g.topic.chosen circle{fill:#d62728;fill-opacity:.45;stroke:#8b1a1a}
.explorer label{margin-right:1.5em}.bars{margin:.5em 0;max-width:700px}
.bar{display:flex;align-items:center;font-size:.85em;height:1.3em}.bar .term{width:11em;text-align:right;padding-right:.5em;overflow:hidden;white-space:nowrap}
.bar .track{position:relative;flex:1;height:.9em}.bar .pw,.bar .p{position:absolute;left:0;top:0;height:100%}
.bar .p{background:#4c78a8}.bar .pw{top:auto;bottom:0;height:35%;background:#f58518;z-index:1}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p>Model directory: <code>{{.Model}}</code></p>

<section id="metrics">
<h2>Run</h2>
<table class="list">{{range .Metrics}}<tr><th>{{.Key}}</th><td>{{.Value}}</td></tr>{{end}}</table>
</section>

<section id="elbo">
<h2>ELBO trace</h2>
{{if .ELBONote}}<p class="note">{{.ELBONote}}</p>{{end}}{{if .ELBO}}<figure>{{.ELBO}}</figure>{{end}}
{{if .Truth}}<figure>{{.Truth}}</figure>{{end}}
</section>

<section id="topics">
<h2>Topics</h2>
{{if .TopicsNote}}<p class="note">{{.TopicsNote}}</p>{{end}}
<table class="list"><tr><th>topic</th>{{if .HasWeights}}<th>share of words</th>{{end}}<th>top words (probability)</th></tr>
{{range .Topics}}<tr><td class="num">{{.Index}}</td>{{if $.HasWeights}}<td class="num">{{.Weight}}</td>{{end}}<td class="words">{{range .Words}}<span>{{.Word}} <small>{{.P}}</small></span>{{end}}</td></tr>
{{end}}</table>
{{if .TopicMap}}<h3>Intertopic distance map</h3>
<p class="note">Each topic at its place in a classical multidimensional scaling of the Jensen–Shannon distances between the topics' word distributions (as pyLDAvis draws it): close topics use words alike. A circle's area is the topic's share of the words; hover over a circle for its top words.</p>
<figure>{{.TopicMap}}</figure>{{end}}
{{if .Explorer}}<h3 id="explore">Explore a topic</h3>
<p class="note">Choose a topic (or click its circle in the map). Its terms are ranked by relevance λ·log p(w|k) + (1 − λ)·log(p(w|k)/p(w)) (Sievert and Shirley 2014): λ = 1 ranks by probability in the topic, λ near 0 by how specific the term is to it (its lift); about 0.6 reads best. Blue bar: p(w|k), the term's probability in the topic; thin orange bar: p(w), its probability in the whole corpus (hover over a row for the numbers).</p>
<div class="explorer"><label>topic <select id="ex-topic"></select></label>
<label>λ = <output id="ex-lambda-out">0.60</output> <input id="ex-lambda" type="range" min="0" max="1" step="0.01" value="0.6"></label></div>
<div id="ex-bars" class="bars"></div>
<script>
(function () {
  "use strict";
  var ex = {{.Explorer}};
  var sel = document.getElementById("ex-topic"), slider = document.getElementById("ex-lambda"),
      out = document.getElementById("ex-lambda-out"), bars = document.getElementById("ex-bars");
  ex.topics.forEach(function (t, k) {
    var o = document.createElement("option");
    o.value = k;
    o.textContent = t.label + " (" + (100 * t.share).toFixed(1) + "% of the words)";
    sel.appendChild(o);
  });
  function draw() {
    var k = +sel.value, lambda = +slider.value, t = ex.topics[k];
    out.textContent = lambda.toFixed(2);
    var rows = t.terms.map(function (i, j) {
      var p = t.p[j], pw = ex.pw[i];
      return {term: ex.terms[i], p: p, pw: pw, rel: lambda * Math.log(p) + (1 - lambda) * Math.log(p / pw)};
    });
    rows.sort(function (a, b) { return b.rel - a.rel || (a.term < b.term ? -1 : 1); });
    rows = rows.slice(0, ex.shown);
    var top = 0;
    rows.forEach(function (r) { top = Math.max(top, r.p, r.pw); });
    bars.textContent = "";
    rows.forEach(function (r) {
      var row = document.createElement("div"); row.className = "bar";
      row.title = r.term + ": p(w|k) " + r.p.toPrecision(3) + ", p(w) " + r.pw.toPrecision(3) + ", lift " + (r.p / r.pw).toPrecision(3);
      var name = document.createElement("span"); name.className = "term"; name.textContent = r.term;
      var track = document.createElement("span"); track.className = "track";
      var all = document.createElement("span"); all.className = "pw"; all.style.width = (100 * r.pw / top) + "%";
      var mine = document.createElement("span"); mine.className = "p"; mine.style.width = (100 * r.p / top) + "%";
      track.appendChild(all); track.appendChild(mine); row.appendChild(name); row.appendChild(track);
      bars.appendChild(row);
    });
    document.querySelectorAll("#topics g.topic").forEach(function (g) {
      g.classList.toggle("chosen", +g.getAttribute("data-topic") === k);
    });
  }
  sel.addEventListener("change", draw);
  slider.addEventListener("input", draw);
  document.querySelectorAll("#topics g.topic").forEach(function (g) {
    g.addEventListener("click", function () { sel.value = g.getAttribute("data-topic"); draw(); });
  });
  draw();
})();
</script>{{end}}
</section>

<section id="annotators">
<h2>Annotators</h2>
<p class="note">{{.AnnNote}}</p>
{{if .Annotators}}
{{if .AnnCrowd}}<figure>{{.AnnCrowd}}</figure>{{end}}{{if .AnnFigure}}<figure>{{.AnnFigure}}</figure>{{end}}
<table class="list"><tr><th>annotator</th><th>answers</th><th>{{.AnnReliability}}</th><th>{{if eq .AnnKind "confusion"}}confusion matrix (row: true class, column: answer){{else}}parameters{{end}}</th></tr>
{{range .Annotators}}<tr><td>{{.Name}}</td><td class="num">{{.Answers}}</td><td class="num">{{.Reliability}}</td><td>{{if .Heat}}{{.Heat}}{{else}}{{.Params}}{{end}}</td></tr>
{{end}}</table>
{{end}}
{{with .Generic}}<table class="list"><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{if .AnnMore}}<p class="note">{{.AnnMore}}</p>{{end}}
</section>

<section id="response">
<h2>Response coefficients</h2>
{{with .Response}}
<p class="note">The coefficients η of the response {{.Name}}, one row per topic (named by its top words){{if gt (len .Columns) 1}}, one column per class{{end}}: blue positive, red negative.</p>
<table class="list"><tr><th>topic</th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Topic}}</td>{{range .Cells}}{{.}}{{end}}</tr>
{{end}}</table>
{{if .Extra}}<table class="list">{{range .Extra}}<tr><th>{{.Key}}</th><td class="num">{{.Value}}</td></tr>{{end}}</table>{{end}}
{{else}}<p class="note">{{.ResponseNote}}</p>{{end}}
</section>
<footer><p class="note">Written by maslda report: a self-contained page (no external resources).</p></footer>
</body>
</html>
`))
