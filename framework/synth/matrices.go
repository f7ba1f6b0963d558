package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/maslda/maslda/framework"
)

// Confusion matrices of simulated annotators (MODEL.md §7), as given to
// `maslda simulate` and `maslda plot confusion`: built from accuracies or
// read from a JSON file. (Moved from annotators/confusion, which keeps
// its names for them.)

// RowTol is how far from 1 a row of a confusion matrix may sum.
const RowTol = 1e-6

// FromAccuracies builds one C×C confusion matrix per accuracy: acc[r] on
// the diagonal and the rest of each row, 1 − acc[r], spread evenly over the
// C − 1 wrong classes (an annotator whose errors favour no class). MODEL.md
// §7's 20 Newsgroups annotators are FromAccuracies([]float64{0.737, 0.468,
// 0.284, 0.278, 0.260}, 4). Errors (framework.ErrBadInput): C < 2, an
// accuracy outside [0, 1].
func FromAccuracies(acc []float64, C int) ([][][]float64, error) {
	if C < 2 {
		return nil, fmt.Errorf("%w: %d classes, want ≥ 2", framework.ErrBadInput, C)
	}
	pis := make([][][]float64, len(acc))
	for r, a := range acc {
		if !(a >= 0 && a <= 1) {
			return nil, fmt.Errorf("%w: annotator %d: accuracy %v outside [0, 1]", framework.ErrBadInput, r, a)
		}
		off := (1 - a) / float64(C-1)
		pis[r] = make([][]float64, C)
		for c := range pis[r] {
			row := make([]float64, C)
			for l := range row {
				row[l] = off
			}
			row[c] = a
			pis[r][c] = row
		}
	}
	return pis, nil
}

// CheckMatrices validates confusion matrices: at least one, all C×C with
// the same C ≥ 1, entries finite and ≥ 0, rows summing to 1 ± RowTol.
// Errors wrap framework.ErrBadInput and name file (may be empty) and the
// annotator's index.
func CheckMatrices(pis [][][]float64, file string) error {
	return checkMatrices(pis, file, nil)
}

func checkMatrices(pis [][][]float64, file string, lines []int) error {
	line := func(r int) int {
		if r < len(lines) {
			return lines[r]
		}
		return 0
	}
	if len(pis) == 0 {
		return framework.Errorf(file, 0, "no confusion matrices")
	}
	C := len(pis[0])
	for r, m := range pis {
		if len(m) == 0 || len(m) != C {
			return framework.Errorf(file, line(r), "annotator %d: %d rows, want %d (as many as annotator 0, at least 1)", r, len(m), C)
		}
		for c, row := range m {
			if len(row) != C {
				return framework.Errorf(file, line(r), "annotator %d, row %d: %d entries, want %d (a square matrix)", r, c, len(row), C)
			}
			s := 0.0
			for l, x := range row {
				if !(x >= 0) || math.IsInf(x, 0) {
					return framework.Errorf(file, line(r), "annotator %d: π[%d][%d] = %v, want a finite number ≥ 0", r, c, l, x)
				}
				s += x
			}
			if math.Abs(s-1) > RowTol {
				return framework.Errorf(file, line(r), "annotator %d: row %d sums to %v, want 1 ± %g", r, c, s, RowTol)
			}
		}
	}
	return nil
}

// ReadMatrices reads confusion matrices from a JSON file: a list with one
// C×C row-stochastic matrix per annotator (row = true class, column =
// answer), e.g. [[[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.5, 0.5]]].
// Errors name the file, the line and the annotator's index.
func ReadMatrices(path string) ([][][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMatrices(f, path)
}

// ParseMatrices is ReadMatrices on a reader; name is used in errors.
func ParseMatrices(r io.Reader, name string) ([][][]float64, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff")) // a leading byte-order mark is ignored, as by every maslda reader
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) }
	bad := func(err error, off int64) error { return framework.JSONErrorAt(name, data, err, off) }
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(err, dec.InputOffset())
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, framework.Errorf(name, lineAt(dec.InputOffset()), "want a JSON list of confusion matrices")
	}
	var (
		pis   [][][]float64
		lines []int
	)
	for dec.More() {
		start := dec.InputOffset()
		for start < int64(len(data)) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
			start++
		}
		var m [][]float64
		if err := dec.Decode(&m); err != nil {
			return nil, framework.Errorf(name, lineAt(start), "annotator %d: %v", len(pis), err)
		}
		pis = append(pis, m)
		lines = append(lines, lineAt(start))
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err, dec.InputOffset())
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, framework.Errorf(name, lineAt(dec.InputOffset()), "unexpected data after the list of matrices")
	}
	if err := checkMatrices(pis, name, lines); err != nil {
		return nil, err
	}
	return pis, nil
}
