package textprep

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"github.com/maslda/maslda/framework"
)

// LabelRule maps the labels matching Pattern (a path.Match glob, so "*"
// does not match "/") to Label.
type LabelRule struct {
	Pattern string `json:"pattern"`
	Label   string `json:"label"`
}

// ReadLabelMap reads label rules, one "pattern label" per line separated
// by spaces or tabs; blank lines and lines starting with # are ignored. A
// line without exactly two fields and a malformed pattern are errors.
func ReadLabelMap(r io.Reader, name string) ([]LabelRule, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var rules []LabelRule
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		if len(f) != 2 {
			return nil, framework.Errorf(name, line, "%d fields: want a pattern and a label, e.g. \"comp.* comp\"", len(f))
		}
		if _, err := path.Match(f[0], ""); err != nil {
			return nil, framework.Errorf(name, line, "pattern %q: %v", f[0], err)
		}
		rules = append(rules, LabelRule{Pattern: f[0], Label: f[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(rules) == 0 {
		return nil, framework.Errorf(name, 0, "no rules: want lines \"pattern label\"")
	}
	return rules, nil
}

// MapLabel returns the label of the first rule whose pattern matches
// label; ok is false when none does.
func MapLabel(rules []LabelRule, label string) (mapped string, ok bool) {
	for _, r := range rules {
		if m, _ := path.Match(r.Pattern, label); m {
			return r.Label, true
		}
	}
	return "", false
}

// ReadFile opens the file at p, parses it with parse and describes it for
// the manifest (role, path, SHA-256 of its bytes).
func ReadFile[T any](p, role string, parse func(io.Reader, string) (T, error)) (T, InputFile, error) {
	var zero T
	f, err := os.Open(p)
	if err != nil {
		return zero, InputFile{}, err
	}
	defer f.Close()
	h := sha256.New()
	c := &counter{r: f}
	v, err := parse(bufio.NewReader(io.TeeReader(c, h)), p)
	if err != nil {
		return zero, InputFile{}, err
	}
	if _, err := io.Copy(h, c); err != nil {
		return zero, InputFile{}, err
	}
	return v, InputFile{Role: role, Path: p, SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: c.n}, nil
}
