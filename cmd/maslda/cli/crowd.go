package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/models"
)

// truth holds the ground truth of the training documents, for following
// truth inference across iterations: class indices (categorical; -1 when a
// document has none) or values with presence flags (numeric).
type truth struct {
	class  []int
	value  []float64
	has    []bool
	metric string // history.csv column: truth_accuracy or truth_r2
}

// loadTruth reads --truth (CSV task,label) or --truth-column (one label per
// line, document order) for the corpus, resolved like its answers.
func loadTruth(csvPath, colPath string, c *framework.Corpus) (*truth, error) {
	t, err := readTruthTable(csvPath, colPath)
	if err != nil || t == nil {
		return nil, err
	}
	if c.Answers == nil {
		return nil, fmt.Errorf("%w: --truth needs answers and a response (it measures truth inference)", errUsage)
	}
	ids := docIDs(c)
	if c.Answers.Numeric() {
		v, has, err := t.Numeric(ids)
		if err != nil {
			return nil, err
		}
		return &truth{value: v, has: has, metric: "truth_r2"}, nil
	}
	cl, err := t.Categorical(ids, c.Answers.Classes)
	if err != nil {
		return nil, err
	}
	return &truth{class: cl, metric: "truth_accuracy"}, nil
}

// score measures target i against the truth: returns (value, ok).
func (t *truth) score(targets func(i int) framework.Target) float64 {
	if t.class != nil {
		right, n := 0, 0
		for i, c := range t.class {
			tg, ok := targets(i).(*framework.Categorical)
			if c < 0 || !ok {
				continue
			}
			n++
			if tg.Argmax() == c {
				right++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return float64(right) / float64(n)
	}
	var pred, obs []float64
	for i, x := range t.value {
		tg, ok := targets(i).(*framework.Gaussian)
		if !t.has[i] || !ok {
			continue
		}
		pred = append(pred, tg.Mean)
		obs = append(obs, x)
	}
	return r2(pred, obs)
}

// r2 is the coefficient of determination 1 − SS_res/SS_tot.
func r2(pred, obs []float64) float64 {
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

// writePosterior writes the inferred true target of every training
// document: task,label,p:<class>... (categorical) or task,label,var
// (Gaussian: posterior mean and variance).
func writePosterior(w io.Writer, c *framework.Corpus, post []models.Prediction, classes []string) error {
	if len(post) > 0 {
		switch post[0].Target.(type) {
		case *framework.Categorical, *framework.Gaussian:
		default:
			return fmt.Errorf("posterior of type %T cannot be written", post[0].Target)
		}
	}
	return writeTargets(w, c, post, classes, false)
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
