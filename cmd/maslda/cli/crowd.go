package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// truth holds the ground truth of the training documents, for following
// truth inference across iterations, read and scored by the response's
// kind of target.
type truth struct {
	t      *framework.Truth
	kind   framework.TargetKind
	metric string // history.csv column: the kind's TruthMetric (truth_accuracy, truth_r2)
}

// loadTruth reads --truth (CSV task,label) or --truth-column (one label per
// line, document order) for the corpus, resolved like its answers by the
// configured response's kind of target.
func loadTruth(csvPath, colPath string, c *framework.Corpus, cfg *models.Config) (*truth, error) {
	t, err := readTruthTable(csvPath, colPath)
	if err != nil || t == nil {
		return nil, err
	}
	if c.Answers == nil || cfg.Response == nil {
		return nil, fmt.Errorf("%w: --truth needs answers and a response (it measures truth inference)", errUsage)
	}
	lik, err := framework.Default.Likelihood(cfg.Response.Name, cfg.Response.Params)
	if err != nil {
		return nil, cfg.Response.At(err)
	}
	kind, err := framework.Default.KindOf(lik)
	if err != nil {
		return nil, err
	}
	tr, err := t.Resolve(docIDs(c), kind, c.Answers.Classes)
	if err != nil {
		return nil, err
	}
	return &truth{t: tr, kind: kind, metric: kind.TruthMetric()}, nil
}

// score measures the targets against the truth (the kind's ScoreTruth).
func (t *truth) score(targets func(i int) framework.Target) float64 {
	return t.kind.ScoreTruth(t.t, targets)
}

// writePosterior writes the inferred true target of every training
// document: task and the kind's columns (categorical: label,p:<class>...;
// gaussian: label,var, the posterior mean and variance).
func writePosterior(w io.Writer, c *framework.Corpus, post []models.Prediction, kind framework.TargetKind, classes []string) error {
	return writeTargets(w, c, post, kind, classes, false)
}

// writeAnnotators writes annotators.csv and annotators.json into dir when
// the noise model can describe its annotators.
func writeAnnotators(dir string, noise framework.NoiseModel) error {
	rep, ok := noise.(framework.Reporter)
	if !ok {
		return nil
	}
	header, rows, doc := rep.Report()
	if err := writeFileAtomic(filepath.Join(dir, "annotators.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		cw.Write(header)
		cw.WriteAll(rows)
		return cw.Error()
	}); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "annotators.json"), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(doc)
	})
}

// historyHeader is history.csv's header, with the truth metric if any.
func historyHeader(metric string) []string {
	h := []string{"iteration", "epoch", "rho", "elbo", "seconds"}
	if metric != "" {
		h = append(h, metric)
	}
	return h
}
