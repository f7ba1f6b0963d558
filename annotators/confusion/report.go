package confusion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/maslda/maslda/framework"
)

// Annotator is one entry of annotators.json (Report's doc).
type Annotator struct {
	Name      string      `json:"name"`
	Answers   int         `json:"answers"`
	Accuracy  float64     `json:"accuracy"`  // Accuracy(r)
	Confusion [][]float64 `json:"confusion"` // Mean(r): row = true class, column = answer
	// Community is the annotator's most probable community (from 1) and
	// Membership q(z_r) over all of them, with prior = "communities".
	Community  int       `json:"community,omitempty"`
	Membership []float64 `json:"membership,omitempty"`
	// IgnoresItems: the annotator gave one class to every document and
	// its answers are ignored (Model.Constant); its confusion is the prior's.
	IgnoresItems bool `json:"ignores_items,omitempty"`
}

// Report describes every annotator (framework.Reporter), in Setup.Workers
// order. The CSV header is
//
//	annotator,answers,accuracy,pi:<true>:<answer>,...
//
// with one pi column per cell of the posterior-mean confusion matrix
// E[π^r] = ξ^r/Σ_l ξ^r_l, row-major over the class names (true class
// first). answers is the annotator's number of answers in the training
// corpus; accuracy is Accuracy(r). With prior = "communities" two columns
// follow: community (the most probable, from 1) and its probability
// community_p. When the model ignores an annotator who gives one class to
// every document (Model.Constant) a last column ignores_items says which.
// doc is a []Annotator.
func (m *Model) Report() (header []string, rows [][]string, doc any) {
	header = []string{"annotator", "answers", "accuracy"}
	for _, c := range m.classes {
		for _, l := range m.classes {
			header = append(header, "pi:"+c+":"+l)
		}
	}
	q := m.Memberships()
	if q != nil {
		header = append(header, "community", "community_p")
	}
	if m.constant != nil {
		header = append(header, "ignores_items")
	}
	list := make([]Annotator, m.nr)
	rows = make([][]string, m.nr)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for r := range list {
		a := Annotator{Name: m.workers[r], Answers: m.answers[r], Accuracy: m.Accuracy(r), Confusion: m.Mean(r)}
		list[r] = a
		row := []string{a.Name, strconv.Itoa(a.Answers), f(a.Accuracy)}
		for _, pr := range a.Confusion {
			for _, x := range pr {
				row = append(row, f(x))
			}
		}
		if q != nil {
			best := 0
			for k, p := range q[r] {
				if p > q[r][best] {
					best = k
				}
			}
			a.Community, a.Membership = best+1, q[r]
			list[r] = a
			row = append(row, strconv.Itoa(best+1), f(q[r][best]))
		}
		if m.constant != nil {
			list[r].IgnoresItems = m.ignores(int32(r))
			row = append(row, strconv.FormatBool(list[r].IgnoresItems))
		}
		rows[r] = row
	}
	return header, rows, list
}

// paramsFile is the saved form of the parameters (annotators.params).
type paramsFile struct {
	Format     string        `json:"format"`
	Version    int           `json:"version"`
	Annotators int           `json:"annotators"`
	Classes    int           `json:"classes"`
	Answers    []int         `json:"answers"`
	Xi         [][][]float64 `json:"xi"`              // [annotator][true class][answer]
	Prior      [][]float64   `json:"prior,omitempty"` // a learned prior α [true class][answer]
	// Communities are the learned communities of prior = "communities".
	Communities *communitiesFile `json:"communities,omitempty"`
	// Constant is Model.Constant per annotator (its one class, or −1),
	// absent when no annotator is ignored.
	Constant []int32 `json:"constant,omitempty"`
	// ConstantCounts are the ignored annotators' answers per class
	// ([annotator][class], zeros for the others), absent when none is
	// ignored; a file with Constant and without them (written before
	// constant = "almost") gives each its answers at its class.
	ConstantCounts [][]float64 `json:"constant_counts,omitempty"`
}

// communitiesFile is the saved form of the communities.
type communitiesFile struct {
	Prior      [][][]float64 `json:"prior"`      // α [community][true class][answer]
	Weights    []float64     `json:"weights"`    // w [community]
	Membership [][]float64   `json:"membership"` // q(z_r) [annotator][community]
	// Family is the variational family (Config.Membership): "structured"
	// or "mean-field"; absent in files written before it existed, which
	// are mean-field.
	Family string `json:"family,omitempty"`
}

const (
	paramsFormat  = "maslda-confusion"
	paramsVersion = 1
)

// SaveParams writes ξ and the answer counts as JSON (framework.Persister).
// Go's JSON encoding of float64 round-trips exactly.
func (m *Model) SaveParams(w io.Writer) error {
	if m.xi == nil {
		return fmt.Errorf("%w: confusion annotators: nothing to save before Init", framework.ErrNotTrained)
	}
	p := paramsFile{Format: paramsFormat, Version: paramsVersion, Annotators: m.nr, Classes: m.nc,
		Answers: m.answers, Xi: make([][][]float64, m.nr), Constant: m.constant}
	for r := range p.Xi {
		p.Xi[r] = m.Xi(r)
	}
	if m.constCounts != nil {
		p.ConstantCounts = make([][]float64, m.nr)
		for r := range p.ConstantCounts {
			p.ConstantCounts[r] = m.constCounts[r*m.nc:][:m.nc]
		}
	}
	if m.cfg.Prior == PriorLearned {
		p.Prior = m.Prior()
	}
	if cm := m.comm; cm != nil {
		C, M := m.nc, cm.m
		f := &communitiesFile{Weights: cm.w, Membership: make([][]float64, m.nr), Family: m.family}
		for k := range M {
			rows := make([][]float64, C)
			for c := range rows {
				rows[c] = cm.alpha[(k*C+c)*C:][:C]
			}
			f.Prior = append(f.Prior, rows)
		}
		for r := range f.Membership {
			f.Membership[r] = cm.q[r*M:][:M]
		}
		p.Communities = f
	}
	return json.NewEncoder(w).Encode(p)
}

// LoadParams restores what SaveParams wrote into a model initialised with
// the same annotators and classes. Errors wrap framework.ErrBadInput and say
// what is wrong (format, dimensions, a non-positive ξ entry); the model is
// unchanged on error.
func (m *Model) LoadParams(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	var p paramsFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("%w: confusion parameters: %v", framework.ErrBadInput, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: confusion parameters: unexpected data after the parameters", framework.ErrBadInput)
	}
	if p.Format != paramsFormat || p.Version != paramsVersion {
		return fmt.Errorf("%w: confusion parameters: format %q version %d, want %q version %d", framework.ErrBadInput, p.Format, p.Version, paramsFormat, paramsVersion)
	}
	if p.Annotators != m.nr || p.Classes != m.nc {
		return fmt.Errorf("%w: confusion parameters are for %d annotators × %d classes, the model has %d × %d", framework.ErrBadInput, p.Annotators, p.Classes, m.nr, m.nc)
	}
	if len(p.Answers) != m.nr {
		return fmt.Errorf("%w: confusion parameters: %d answer counts for %d annotators", framework.ErrBadInput, len(p.Answers), m.nr)
	}
	for r, n := range p.Answers {
		if n < 0 {
			return fmt.Errorf("%w: confusion parameters: annotator %d has %d answers", framework.ErrBadInput, r, n)
		}
	}
	var alpha []float64
	switch {
	case m.cfg.Prior == PriorLearned && p.Prior == nil:
		return fmt.Errorf("%w: confusion parameters: the configuration learns the prior (prior = %q) but the file has none", framework.ErrBadInput, PriorLearned)
	case m.cfg.Prior != PriorLearned && p.Prior != nil:
		return fmt.Errorf("%w: confusion parameters: the file has a learned prior but the configuration's prior is %q", framework.ErrBadInput, m.cfg.Prior)
	case p.Prior != nil:
		if len(p.Prior) != m.nc {
			return fmt.Errorf("%w: confusion parameters: a prior of %d rows for %d classes", framework.ErrBadInput, len(p.Prior), m.nc)
		}
		for c, row := range p.Prior {
			if len(row) != m.nc {
				return fmt.Errorf("%w: confusion parameters: prior row %d has %d entries for %d classes", framework.ErrBadInput, c, len(row), m.nc)
			}
			for l, a := range row {
				if !(a > 0) || math.IsInf(a, 0) {
					return fmt.Errorf("%w: confusion parameters: prior entry (%d, %d) is %v, want a finite number > 0", framework.ErrBadInput, c, l, a)
				}
				alpha = append(alpha, a)
			}
		}
	}
	if p.Constant != nil {
		if len(p.Constant) != m.nr {
			return fmt.Errorf("%w: confusion parameters: constant classes for %d annotators, the model has %d", framework.ErrBadInput, len(p.Constant), m.nr)
		}
		for r, c := range p.Constant {
			if c < -1 || int(c) >= m.nc {
				return fmt.Errorf("%w: confusion parameters: annotator %d's constant class is %d, want −1 or a class in [0, %d)", framework.ErrBadInput, r, c, m.nc)
			}
		}
	}
	var constCounts []float64
	switch {
	case p.ConstantCounts != nil && p.Constant == nil:
		return fmt.Errorf("%w: confusion parameters: constant_counts without constant classes", framework.ErrBadInput)
	case p.ConstantCounts != nil:
		if len(p.ConstantCounts) != m.nr {
			return fmt.Errorf("%w: confusion parameters: constant_counts for %d annotators, the model has %d", framework.ErrBadInput, len(p.ConstantCounts), m.nr)
		}
		for r, row := range p.ConstantCounts {
			if len(row) != m.nc {
				return fmt.Errorf("%w: confusion parameters: annotator %d's constant_counts has %d entries for %d classes", framework.ErrBadInput, r, len(row), m.nc)
			}
			for l, x := range row {
				if !(x >= 0) || math.IsInf(x, 0) {
					return fmt.Errorf("%w: confusion parameters: annotator %d's constant_counts[%d] is %v, want a finite number ≥ 0", framework.ErrBadInput, r, l, x)
				}
			}
			constCounts = append(constCounts, row...)
		}
	case p.Constant != nil:
		constCounts = make([]float64, m.nr*m.nc)
		for r, c := range p.Constant {
			if c >= 0 {
				constCounts[r*m.nc+int(c)] = float64(p.Answers[r])
			}
		}
	}
	comm, err := m.loadCommunities(p.Communities)
	if err != nil {
		return err
	}
	family := m.family
	if comm != nil {
		switch family = p.Communities.Family; family {
		case "":
			family = MembershipMeanField // written before the family was saved
		case MembershipStructured, MembershipMeanField:
		default:
			return fmt.Errorf("%w: confusion parameters: communities of family %q; valid: %s, %s", framework.ErrBadInput, family, MembershipStructured, MembershipMeanField)
		}
	}
	old, oldComm, oldFamily := slices.Clone(m.alpha), m.comm, m.family
	if alpha != nil {
		m.alpha = alpha
	}
	if comm != nil || m.cfg.Prior == PriorAuto {
		m.comm = comm // with prior = "auto" the file decides
	}
	m.family = family // the file decides: its ξ and memberships are that family's
	if err := m.SetXi(p.Xi); err != nil {
		m.alpha, m.comm, m.family = old, oldComm, oldFamily
		return fmt.Errorf("confusion parameters: %w", err)
	}
	copy(m.answers, p.Answers)
	m.constant, m.constCounts = p.Constant, constCounts // the file decides, whatever Init found
	return nil
}

// loadCommunities checks the saved communities against the configuration
// and the model's size: nil (and no error) when neither has any.
func (m *Model) loadCommunities(f *communitiesFile) (*communities, error) {
	want := m.cfg.Prior == PriorCommunities
	switch {
	case m.cfg.Prior == PriorAuto && f == nil:
		return nil, nil
	case m.cfg.Prior == PriorAuto:
	case want && f == nil:
		return nil, fmt.Errorf("%w: confusion parameters: the configuration has communities (prior = %q) but the file has none", framework.ErrBadInput, PriorCommunities)
	case !want && f != nil:
		return nil, fmt.Errorf("%w: confusion parameters: the file has communities but the configuration's prior is %q", framework.ErrBadInput, m.cfg.Prior)
	case f == nil:
		return nil, nil
	}
	R, C, M := m.nr, m.nc, m.cfg.Communities
	if len(f.Prior) != M || len(f.Weights) != M || len(f.Membership) != R {
		return nil, fmt.Errorf("%w: confusion parameters: %d community priors, %d weights and %d memberships; the model has %d communities and %d annotators", framework.ErrBadInput, len(f.Prior), len(f.Weights), len(f.Membership), M, R)
	}
	cm := &communities{m: M, pri: make([]float64, R*C*C)}
	for k, rows := range f.Prior {
		if len(rows) != C {
			return nil, fmt.Errorf("%w: confusion parameters: community %d's prior has %d rows for %d classes", framework.ErrBadInput, k, len(rows), C)
		}
		for c, row := range rows {
			if len(row) != C {
				return nil, fmt.Errorf("%w: confusion parameters: community %d's prior row %d has %d entries for %d classes", framework.ErrBadInput, k, c, len(row), C)
			}
			for l, a := range row {
				if !(a > 0) || math.IsInf(a, 0) {
					return nil, fmt.Errorf("%w: confusion parameters: community %d's prior entry (%d, %d) is %v, want a finite number > 0", framework.ErrBadInput, k, c, l, a)
				}
			}
			cm.alpha = append(cm.alpha, row...)
		}
	}
	for k, x := range f.Weights {
		if !(x > 0 && x <= 1) {
			return nil, fmt.Errorf("%w: confusion parameters: community %d's weight is %v, want a number in (0, 1]", framework.ErrBadInput, k, x)
		}
	}
	cm.w = slices.Clone(f.Weights)
	for r, q := range f.Membership {
		if len(q) != M {
			return nil, fmt.Errorf("%w: confusion parameters: annotator %d has %d membership probabilities for %d communities", framework.ErrBadInput, r, len(q), M)
		}
		s := 0.0
		for _, x := range q {
			if !(x >= 0 && x <= 1) {
				return nil, fmt.Errorf("%w: confusion parameters: annotator %d's membership %v is not a probability", framework.ErrBadInput, r, q)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-9 {
			return nil, fmt.Errorf("%w: confusion parameters: annotator %d's membership sums to %v, want 1", framework.ErrBadInput, r, s)
		}
		cm.q = append(cm.q, q...)
	}
	cm.mix(R, C)
	return cm, nil
}
