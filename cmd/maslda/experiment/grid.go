package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Cell is one run: a model at one grid point with one seed.
type Cell struct {
	Index  int    // position in the spec's order
	Model  string // the model's name
	K      string // "" when the model's template does not use the axis
	Alpha  string
	Tau    string
	Omega  string
	Seed   uint64
	Config string // the configuration: the template with the variables substituted
	ID     string // stable id: readable prefix + hash of the configuration, grid point and data
}

// Label is the cell's grid point, e.g. "ma-sldac k=20 alpha=0.1 seed=1".
func (c Cell) Label() string {
	var b strings.Builder
	b.WriteString(c.Model)
	for _, kv := range [][2]string{{"k", c.K}, {"alpha", c.Alpha}, {"tau", c.Tau}, {"omega", c.Omega}} {
		if kv[1] != "" {
			b.WriteString(" " + kv[0] + "=" + kv[1])
		}
	}
	b.WriteString(" seed=" + strconv.FormatUint(c.Seed, 10))
	return b.String()
}

// num formats a grid value as it is substituted and written to the CSV.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Cells expands the grid in a fixed order: models in file order, then k,
// alpha, tau, omega and seed, each in the order the spec lists them. An
// axis the model's template does not mention is not expanded for it (seeds
// always are: the seed is also given to train as --seed). dataID is the
// data's identity (DataID); it enters every cell's id.
func (s *Spec) Cells(dataID string) []Cell {
	var cells []Cell
	for _, m := range s.Models {
		axis := func(name string, vals []string) []string {
			if !m.Uses[name] {
				return []string{""}
			}
			return vals
		}
		var ks, as, ts, oms []string
		for _, k := range m.Grid.K {
			ks = append(ks, strconv.Itoa(k))
		}
		for _, x := range m.Grid.Alpha {
			as = append(as, num(x))
		}
		for _, x := range m.Grid.Tau {
			ts = append(ts, num(x))
		}
		for _, x := range m.Grid.Omega {
			oms = append(oms, num(x))
		}
		for _, k := range axis("k", ks) {
			for _, a := range axis("alpha", as) {
				for _, t := range axis("tau", ts) {
					for _, o := range axis("omega", oms) {
						for _, seed := range m.Grid.Seeds {
							c := Cell{Index: len(cells), Model: m.Name, K: k, Alpha: a, Tau: t, Omega: o, Seed: seed}
							c.Config = substitute(m.Template, map[string]string{"k": k, "alpha": a, "tau": t, "omega": o, "seed": strconv.FormatUint(seed, 10)})
							c.ID = cellID(c, dataID)
							cells = append(cells, c)
						}
					}
				}
			}
		}
	}
	return cells
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// cellID is a readable prefix (model and grid point) and 12 hex digits of
// a SHA-256 over everything that determines the run's result.
func cellID(c Cell, dataID string) string {
	h := sha256.New()
	fmt.Fprintf(h, "maslda experiment cell v1\nmodel %q\nk %q\nalpha %q\ntau %q\nomega %q\nseed %d\ndata %s\nconfig %d\n%s",
		c.Model, c.K, c.Alpha, c.Tau, c.Omega, c.Seed, dataID, len(c.Config), c.Config)
	name := strings.Trim(unsafeChars.ReplaceAllString(c.Model, "_"), "_")
	for _, kv := range [][2]string{{"k", c.K}, {"a", c.Alpha}, {"t", c.Tau}, {"o", c.Omega}} {
		if kv[1] != "" {
			name += "-" + kv[0] + kv[1]
		}
	}
	return fmt.Sprintf("%s-s%d-%s", name, c.Seed, hex.EncodeToString(h.Sum(nil))[:12])
}

// dataFiles lists the data files by role, in a fixed order.
func (d *Data) files() [][2]string {
	return [][2]string{
		{"train_docs", d.TrainDocs}, {"train_ids", d.TrainIDs}, {"train_vocab", d.TrainVocab},
		{"answers", d.Answers}, {"answers_wide", d.AnswersWide},
		{"train_truth", d.TrainTruth}, {"train_truth_column", d.TrainTruthColumn},
		{"test_docs", d.TestDocs}, {"test_ids", d.TestIDs},
		{"test_truth", d.TestTruth}, {"test_truth_column", d.TestTruthColumn},
	}
}

// DataID is the identity of the data: a SHA-256 over the content of every
// data file (by role) and the options that change how they are read. It
// does not depend on where the files are. A missing file is an error
// naming the spec's line.
func (s *Spec) DataID(ctx context.Context) (string, error) {
	h := sha256.New()
	for _, f := range s.Data.files() {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if f[1] == "" {
			fmt.Fprintf(h, "%s -\n", f[0])
			continue
		}
		sum, err := fileHash(f[1])
		if err != nil {
			return "", fmt.Errorf("%s: %s: %w", s.Data.where[f[0]], f[0], err)
		}
		fmt.Fprintf(h, "%s %s\n", f[0], sum)
	}
	missing := ""
	if s.Data.AnswersWide != "" {
		missing = s.Data.Missing
	}
	fmt.Fprintf(h, "vocab_size %d\nmissing %q\n", s.Data.VocabSize, missing)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
